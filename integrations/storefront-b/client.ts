// Client of storefront B's REST API (wp-json/wc/v3) for one store, authenticated with the merchant's
// consumer key and secret over HTTP Basic. Prices arrive as decimal strings in the store currency and
// leave this module as integer minor units (exact conversion, no floats).
import { z } from 'zod';
import { IntegrationError } from '../errors.js';
import { createHttpClient } from '../http.js';
import { decimalToMinor, minorToDecimal } from '../storefront-common/money.js';
import { parseOrderInput, SESSION_TOKEN_KEY, type OrderAddress, type StoreOrder, type StoreOrderInput } from '../storefront-common/order.js';
import { parseResponse, toMinorOrThrow } from '../storefront-common/parse.js';

const SYSTEM = 'storefront-b';
export const REST_PREFIX = '/wp-json/wc/v3';
/** The official plugin as it appears in the store's active plugin list. */
export const PLUGIN_FILE = 'hosted-checkout/hosted-checkout.php';
/** payment_method of orders paid by card through our checkout ('cod' is the platform's own). */
export const PAYMENT_METHOD_ID = 'hosted_checkout';

export interface StorefrontBClientOptions {
  /** The store URL the merchant entered, e.g. https://shop.example or http://127.0.0.1:4030/stores/demo. */
  storeUrl: string;
  consumerKey: string;
  consumerSecret: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface StorefrontBStatus {
  storeUrl: string;
  currency: string;
  version: string;
  /** Whether our official plugin is active on the store. */
  pluginActive: boolean;
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

function toStoreOrder(o: z.output<typeof orderSchema>): StoreOrder {
  const token = o.meta_data.find((m) => m.key === SESSION_TOKEN_KEY)?.value;
  return {
    id: o.id,
    number: o.number,
    status: o.status,
    paid: o.date_paid_gmt !== null,
    currency: o.currency,
    totalMinor: toMinorOrThrow(SYSTEM, () => decimalToMinor(o.total, o.currency), `order ${o.id} total`),
    sessionToken: typeof token === 'string' ? token : null,
    createdAt: `${o.date_created_gmt}Z`,
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

/** Our neutral order as the platform's order resource. Line totals carry the prices the checkout charged. */
function toOrderBody(input: StoreOrderInput) {
  const o = parseOrderInput(SYSTEM, input);
  const money = (minor: number) => minorToDecimal(minor, o.currency);
  const card = o.payment.method === 'card';
  const unlinked = o.lines.find((l) => l.productId === undefined);
  if (unlinked) throw new IntegrationError(SYSTEM, 'rejected', `${SYSTEM}: line "${unlinked.title}" has no productId`);
  return {
    payment_method: card ? PAYMENT_METHOD_ID : 'cod',
    payment_method_title: card ? 'Card' : 'Cash on delivery',
    set_paid: card,
    // A COD order waits for its money: on-hold until the merchant marks it paid.
    status: card ? 'processing' : 'on-hold',
    currency: o.currency,
    transaction_id: o.payment.reference ?? '',
    billing: { ...toAddress(o.billingAddress ?? o.shippingAddress), email: o.email },
    shipping: toAddress(o.shippingAddress),
    line_items: o.lines.map((l) => ({
      product_id: Number(l.productId),
      variation_id: l.variantId === undefined ? undefined : Number(l.variantId),
      quantity: l.quantity,
      subtotal: money(l.unitPriceMinor * l.quantity),
      total: money(l.unitPriceMinor * l.quantity),
    })),
    shipping_lines: [{ method_id: o.shipping.code ?? 'flat_rate', method_title: o.shipping.title, total: money(o.shipping.priceMinor) }],
    fee_lines: o.discount ? [{ name: `Discount ${o.discount.code}`, tax_status: 'none', total: money(-o.discount.amountMinor) }] : [],
    meta_data: [{ key: SESSION_TOKEN_KEY, value: o.sessionToken }],
  };
}

function normalizeStoreUrl(storeUrl: string): string {
  let url: URL;
  try {
    url = new URL(storeUrl);
  } catch {
    throw new IntegrationError(SYSTEM, 'rejected', `${SYSTEM}: not a URL: ${JSON.stringify(storeUrl)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new IntegrationError(SYSTEM, 'rejected', `${SYSTEM}: store URL must be http(s)`);
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

export function createStorefrontBClient(opts: StorefrontBClientOptions) {
  const storeUrl = normalizeStoreUrl(opts.storeUrl);
  const http = createHttpClient({
    system: SYSTEM,
    baseUrl: storeUrl + REST_PREFIX,
    headers: { authorization: `Basic ${Buffer.from(`${opts.consumerKey}:${opts.consumerSecret}`).toString('base64')}` },
    timeoutMs: opts.timeoutMs,
    fetch: opts.fetch,
  });
  const seg = (...parts: string[]) => `/${parts.map(encodeURIComponent).join('/')}`;
  const toMinor = (price: string, currency: string, what: string) => toMinorOrThrow(SYSTEM, () => decimalToMinor(price, currency), what);

  // Product prices carry no currency: it is a store setting, read once per client.
  let currency: Promise<string> | undefined;
  const storeCurrency = () => {
    currency ??= http
      .request('GET', '/data/currencies/current')
      .then((body) => parseResponse(SYSTEM, z.object({ code: z.string() }), body, 'currency').code);
    currency.catch(() => (currency = undefined));
    return currency;
  };

  return {
    storeUrl,

    /** Proves the keys work (the system status needs an authorised key) and reports the store's setup. */
    async validateCredentials(): Promise<StorefrontBStatus> {
      const s = parseResponse(SYSTEM, systemStatusSchema, await http.request('GET', '/system_status'), 'system status');
      return {
        storeUrl: s.environment.home_url,
        currency: s.settings.currency,
        version: s.environment.version,
        pluginActive: s.active_plugins.some((p) => p.plugin === PLUGIN_FILE),
      };
    },

    async getProduct(productId: string): Promise<StorefrontBProduct> {
      const [body, code] = await Promise.all([http.request('GET', seg('products', productId)), storeCurrency()]);
      const p = parseResponse(SYSTEM, productSchema, body, 'product');
      return {
        id: p.id,
        title: p.name,
        type: p.type,
        priceMinor: p.price === '' ? null : toMinor(p.price, code, `product ${p.id} price`),
        currency: code,
        imageUrl: p.images[0]?.src ?? null,
        variationIds: p.variations,
        inStock: p.stock_status === 'instock',
      };
    },

    async getVariation(productId: string, variationId: string): Promise<StorefrontBVariation> {
      const [body, code] = await Promise.all([http.request('GET', seg('products', productId, 'variations', variationId)), storeCurrency()]);
      const v = parseResponse(SYSTEM, variationSchema, body, 'variation');
      return {
        id: v.id,
        productId,
        title: v.attributes.map((a) => a.option).join(' / '),
        priceMinor: toMinor(v.price, code, `variation ${v.id} price`),
        currency: code,
        imageUrl: v.image?.src ?? null,
        inStock: v.stock_status === 'instock',
      };
    },

    /** Creates the order once per idempotency key: a retry with the same key answers the first order. */
    async createOrder(input: StoreOrderInput, idempotencyKey: string): Promise<StoreOrder> {
      const body = await http.request('POST', '/orders', { body: toOrderBody(input), idempotencyKey });
      return toStoreOrder(parseResponse(SYSTEM, orderSchema, body, 'order'));
    },

    async findOrderBySessionToken(sessionToken: string): Promise<StoreOrder | null> {
      const body = await http.request('GET', '/orders', { query: { search: sessionToken, per_page: 20 } });
      const orders = parseResponse(SYSTEM, z.array(orderSchema), body, 'order list').map(toStoreOrder);
      // The platform's search is a substring match over many fields; only an exact meta match counts.
      return orders.find((o) => o.sessionToken === sessionToken) ?? null;
    },

    async getOrder(orderId: string): Promise<StoreOrder> {
      return toStoreOrder(parseResponse(SYSTEM, orderSchema, await http.request('GET', seg('orders', orderId)), 'order'));
    },
  };
}

export type StorefrontBClient = ReturnType<typeof createStorefrontBClient>;
