// The store's REST API under <store url>/wp-json/wc/v3/, authenticated with a consumer key and secret
// (HTTP Basic, or consumer_key/consumer_secret query parameters) and answering the platform's error shape
// { code, message, data: { status } }.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { PLUGIN_FILE } from '../../integrations/storefront-b/client.js';
import { decimalToMinor, isCurrencyCode } from '../../integrations/storefront-common/money.js';
import { baseUrlOf, intOf, PlatformError, randomHex, type PublicUrl } from '../storefront-common/web.js';
import { findPurchasable, orderJson, PLATFORM_VERSION, productJson, requireStore, variationJson, type BOrder, type Store } from './state.js';

type RestRequest = FastifyRequest<{ Params: { store: string; id?: string; vid?: string }; Querystring: Record<string, string | undefined>; Body: unknown }>;

export const restError = (status: number, code: string, message: string, extra: Record<string, unknown> = {}) =>
  new PlatformError(status, { code, message, data: { status, ...extra } });

function credentialsOf(request: RestRequest): { key?: string; secret?: string } {
  const header = request.headers.authorization;
  if (header?.startsWith('Basic ')) {
    const decoded = Buffer.from(header.slice(6), 'base64').toString();
    const colon = decoded.indexOf(':');
    return colon < 0 ? { key: decoded } : { key: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
  }
  return { key: request.query.consumer_key, secret: request.query.consumer_secret };
}

/** Key, secret and the key's read/write permission, with the platform's own messages. */
function authenticate(request: RestRequest, store: Store, access: 'read' | 'write'): void {
  const { key, secret } = credentialsOf(request);
  if (!key) throw restError(401, access === 'read' ? 'woocommerce_rest_cannot_view' : 'woocommerce_rest_cannot_create', access === 'read' ? 'Sorry, you cannot list resources.' : 'Sorry, you are not allowed to create resources.');
  const apiKey = store.keys.get(key);
  if (!apiKey) throw restError(401, 'woocommerce_rest_authentication_error', 'Consumer key is invalid.');
  if (apiKey.consumerSecret !== secret) throw restError(401, 'woocommerce_rest_authentication_error', 'Consumer secret is invalid.');
  if (apiKey.permissions !== 'read_write' && apiKey.permissions !== access) {
    throw restError(401, 'woocommerce_rest_authentication_error', `The API key provided does not have ${access} permissions.`);
  }
}

const decimal = z.union([z.string(), z.number()]).transform(String);
const address = z.record(z.string(), z.union([z.string(), z.null()]).transform((v) => v ?? ''));
const orderBodySchema = z.object({
  payment_method: z.string().default(''),
  payment_method_title: z.string().default(''),
  set_paid: z.boolean().default(false),
  status: z.enum(['pending', 'processing', 'on-hold', 'completed', 'cancelled', 'refunded', 'failed']).optional(),
  currency: z.string().optional(),
  transaction_id: z.string().default(''),
  billing: address.default({}),
  shipping: address.default({}),
  line_items: z
    .array(
      z.object({
        product_id: z.number().int(),
        variation_id: z.number().int().nullish(),
        quantity: z.number().int().min(1),
        subtotal: decimal.optional(),
        total: decimal.optional(),
      }),
    )
    .min(1),
  shipping_lines: z.array(z.object({ method_id: z.string().min(1), method_title: z.string().min(1), total: decimal })).default([]),
  fee_lines: z.array(z.object({ name: z.string().min(1), total: decimal, tax_status: z.string().optional() })).default([]),
  meta_data: z.array(z.object({ key: z.string().min(1), value: z.unknown() })).default([]),
});

function createOrder(store: Store, body: unknown): BOrder {
  const parsed = orderBodySchema.safeParse(body ?? {});
  if (!parsed.success) {
    const params = Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0] ?? 'body'), `${i.path.join('.')}: ${i.message}`]));
    throw restError(400, 'rest_invalid_param', `Invalid parameter(s): ${Object.keys(params).join(', ')}`, { params });
  }
  const o = parsed.data;
  const currency = o.currency ?? store.currency;
  if (!isCurrencyCode(currency)) throw restError(400, 'rest_invalid_param', 'Invalid parameter(s): currency', { params: { currency: 'currency is not one of the supported currencies.' } });
  if (o.billing.email && !z.email().safeParse(o.billing.email).success) throw restError(400, 'rest_invalid_param', 'Invalid parameter(s): billing', { params: { billing: 'Invalid billing email address.' } });
  const amount = (value: string, param: string) => {
    try {
      return decimalToMinor(value, currency);
    } catch (err) {
      throw restError(400, 'rest_invalid_param', `Invalid parameter(s): ${param}`, { params: { [param]: (err as Error).message } });
    }
  };

  const lines = o.line_items.map((l) => {
    const found = findPurchasable(store, l.product_id, l.variation_id);
    if (!found) {
      throw l.variation_id
        ? restError(400, 'woocommerce_rest_invalid_variation_id', `Variation ID ${l.variation_id} is invalid for product ${l.product_id}.`)
        : restError(400, 'woocommerce_rest_invalid_product_id', `Product ID ${l.product_id} is invalid or needs a variation_id.`);
    }
    // Catalogue prices are in the store currency: an order in another currency states its own line totals.
    if (l.total === undefined && currency !== store.currency) throw restError(400, 'rest_invalid_param', 'Invalid parameter(s): line_items', { params: { line_items: 'total is required when the order currency differs from the store currency.' } });
    const total = l.total === undefined ? found.price * l.quantity : amount(l.total, 'line_items');
    const subtotal = l.subtotal === undefined ? total : amount(l.subtotal, 'line_items');
    if (total < 0 || subtotal < total) throw restError(400, 'rest_invalid_param', 'Invalid parameter(s): line_items', { params: { line_items: 'total must be between 0 and subtotal.' } });
    return { id: store.nextId(), name: found.title, productId: found.product.id, variationId: found.variation?.id ?? 0, quantity: l.quantity, subtotal, total, sku: found.sku };
  });
  const shippingLines = o.shipping_lines.map((s) => ({ id: store.nextId(), methodId: s.method_id, methodTitle: s.method_title, total: amount(s.total, 'shipping_lines') }));
  const feeLines = o.fee_lines.map((f) => ({ id: store.nextId(), name: f.name, total: amount(f.total, 'fee_lines') }));
  const total = [...lines, ...shippingLines, ...feeLines].reduce((n, x) => n + x.total, 0);
  if (total < 0) throw restError(400, 'rest_invalid_param', 'Invalid parameter(s): fee_lines', { params: { fee_lines: 'fees exceed the order total.' } });

  // set_paid runs the platform's payment_complete(): processing, with a paid date. Reaching processing or
  // completed by status alone records the paid date too.
  const status = o.set_paid ? (o.status === 'completed' ? 'completed' : 'processing') : (o.status ?? 'pending');
  const now = new Date();
  const order: BOrder = {
    id: store.nextId(),
    orderKey: `wc_order_${randomHex(7)}`,
    status,
    currency,
    paymentMethod: o.payment_method,
    paymentMethodTitle: o.payment_method_title,
    transactionId: o.transaction_id,
    billing: o.billing,
    shipping: o.shipping,
    lines,
    shippingLines,
    feeLines,
    metaData: o.meta_data.map((m) => ({ id: store.nextId(), key: m.key, value: m.value })),
    total,
    createdAt: now,
    modifiedAt: now,
    paidAt: status === 'processing' || status === 'completed' ? now : null,
  };
  store.orders.set(order.id, order);
  return order;
}

