// Client of storefront B (WooCommerce) for one store: the REST API under <store>/wp-json/wc/v3 and our
// plugin's route under <store>/wp-json/wc-hosted-checkout/v1 (docs/storefront-b.md maps every call).
//
// Authentication is WooCommerce's own rule (WC_REST_Authentication): HTTP Basic only for https stores,
// OAuth 1.0a one-legged (HMAC-SHA256, parameters in the query string) for http stores. OAuth is signed by
// `oauth-1.0a`, the library the official client @woocommerce/woocommerce-rest-api signs with, so our
// signatures are the official client's by construction (contract tests check both against the simulator);
// the transport stays our own (time-outs, no redirects, one error mapping).
//
// Prices arrive as decimal strings in the store currency and leave as integer minor units; money goes
// back as strings. WooCommerce honours no idempotency key: exactly-once comes from the session token in
// the order's meta and the plugin's lookup route (createOrder below).
import { createHmac } from 'node:crypto';
import OAuth from 'oauth-1.0a';
import { z } from 'zod';
import { IntegrationError, isIntegrationError } from '../errors.js';
import { createHttpClient } from '../http.js';
import { decimalToMinor, minorToDecimal } from '../storefront-common/money.js';
import { parseOrderInput, type OrderAddress, type StoreOrder, type StoreOrderInput, type StoreRefund, type StoreRefundInput } from '../storefront-common/order.js';
import { parseResponse, toMinorOrThrow } from '../storefront-common/parse.js';
import { inclusiveTaxOf, orderTaxes, shippingTaxClassOf, taxLocationOf, type WooTaxRate, type WooTaxSettings } from './taxes.js';

const SYSTEM = 'storefront-b';
export const WP_JSON = '/wp-json';
export const REST_NAMESPACE = 'wc/v3';
/** Our plugin's REST namespace: "wc-" so WooCommerce's key authentication covers it. */
export const PLUGIN_NAMESPACE = 'wc-hosted-checkout/v1';
/** The plugin as system_status lists it (folder/main file of store-extensions/woocommerce/hosted-checkout-connector). */
export const PLUGIN_FILE = 'hosted-checkout-connector/hosted-checkout-connector.php';
/** Order meta written by us, read by the plugin's lookup route (underscore: hidden in the admin's custom fields). */
export const ORDER_META = { session: '_hosted_checkout_session', discountCode: '_hosted_checkout_discount_code', discountAmount: '_hosted_checkout_discount_amount', refund: '_hosted_checkout_refund' } as const;
/** The token shape the plugin's lookup route accepts (its route regex). */
const SESSION_TOKEN_SHAPE = /^[A-Za-z0-9_-]{8,128}$/;
/** payment_method of orders paid by card through our checkout ('cod' is WooCommerce's own). */
export const PAYMENT_METHOD_ID = 'hosted_checkout';

export interface StorefrontBClientOptions {
  /** The store URL the merchant entered (its WordPress home), e.g. https://shop.example. */
  storeUrl: string;
  consumerKey: string;
  consumerSecret: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
  /**
   * Stores whose plugin answered that it has no cart-prices route (not active, or older than 1.4.0), so their cart
   * reads go straight to the REST reads for a while: shared by the clients of this process (the default) because a
   * client is made per request.
   */
  withoutCartPricesRoute?: StoresWithoutRoute;
  /**
   * After a create whose answer was lost (time-out, network, 5xx) the store may still be finishing it:
   * how long to keep looking the order up before the failure goes back to the caller (default 30 s).
   */
  lookupWindowMs?: number;
  lookupIntervalMs?: number;
}

export interface StorefrontBStatus {
  storeUrl: string;
  currency: string;
  version: string;
  /** Whether our official plugin is active on the store. */
  pluginActive: boolean;
  /**
   * Whether the key may create orders: a Read key (what WooCommerce's Add-key form preselects) passes every
   * read and fails only when the paid order is created.
   */
  canWriteOrders: boolean;
}

export interface StorefrontBProduct {
  id: string;
  title: string;
  type: string;
  /** Null for a product without its own price (a variable product is priced per variation). */
  priceMinor: number | null;
  currency: string;
  imageUrl: string | null;
  variationIds: string[];
  inStock: boolean;
}

export interface StorefrontBVariation {
  id: string;
  productId: string;
  /** Attribute options, e.g. "Blue / L". */
  title: string;
  priceMinor: number;
  currency: string;
  imageUrl: string | null;
  inStock: boolean;
}

const id = z.union([z.number().int(), z.string().regex(/^\d+$/)]).transform(String);
const image = z.object({ src: z.string() });

const systemStatusSchema = z.object({
  environment: z.object({ home_url: z.string(), version: z.string() }),
  settings: z.object({ currency: z.string() }),
  active_plugins: z.array(z.object({ plugin: z.string() })),
});

const productSchema = z.object({
  id,
  name: z.string(),
  type: z.string(),
  price: z.string(),
  stock_status: z.string(),
  images: z.array(image),
  variations: z.array(id),
});

const variationSchema = z.object({
  id,
  price: z.string(),
  stock_status: z.string(),
  image: image.nullable(),
  attributes: z.array(z.object({ name: z.string(), option: z.string() })),
});

/** The plugin's cart-prices answer (class-hosted-checkout-rest.php `cart_prices`): the REST v3 fields we read. */
const cartPricesSchema = z.object({
  currency: z.string(),
  products: z.array(productSchema),
  variations: z.array(variationSchema.extend({ product_id: id })),
});

// Built once: zod compiles an object schema's parser the first time it parses, so a schema made per call is compiled per call.
const currencySchema = z.object({ code: z.string() });
const productListSchema = z.array(productSchema);
const variationListSchema = z.array(variationSchema);

