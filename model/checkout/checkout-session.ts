// The checkout session's stored record, read one way by everyone (the checkout page's bundle, pricing, the store
// order, the emails, the merchant's order detail): the cart lines and accepted order bumps with one strict schema,
// the shipping address in its one shape (domain/address.ts), and the session's FX snapshot.
import { z } from 'zod';
import type { Prisma } from '../../prisma/client.js';
import type { FxRates } from '../../domain/money.js';
import { shippingAddressSchema, type ShippingAddress } from '../../domain/address.js';

/** A store id as the stores give it: a number on both platforms, kept as a string. */
const storeId = z.union([z.string().min(1), z.number().int()]).transform(String);

/** One cart line as read from the store when the session was created; prices in the session currency's minor units. */
export const sessionLineSchema = z.object({
  productId: storeId,
  variantId: storeId.nullish().transform((v) => v ?? null),
  title: z.string(),
  variantTitle: z.string().nullish().transform((v) => v ?? null),
  quantity: z.number().int().min(1),
  unitPrice: z.number().int().min(0),
  imageUrl: z.string().nullish().transform((v) => v ?? null),
});

export type SessionLine = z.output<typeof sessionLineSchema>;

/** An accepted order bump as a line of the order, priced in the session currency when the total was computed. */
export const bumpLineSchema = sessionLineSchema.extend({ bumpId: z.string() });
export type BumpLine = z.output<typeof bumpLineSchema>;

/** A stored value that does not have its schema's shape: the row was written by something else than this service. */
export class MalformedSessionError extends Error {
  override name = 'MalformedSessionError';
}

// Built once: a zod schema costs more to construct than to run (the session bundle parses these on every read).
const sessionLinesSchema = z.array(sessionLineSchema);
const bumpLinesSchema = z.array(bumpLineSchema);

function parseStored<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new MalformedSessionError(`The checkout's ${what} cannot be read (${issue ? `${issue.path.join('.') || 'value'}: ${issue.message}` : 'malformed'})`);
}

const nullishText = (value: unknown): value is string | null | undefined => value == null || typeof value === 'string';

/**
 * A stored line exactly as create writes it (ids as non-empty strings, whole quantities and prices) read without zod,
 * the same object the schema answers for it; anything else (a numeric store id, a missing title) is left to the schema,
 * which converts or refuses it. The checkout page's read runs this on every request.
 */
function writtenLine(value: unknown): SessionLine | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { productId, variantId, title, variantTitle, quantity, unitPrice, imageUrl } = value as Record<string, unknown>;
  if (typeof productId !== 'string' || productId === '' || typeof title !== 'string') return undefined;
  if (!(variantId == null || (typeof variantId === 'string' && variantId !== '')) || !nullishText(variantTitle) || !nullishText(imageUrl)) return undefined;
  if (!Number.isSafeInteger(quantity) || (quantity as number) < 1 || !Number.isSafeInteger(unitPrice) || (unitPrice as number) < 0) return undefined;
  return { productId, variantId: variantId ?? null, title, variantTitle: variantTitle ?? null, quantity: quantity as number, unitPrice: unitPrice as number, imageUrl: imageUrl ?? null };
}

/** The cart lines of a session (a store cart is never empty; a test's preview may be). */
export function sessionLines(items: Prisma.JsonValue): SessionLine[] {
  if (Array.isArray(items)) {
    const lines: SessionLine[] = [];
    for (const item of items) {
      const line = writtenLine(item);
      if (!line) return parseStored(sessionLinesSchema, items, 'items');
      lines.push(line);
    }
    return lines;
  }
  return parseStored(sessionLinesSchema, items, 'items');
}

/** The accepted order bumps stored on a session (none before the shopper's details, or before bumps existed). */
export function sessionBumpLines(value: Prisma.JsonValue | undefined): BumpLine[] {
  return value == null ? [] : parseStored(bumpLinesSchema, value, 'order bumps');
}

/** The shopper's shipping address, once the details were entered (or the billing address: the same shape). */
export function sessionAddress(value: Prisma.JsonValue | undefined, what: 'shipping address' | 'billing address' = 'shipping address'): ShippingAddress | null {
  return value == null ? null : parseStored(shippingAddressSchema, value, what);
}

/** The FX snapshot the session was created with (rates per EUR); empty when it has none. */
export function sessionFxRates(fx: Prisma.JsonValue): FxRates {
  const rates = fx && typeof fx === 'object' && !Array.isArray(fx) ? (fx as { rates?: unknown }).rates : undefined;
  return rates && typeof rates === 'object' ? (rates as FxRates) : {};
}
