// What POST /api/checkout/create needs besides the route: finding the merchant behind a store, reading the
// shopper's cart FROM THE STORE (prices never come from the browser), the FX snapshot, the session token.
//
// These store reads happen here, in the API, and not in an activity: they are reads without side effects,
// on the shopper's critical path, where a workflow round trip would only add latency. Every call with a
// side effect (orders, payments, emails) stays in activities. A store read is bounded by
// STORE_READ_TIMEOUT_MS, under the ~5 s after which the script tag and the plugin give up and fall back to
// the store's native checkout (they do so on any error answer too).
//
// Create reads PostgreSQL once before the store (one statement: the store's connection, its merchant with plan
// and custom domain, and the FX rates) and the store once (storefront A: the cart; storefront B: the cart's
// products, their variations and the store currency in one request to our plugin's cart-prices route, or, where
// the plugin is older than 1.4.0 or not active, the REST reads: the products list, each variable product's
// variations list and the currency, at once).
// What it reads on every request but changes rarely is reused for CHECKOUT_CACHE_SECONDS (15 s by default) in
// each API process (CreateCaches): that statement's answer per store, and each storefront B product or
// variation as the store answered it. So a price changed in the store reaches new checkouts within that time,
// and a disconnected store, a plan back on Demo or a rates refresh within it. A storefront A cart is read from
// the store every time (each cart is new). A storefront B lookup keeps the connection's key pair once opened
// (the plugin's signature is checked with it on every create), so the keys are in this process's memory, opened,
// for that time too. docs/operations.md "Checkout create" has the figures.
import { randomBytes } from 'node:crypto';
import type { Config } from '../config/index.js';
import { sqlPool, type Db } from '../prisma/client.js';
import type { CustomDomain, PlatformSubscription, StorefrontAConnection, StorefrontBConnection } from '../generated/prisma/client.js';
import type { SecretBox } from '../security/secrets.js';
import { TtlCache } from './ttl-cache.js';
import type { UrlGuard } from '../security/ssrf.js';
import { AppError } from '../domain/errors.js';
import { BASE_CURRENCY, isKnownCurrency, isValidRate, money, multiply, sum, type Money } from '../domain/money.js';
import { CHECKOUT_TOKEN_PREFIX } from '../domain/tokens.js';
import { IntegrationError } from '../integrations/errors.js';
import { processorChargesIn } from '../integrations/processor/currencies.js';
import { isValidShopHost } from '../integrations/storefront-a/oauth.js';
import type { StorefrontBCartPrices, StorefrontBClient, StorefrontBProduct, StorefrontBVariation } from '../integrations/storefront-b/client.js';
import { billingStatusOf } from '../model/merchant/billing-status.js';
import type { SessionLine } from '../model/checkout/checkout-session.js';
import { normalizeStoreUrl, openStorefrontBKeys, storefrontAClientOf, storefrontBClientOf, verifyStorefrontBHandoff, type StorefrontBKeys } from '../model/connections.js';
import type { Handoff } from '../integrations/storefront-b/handoff.js';
import type { z } from 'zod';
import type { StorefrontACreateBody, storefrontBCreateBody } from './schemas/checkout.js';

/** Per store call; the callers (script tag, plugin) wait about 5 s in all. */
export const STORE_READ_TIMEOUT_MS = 3_000;
/** Longest wait for a throttled storefront A cart read (430/429/THROTTLED retried within it), inside the callers' 5 s. */
export const STORE_READ_THROTTLE_WAIT_MS = 1_000;

export interface CartDeps {
  config: Config;
  db: Db;
  secrets: SecretBox;
  urlGuard: UrlGuard;
  caches: CreateCaches;
}

/** A cart as read from the store: what the session is created from. */
export interface StoreCart {
  currency: string;
  items: SessionLine[];
  /** The store's own cart reference (storefront A cart token); null when the cart was handed over (B). */
  storeCartRef: string | null;
}

/** The merchant behind a store as create needs it, read with the store: its plan (no subscription row: Demo) and custom domain. */
export interface BilledMerchant {
  id: string;
  /** Its checkout subdomain. */
  slug: string;
  platformSubscription: Pick<PlatformSubscription, 'planId' | 'status' | 'currentPeriodEnd'> | null;
  customDomain: Pick<CustomDomain, 'hostname' | 'status'> | null;
}

