// The merchant's shipping rates (set in EUR) as a shopper sees them at a checkout in its own currency:
// converted with the session's stored FX rates, free where the merchant said so, cheapest first (spec,
// Shipping rate). The total is charged as one amount, so the price quoted here is the one charged.
import { compare, convertFromEur, MoneyError, zero, type FxRates, type Money } from './money.js';

/** A rate as the merchant defines it; a ShippingRate row fits as it is. */
export interface ShippingRateInput {
  /** Absent for rates not saved yet (a wizard draft): the rate's position stands in, see `rateId`. */
  id?: string;
  name: string;
  /** When on, the price is ignored and the shopper sees a free label. */
  free: boolean;
  basePriceCents: number;
  /** Subtotals at or above this (EUR cents, converted like the price) ship free; null for no threshold. */
  freeThresholdCents: number | null;
}

export interface ShippingQuote {
  id: string;
  name: string;
  price: Money;
  /** Shown with a free label. */
  free: boolean;
  /** Why it is free: the rate is free, or the subtotal reached the threshold. */
  reason?: 'free_rate' | 'threshold';
}

export interface QuoteContext {
  /** The checkout's currency. */
  currency: string;
  /** The cart subtotal, in the checkout currency. */
  subtotal: Money;
  /** The session's stored EUR-based rates, so quotes never move under the shopper. */
  fxRates: FxRates;
}

/** A rate's id, or its position in the merchant's list when it has none yet. */
export function rateId(rate: ShippingRateInput, index: number): string {
  return rate.id ?? `rate_${index}`;
}

function eurCents(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new MoneyError(`Shipping ${what} must be whole, non-negative EUR cents, got ${value}`);
  return value;
}

/**
 * The quotes for a checkout, cheapest first; equal prices keep the merchant's order. The threshold is
 * converted exactly like the price and compared in the checkout currency, so the shopper's own subtotal
 * (the number they see) decides: reaching it exactly ships free.
 */
export function quoteShippingRates(rates: readonly ShippingRateInput[], context: QuoteContext): ShippingQuote[] {
  const { currency, subtotal, fxRates } = context;
  const none = zero(currency);
  compare(subtotal, none); // refuses a subtotal in another currency
  const quotes = rates.map((rate, index): ShippingQuote => {
    const base = { id: rateId(rate, index), name: rate.name };
    if (rate.free) return { ...base, price: none, free: true, reason: 'free_rate' };
    const price = convertFromEur(eurCents(rate.basePriceCents, 'price'), currency, fxRates);
    if (rate.freeThresholdCents !== null) {
      const threshold = convertFromEur(eurCents(rate.freeThresholdCents, 'threshold'), currency, fxRates);
      if (compare(subtotal, threshold) >= 0) return { ...base, price: none, free: true, reason: 'threshold' };
    }
    return { ...base, price, free: false };
  });
  // Array.prototype.sort is stable, which keeps the merchant's order among equal prices.
  return quotes.sort((a, b) => compare(a.price, b.price));
}

/** The quote the shopper picked, or undefined when the id is not among the quotes (stale or forged). */
export function selectRate(quotes: readonly ShippingQuote[], id: string): ShippingQuote | undefined {
  return quotes.find((quote) => quote.id === id);
}
