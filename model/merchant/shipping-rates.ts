// A merchant's shipping rates as stored (shipping_rates, merchants.store_countries) and as the domain's rules take
// them (domain/shipping.ts): one conversion, so no reader mistakes a rate that follows the store for a rate with an
// empty list of its own.
import type { Prisma } from '../../prisma/client.js';
import { AppError } from '../../domain/errors.js';
import { destinationProblem, rateDestinations, type DeliveryDays, type RateCountries, type ShippingRateInput, type StoreCountries } from '../../domain/shipping.js';

/** What a shipping_rates row holds (a ShippingRate row fits). */
export interface ShippingRateRow {
  id: string;
  name: string;
  free: boolean;
  basePriceCents: number;
  freeThresholdCents: number | null;
  allStoreCountries: boolean;
  countries: string[];
  deliveryMinDays: number | null;
  deliveryMaxDays: number | null;
}

export function rateCountriesOf(row: Pick<ShippingRateRow, 'allStoreCountries' | 'countries'>): 'store' | string[] {
  return row.allStoreCountries ? 'store' : row.countries;
}

export function rateInputOf(row: ShippingRateRow): ShippingRateInput {
  return { id: row.id, name: row.name, free: row.free, basePriceCents: row.basePriceCents, freeThresholdCents: row.freeThresholdCents, countries: rateCountriesOf(row), deliveryDays: deliveryDaysOf(row) };
}

/** The row's delivery estimate: both columns or none (deliveryDaysColumns writes them so). */
export function deliveryDaysOf(row: Pick<ShippingRateRow, 'deliveryMinDays' | 'deliveryMaxDays'>): DeliveryDays | null {
  return row.deliveryMinDays === null || row.deliveryMaxDays === null ? null : { min: row.deliveryMinDays, max: row.deliveryMaxDays };
}

/** The columns of a rate's delivery estimate, for a write. */
export function deliveryDaysColumns(days: DeliveryDays | null | undefined): Pick<ShippingRateRow, 'deliveryMinDays' | 'deliveryMaxDays'> {
  return { deliveryMinDays: days?.min ?? null, deliveryMaxDays: days?.max ?? null };
}

/** The store's ship-to countries as the rules read them: null while never read. */
export function storeCountriesOf(merchant: { storeCountries: string[]; storeCountriesReadAt: Date | null }): StoreCountries {
  return merchant.storeCountriesReadAt === null ? null : merchant.storeCountries;
}

/** The columns of a rate's countries, for a write. */
export function rateCountryColumns(countries: RateCountries): Pick<ShippingRateRow, 'allStoreCountries' | 'countries'> {
  return countries === 'store' ? { allStoreCountries: true, countries: [] } : { allStoreCountries: false, countries: [...countries] };
}

/** What a merchant row holds for its zones: the bundle's parts (rates as merchant_checkout_parts() writes them) and the store's countries. */
export interface MerchantZones {
  checkoutParts: Prisma.JsonValue;
  storeCountries: string[];
  storeCountriesReadAt: Date | null;
}

function partsRates(parts: Prisma.JsonValue): ShippingRateInput[] {
  const rates = parts && typeof parts === 'object' && !Array.isArray(parts) ? parts.shippingRates : undefined;
  return Array.isArray(rates) ? (rates as unknown as ShippingRateInput[]) : [];
}

/** Statuses in which init-payment or complete-cod store the shopper's details (a new attempt from PAYMENT_PENDING included). */
export function takesDetails(status: string): boolean {
  return status === 'OPEN' || status === 'FAILED' || status === 'PAYMENT_PENDING';
}

/**
 * Refuses, before anything is stored or started, a shipping address in a country none of the merchant's rates ships
 * to (INVALID_INPUT on address.country) or a rate that does not ship there (on shippingRateId). Pricing applies the
 * same rule again when it stores the details (model/checkout/pricing.ts).
 */
export function assertShipsTo(merchant: MerchantZones, country: string, shippingRateId: string): void {
  const problem = destinationProblem(rateDestinations(partsRates(merchant.checkoutParts)), storeCountriesOf(merchant), country, shippingRateId);
  if (problem) throw new AppError('INVALID_INPUT', `${problem.field}: ${problem.message}`, { fields: { [`body.${problem.field}`]: problem.message } });
}