/** What create reads of a store connection (storefront A: the cart is read with its tokens). */
type StorefrontALookupConnection = Pick<StorefrontAConnection, 'merchantId' | 'shop' | 'connected' | 'accessTokenEnc' | 'storefrontPrivateTokenEnc' | 'storefrontTokenEnc'>;
/** Storefront B: the REST keys (they also verify the plugin's signature) and whether the plugin was seen. */
type StorefrontBLookupConnection = Pick<StorefrontBConnection, 'merchantId' | 'storeUrl' | 'consumerKeyEnc' | 'consumerSecretEnc' | 'pluginInterceptedAt'>;

/** One statement's answer for a store: its connection, the merchant, and the FX snapshot of the moment. */
export interface StoreLookup<C> {
  connection: C;
  merchant: BilledMerchant;
  fx: LoadedFx;
  /** Storefront B: the connection's key pair once opened (kept with the answer, so opened once per read, not per create). */
  keys?: StorefrontBKeys;
}

/** The hostname checkouts of this merchant are served at, once its custom domain is verified. */
export function verifiedHostnameOf(merchant: BilledMerchant): string | null {
  return merchant.customDomain?.status === 'VERIFIED' ? merchant.customDomain.hostname : null;
}

/** What create reuses between requests for config.checkout.cacheMs (see the top of this file). */
export interface CreateCaches {
  storefrontA: TtlCache<StoreLookup<StorefrontALookupConnection> | null>;
  storefrontB: TtlCache<StoreLookup<StorefrontBLookupConnection> | null>;
  products: TtlCache<StorefrontBProduct>;
  variations: TtlCache<StorefrontBVariation>;
}

export function createCreateCaches(config: Pick<Config, 'checkout'>): CreateCaches {
  const ttl = config.checkout.cacheMs;
  return { storefrontA: new TtlCache(ttl), storefrontB: new TtlCache(ttl), products: new TtlCache(ttl), variations: new TtlCache(ttl) };
}

// ---------------------------------------------------------------------------------------------------
// The store lookup: one statement, sent as a named (prepared) statement on the pool under Prisma (planned once per
// connection, without Prisma's per-query cost, as the session bundle's read): the connection by its unique key,
// the merchant, its subscription and custom domain by the merchant's id, and every FX rate.

/**
 * Every FX rate as [currency, rate, rate date]: the numeric and the date as text (exact, and no time zone), the whole
 * list as JSON text (in order, so the same rates are the same text: loadedFx reuses what it made of it).
 */
const FX_RATES_SQL = `(SELECT json_agg(json_build_array(currency, rate::text, to_char(rate_date, 'YYYY-MM-DD')) ORDER BY currency)::text FROM fx_rates)`;

/** The merchant's columns and the rates, after a connection aliased `c`. */
const MERCHANT_SQL = `
  m.slug, p.plan_id AS "planId", p.status AS "planStatus", p.current_period_end AS "planPeriodEnd",
  d.hostname AS "domainHostname", d.status AS "domainStatus", ${FX_RATES_SQL} AS "fxRates"`;
const MERCHANT_JOINS_SQL = `
  JOIN merchants m ON m.id = c.merchant_id
  LEFT JOIN platform_subscriptions p ON p.merchant_id = c.merchant_id
  LEFT JOIN custom_domains d ON d.merchant_id = c.merchant_id`;

const STOREFRONT_A_LOOKUP_SQL = `
  SELECT c.merchant_id AS "merchantId", c.shop, c.connected, c.access_token_enc AS "accessTokenEnc",
         c.storefront_private_token_enc AS "storefrontPrivateTokenEnc", c.storefront_token_enc AS "storefrontTokenEnc", ${MERCHANT_SQL}
  FROM storefront_a_connections c ${MERCHANT_JOINS_SQL}
  WHERE c.shop = $1`;

const STOREFRONT_B_LOOKUP_SQL = `
  SELECT c.merchant_id AS "merchantId", c.store_url AS "storeUrl", c.consumer_key_enc AS "consumerKeyEnc",
         c.consumer_secret_enc AS "consumerSecretEnc", c.plugin_intercepted_at AS "pluginInterceptedAt", ${MERCHANT_SQL}
  FROM storefront_b_connections c ${MERCHANT_JOINS_SQL}
  WHERE c.store_url = $1`;

