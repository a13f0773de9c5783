// Client of storefront A's Admin REST API (version 2025-01) for one installed shop, and the OAuth code
// exchange that yields its access token. URLs come from apiUrlTemplate, so the same code talks to the real
// platform ("https://{shop}") or the sandbox ("http://127.0.0.1:4020/shops/{shop}").
import { z } from 'zod';
import { createHttpClient } from '../http.js';
import { decimalToMinor, minorToDecimal } from '../storefront-common/money.js';
import { parseOrderInput, SESSION_TOKEN_KEY, type OrderAddress, type StoreOrder, type StoreOrderInput } from '../storefront-common/order.js';
import { parseResponse, toMinorOrThrow } from '../storefront-common/parse.js';
import { DEFAULT_API_URL_TEMPLATE, shopBaseUrl } from './oauth.js';

const SYSTEM = 'storefront-a';
export const STOREFRONT_A_API_VERSION = '2025-01';
export const ACCESS_TOKEN_HEADER = 'X-Storefront-Access-Token';
/** Tag put on every order we create, searchable with GET orders.json?tag=. */
export const sessionTag = (sessionToken: string) => `checkout:${sessionToken}`;

export interface StorefrontAClientOptions {
  /** Shop host, e.g. demo-shop.myshopify.com. */
  shop: string;
  accessToken: string;
  apiUrlTemplate?: string;
  /** Host suffix shops must have (default .myshopify.com; config STOREFRONT_A_SHOP_SUFFIX). */
  shopSuffix?: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface StorefrontAShop {
  id: string;
  name: string;
  email: string;
  domain: string;
  myshopifyDomain: string;
  currency: string;
  countryCode: string;
}

export interface StorefrontACartLine {
  productId: string;
  variantId: string;
  title: string;
  variantTitle: string | null;
  quantity: number;
  unitPriceMinor: number;
  imageUrl: string | null;
}

export interface StorefrontACart {
  token: string;
  currency: string;
  /** Country of the market the shopper browses in (ISO 3166-1 alpha-2). */
  country: string;
  items: StorefrontACartLine[];
  subtotalMinor: number;
}

export interface ScriptTag {
  id: string;
  src: string;
  event: string;
  createdAt: string;
}

const id = z.union([z.number().int(), z.string().regex(/^\d+$/)]).transform(String);

const shopSchema = z.object({
  shop: z.object({
    id,
    name: z.string(),
    email: z.string(),
    domain: z.string(),
    myshopify_domain: z.string(),
    currency: z.string(),
    country_code: z.string(),
  }),
});

const cartSchema = z.object({
  cart: z.object({
    token: z.string(),
    currency: z.string(),
    market: z.object({ country: z.string() }),
    total_price: z.number().int(),
    items: z.array(
      z.object({
        product_id: id,
        variant_id: id,
        product_title: z.string(),
        variant_title: z.string().nullable(),
        quantity: z.number().int().min(1),
        price: z.number().int().nonnegative(),
        image: z.string().nullable(),
      }),
    ),
  }),
});

const scriptTagSchema = z.object({ id, src: z.string(), event: z.string(), created_at: z.string() });

const orderSchema = z.object({
  id,
  name: z.string(),
  financial_status: z.string(),
  currency: z.string(),
  total_price: z.string(),
  created_at: z.string(),
  note_attributes: z.array(z.object({ name: z.string(), value: z.string().nullable() })).default([]),
});

const toScriptTag = (t: z.output<typeof scriptTagSchema>): ScriptTag => ({ id: t.id, src: t.src, event: t.event, createdAt: t.created_at });

function toStoreOrder(o: z.output<typeof orderSchema>): StoreOrder {
  return {
    id: o.id,
    number: o.name,
    status: o.financial_status,
    paid: o.financial_status === 'paid',
    currency: o.currency,
    totalMinor: toMinorOrThrow(SYSTEM, () => decimalToMinor(o.total_price, o.currency), `order ${o.id} total_price`),
    sessionToken: o.note_attributes.find((a) => a.name === SESSION_TOKEN_KEY)?.value ?? null,
    createdAt: o.created_at,
  };
}

const toAddress = (a: OrderAddress) => ({
  first_name: a.firstName,
  last_name: a.lastName,
  address1: a.line1,
  address2: a.line2 ?? null,
  city: a.city,
  zip: a.postalCode,
  province: a.region ?? null,
  country_code: a.countryCode,
  phone: a.phone ?? null,
});

/** Our neutral order as the platform's order resource: prices as decimal strings in the order currency. */
function toOrderBody(input: StoreOrderInput) {
  const o = parseOrderInput(SYSTEM, input);
  const money = (minor: number) => minorToDecimal(minor, o.currency);
  const card = o.payment.method === 'card';
  return {
    order: {
      email: o.email,
      currency: o.currency,
      financial_status: card ? 'paid' : 'pending',
      line_items: o.lines.map((l) => ({
        variant_id: l.variantId === undefined ? undefined : Number(l.variantId),
        product_id: l.productId === undefined ? undefined : Number(l.productId),
        title: l.title,
        variant_title: l.variantTitle,
        sku: l.sku,
        quantity: l.quantity,
        price: money(l.unitPriceMinor),
      })),
      shipping_lines: [{ title: o.shipping.title, code: o.shipping.code ?? o.shipping.title, price: money(o.shipping.priceMinor) }],
      discount_codes: o.discount ? [{ code: o.discount.code, amount: money(o.discount.amountMinor), type: 'fixed_amount' }] : [],
      shipping_address: toAddress(o.shippingAddress),
      billing_address: toAddress(o.billingAddress ?? o.shippingAddress),
      transactions: [
        {
          kind: 'sale',
          status: card ? 'success' : 'pending',
          amount: money(o.totals.totalMinor),
          gateway: card ? 'checkout-processor' : 'Cash on Delivery (COD)',
          authorization: o.payment.reference,
        },
      ],
      subtotal_price: money(o.totals.subtotalMinor),
      total_discounts: money(o.totals.discountMinor),
      total_price: money(o.totals.totalMinor),
      tags: sessionTag(o.sessionToken),
      note_attributes: [{ name: SESSION_TOKEN_KEY, value: o.sessionToken }],
      send_receipt: false,
    },
  };
}

export function createStorefrontAClient(opts: StorefrontAClientOptions) {
  const http = createHttpClient({
    system: SYSTEM,
    baseUrl: `${shopBaseUrl(opts.apiUrlTemplate ?? DEFAULT_API_URL_TEMPLATE, opts.shop, opts.shopSuffix)}/admin/api/${STOREFRONT_A_API_VERSION}`,
    headers: { [ACCESS_TOKEN_HEADER]: opts.accessToken },
    timeoutMs: opts.timeoutMs,
    fetch: opts.fetch,
  });
  const path = (segment: string) => `/${segment.split('/').map(encodeURIComponent).join('/')}.json`;

  return {
    shop: opts.shop,

    async getShop(): Promise<StorefrontAShop> {
      const { shop } = parseResponse(SYSTEM, shopSchema, await http.request('GET', path('shop')), 'shop');
      return { id: shop.id, name: shop.name, email: shop.email, domain: shop.domain, myshopifyDomain: shop.myshopify_domain, currency: shop.currency, countryCode: shop.country_code };
    },

    /** The shopper's cart, prices in the cart's (market's) currency as integer minor units. */
    async getCart(token: string): Promise<StorefrontACart> {
      const { cart } = parseResponse(SYSTEM, cartSchema, await http.request('GET', path(`carts/${token}`)), 'cart');
      return {
        token: cart.token,
        currency: cart.currency,
        country: cart.market.country,
        subtotalMinor: cart.total_price,
        items: cart.items.map((i) => ({
          productId: i.product_id,
          variantId: i.variant_id,
          title: i.product_title,
          variantTitle: i.variant_title,
          quantity: i.quantity,
          unitPriceMinor: i.price,
          imageUrl: i.image,
        })),
      };
    },

    async listScriptTags(): Promise<ScriptTag[]> {
      const body = parseResponse(SYSTEM, z.object({ script_tags: z.array(scriptTagSchema) }), await http.request('GET', path('script_tags')), 'script tag list');
      return body.script_tags.map(toScriptTag);
    },

    async createScriptTag(src: string): Promise<ScriptTag> {
      const body = await http.request('POST', path('script_tags'), { body: { script_tag: { event: 'onload', src } } });
      return toScriptTag(parseResponse(SYSTEM, z.object({ script_tag: scriptTagSchema }), body, 'script tag').script_tag);
    },

    async deleteScriptTag(scriptTagId: string): Promise<void> {
      await http.request('DELETE', path(`script_tags/${scriptTagId}`));
    },

    /** Creates the order once per idempotency key: a retry with the same key answers the first order. */
    async createOrder(input: StoreOrderInput, idempotencyKey: string): Promise<StoreOrder> {
      const body = await http.request('POST', path('orders'), { body: toOrderBody(input), idempotencyKey });
      return toStoreOrder(parseResponse(SYSTEM, z.object({ order: orderSchema }), body, 'order').order);
    },

    async findOrderBySessionToken(sessionToken: string): Promise<StoreOrder | null> {
      const body = await http.request('GET', path('orders'), { query: { status: 'any', tag: sessionTag(sessionToken) } });
      const { orders } = parseResponse(SYSTEM, z.object({ orders: z.array(orderSchema) }), body, 'order list');
      const found = orders.map(toStoreOrder).find((o) => o.sessionToken === sessionToken);
      return found ?? null;
    },

    async getOrder(orderId: string): Promise<StoreOrder> {
      const body = await http.request('GET', path(`orders/${orderId}`));
      return toStoreOrder(parseResponse(SYSTEM, z.object({ order: orderSchema }), body, 'order').order);
    },
  };
}

export type StorefrontAClient = ReturnType<typeof createStorefrontAClient>;

export interface ExchangeCodeInput {
  shop: string;
  clientId: string;
  clientSecret: string;
  code: string;
  apiUrlTemplate?: string;
  /** Host suffix shops must have (default .myshopify.com; config STOREFRONT_A_SHOP_SUFFIX). */
  shopSuffix?: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** Trades the one-time code of the OAuth callback for the shop's offline access token. */
export async function exchangeCode(input: ExchangeCodeInput): Promise<{ accessToken: string; scopes: string[] }> {
  const http = createHttpClient({ system: SYSTEM, baseUrl: shopBaseUrl(input.apiUrlTemplate ?? DEFAULT_API_URL_TEMPLATE, input.shop, input.shopSuffix), timeoutMs: input.timeoutMs, fetch: input.fetch });
  const body = await http.request('POST', '/admin/oauth/access_token', {
    body: { client_id: input.clientId, client_secret: input.clientSecret, code: input.code },
  });
  const token = parseResponse(SYSTEM, z.object({ access_token: z.string().min(1), scope: z.string() }), body, 'access token');
  return { accessToken: token.access_token, scopes: token.scope.split(',').filter(Boolean) };
}