const refundSchema = z.object({ id, amount: z.string(), meta_data: z.array(z.object({ key: z.string(), value: z.unknown() })) });
const orderLinesSchema = z.object({ id, status: z.string(), currency: z.string(), line_items: z.array(z.object({ id, quantity: z.number().int(), total: z.string() })) });

const orderSchema = z.object({
  id,
  number: z.string(),
  status: z.string(),
  currency: z.string(),
  total: z.string(),
  date_created_gmt: z.string(),
  date_paid_gmt: z.string().nullable(),
  meta_data: z.array(z.object({ key: z.string(), value: z.unknown() })),
});

/** The plugin's lookup answer (class-hosted-checkout-rest.php). */
const lookupSchema = z.object({
  found: z.literal(true),
  order_id: id,
  number: z.string(),
  status: z.string(),
  total: z.string(),
  currency: z.string(),
  date_created_gmt: z.string(),
  date_paid_gmt: z.string().nullable(),
});

const toMinor = (price: string, currency: string, what: string) => toMinorOrThrow(SYSTEM, () => decimalToMinor(price, currency), what);

/** The order fields both answers carry (the REST order and the plugin's lookup), as our StoreOrder. */
type OrderFields = Pick<z.output<typeof orderSchema>, 'id' | 'number' | 'status' | 'currency' | 'total' | 'date_created_gmt' | 'date_paid_gmt'>;

function storeOrderOf(o: OrderFields, sessionToken: string | null): StoreOrder {
  return {
    id: o.id,
    number: o.number,
    status: o.status,
    paid: o.date_paid_gmt !== null,
    currency: o.currency,
    totalMinor: toMinor(o.total, o.currency, `order ${o.id} total`),
    sessionToken,
    createdAt: `${o.date_created_gmt}Z`,
  };
}

function toStoreOrder(o: z.output<typeof orderSchema>): StoreOrder {
  const token = o.meta_data.find((m) => m.key === ORDER_META.session)?.value;
  return storeOrderOf(o, typeof token === 'string' ? token : null);
}

function productOf(p: z.output<typeof productSchema>, currency: string): StorefrontBProduct {
  return {
    id: p.id,
    title: p.name,
    type: p.type,
    priceMinor: p.price === '' ? null : toMinor(p.price, currency, `product ${p.id} price`),
    currency,
    imageUrl: p.images[0]?.src ?? null,
    variationIds: p.variations,
    inStock: p.stock_status === 'instock',
  };
}

function variationOf(v: z.output<typeof variationSchema>, productId: string, currency: string): StorefrontBVariation {
  return {
    id: v.id,
    productId,
    title: v.attributes.map((a) => a.option).join(' / '),
    priceMinor: toMinor(v.price, currency, `variation ${v.id} price`),
    currency,
    imageUrl: v.image?.src ?? null,
    inStock: v.stock_status === 'instock',
  };
}

const toAddress = (a: OrderAddress) => ({
  first_name: a.firstName,
  last_name: a.lastName,
  address_1: a.line1,
  address_2: a.line2 ?? '',
  city: a.city,
  state: a.region ?? '',
  postcode: a.postalCode,
  country: a.countryCode,
  phone: a.phone ?? '',
});

/**
 * The discount as WooCommerce represents one on an order: line `total` below line `subtotal`
 * (calculate_totals: discount_total = Σ(subtotal − total)). Spread in proportion to the lines, the
 * remainder on the largest line; what the lines cannot absorb comes off shipping. A code the store does
 * not know cannot go in coupon_lines (400 woocommerce_rest_invalid_coupon, and a draft order stays).
 */
export function allocateDiscount(subtotals: number[], shipping: number, discount: number): { lineTotals: number[]; shippingTotal: number } {
  const merchandise = subtotals.reduce((a, b) => a + b, 0);
  const onLines = Math.min(discount, merchandise);
  const shares = subtotals.map((s) => (merchandise === 0 ? 0 : Math.floor((onLines * s) / merchandise)));
  let rest = onLines - shares.reduce((a, b) => a + b, 0);
  const order = subtotals.map((s, i) => [s, i] as const).sort((a, b) => b[0] - a[0]);
  for (const [s, i] of order) {
    const take = Math.min(rest, s - shares[i]!);
    shares[i]! += take;
    rest -= take;
  }
  return { lineTotals: subtotals.map((s, i) => s - shares[i]!), shippingTotal: shipping - (discount - onLines) };
}

/** Our neutral order as WooCommerce's order resource (POST /wc/v3/orders). */
/** payment_method / payment_method_title per way of paying; a free order names no gateway, as WooCommerce's own. */
const PAYMENT_FIELDS = {
  card: { payment_method: PAYMENT_METHOD_ID, payment_method_title: 'Card' },
  cod: { payment_method: 'cod', payment_method_title: 'Cash on delivery' },
  free: { payment_method: '', payment_method_title: 'No payment needed' },
} as const;

/**
 * What a store whose prices include tax must be sent instead of the prices: WooCommerce's order lines and shipping hold
 * amounts without tax (it adds the tax back as it saves the order), as decimal strings to WooCommerce's 6 places.
 */
export interface NetAmounts {
  /** Each line before the discount (WooCommerce's line subtotal: the order's discount is subtotal − total). */
  subtotals: string[];
  lines: string[];
  shipping: string;
}