/** FX_RATES_SQL's answer: the JSON text of [currency, rate, date] triples; null while the table is empty. */
type FxRows = string | null;

interface MerchantColumns {
  merchantId: string;
  slug: string;
  planId: string | null;
  planStatus: string | null;
  planPeriodEnd: Date | null;
  domainHostname: string | null;
  domainStatus: string | null;
  fxRates: FxRows;
}

/** The store's row, or null when no connection has that key. */
async function lookUpStore<C extends { merchantId: string }>(db: Db, name: string, text: string, key: string, connectionOf: (row: C & MerchantColumns) => C): Promise<StoreLookup<C> | null> {
  const { rows } = await sqlPool(db).query<C & MerchantColumns>({ name, text, values: [key] });
  const row = rows[0];
  if (!row) return null;
  return {
    connection: connectionOf(row),
    merchant: {
      id: row.merchantId,
      slug: row.slug,
      platformSubscription: row.planId === null ? null : { planId: row.planId, status: row.planStatus!, currentPeriodEnd: row.planPeriodEnd },
      customDomain: row.domainHostname === null ? null : { hostname: row.domainHostname, status: row.domainStatus! },
    },
    fx: loadedFx(row.fxRates),
  };
}

/** The store a create request names, resolved to its merchant; the cart is read only once passthrough is ruled out. */
export interface CartSource {
  platform: 'STOREFRONT_A' | 'STOREFRONT_B';
  merchant: BilledMerchant;
  /** The FX snapshot a session made now keeps, read with the store. */
  fx: LoadedFx;
  readCart(): Promise<StoreCart>;
  /** Storefront B: records the plugin's first hand-over (setup verification needs one); once per process and store. */
  recordInterception?(): Promise<void>;
  /** Storefront B: the verified handoff's signature when it carries a handoffId, accepted once (api/handoff-claims.ts). */
  handoffSignature?: string;
}

/**
 * Whether this merchant's store keeps its native checkout: the plan is Demo/FREE (no paid plan in force,
 * model/merchant/billing-status.ts), the spec's passthrough, no session created.
 */
export function shouldPassThrough(merchant: Pick<BilledMerchant, 'platformSubscription'>): boolean {
  return !billingStatusOf(merchant.platformSubscription).paid;
}

/** 'cs_' + 24 random bytes in base64url (32 characters, 192 bits): the session's unguessable bearer token. */
export function newSessionToken(): string {
  return CHECKOUT_TOKEN_PREFIX + randomBytes(24).toString('base64url');
}

const unknownStore = () => new AppError('NOT_FOUND', 'No connected store matches this checkout request');
const emptyCart = () => new AppError('INVALID_INPUT', 'The cart is empty', { fields: { 'body.cart': 'the cart is empty' } });

/** A failed store read as the answer the script tag/plugin gets (any error answer makes them fall back). */
function storeFailure(err: unknown, notFound?: () => AppError): never {
  if (err instanceof IntegrationError) {
    const answer =
      err.kind === 'timeout'
        ? new AppError('STORE_TIMEOUT', 'The store did not answer in time')
        : err.kind === 'not_found' && notFound
          ? notFound()
          : new AppError('UPSTREAM_ERROR', `The store could not be read (${err.kind})`);
    throw Object.assign(answer, { cause: err });
  }
  throw err;
}

async function fromStore<T>(read: Promise<T>, notFound?: () => AppError): Promise<T> {
  try {
    return await read;
  } catch (err) {
    storeFailure(err, notFound);
  }
}

// ---------------------------------------------------------------------------------------------------
// Storefront A: the app embed names the shop and the /cart.js token; we read the cart through the Storefront API.

