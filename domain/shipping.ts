// The merchant's shipping rates (set in EUR) as a shopper sees them at a checkout in its own currency:
// converted with the session's stored FX rates, free where the merchant said so, cheapest first (spec,
// Shipping rate). The total is charged as one amount, so the price quoted here is the one charged.
//
// Shipping zones: each rate serves a set of countries, either the merchant's own list or every country the store
// ships to (as read from the store: Shopify's shipsToCountries, WooCommerce's selling and shipping locations). The
// checkout offers the countries some rate serves, lists the rates serving the shopper's country, and the API refuses
// an address elsewhere (destinationProblem), so a shopper can never pay shipping to a place the merchant does not ship.
import { COUNTRY_CODES, countryName } from './countries.js';
import { compare, convertFromEur, MoneyError, zero, type FxRates, type Money } from './money.js';

/** The countries a rate serves: `store`, every country the store ships to; or the merchant's own non-empty list. */
export type RateCountries = 'store' | string[];

/**
 * The countries the store ships to, as last read from it; null while they were never read (a store connected before
 * zones existed, or whose settings could not be read): a rate that follows the store then serves every country, as
 * every rate did before zones.
 */
export type StoreCountries = readonly string[] | null;

/** A delivery estimate: business days from the order to the shopper's door ("3-5 business days"). */
export interface DeliveryDays {
  min: number;
  max: number;
}

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
  /** Where it ships; absent: every country the store ships to (the default of a new rate). */
  countries?: RateCountries;
  /** The estimate shown with the rate; absent or null: none. */
  deliveryDays?: DeliveryDays | null;
}

export interface ShippingQuote {
  id: string;
  name: string;
  price: Money;
  /** Shown with a free label. */
  free: boolean;
  /** Why it is free: the rate is free, or the subtotal reached the threshold. */
  reason?: 'free_rate' | 'threshold';
  /**
   * Its own countries; null: it ships where the store does (the checkout's store countries). Not resolved here: the
   * store's list is said once per checkout, not once per rate (the session bundle stays small).
   */
  countries: string[] | null;
  /** The merchant's delivery estimate for the rate; null: none given. */
  deliveryDays: DeliveryDays | null;
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

/** The countries `rate` ships to: its own list, or the store's (every country while the store's were never read). */
export function servedCountries(rate: Pick<ShippingRateInput, 'countries'>, storeCountries: StoreCountries | undefined): string[] {
  const countries = rate.countries ?? 'store';
  return [...(countries !== 'store' ? countries : (storeCountries ?? COUNTRY_CODES))];
}

/** A rate's own countries as a quote carries them: null when it follows the store. */
export function ownCountries(rate: Pick<ShippingRateInput, 'countries'>): string[] | null {
  return rate.countries === undefined || rate.countries === 'store' ? null : rate.countries;
}

/** Whether a rate (by its own countries, null: the store's) ships to `country`. */
export function shipsTo(countries: readonly string[] | null, storeCountries: StoreCountries | undefined, country: string): boolean {
  const list = countries ?? storeCountries ?? null;
  return list === null || list.includes(country);
}

/** Each rate's id, name and own countries: what destinationProblem needs, without pricing the rates. */
export function rateDestinations(rates: readonly ShippingRateInput[]): Array<Pick<ShippingQuote, 'id' | 'name' | 'countries'>> {
  return rates.map((rate, index) => ({ id: rateId(rate, index), name: rate.name, countries: ownCountries(rate) }));
}

/** The countries some rate ships to, in COUNTRY_CODES order: the checkout's country list. */
export function shippingCountries(rates: readonly Pick<ShippingRateInput, 'countries'>[], storeCountries: StoreCountries | undefined): string[] {
  const served = new Set<string>();
  for (const rate of rates) for (const code of servedCountries(rate, storeCountries)) served.add(code);
  return COUNTRY_CODES.filter((c) => served.has(c));
}

/** Why a shopper's destination is refused: the field to show it next to, and the message. */
export interface DestinationProblem {
  field: 'address.country' | 'shippingRateId';
  message: string;
}

/**
 * Whether the quoted rates can ship the chosen rate to `country`: no rate serves the country (the address is
 * refused), or the chosen rate does not (another rate must be chosen). An id that is no quote is left to the caller
 * (pricing refuses it with its own message). Undefined: the destination is fine.
 */
export function destinationProblem(
  quotes: readonly Pick<ShippingQuote, 'id' | 'name' | 'countries'>[],
  storeCountries: StoreCountries | undefined,
  country: string,
  shippingRateId: string,
): DestinationProblem | undefined {
  const where = countryName(country);
  if (!quotes.some((q) => shipsTo(q.countries, storeCountries, country))) return { field: 'address.country', message: `this shop does not ship to ${where}` };
  const chosen = quotes.find((q) => q.id === shippingRateId);
  if (chosen && !shipsTo(chosen.countries, storeCountries, country)) return { field: 'shippingRateId', message: `${chosen.name} does not ship to ${where}: choose another shipping method` };
  return undefined;
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
    const base = { id: rateId(rate, index), name: rate.name, countries: ownCountries(rate), deliveryDays: rate.deliveryDays ?? null };
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