function toOrderBody(input: StoreOrderInput, net?: NetAmounts) {
  const o = parseOrderInput(SYSTEM, input);
  const money = (minor: number) => minorToDecimal(minor, o.currency);
  const cod = o.payment.method === 'cod';
  const unlinked = o.lines.find((l) => l.productId === undefined);
  if (unlinked) throw new IntegrationError(SYSTEM, 'rejected', `${SYSTEM}: line "${unlinked.title}" has no productId`);
  const subtotals = o.lines.map((l) => l.unitPriceMinor * l.quantity);
  const discount = o.discount?.amountMinor ?? 0;
  const { lineTotals, shippingTotal } = allocateDiscount(subtotals, o.shipping.priceMinor, discount);
  return {
    ...PAYMENT_FIELDS[o.payment.method],
    // set_paid runs payment_complete(transaction_id): processing with a paid date, the store's own emails (a
    // total of 0 needs no payment: WooCommerce completes such orders the same way, without a gateway).
    // A COD order waits for its money: on-hold until the merchant marks it paid.
    ...(cod ? { set_paid: false, status: 'on-hold' } : { set_paid: true }),
    currency: o.currency,
    transaction_id: o.payment.reference ?? '',
    billing: { ...toAddress(o.billingAddress ?? o.shippingAddress), email: o.email },
    shipping: toAddress(o.shippingAddress),
    line_items: o.lines.map((l, i) => ({
      product_id: Number(l.productId),
      ...(l.variantId === undefined ? {} : { variation_id: Number(l.variantId) }),
      quantity: l.quantity,
      subtotal: net ? net.subtotals[i]! : money(subtotals[i]!),
      total: net ? net.lines[i]! : money(lineTotals[i]!),
    })),
    shipping_lines: [{ method_id: o.shipping.code ?? 'flat_rate', method_title: o.shipping.title, total: net ? net.shipping : money(shippingTotal) }],
    meta_data: [
      { key: ORDER_META.session, value: o.sessionToken },
      ...(o.discount ? [{ key: ORDER_META.discountCode, value: o.discount.code }, { key: ORDER_META.discountAmount, value: money(discount) }] : []),
    ],
  };
}