/** `shopper.ip`: the client IP of the create request (Fastify's request.ip: the socket's, or X-Forwarded-For under TRUST_PROXY). */
export async function storefrontASource(deps: CartDeps, body: StorefrontACreateBody, shopper: { ip?: string } = {}): Promise<CartSource> {
  const { config, db, caches } = deps;
  if (!isValidShopHost(body.shop, config.storefrontA.shopSuffix)) {
    throw new AppError('INVALID_INPUT', `shop: must be a <name>${config.storefrontA.shopSuffix} host`, { fields: { 'body.shop': 'not a shop host' } });
  }
  const found = await caches.storefrontA.get(body.shop, () =>
    lookUpStore<StorefrontALookupConnection>(db, 'checkout-create-storefront-a', STOREFRONT_A_LOOKUP_SQL, body.shop, (r) => ({
      merchantId: r.merchantId, shop: r.shop, connected: r.connected, accessTokenEnc: r.accessTokenEnc, storefrontPrivateTokenEnc: r.storefrontPrivateTokenEnc, storefrontTokenEnc: r.storefrontTokenEnc,
    })));
  if (!found?.connection.connected || !found.connection.accessTokenEnc) throw unknownStore();
  const { connection, merchant, fx } = found;
  const sealed = found.connection.accessTokenEnc;
  return {
    platform: 'STOREFRONT_A',
    merchant,
    fx,
    async readCart() {
      // The cart lives in the storefront: read through the Storefront API with the token made at install, on the
      // shopper's behalf (their IP goes along with the private token: Shopify throttles each shopper, not this server).
      if (!connection.storefrontPrivateTokenEnc && !connection.storefrontTokenEnc) throw new AppError('UPSTREAM_ERROR', 'The store connection has no Storefront API token: reinstall the app');
      const client = storefrontAClientOf({ ...deps, timeoutMs: STORE_READ_TIMEOUT_MS, maxThrottleWaitMs: STORE_READ_THROTTLE_WAIT_MS }, merchant.id, connection.shop, sealed, connection);
      const cart = await fromStore(client.getCart(body.cartToken, { buyerIp: shopper.ip }), () => new AppError('NOT_FOUND', 'The store has no such cart'));
      if (cart.items.length === 0) throw emptyCart();
      return {
        currency: cart.currency,
        storeCartRef: cart.token,
        items: cart.items.map((i) => ({
          productId: i.productId,
          variantId: i.variantId,
          title: i.title,
          variantTitle: i.variantTitle,
          quantity: i.quantity,
          unitPrice: i.unitPriceMinor,
          imageUrl: i.imageUrl,
        })),
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Storefront B: the plugin hands over ids and quantities; every price is re-read over REST.

type BItem = z.output<typeof storefrontBCreateBody>['cart']['items'][number];

/**
 * A storefront B cart source. `handoff`: the plugin's signature headers and the raw body. Only our plugin
 * creates storefront B sessions: without the signature anyone who knows a store's URL could open checkouts
 * in its name, so an unsigned create is refused (UNAUTHORIZED) before any read, and so is a handoff that
 * does not verify against the connected key. A verified one records the plugin's interception (setup
 * verification).
 */
export async function storefrontBSource(deps: CartDeps, body: z.output<typeof storefrontBCreateBody>, handoff: Handoff | undefined): Promise<CartSource> {
  const { db, caches } = deps;
  if (!handoff) {
    throw new AppError('UNAUTHORIZED', 'A storefront B checkout is created by our plugin only: the x-hosted-checkout-key, x-hosted-checkout-timestamp and x-hosted-checkout-signature headers are missing');
  }
  let storeUrl: string;
  try {
    storeUrl = normalizeStoreUrl(new URL(body.storeUrl));
  } catch {
    throw new AppError('INVALID_INPUT', 'storeUrl: not a URL', { fields: { 'body.storeUrl': 'not a URL' } });
  }
  const found = await caches.storefrontB.get(storeUrl, () =>
    lookUpStore<StorefrontBLookupConnection>(db, 'checkout-create-storefront-b', STOREFRONT_B_LOOKUP_SQL, storeUrl, (r) => ({
      merchantId: r.merchantId, storeUrl: r.storeUrl, consumerKeyEnc: r.consumerKeyEnc, consumerSecretEnc: r.consumerSecretEnc, pluginInterceptedAt: r.pluginInterceptedAt,
    })));
  if (!found) throw unknownStore();
  const { connection, merchant, fx } = found;
  const keys = (found.keys ??= openStorefrontBKeys(deps, merchant.id, connection, 'UNAUTHORIZED'));
  verifyStorefrontBHandoff(deps, merchant.id, keys, handoff);
  return {
    platform: 'STOREFRONT_B',
    merchant,
    fx,
    // Only a handoff with the plugin's own random id is unique to one shopper's click: without it two shoppers'
    // identical carts in the same second sign alike, and one would be sent to the other's checkout.
    ...(body.handoffId !== undefined ? { handoffSignature: handoff.signature } : {}),
    async recordInterception() {
      if (connection.pluginInterceptedAt !== null) return;
      // Marked on the cached row too, so the next creates of this store skip the write (the first time is kept).
      connection.pluginInterceptedAt = new Date();
      await db.storefrontBConnection.updateMany({ where: { merchantId: merchant.id, pluginInterceptedAt: null }, data: { pluginInterceptedAt: connection.pluginInterceptedAt } });
    },
    async readCart() {
      const { items } = body.cart;
      if (items.length === 0) throw emptyCart();
      return { ...(await priceLines(cachedReads(deps, connection, keys), items)), storeCartRef: null };
    },
  };
}

/**
 * The store's price reads: each id's product, or each of one product's variations, in order (a rejection per id the
 * store does not have). Every read asked for in the same turn is answered by one store call.
 */
interface PriceReads {
  products(ids: string[]): Array<Promise<StorefrontBProduct>>;
  variations(productId: string, ids: string[]): Array<Promise<StorefrontBVariation>>;
}

const notInStore = (what: string) => new IntegrationError('storefront-b', 'not_found', `storefront-b: the store has no ${what}`);

/** For callers without create's caches: a time of 0 keeps nothing. */
const UNCACHED: Pick<CreateCaches, 'products' | 'variations'> = { products: new TtlCache(0), variations: new TtlCache(0) };

/**
 * The store's price reads, each answer reused through `caches` (only what they do not hold is read). What the caches
 * miss is gathered while the reads are asked for (in one turn of the event loop) and read in one call: the plugin's
 * cart-prices route, or on a store without it the REST reads (StorefrontBClient.getCartPrices). `client` is called
 * only then: the client is made, and the store URL checked, only when the store is actually read.
 */
function priceReads(storeUrl: string, client: () => Promise<StorefrontBClient>, caches: Pick<CreateCaches, 'products' | 'variations'>): PriceReads {
  const wanted = { products: new Set<string>(), variations: new Map<string, Set<string>>() };
  let read: Promise<StorefrontBCartPrices> | undefined;
  // Deferred by a microtask, so the product and the variation misses of this turn go into the same call.
  const cartPrices = () =>
    (read ??= Promise.resolve().then(async () => (await client()).getCartPrices([...wanted.products], [...wanted.variations].map(([productId, ids]) => [productId, [...ids]] as const))));
  const many = <V>(cache: TtlCache<V>, prefix: string, ids: string[], read: (ids: string[]) => Promise<ReadonlyMap<string, V>>, what: (id: string) => string) => {
    const keyOf = (id: string) => `${prefix} ${id}`;
    const idOf = new Map(ids.map((id) => [keyOf(id), id]));
    return cache.getMany(
      ids.map(keyOf),
      async (missing) => new Map([...(await read(missing.map((key) => idOf.get(key)!)))].map(([id, value]) => [keyOf(id), value])),
      (key) => notInStore(what(idOf.get(key)!)),
    );
  };
  return {
    products: (ids) =>
      many(caches.products, storeUrl, ids, (missing) => {
        for (const id of missing) wanted.products.add(id);
        return cartPrices().then((answer) => answer.products);
      }, (id) => `product ${id}`),
    variations: (productId, ids) =>
      many(caches.variations, `${storeUrl} ${productId}`, ids, (missing) => {
        const of = wanted.variations.get(productId) ?? new Set<string>();
        for (const id of missing) of.add(id);
        wanted.variations.set(productId, of);
        return cartPrices().then((answer) => answer.variations.get(productId) ?? new Map<string, StorefrontBVariation>());
      }, (id) => `variation ${id} of product ${productId}`),
  };
}

/** Create's price reads: through its caches, the client made from the keys the handoff was checked with. */
function cachedReads(deps: CartDeps, connection: StorefrontBLookupConnection, keys: StorefrontBKeys): PriceReads {
  let client: Promise<StorefrontBClient> | undefined;
  return priceReads(connection.storeUrl, () => (client ??= fromStore(storefrontBClientOf({ ...deps, timeoutMs: STORE_READ_TIMEOUT_MS }, connection.merchantId, connection, keys))), deps.caches);
}

/** The plugin's lines with the store's current prices, titles and pictures (all reads at once). */
async function priceLines(reads: PriceReads, items: BItem[]): Promise<Omit<StoreCart, 'storeCartRef'>> {
  const line = (i: number) => `cart.items.${i}`;
  const invalid = (i: number, why: string) => new AppError('INVALID_INPUT', `${line(i)}: ${why}`, { fields: { [`body.${line(i)}`]: why } });
  const productIds = [...new Set(items.map((item) => item.productId))];
  const variationIds = new Map<string, Set<string>>();
  for (const item of items) if (item.variationId !== undefined) variationIds.set(item.productId, (variationIds.get(item.productId) ?? new Set()).add(item.variationId));
  const variationReads = new Map([...variationIds].map(([productId, ids]) => {
    const answers = reads.variations(productId, [...ids]);
    return [productId, new Map([...ids].map((id, k) => [id, answers[k]!]))] as const;
  }));
  const [products, variations] = await Promise.all([
    Promise.all(reads.products(productIds).map((read, k) => fromStore(read, () => invalid(items.findIndex((item) => item.productId === productIds[k]), `the store has no product ${productIds[k]}`)))),
    Promise.all(items.map((item, i) =>
      item.variationId === undefined
        ? undefined
        : fromStore(variationReads.get(item.productId)!.get(item.variationId)!, () => invalid(i, `product ${item.productId} has no variation ${item.variationId}`)),
    )),
  ]);
  const byId = new Map(productIds.map((id, k) => [id, products[k]!]));
  const lines = items.map((item, i): SessionLine => {
    const product = byId.get(item.productId)!;
    const variation: StorefrontBVariation | undefined = variations[i];
    if (variation && !product.variationIds.includes(variation.id)) throw invalid(i, `product ${item.productId} has no variation ${variation.id}`);
    if (!variation && product.variationIds.length > 0) throw invalid(i, `product ${item.productId} is sold in variations: name one`);
    const unitPrice = variation ? variation.priceMinor : product.priceMinor;
    if (unitPrice === null) throw invalid(i, `product ${item.productId} has no price`);
    return {
      productId: product.id,
      variantId: variation?.id ?? null,
      title: product.title,
      variantTitle: variation?.title || null,
      quantity: item.quantity,
      unitPrice,
      imageUrl: variation?.imageUrl ?? product.imageUrl,
    };
  });
  // Every price of one store is in the store's currency, which the client reads once.
  return { currency: products[0]!.currency, items: lines };
}

// ---------------------------------------------------------------------------------------------------
// Money: the FX snapshot a session keeps, the currency check, the subtotal.

/** The EUR-based rates a session converts with for its whole life: { date: latest rate date, rates }. */
export interface FxSnapshot {
  /** The newest ECB publication date among the rates (YYYY-MM-DD); null while the rates table is empty. */
  date: string | null;
  rates: Record<string, string>;
}

/** A snapshot as read, with the JSON a session stores of it (written once per read, however many sessions keep it). */
export interface LoadedFx {
  snapshot: FxSnapshot;
  json: string;
}

/** The last rates read and what was made of them: the rates change once a day, so nearly every read is the same text. */
let lastFx: { text: FxRows; loaded: LoadedFx } | undefined;

/** The snapshot of the rates as FX_RATES_SQL answers them (the one made of the same text before, when it is that). */
function loadedFx(text: FxRows): LoadedFx {
  if (lastFx?.text === text) return lastFx.loaded;
  const snapshot: FxSnapshot = { date: null, rates: {} };
  for (const [currency, numeric, date] of text === null ? [] : (JSON.parse(text) as Array<[currency: string, rate: string, date: string]>)) {
    // The numeric's text has the column's 8 decimals: without the trailing zeros it is the plain decimal notation
    // domain/money parses ("1.0823", "150"), as Prisma's Decimal wrote it.
    const rate = numeric.includes('.') ? numeric.replace(/\.?0+$/, '') : numeric;
    if (!isValidRate(rate)) continue;
    snapshot.rates[currency] = rate;
    if (snapshot.date === null || date > snapshot.date) snapshot.date = date;
  }
  // Shared by every session made with it (read-only: sessions keep its JSON).
  const loaded = { snapshot: Object.freeze(Object.assign(snapshot, { rates: Object.freeze(snapshot.rates) })), json: JSON.stringify(snapshot) };
  lastFx = { text, loaded };
  return loaded;
}

/** The snapshot a session made now keeps (create reads it with the store; recovery and previews here). */
export async function snapshotFxRates(db: Db): Promise<FxSnapshot> {
  const { rows } = await sqlPool(db).query<{ fxRates: FxRows }>({ name: 'fx-snapshot', text: `SELECT ${FX_RATES_SQL} AS "fxRates"` });
  return loadedFx(rows[0]!.fxRates).snapshot;
}

/** The checkout currency must be one the processor charges in and we can convert the merchant's EUR shipping rates into. */
export function checkCurrency(currency: string, fx: FxSnapshot): void {
  if (!isKnownCurrency(currency)) throw new AppError('UNSUPPORTED_CURRENCY', `The store's currency ${JSON.stringify(currency)} is not a supported ISO 4217 currency`);
  if (!processorChargesIn(currency)) {
    throw new AppError('UNSUPPORTED_CURRENCY', `The payment processor cannot charge in ${currency}: checkout is not available in this currency`);
  }
  if (currency !== BASE_CURRENCY && !Object.hasOwn(fx.rates, currency)) {
    throw new AppError('UNSUPPORTED_CURRENCY', `No exchange rate for ${currency}: checkout is not available in this currency yet`);
  }
}

/** Σ quantity × unit price, exactly (domain/money refuses overflow). */
export function subtotalOf(items: readonly SessionLine[], currency: string): Money {
  return sum(items.map((i) => multiply(money(i.unitPrice, currency), i.quantity)), currency);
}

// ---------------------------------------------------------------------------------------------------
// Recovery (docs/recovery.md): a reminder's link re-reads a left session's cart at the store's current prices.

/**
 * The session's cart as the store prices it now: storefront A re-reads the store's cart (its token kept with the
 * session); storefront B re-reads every product and variation of the session's lines over REST. NOT_FOUND when the
 * store no longer has the cart, a product or the connection.
 */
export async function repriceSessionCart(
  deps: Omit<CartDeps, 'caches'>,
  session: { merchantId: string; platform: 'STOREFRONT_A' | 'STOREFRONT_B'; storeCartRef: string | null; items: readonly SessionLine[] },
): Promise<Omit<StoreCart, 'storeCartRef'>> {
  const { db } = deps;
  const gone = () => new AppError('NOT_FOUND', 'The store no longer has this cart');
  if (session.platform === 'STOREFRONT_A') {
    const connection = await db.storefrontAConnection.findUnique({ where: { merchantId: session.merchantId } });
    if (!connection?.connected || !connection.accessTokenEnc || !session.storeCartRef) throw gone();
    const client = storefrontAClientOf({ ...deps, timeoutMs: STORE_READ_TIMEOUT_MS, maxThrottleWaitMs: STORE_READ_THROTTLE_WAIT_MS }, session.merchantId, connection.shop, connection.accessTokenEnc, connection);
    const cart = await fromStore(client.getCart(session.storeCartRef, {}), gone);
    if (cart.items.length === 0) throw gone();
    return {
      currency: cart.currency,
      items: cart.items.map((i) => ({ productId: i.productId, variantId: i.variantId, title: i.title, variantTitle: i.variantTitle, quantity: i.quantity, unitPrice: i.unitPriceMinor, imageUrl: i.imageUrl })),
    };
  }
  const connection = await db.storefrontBConnection.findUnique({ where: { merchantId: session.merchantId } });
  if (!connection) throw gone();
  const client = await fromStore(storefrontBClientOf({ ...deps, timeoutMs: STORE_READ_TIMEOUT_MS }, session.merchantId, connection));
  return priceLines(priceReads(connection.storeUrl, async () => client, UNCACHED), session.items.map((l) => ({ productId: l.productId, ...(l.variantId !== null ? { variationId: l.variantId } : {}), quantity: l.quantity })) as BItem[]);
}