/** The merchant's "Mark as paid" on an order awaiting payment. */
export function markOrderPaid(order: BOrder): void {
  if (order.status !== 'pending' && order.status !== 'on-hold') return;
  order.status = 'processing';
  order.paidAt = order.modifiedAt = new Date();
}

function matchesSearch(o: BOrder, term: string): boolean {
  const haystack = [String(o.id), ...Object.values(o.billing), ...Object.values(o.shipping), ...o.lines.map((l) => l.name), ...o.metaData.map((m) => (typeof m.value === 'string' ? m.value : ''))];
  return haystack.some((v) => v.toLowerCase().includes(term.toLowerCase()));
}

export function registerRest(app: FastifyInstance, stores: Map<string, Store>, publicUrl: PublicUrl): void {
  const prefix = '/stores/:store/wp-json/wc/v3';
  const open = (request: RestRequest, access: 'read' | 'write') => {
    const store = requireStore(stores, request.params.store, 'json');
    authenticate(request, store, access);
    return { store, storeUrl: `${baseUrlOf(publicUrl, request)}/stores/${store.id}` };
  };
  const product = (store: Store, id: string | undefined) => {
    const found = store.products.find((p) => p.id === intOf(id));
    if (!found) throw restError(404, 'woocommerce_rest_product_invalid_id', 'Invalid ID.');
    return found;
  };

  app.get(`${prefix}/system_status`, async (request: RestRequest) => {
    const { store, storeUrl } = open(request, 'read');
    const symbol = new Intl.NumberFormat('en', { style: 'currency', currency: store.currency }).formatToParts(0).find((p) => p.type === 'currency')?.value;
    return {
      environment: { home_url: storeUrl, site_url: storeUrl, version: PLATFORM_VERSION, wp_version: '6.7.1', php_version: '8.2.26', server_info: 'sandbox', language: 'en_US', timezone: 'UTC' },
      database: { wc_database_version: PLATFORM_VERSION },
      active_plugins: [
        { plugin: 'woocommerce/woocommerce.php', name: 'WooCommerce', version: PLATFORM_VERSION },
        ...(store.plugin.active ? [{ plugin: PLUGIN_FILE, name: 'Hosted Checkout', version: '1.0.0' }] : []),
      ],
      settings: { api_enabled: true, currency: store.currency, currency_symbol: symbol, currency_position: 'left', thousand_separator: ',', decimal_separator: '.', number_of_decimals: 2 },
      security: { secure_connection: storeUrl.startsWith('https:'), hide_errors: true },
    };
  });

  app.get(`${prefix}/data/currencies/current`, async (request: RestRequest) => {
    const { store } = open(request, 'read');
    const name = new Intl.DisplayNames('en', { type: 'currency' }).of(store.currency);
    return { code: store.currency, name, symbol: store.currency };
  });

  app.get(`${prefix}/products/:id`, async (request: RestRequest) => {
    const { store, storeUrl } = open(request, 'read');
    return productJson(storeUrl, store, product(store, request.params.id));
  });

  app.get(`${prefix}/products/:id/variations/:vid`, async (request: RestRequest) => {
    const { store, storeUrl } = open(request, 'read');
    const p = product(store, request.params.id);
    const v = p.variations.find((x) => x.id === intOf(request.params.vid));
    if (!v) throw restError(404, 'woocommerce_rest_product_variation_invalid_id', 'Invalid ID.');
    return variationJson(storeUrl, store, p, v);
  });

  app.post(`${prefix}/orders`, async (request: RestRequest, reply) => {
    const { store, storeUrl } = open(request, 'write');
    const key = request.headers['idempotency-key'];
    const earlier = typeof key === 'string' ? store.orders.get(store.idempotency.get(key) ?? -1) : undefined;
    if (earlier) return reply.code(200).header('idempotent-replayed', 'true').send(orderJson(storeUrl, earlier));
    const order = createOrder(store, request.body);
    if (typeof key === 'string') store.idempotency.set(key, order.id);
    return reply.code(201).send(orderJson(storeUrl, order));
  });

  app.get(`${prefix}/orders`, async (request: RestRequest, reply) => {
    const { store, storeUrl } = open(request, 'read');
    const perPage = intOf(request.query.per_page ?? '10');
    const page = intOf(request.query.page ?? '1');
    if (perPage === null || perPage < 1 || perPage > 100) throw restError(400, 'rest_invalid_param', 'Invalid parameter(s): per_page', { params: { per_page: 'per_page must be between 1 (inclusive) and 100 (inclusive)' } });
    if (page === null || page < 1) throw restError(400, 'rest_invalid_param', 'Invalid parameter(s): page', { params: { page: 'page must be greater than or equal to 1' } });
    const { search, status } = request.query;
    const all = [...store.orders.values()]
      .filter((o) => !search || matchesSearch(o, search))
      .filter((o) => !status || status === 'any' || status.split(',').includes(o.status))
      .sort((a, b) => b.id - a.id);
    reply.header('x-wp-total', String(all.length)).header('x-wp-totalpages', String(Math.ceil(all.length / perPage)));
    return all.slice((page - 1) * perPage, page * perPage).map((o) => orderJson(storeUrl, o));
  });

  app.get(`${prefix}/orders/:id`, async (request: RestRequest) => {
    const { store, storeUrl } = open(request, 'read');
    const order = store.orders.get(intOf(request.params.id) ?? -1);
    if (!order) throw restError(404, 'woocommerce_rest_shop_order_invalid_id', 'Invalid ID.');
    return orderJson(storeUrl, order);
  });
}
