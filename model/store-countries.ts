// The countries the merchant's connected store ships to (shipping zones: rates that follow the store ship there).
// Read from the store when it connects and when the merchant asks (Shipping page), through the store's own API
// (storefront A: Shop.shipsToCountries; storefront B: the selling and shipping locations of its general settings),
// and kept on the merchant row, where the checkout's one read finds them. A failed read keeps the countries read
// before and records why, for the merchant.
import type { Db } from '../prisma/client.js';
import { AppError } from '../domain/errors.js';
import { COUNTRY_CODES, knownCountries } from '../domain/countries.js';
import { IntegrationError } from '../integrations/errors.js';
import { storeClientFor, type ConnectionDeps } from './connections.js';

export interface StoreCountriesRead {
  /** ISO codes the store ships to (our list's), as stored now. */
  countries: string[];
  /** When they were read; null: never. */
  readAt: string | null;
  /** Why this read failed; null when it worked. */
  error: string | null;
}

/** What the connected store ships to, as our country codes; CONFLICT without a connected store. */
export async function fetchStoreCountries(deps: ConnectionDeps & { db: Db }, merchantId: string): Promise<string[]> {
  const { storePlatform } = await deps.db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { storePlatform: true } });
  if (!storePlatform) throw new AppError('CONFLICT', 'No store is connected: connect your store first');
  if (storePlatform === 'STOREFRONT_A') return knownCountries(await (await storeClientFor(deps, merchantId, 'STOREFRONT_A')).getShipsToCountries());
  const shipping = await (await storeClientFor(deps, merchantId, 'STOREFRONT_B')).getShippingCountries();
  if (!shipping.all) return knownCountries(shipping.countries);
  const except = new Set(shipping.except.map((c) => c.toUpperCase()));
  return COUNTRY_CODES.filter((c) => !except.has(c));
}

/**
 * Reads the store's countries and keeps them: the countries and the time on success, the store's reason on failure
 * (an unreachable store, missing permission, no store connected) with the earlier countries left as they were.
 * Anything else (the database) is thrown, to be retried.
 */
export async function refreshStoreCountries(deps: ConnectionDeps & { db: Db }, merchantId: string): Promise<StoreCountriesRead> {
  const { db } = deps;
  try {
    const countries = await fetchStoreCountries(deps, merchantId);
    const row = await db.merchant.update({ where: { id: merchantId }, data: { storeCountries: countries, storeCountriesReadAt: new Date(), storeCountriesError: null }, select: SELECT });
    return viewOf(row);
  } catch (err) {
    if (!(err instanceof IntegrationError) && !(err instanceof AppError)) throw err;
    const reason = err instanceof IntegrationError ? `The store did not answer which countries it ships to (${err.kind}): ${err.message}` : err.message;
    const row = await db.merchant.update({ where: { id: merchantId }, data: { storeCountriesError: reason.slice(0, 500) }, select: SELECT });
    return viewOf(row);
  }
}

const SELECT = { storeCountries: true, storeCountriesReadAt: true, storeCountriesError: true } as const;

function viewOf(row: { storeCountries: string[]; storeCountriesReadAt: Date | null; storeCountriesError: string | null }): StoreCountriesRead {
  return { countries: row.storeCountries, readAt: row.storeCountriesReadAt?.toISOString() ?? null, error: row.storeCountriesError };
}
