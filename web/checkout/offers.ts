// What the page offers beside the cart, parsed from the API's answers (GET /api/checkout/:token/upsells and
// /order-bumps): anything malformed is left out rather than shown wrong.
import type { OrderBump, Upsell } from './types.js';

/** Upsell offers as the API answers them (GET /api/checkout/:token/upsells); malformed ones are left out. */
export function parseUpsells(value: unknown): Upsell[] {
  const items = (value as { items?: unknown } | null)?.items;
  if (!Array.isArray(items)) return [];
  return items.filter((u): u is Upsell => {
    const x = u as Partial<Upsell> | null;
    return !!x && typeof x.id === 'string' && typeof x.headline === 'string' && typeof x.offerPrice?.amount === 'number' && typeof x.price?.amount === 'number';
  });
}

/** Whether the answer of GET /api/checkout/:token/upsells lets the page offer a one-click add after payment (only an explicit true). */
export function parseUpsellOneClick(value: unknown): boolean {
  return (value as { oneClick?: unknown } | null)?.oneClick === true;
}

/** Order bumps as the API answers them; anything malformed is left out rather than shown wrong. */
export function parseOrderBumps(value: unknown, currency: string): OrderBump[] {
  const items = (value as { items?: unknown } | null)?.items;
  if (!Array.isArray(items)) return [];
  return items.filter((b): b is OrderBump => {
    const x = b as Partial<OrderBump> | null;
    return !!x && typeof x.id === 'string' && typeof x.title === 'string' && typeof x.price?.amount === 'number' && x.price.currency === currency;
  });
}
