// The countries the merchant's connected store ships to (shipping zones: rates that follow the store ship there).
// Read from the store when it connects and when the merchant asks (Shipping page), through the store's own API
// (storefront A: Shop.shipsToCountries; storefront B: the selling and shipping locations of its general settings),
// and kept on the merchant row, where the checkout's one read finds them. A failed read keeps the countries read
// before and records why, for the merchant.
import type { Db } from '../../prisma/client.js';
import { AppError } from '../../domain/errors.js';
import { COUNTRY_CODES, knownCountries } from '../../domain/countries.js';
import { IntegrationError } from '../../integrations/errors.js';
import { storePoliciesOf, storedStorePolicies, type StorePolicy, type StorePolicyInput, type StorePolicyKind } from '../../domain/merchant/store-policies.js';
import { storeClientFor, type ConnectionDeps } from '../connections.js';

export interface StoreCountriesRead {
  /** ISO codes the store ships to (our list's), as stored now. */
  countries: string[];
  /** When they were read; null: never. */
  readAt: string | null;
  /** Why this read failed; null when it worked. */
  error: string | null;
  /** The store's policy pages, read with the countries. */
  policies: StorePoliciesRead;
}

export interface StorePoliciesRead {
  /** As stored now (checked: http(s) addresses, trimmed and capped titles), in the page's order. */
  policies: StorePolicy[];
  /** When they were last read; null: never. */
  readAt: string | null;
  /** Why the last read failed (the policies read before stay), or which policies it left out; null after a clean read. */
  error: string | null;
}

/** Shopify's ShopPolicyType values (Admin API 2026-10) in our names; a type added later is left out until mapped. */
const SHOPIFY_POLICY_KINDS: Record<string, StorePolicyKind> = {
  REFUND_POLICY: 'refund',
  SHIPPING_POLICY: 'shipping',
  PRIVACY_POLICY: 'privacy',
  TERMS_OF_SERVICE: 'terms',
  TERMS_OF_SALE: 'terms_of_sale',
  SUBSCRIPTION_POLICY: 'subscription',
  LEGAL_NOTICE: 'legal_notice',
  CONTACT_INFORMATION: 'contact',
};
/** Our plugin's policy types (class-hosted-checkout-rest.php `policies`). */
const PLUGIN_POLICY_KINDS: Record<string, StorePolicyKind> = { refund: 'refund', privacy: 'privacy', terms: 'terms' };

/** The connected store's policy pages as our kinds, unchecked; CONFLICT without a connected store. */
export async function fetchStorePolicies(deps: ConnectionDeps & { db: Db }, merchantId: string): Promise<StorePolicyInput[]> {
  const { storePlatform } = await deps.db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { storePlatform: true } });
  if (!storePlatform) throw new AppError('CONFLICT', 'No store is connected: connect your store first');
  const [read, kinds] = storePlatform === 'STOREFRONT_A'
    ? [await (await storeClientFor(deps, merchantId, 'STOREFRONT_A')).getShopPolicies(), SHOPIFY_POLICY_KINDS]
    : [await (await storeClientFor(deps, merchantId, 'STOREFRONT_B')).getPolicyPages(), PLUGIN_POLICY_KINDS];
  return read.flatMap((p) => (Object.hasOwn(kinds, p.type) ? [{ kind: kinds[p.type]!, title: p.title, url: p.url }] : []));
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
  // Both reads at once (the activity's time-out holds one store call's worth, not two), each kept on its own: a
  // failed policies read never stops the countries (its refusal is kept as its own reason, not thrown).
  const countriesRead = async () => {
    try {
      const countries = await fetchStoreCountries(deps, merchantId);
      await db.merchant.update({ where: { id: merchantId }, data: { storeCountries: countries, storeCountriesReadAt: new Date(), storeCountriesError: null } });
    } catch (err) {
      if (!isStoreRefusal(err)) throw err;
      const reason = err instanceof IntegrationError ? `The store did not answer which countries it ships to (${err.kind}): ${err.message}` : err.message;
      await db.merchant.update({ where: { id: merchantId }, data: { storeCountriesError: reason.slice(0, 500) } });
    }
  };
  await Promise.all([refreshStorePolicies(deps, merchantId), countriesRead()]);
  return viewOf(await db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: SELECT }));
}

/**
 * Reads the store's policy pages and keeps them: what passes the checks (domain/merchant/store-policies.ts) and the time on
 * success, with a note of what was left out; on a store failure (a shop installed before `read_legal_policies` was
 * asked, a plugin older than its policies route, an unreachable store) the reason, the policies read before left as
 * they were. Anything else (the database) is thrown, to be retried.
 */
export async function refreshStorePolicies(deps: ConnectionDeps & { db: Db }, merchantId: string): Promise<StorePoliciesRead> {
  const { db } = deps;
  try {
    const { policies, left } = storePoliciesOf(await fetchStorePolicies(deps, merchantId));
    const note = left.length ? `Left out (not a page address we link to, or no title): ${left.join(', ')}`.slice(0, 500) : null;
    const row = await db.merchant.update({ where: { id: merchantId }, data: { storePolicies: policies, storePoliciesReadAt: new Date(), storePoliciesError: note }, select: POLICIES_SELECT });
    return policiesViewOf(row);
  } catch (err) {
    if (!isStoreRefusal(err)) throw err;
    const reason = err instanceof IntegrationError ? `The store did not answer its policy pages (${err.kind}): ${err.message}` : err.message;
    const row = await db.merchant.update({ where: { id: merchantId }, data: { storePoliciesError: reason.slice(0, 500) }, select: POLICIES_SELECT });
    return policiesViewOf(row);
  }
}

const isStoreRefusal = (err: unknown) => err instanceof IntegrationError || err instanceof AppError;

const POLICIES_SELECT = { storePolicies: true, storePoliciesReadAt: true, storePoliciesError: true } as const;
const SELECT = { storeCountries: true, storeCountriesReadAt: true, storeCountriesError: true, ...POLICIES_SELECT } as const;

/** The kept policies as the merchant's views show them. */
export function policiesViewOf(row: { storePolicies: unknown; storePoliciesReadAt: Date | null; storePoliciesError: string | null }): StorePoliciesRead {
  return { policies: storedStorePolicies(row.storePolicies), readAt: row.storePoliciesReadAt?.toISOString() ?? null, error: row.storePoliciesError };
}

function viewOf(row: { storeCountries: string[]; storeCountriesReadAt: Date | null; storeCountriesError: string | null; storePolicies: unknown; storePoliciesReadAt: Date | null; storePoliciesError: string | null }): StoreCountriesRead {
  return { countries: row.storeCountries, readAt: row.storeCountriesReadAt?.toISOString() ?? null, error: row.storeCountriesError, policies: policiesViewOf(row) };
}