function normalizeStoreUrl(storeUrl: string): URL {
  let url: URL;
  try {
    url = new URL(storeUrl);
  } catch {
    throw new IntegrationError(SYSTEM, 'rejected', `${SYSTEM}: not a URL: ${JSON.stringify(storeUrl)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new IntegrationError(SYSTEM, 'rejected', `${SYSTEM}: store URL must be http(s)`);
  url.pathname = url.pathname.replace(/\/+$/, '');
  url.search = '';
  url.hash = '';
  return url;
}

/** RFC 3986 query encoding (%20, not '+'): what oauth-1.0a signs must be what PHP decodes. */
const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * A fetch that signs each request with OAuth 1.0a as the official client does (HMAC-SHA256, fresh
 * 32-character nonce and timestamp per request, oauth_* in the query string, JSON body unsigned).
 */
export function oauthFetch(base: typeof fetch, consumerKey: string, consumerSecret: string): typeof fetch {
  const oauth = new OAuth({
    consumer: { key: consumerKey, secret: consumerSecret },
    signature_method: 'HMAC-SHA256',
    hash_function: (text, key) => createHmac('sha256', key).update(text).digest('base64'),
  });
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const query = [...url.searchParams.entries()];
    url.search = query.map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`).join('&');
    const data = oauth.authorize({ url: url.toString(), method: (init?.method ?? 'GET').toUpperCase() });
    // authorize() also echoes the URL's own parameters; only the oauth_* ones are added.
    const signed = Object.entries(data).filter(([k]) => k.startsWith('oauth_'));
    url.search = [...query, ...signed.map(([k, v]) => [k, String(v)] as const)].map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`).join('&');
    return base(url, init);
  };
}

/** A 401 in words the merchant can act on (WooCommerce's codes, docs/storefront-b.md "Authentication"). */
function explainUnauthorized(err: IntegrationError, https: boolean): IntegrationError {
  const code = (err.remote as { code?: unknown } | undefined)?.code;
  if (code === 'woocommerce_rest_cannot_view' || code === 'woocommerce_rest_cannot_create') {
    const why = https
      ? 'the store did not see the credentials: WooCommerce reads Basic auth only when WordPress knows the request is HTTPS (behind a TLS-terminating proxy set $_SERVER[\'HTTPS\'] = \'on\' in wp-config.php) and when the server passes the Authorization header on'
      : 'the store did not accept the credentials';
    return new IntegrationError(SYSTEM, 'unauthorized', `${SYSTEM}: ${why}`, { status: err.status, remote: err.remote, cause: err });
  }
  return err;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A cart's prices as the store answers them: each product and variation by the id asked for (an id the store does not have is absent). */
export interface StorefrontBCartPrices {
  products: Map<string, StorefrontBProduct>;
  /** By product id asked for, then variation id asked for. */
  variations: Map<string, Map<string, StorefrontBVariation>>;
}

/**
 * Store URLs whose plugin has no cart-prices route, each remembered for `ttlMs` (then the route is tried again: the
 * merchant may have updated or activated the plugin meanwhile).
 */
export class StoresWithoutRoute {
  private readonly until = new Map<string, number>();
  constructor(
    private readonly ttlMs = 10 * 60_000,
    private readonly now: () => number = Date.now,
    private readonly maxEntries = 10_000,
  ) {}

  has(storeUrl: string): boolean {
    const until = this.until.get(storeUrl);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.until.delete(storeUrl);
    return false;
  }

  add(storeUrl: string): void {
    this.until.delete(storeUrl);
    this.until.set(storeUrl, this.now() + this.ttlMs);
    while (this.until.size > this.maxEntries) this.until.delete(this.until.keys().next().value!);
  }
}

const storesWithoutCartPricesRoute = new StoresWithoutRoute();

/** The ids WooCommerce can have, canonical (absint: "007" is 7) to the ids asked as; one that cannot be an id (0, beyond its integers) is left out. */
function canonicalIds(ids: readonly string[]): Map<string, string[]> {
  const asked = new Map<string, string[]>();
  for (const id of ids) {
    const canonical = id.replace(/^0+(?=\d)/, '');
    if (/^[1-9]\d{0,14}$/.test(canonical)) asked.set(canonical, [...(asked.get(canonical) ?? []), id]);
  }
  return asked;
}

export function createStorefrontBClient(opts: StorefrontBClientOptions) {
  const home = normalizeStoreUrl(opts.storeUrl);
  // A store at the domain root has the pathname "/": kept, every call would go to //wp-json/…, which WordPress
  // routes but WooCommerce signs as the path /wc/v3/… (PHP reads "//wp-json" as a host), so OAuth always fails.
  const storeUrl = `${home.origin}${home.pathname.replace(/\/+$/, '')}`;
  const https = home.protocol === 'https:';
  const baseFetch = opts.fetch ?? fetch;
  const http = createHttpClient({
    system: SYSTEM,
    baseUrl: storeUrl + WP_JSON,
    headers: https ? { authorization: `Basic ${Buffer.from(`${opts.consumerKey}:${opts.consumerSecret}`).toString('base64')}` } : {},
    timeoutMs: opts.timeoutMs,
    fetch: https ? baseFetch : oauthFetch(baseFetch, opts.consumerKey, opts.consumerSecret),
  });
  const call = async <T>(method: string, path: string, query?: Record<string, string | number>, body?: unknown): Promise<T> => {
    try {
      return await http.request<T>(method, path, { query, body });
    } catch (err) {
      throw isIntegrationError(err, 'unauthorized') ? explainUnauthorized(err, https) : err;
    }
  };
  const wc = (...parts: string[]) => `/${REST_NAMESPACE}/${parts.map(encodeURIComponent).join('/')}`;
  const lookupWindowMs = opts.lookupWindowMs ?? 30_000;
  const lookupIntervalMs = opts.lookupIntervalMs ?? 1_000;

  // Product prices carry no currency: it is a store setting, read once per client.
  let currency: Promise<string> | undefined;
  const storeCurrency = () => {
    currency ??= call('GET', wc('data', 'currencies', 'current')).then((body) => parseResponse(SYSTEM, currencySchema, body, 'currency').code);
    currency.catch(() => (currency = undefined));
    return currency;
  };

  /**
   * The items of a collection with these ids (include=…, 100 a page), keyed by the id as asked. Ids are compared as
   * WooCommerce reads them (absint: "007" is 7); one that cannot be an item's id (0, beyond the store's integers) is
   * not asked for: no item has it, as a read of it alone would answer 404.
   */
  async function listByIds<T extends { id: string }>(path: string, ids: readonly string[], list: z.ZodType<T[]>, what: string): Promise<Map<string, T>> {
    const asked = canonicalIds(ids);
    const wanted = [...asked.keys()];
    const found = new Map<string, T>();
    for (let i = 0; i < wanted.length; i += 100) {
      const chunk = wanted.slice(i, i + 100);
      const page = parseResponse(SYSTEM, list, await call('GET', path, { include: chunk.join(','), per_page: 100 }), what);
      for (const one of page) for (const id of asked.get(one.id) ?? []) found.set(id, one);
    }
    return found;
  }

  /**
   * Several products in one read (GET products?include=…, 100 a page), by the ids asked for: an id the store
   * does not have is not in the answer.
   */
  async function getProducts(productIds: readonly string[]): Promise<Map<string, StorefrontBProduct>> {
    const [list, code] = await Promise.all([listByIds(wc('products'), productIds, productListSchema, 'products'), storeCurrency()]);
    return new Map([...list].map(([asked, p]) => [asked, productOf(p, code)]));
  }

  /** Several variations of one product in one read (GET products/<id>/variations?include=…), as getProducts. */
  async function getVariations(productId: string, variationIds: readonly string[]): Promise<Map<string, StorefrontBVariation>> {
    const [list, code] = await Promise.all([listByIds(wc('products', productId, 'variations'), variationIds, variationListSchema, 'variations'), storeCurrency()]);
    return new Map([...list].map(([asked, v]) => [asked, variationOf(v, productId, code)]));
  }

  /** The order carrying this session token, through the plugin's route (WooCommerce's search never reads meta). */
  async function findOrderBySessionToken(sessionToken: string): Promise<StoreOrder | null> {
    // The plugin's route only matches this shape; anything else would read as "no such route".
    if (!SESSION_TOKEN_SHAPE.test(sessionToken)) throw new IntegrationError(SYSTEM, 'rejected', `${SYSTEM}: a session token must be 8–128 of A-Z a-z 0-9 _ -`);
    let body: unknown;
    try {
      body = await call('GET', `/${PLUGIN_NAMESPACE}/orders/by-session/${encodeURIComponent(sessionToken)}`);
    } catch (err) {
      const code = isIntegrationError(err) ? (err.remote as { code?: unknown } | undefined)?.code : undefined;
      if (code === 'hc_order_not_found') return null;
      if (code === 'rest_no_route') {
        throw new IntegrationError(SYSTEM, 'rejected', `${SYSTEM}: the Hosted Checkout Connector plugin is not active on ${storeUrl}: activate it (orders are created only where they can be found again)`, { status: 404, remote: (err as IntegrationError).remote });
      }
      if (code === 'hc_order_ambiguous') {
        const ids = ((err as IntegrationError).remote as { data?: { order_ids?: unknown } }).data?.order_ids;
        throw new IntegrationError(SYSTEM, 'conflict', `${SYSTEM}: several orders carry session ${sessionToken} (${JSON.stringify(ids)}): resolve them in the store`, { status: 409 });
      }
      throw err;
    }
    const o = parseResponse(SYSTEM, lookupSchema, body, 'order lookup');
    return storeOrderOf({ ...o, id: o.order_id }, sessionToken);
  }

  /**
   * WooCommerce adds a line whose product id it does not have as an item without a product (no error), so
   * every product and variation is read back first: ids in chunks of 100 (per_page's maximum), one page each.
   */
  async function assertProductsExist(lines: Array<{ product_id: number; variation_id?: number }>): Promise<void> {
    const chunks = <T>(list: T[]) => Array.from({ length: Math.ceil(list.length / 100) }, (_, i) => list.slice(i * 100, i * 100 + 100));
    const listIds = async (path: string, ids: number[]) => {
      const found = new Set<number>();
      for (const chunk of chunks(ids)) {
        const body = await call('GET', path, { include: chunk.join(','), per_page: 100 });
        for (const item of parseResponse(SYSTEM, z.array(z.object({ id: z.number().int() })), body, 'id list')) found.add(item.id);
      }
      return found;
    };
    const productIds = [...new Set(lines.map((l) => l.product_id))];
    const products = await listIds(wc('products'), productIds);
    const missing = productIds.find((p) => !products.has(p));
    if (missing !== undefined) throw new IntegrationError(SYSTEM, 'rejected', `${SYSTEM}: Product ID ${missing} is invalid: the store does not have it (deleted since the checkout?)`);
    const byParent = new Map<number, number[]>();
    for (const l of lines) if (l.variation_id !== undefined) byParent.set(l.product_id, [...(byParent.get(l.product_id) ?? []), l.variation_id]);
    for (const [parent, ids] of byParent) {
      const variations = await listIds(wc('products', String(parent), 'variations'), [...new Set(ids)]);
      const gone = ids.find((v) => !variations.has(v));
      if (gone !== undefined) throw new IntegrationError(SYSTEM, 'rejected', `${SYSTEM}: Variation ID ${gone} is invalid for product ${parent}: the store does not have it`);
    }
  }

  /** The store's tax settings and rates (GET settings/general, settings/tax, taxes, taxes/classes), only when taxes are on. */
  async function taxContext(): Promise<{ settings: WooTaxSettings; rates: WooTaxRate[] } | null> {
    const option = (list: Array<{ id: string; value: unknown }>, id: string) => list.find((o) => o.id === id)?.value;
    const settingsList = z.array(z.looseObject({ id: z.string(), value: z.unknown() }));
    const general = parseResponse(SYSTEM, settingsList, await call('GET', wc('settings', 'general')), 'general settings');
    if (option(general, 'woocommerce_calc_taxes') !== 'yes') return null;
    const [tax, classes, rates] = await Promise.all([
      call('GET', wc('settings', 'tax')).then((b) => parseResponse(SYSTEM, settingsList, b, 'tax settings')),
      call('GET', wc('taxes', 'classes')).then((b) => parseResponse(SYSTEM, z.array(z.looseObject({ slug: z.string() })), b, 'tax classes')),
      listAll(wc('taxes'), z.looseObject({
        id: z.number().int(), country: z.string(), state: z.string(), postcodes: z.array(z.string()).optional(), cities: z.array(z.string()).optional(),
        rate: z.string(), priority: z.number().int(), compound: z.boolean(), shipping: z.boolean(), class: z.string(),
      })),
    ]);
    const [baseCountry = '', baseState = ''] = String(option(general, 'woocommerce_default_country') ?? '').split(':');
    const basedOn = String(option(tax, 'woocommerce_tax_based_on') ?? 'shipping');
    return {
      settings: {
        enabled: true,
        pricesIncludeTax: option(tax, 'woocommerce_prices_include_tax') === 'yes',
        basedOn: basedOn === 'billing' || basedOn === 'base' ? basedOn : 'shipping',
        shippingTaxClass: String(option(tax, 'woocommerce_shipping_tax_class') ?? 'inherit'),
        roundAtSubtotal: option(tax, 'woocommerce_tax_round_at_subtotal') === 'yes',
        base: { country: baseCountry, state: baseState, postcode: String(option(general, 'woocommerce_store_postcode') ?? ''), city: String(option(general, 'woocommerce_store_city') ?? '') },
        classes: classes.map((c) => c.slug),
        decimals: Number(option(general, 'woocommerce_price_num_decimals') ?? 2),
      },
      rates: rates.map((r) => ({ ...r, postcodes: r.postcodes ?? [], cities: r.cities ?? [] })),
    };
  }

  /** Every item of a paginated collection (100 a page, X-WP-TotalPages). */
  async function listAll<S extends z.ZodType>(path: string, item: S): Promise<Array<z.output<S>>> {
    const all: Array<z.output<S>> = [];
    for (let page = 1; page <= 50; page++) {
      const batch = parseResponse(SYSTEM, z.array(item), await call('GET', path, { per_page: 100, page }), path);
      all.push(...batch);
      if (batch.length < 100) break;
    }
    return all;
  }

  /** Each line's tax status and class as WooCommerce gives the order item (a variation's "parent" class is its product's). */
  async function lineTaxClasses(lines: Array<{ productId?: string; variantId?: string }>): Promise<Array<{ taxStatus: string; taxClass: string }>> {
    const productIds = [...new Set(lines.map((l) => l.productId!))];
    const products = parseResponse(SYSTEM, z.array(z.looseObject({ id: z.number().int(), tax_status: z.string(), tax_class: z.string() })), await call('GET', wc('products'), { include: productIds.join(','), per_page: 100 }), 'product tax classes');
    const variations = new Map<string, { tax_status: string; tax_class: string }>();
    for (const l of lines.filter((x) => x.variantId !== undefined)) {
      const v = parseResponse(SYSTEM, z.looseObject({ tax_status: z.string(), tax_class: z.string() }), await call('GET', wc('products', l.productId!, 'variations', l.variantId!)), 'variation tax class');
      variations.set(l.variantId!, v);
    }
    return lines.map((l) => {
      const product = products.find((p) => String(p.id) === l.productId);
      const variation = l.variantId ? variations.get(l.variantId) : undefined;
      const taxClass = variation && variation.tax_class !== 'parent' ? variation.tax_class : (product?.tax_class ?? '');
      return { taxStatus: variation?.tax_status ?? product?.tax_status ?? 'taxable', taxClass };
    });
  }

  /**
   * The tax WooCommerce will book on this order (integrations/storefront-b/taxes.ts: its own rules on its own settings,
   * rates and products), the total it will book, and for a store whose prices include tax the amounts without it that
   * its order is sent (so adding the tax back gives the prices the shopper saw).
   */
  async function taxesOf(input: StoreOrderInput): Promise<{ taxMinor: number; taxesIncluded: boolean; totalMinor: number; net?: NetAmounts }> {
    const o = parseOrderInput(SYSTEM, input);
    const gross = o.totals.subtotalMinor + o.totals.shippingMinor - o.totals.discountMinor;
    const context = await taxContext();
    if (!context) return { taxMinor: 0, taxesIncluded: false, totalMinor: gross };
    const { settings, rates } = context;
    const major = (minor: number) => Number(minorToDecimal(minor, o.currency));
    const subtotals = o.lines.map((l) => l.unitPriceMinor * l.quantity);
    const { lineTotals, shippingTotal } = allocateDiscount(subtotals, o.shipping.priceMinor, o.discount?.amountMinor ?? 0);
    const classes = await lineTaxClasses(o.lines);
    const placeOf = (a: OrderAddress) => ({ country: a.countryCode, state: a.region ?? '', postcode: a.postalCode, city: a.city });
    // The order we send: billing is the billing address when there is one, else the shipping address (toOrderBody).
    const place = { shipping: placeOf(o.shippingAddress), billing: placeOf(o.billingAddress ?? o.shippingAddress), shippingMethodId: o.shipping.code ?? 'flat_rate' };
    const location = taxLocationOf(settings, place);
    const shippingClass = shippingTaxClassOf(settings, classes);
    // Prices that include tax lose the tax inside them (calc_inclusive_tax) before WooCommerce adds it again: to 6
    // decimals, as WooCommerce keeps line and shipping totals.
    const netOf = (amount: number, taxClass: string | null, taxable: boolean, forShipping = false) =>
      (settings.pricesIncludeTax && taxable && taxClass !== null ? (amount - inclusiveTaxOf(settings, rates, amount, taxClass, location, forShipping)).toFixed(6) : amount.toFixed(6));
    const taxable = (i: number) => classes[i]!.taxStatus === 'taxable';
    const net: NetAmounts = {
      subtotals: o.lines.map((_, i) => netOf(major(subtotals[i]!), classes[i]!.taxClass, taxable(i))),
      lines: o.lines.map((_, i) => netOf(major(lineTotals[i]!), classes[i]!.taxClass, taxable(i))),
      shipping: netOf(major(shippingTotal), shippingClass, true, true),
    };
    const t = orderTaxes(settings, rates, o.lines.map((_, i) => ({ total: Number(net.lines[i]), ...classes[i]! })), Number(net.shipping), place);
    const toMinorUnits = (v: number) => toMinor(v.toFixed(settings.decimals), o.currency, 'tax');
    return {
      taxMinor: toMinorUnits(t.totalTax),
      taxesIncluded: settings.pricesIncludeTax,
      totalMinor: toMinorUnits(t.total),
      ...(settings.pricesIncludeTax ? { net } : {}),
    };
  }

  return {
    storeUrl,

    /** The tax this store will book on the order, and its total (before payment, so the shopper is charged exactly that). */
    async calculateTaxes(input: StoreOrderInput): Promise<{ taxMinor: number; taxesIncluded: boolean; totalMinor: number }> {
      const { taxMinor, taxesIncluded, totalMinor } = await taxesOf(input);
      return { taxMinor, taxesIncluded, totalMinor };
    },

    /**
     * Proves the keys work (system_status needs manage_woocommerce), reports the store's setup, and whether the key
     * may write orders: an empty batch (POST /orders/batch with {}) goes through the same checks as an order create
     * — the key's write permission (WC_REST_Authentication::check_permissions) and the user's capability to edit
     * orders (batch_items_permissions_check) — and creates, changes and deletes nothing.
     */
    async validateCredentials(): Promise<StorefrontBStatus> {
      const body = await call('GET', wc('system_status'), { _fields: 'environment,settings,active_plugins' });
      const s = parseResponse(SYSTEM, systemStatusSchema, body, 'system status');
      let canWriteOrders = true;
      try {
        parseResponse(SYSTEM, z.array(z.unknown()).length(0), await call('POST', wc('orders', 'batch'), undefined, {}), 'empty order batch');
      } catch (err) {
        if (!isIntegrationError(err, 'unauthorized')) throw err;
        canWriteOrders = false;
      }
      return {
        storeUrl: s.environment.home_url,
        currency: s.settings.currency,
        version: s.environment.version,
        pluginActive: s.active_plugins.some((p) => p.plugin === PLUGIN_FILE),
        canWriteOrders,
      };
    },

    /**
     * The countries the store ships to, as WC_Countries::get_shipping_countries() decides from the general settings
     * (GET settings/general, manage_woocommerce): woocommerce_ship_to_countries '' ships to the selling locations
     * (woocommerce_allowed_countries 'all', 'all_except' woocommerce_all_except_countries, 'specific'
     * woocommerce_specific_allowed_countries), 'all' to every country, any other value ('specific', and 'disabled',
     * whose store ships nothing) to woocommerce_specific_ship_to_countries. `all` stands for every country the caller
     * knows; `except` lists the ones taken out of it.
     */
    async getShippingCountries(): Promise<{ all: true; except: string[] } | { all: false; countries: string[] }> {
      const body = await call('GET', wc('settings', 'general'));
      const settings = parseResponse(SYSTEM, z.array(z.object({ id: z.string(), value: z.unknown() })), body, 'general settings');
      const value = (id: string) => settings.find((s) => s.id === id)?.value;
      // A multiselect never saved reads as '' (its default), not [].
      const list = (id: string) => {
        const v = value(id);
        return Array.isArray(v) ? v.filter((c): c is string => typeof c === 'string') : [];
      };
      const selling = (): { all: true; except: string[] } | { all: false; countries: string[] } => {
        const allowed = value('woocommerce_allowed_countries');
        if (allowed === 'specific') return { all: false, countries: list('woocommerce_specific_allowed_countries') };
        if (allowed === 'all_except') return { all: true, except: list('woocommerce_all_except_countries') };
        return { all: true, except: [] };
      };
      // As get_shipping_countries(): '' (the default) follows selling, 'all' is every country, anything else the specific list.
      const shipTo = value('woocommerce_ship_to_countries') ?? '';
      if (shipTo === '') return selling();
      if (shipTo === 'all') return { all: true, except: [] };
      return { all: false, countries: list('woocommerce_specific_ship_to_countries') };
    },

    /**
     * The store's published policy pages through our plugin's route (GET wc-hosted-checkout/v1/policies, 1.3.0+,
     * manage_woocommerce): WooCommerce's terms page, WordPress's privacy policy page and WooCommerce's refund and
     * returns page, each with the title the site shows and its permalink. WooCommerce's REST settings answer the terms
     * page only as an id (v3), and neither of the others nor any permalink, hence the plugin. A plugin that is not active, or older than the route, answers rest_no_route:
     * `rejected`, saying so. Titles and URLs as the store sends them: the caller checks them before keeping them.
     */
    async getPolicyPages(): Promise<Array<{ type: string; title: string; url: string }>> {
      let body: unknown;
      try {
        body = await call('GET', `/${PLUGIN_NAMESPACE}/policies`);
      } catch (err) {
        if (isIntegrationError(err) && (err.remote as { code?: unknown } | undefined)?.code === 'rest_no_route') {
          throw new IntegrationError(SYSTEM, 'rejected', `${SYSTEM}: the Hosted Checkout Connector plugin on ${storeUrl} is not active or older than 1.3.0 (it answers the policy pages from 1.3.0): activate or update it`, { status: 404, remote: err.remote });
        }
        throw err;
      }
      return parseResponse(SYSTEM, z.object({ policies: z.array(z.object({ type: z.string(), title: z.string(), url: z.string() })) }), body, 'policy pages').policies;
    },

    async getProduct(productId: string): Promise<StorefrontBProduct> {
      const [body, code] = await Promise.all([call('GET', wc('products', productId)), storeCurrency()]);
      return productOf(parseResponse(SYSTEM, productSchema, body, 'product'), code);
    },

    async getVariation(productId: string, variationId: string): Promise<StorefrontBVariation> {
      const [body, code] = await Promise.all([call('GET', wc('products', productId, 'variations', variationId)), storeCurrency()]);
      return variationOf(parseResponse(SYSTEM, variationSchema, body, 'variation'), productId, code);
    },

    getProducts,
    getVariations,

    /**
     * A cart's products and variations with the store currency, in one request to our plugin's route (GET
     * wc-hosted-checkout/v1/cart-prices, 1.4.0+: WooCommerce's own product, variation and currency reads made inside
     * WordPress, answered together). A store whose plugin answers rest_no_route (not active, or older) is read over
     * REST v3 instead (the products list, each product's variations list and the currency, at once) and remembered in
     * `withoutCartPricesRoute` so its next reads go there directly. `variations`: [product id, its variation ids].
     */
    async getCartPrices(productIds: readonly string[], variations: ReadonlyArray<readonly [string, readonly string[]]>): Promise<StorefrontBCartPrices> {
      const products = canonicalIds(productIds);
      const pairs = variations.map(([productId, ids]) => [productId, canonicalIds([productId]), canonicalIds(ids)] as const);
      const asked = pairs.flatMap(([, parent, ids]) => [...parent.keys()].flatMap((p) => [...ids.keys()].map((v) => `${p}:${v}`)));
      const noRoute = opts.withoutCartPricesRoute ?? storesWithoutCartPricesRoute;
      // The route takes up to 100 product ids and 100 pairs (a cart has at most 100 lines); else, the REST reads.
      if (!noRoute.has(storeUrl) && products.size + asked.length >= 1 && products.size <= 100 && asked.length <= 100) {
        let body: unknown;
        try {
          body = await call('GET', `/${PLUGIN_NAMESPACE}/cart-prices`, { products: [...products.keys()].join(','), variations: asked.join(',') });
        } catch (err) {
          if (!isIntegrationError(err) || (err.remote as { code?: unknown } | undefined)?.code !== 'rest_no_route') throw err;
          noRoute.add(storeUrl);
        }
        if (body !== undefined) {
          const answer = parseResponse(SYSTEM, cartPricesSchema, body, 'cart prices');
          const found = new Map<string, StorefrontBProduct>();
          for (const p of answer.products) for (const asId of products.get(p.id) ?? []) found.set(asId, productOf(p, answer.currency));
          const byProduct = new Map<string, Map<string, StorefrontBVariation>>();
          for (const [productId, parent, ids] of pairs) {
            const canonicalParent = [...parent.keys()][0];
            const of = new Map<string, StorefrontBVariation>();
            for (const v of answer.variations) {
              if (v.product_id !== canonicalParent) continue;
              for (const asId of ids.get(v.id) ?? []) of.set(asId, variationOf(v, productId, answer.currency));
            }
            byProduct.set(productId, of);
          }
          return { products: found, variations: byProduct };
        }
      }
      // A product the store does not have has none of the variations asked for (as in the route's answer).
      const variationsOf = (productId: string, ids: readonly string[]) =>
        getVariations(productId, ids).catch((err: unknown) => {
          if (isIntegrationError(err, 'not_found')) return new Map<string, StorefrontBVariation>();
          throw err;
        });
      const [found, lists] = await Promise.all([
        productIds.length ? getProducts(productIds) : new Map<string, StorefrontBProduct>(),
        Promise.all(variations.map(async ([productId, ids]) => [productId, await variationsOf(productId, ids)] as const)),
      ]);
      return { products: found, variations: new Map(lists) };
    },

    /**
     * Creates the order, at most once per session token. The token travels in the order's meta (saved with
     * the order's first save, before payment_complete) and is looked up before posting. WooCommerce has no
     * idempotency key, so a create
     * whose answer is lost is never re-posted here: the order is looked up by token until the window
     * passes; found, it is the answer; not found, the original failure goes back to the caller (whose
     * retry looks up again before creating). The second argument is accepted for the shared store-client
     * shape and deliberately not sent: WooCommerce ignores it.
     */
    async createOrder(input: StoreOrderInput, _idempotencyKey?: string): Promise<StoreOrder> {
      // A store whose prices include tax gets the amounts without it (WooCommerce adds it back as it saves the order).
      const parsed = parseOrderInput(SYSTEM, input);
      const body = toOrderBody(input, parsed.totals.taxesIncluded && parsed.totals.taxMinor > 0 ? (await taxesOf(input)).net : undefined);
      const token = body.meta_data[0]!.value;
      // A call after a crash or a lost answer finds the order its predecessor created.
      const earlier = await findOrderBySessionToken(token);
      if (earlier) return earlier;
      await assertProductsExist(body.line_items);
      try {
        return toStoreOrder(parseResponse(SYSTEM, orderSchema, await call('POST', wc('orders'), undefined, body), 'order'));
      } catch (err) {
        if (!isIntegrationError(err) || !err.retryable) throw err;
        // A 5xx means PHP finished (perhaps after saving the order): one look. A time-out or a dropped
        // connection may mean it is still running: keep looking for the window.
        const stillRunning = err.kind === 'timeout' || (err.kind === 'unavailable' && err.status === undefined);
        for (const until = Date.now() + (stillRunning ? lookupWindowMs : 0); ;) {
          const found = await findOrderBySessionToken(token).catch(() => null);
          if (found) return found;
          if (Date.now() + lookupIntervalMs > until) throw err;
          await sleep(lookupIntervalMs);
        }
      }
    },

    findOrderBySessionToken,

    /**
     * Refunds an order we created (POST /wc/v3/orders/<id>/refunds): the amount with api_refund false (the money went
     * back through the processor; WooCommerce knows no gateway of ours and would refuse), the given-back lines with
     * their quantities (api_restock puts them back in stock), our refund id in the refund's meta. WooCommerce has no
     * idempotency key: the order's refunds are looked up by that meta before posting, and again after a lost answer.
     */
    async refundOrder(orderId: string, input: StoreRefundInput): Promise<StoreRefund> {
      const refunds = wc('orders', orderId, 'refunds');
      const find = async () => {
        const list = parseResponse(SYSTEM, z.array(refundSchema), await call('GET', refunds, { per_page: 100 }), 'order refunds');
        return list.find((r) => r.meta_data.some((m) => m.key === ORDER_META.refund && m.value === input.refundId)) ?? null;
      };
      const statusOf = async () => parseResponse(SYSTEM, orderLinesSchema, await call('GET', wc('orders', orderId)), 'order');
      const answer = async (r: z.output<typeof refundSchema>, created: boolean) => {
        const order = await statusOf();
        return { id: r.id, amountMinor: toMinor(r.amount, order.currency, `refund ${r.id} amount`), orderStatus: order.status, created };
      };
      const earlier = await find();
      if (earlier) return answer(earlier, false);
      const order = await statusOf();
      // The amount goes onto the given-back lines as far as their value reaches (WooCommerce books line refunds
      // item by item); what is left (shipping, a goodwill amount) stays on the refund alone.
      let left = input.amountMinor;
      const lineItems = input.lines.map((l) => {
        const item = order.line_items[l.line];
        if (!item) throw new IntegrationError(SYSTEM, 'rejected', `${SYSTEM}: order ${orderId} has no line ${l.line + 1}`);
        const value = Math.round((toMinor(item.total, order.currency, `line ${item.id} total`) * l.quantity) / item.quantity);
        const share = Math.min(left, value);
        left -= share;
        return { id: Number(item.id), quantity: l.quantity, refund_total: Number(minorToDecimal(share, order.currency)) };
      });
      const body = {
        amount: minorToDecimal(input.amountMinor, input.currency),
        reason: input.reason ?? '',
        api_refund: false,
        api_restock: input.restock,
        ...(lineItems.length ? { line_items: lineItems } : {}),
        meta_data: [{ key: ORDER_META.refund, value: input.refundId }],
      };
      try {
        return await answer(parseResponse(SYSTEM, refundSchema, await call('POST', refunds, undefined, body), 'refund'), true);
      } catch (err) {
        if (!isIntegrationError(err)) throw err;
        // wc_create_refund's refusals (an amount above what is left, a gateway) come back as HTTP 500 with this code: final.
        const code = (err.remote as { code?: unknown; message?: unknown } | undefined)?.code;
        if (code === 'woocommerce_rest_cannot_create_order_refund') {
          throw new IntegrationError(SYSTEM, 'rejected', `${SYSTEM}: the store refused the refund: ${String((err.remote as { message?: unknown }).message ?? err.message)}`, { status: err.status, remote: err.remote });
        }
        if (!err.retryable) throw err;
        // The refund may exist although its answer was lost: one look before the caller retries.
        const found = await find().catch(() => null);
        if (found) return answer(found, false);
        throw err;
      }
    },

    async getOrder(orderId: string): Promise<StoreOrder> {
      return toStoreOrder(parseResponse(SYSTEM, orderSchema, await call('GET', wc('orders', orderId)), 'order'));
    },
  };
}

export type StorefrontBClient = ReturnType<typeof createStorefrontBClient>;
