// The store's REST API under <home>/wp-json/: WooCommerce's wc/v3 routes the service uses and our plugin's
// route (wc-hosted-checkout/v1), written from WooCommerce's source and docs (docs/storefront-b.md), not
// from our client. Authentication follows WC_REST_Authentication: Basic only when is_ssl(), OAuth 1.0a
// otherwise; errors are WP REST errors { code, message, data: { status } }.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { baseUrlOf, intOf, PlatformError, randomHex, type PublicUrl } from '../storefront-common/web.js';
import { isWooCurrency, majorToUnits, parseWooAmount, unitsToMajor } from './money.js';
import { hashEquals, oauthHeaderParams, oauthSignature, OAUTH_REQUIRED, phpQuery, stringToSign, TIMESTAMP_WINDOW_S, wcApiHash } from './oauth.js';
import { calculateOrderTaxes, UNTAXED } from './taxes.js';
import { findPurchasable, orderJson, PLATFORM_VERSION, PLUGIN_FILE, pluginHas, productJson, refundJson, requireStore, sessionTokenOf, variationJson, type ApiKey, type BOrder, type BRefund, type Store } from './state.js';
import { holdUntilClientGivesUp } from '../shared/simulator.js';

type RestRequest = FastifyRequest<{ Params: { store: string; id?: string; vid?: string; token?: string; group?: string }; Body: unknown }>;

export const restError = (status: number, code: string, message: string, extra: Record<string, unknown> = {}) =>
  new PlatformError(status, { code, message, data: { status, ...extra } });

const authError = (message: string) => restError(401, 'woocommerce_rest_authentication_error', message);

/** The request as PHP sees it: $_GET (last duplicate wins) and the path. */
function phpRequest(request: FastifyRequest) {
  const url = request.raw.url ?? '/';
  const q = url.indexOf('?');
  return { path: q < 0 ? url : url.slice(0, q), get: phpQuery(q < 0 ? '' : url.slice(q + 1)) };
}

/** The site's home URL (the `home` option): the configured host, the scheme is_ssl() implies. */
export function homeUrlOf(publicUrl: PublicUrl, request: FastifyRequest, store: Store): string {
  const base = new URL(baseUrlOf(publicUrl, request));
  return `${store.isSsl ? 'https' : 'http'}://${base.host}/stores/${store.id}`;
}

function basicCredentials(request: FastifyRequest, get: Map<string, string>): { key: string; secret: string } | null {
  // If the $_GET parameters are present, they are used first.
  const key = get.get('consumer_key');
  const secret = get.get('consumer_secret');
  if (key && secret) return { key, secret };
  const header = request.headers.authorization;
  if (!header?.startsWith('Basic ')) return null;
  const decoded = Buffer.from(header.slice(6), 'base64').toString();
  const colon = decoded.indexOf(':');
  // PHP_AUTH_USER and PHP_AUTH_PW must both be non-empty.
  return colon > 0 && colon < decoded.length - 1 ? { key: decoded.slice(0, colon), secret: decoded.slice(colon + 1) } : null;
}

/**
 * WC_REST_Authentication::authenticate plus check_user_permissions: answers the key's row, null for "no
 * user" (the route's own permission check then refuses), or throws the recorded authentication error.
 */
function authenticate(request: RestRequest, store: Store, homeUrl: string): ApiKey | null {
  const { path, get } = phpRequest(request);
  let error: PlatformError | null = null;
  let user: ApiKey | null = null;

  if (store.isSsl) {
    const creds = basicCredentials(request, get);
    const row = creds ? store.keys.get(wcApiHash(creds.key)) : undefined;
    // An unknown key over Basic is not an error: authentication falls through.
    if (creds && row) {
      if (hashEquals(row.consumerSecret, creds.secret)) user = row;
      else error = authError('Consumer secret is invalid.');
    }
  }

  if (!user) {
    const params = new Map(get);
    const body = request.body;
    if (body && typeof body === 'object' && request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
      for (const [k, v] of Object.entries(body as Record<string, string>)) params.set(k, v);
    }
    for (const [k, v] of oauthHeaderParams(request.headers.authorization)) params.set(k, v);
    const missing = OAUTH_REQUIRED.filter((name) => !params.get(name));
    if (missing.length < OAUTH_REQUIRED.length) {
      if (missing.length > 0) {
        error = restError(401, 'woocommerce_rest_authentication_missing_parameter', `Missing OAuth parameter${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
      } else {
        const row = store.keys.get(wcApiHash(params.get('oauth_consumer_key')!));
        if (!row) error = authError('Consumer key is invalid.');
        else {
          error = checkSignature(request.method, homeUrl, path, store.id, params, row) ?? checkTimestampAndNonce(row, params.get('oauth_timestamp')!, params.get('oauth_nonce')!);
          if (!error) user = row;
        }
      }
    }
  }
  if (error) throw error;
  if (user) checkPermissions(user, request.method);
  return user;
}

function checkSignature(method: string, homeUrl: string, path: string, storeId: string, params: Map<string, string>, row: ApiKey): PlatformError | null {
  // The request path minus the home path, re-based on the home URL (get_home_url with is_ssl()'s scheme).
  const homePath = `/stores/${storeId}`;
  const rest = path.startsWith(homePath) ? path.slice(homePath.length) : path;
  let decodedPath: string;
  try {
    decodedPath = decodeURIComponent(rest);
  } catch {
    decodedPath = rest;
  }
  const text = stringToSign(method, homeUrl + decodedPath, params);
  const algorithm = params.get('oauth_signature_method');
  if (algorithm !== 'HMAC-SHA1' && algorithm !== 'HMAC-SHA256') return authError('Invalid signature - signature method is invalid.');
  const expected = oauthSignature(algorithm === 'HMAC-SHA1' ? 'sha1' : 'sha256', text, row.consumerSecret);
  const given = decodeURIComponent(params.get('oauth_signature')!.replace(/ /g, '+'));
  return hashEquals(expected, given) ? null : authError('Invalid signature - provided signature does not match.');
}

function checkTimestampAndNonce(row: ApiKey, timestamp: string, nonce: string): PlatformError | null {
  const now = Math.floor(Date.now() / 1000);
  const ts = Number(timestamp);
  if (!Number.isFinite(ts) || ts < now - TIMESTAMP_WINDOW_S || ts > now + TIMESTAMP_WINDOW_S) return authError('Invalid timestamp.');
  if ([...row.nonces.values()].includes(nonce)) return authError('Invalid nonce - nonce has already been used.');
  row.nonces.set(ts, nonce);
  for (const seen of row.nonces.keys()) if (seen < now - TIMESTAMP_WINDOW_S) row.nonces.delete(seen);
  return null;
}

function checkPermissions(row: ApiKey, method: string): void {
  const can = (p: 'read' | 'write') => row.permissions === p || row.permissions === 'read_write';
  if ((method === 'GET' || method === 'HEAD') && !can('read')) throw authError('The API key provided does not have read permissions.');
  if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(method) && !can('write')) throw authError('The API key provided does not have write permissions.');
}

/** The route's permission callback when no user was authenticated (rest_authorization_required_code: 401). */
const cannot = {
  view: () => restError(401, 'woocommerce_rest_cannot_view', 'Sorry, you cannot list resources.'),
  viewOne: () => restError(401, 'woocommerce_rest_cannot_view', 'Sorry, you cannot view this resource.'),
  create: () => restError(401, 'woocommerce_rest_cannot_create', 'Sorry, you are not allowed to create resources.'),
  forbidden: () => restError(401, 'rest_forbidden', 'Sorry, you are not allowed to do that.'),
};

const invalidParam = (param: string, message: string) => restError(400, 'rest_invalid_param', `Invalid parameter(s): ${param}`, { params: { [param]: message } });

/** WP's `_fields`: keep only the named top-level properties. */
function onlyFields<T extends Record<string, unknown>>(value: T, fields: string | undefined): Partial<T> {
  if (!fields) return value;
  const names = new Set(fields.split(',').map((f) => f.trim().split('.')[0]));
  return Object.fromEntries(Object.entries(value).filter(([k]) => names.has(k))) as Partial<T>;
}

// ---------------------------------------------------------------------------------------------------
// POST /orders, as WC_REST_Orders_Controller::save_object does it.

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The WP schema types the money fields as strings: a number is refused, not coerced. The string is read as
 * wc_format_decimal reads it, in the store's decimals (money.ts); only an amount too large to hold is refused.
 */
function moneyField(value: unknown, param: string, decimals: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidParam(param, `${param} is not of type string.`);
  const units = parseWooAmount(value, decimals);
  if (units === null) throw invalidParam(param, `${param} is not a valid amount.`);
  return units;
}

const ORDER_STATUSES = ['pending', 'processing', 'on-hold', 'completed', 'cancelled', 'refunded', 'failed', 'checkout-draft'];
const ADDRESS_FIELDS = ['first_name', 'last_name', 'company', 'address_1', 'address_2', 'city', 'state', 'postcode', 'country', 'email', 'phone'];

function address(value: unknown, param: 'billing' | 'shipping'): Record<string, string> {
  if (value === undefined) return Object.fromEntries(ADDRESS_FIELDS.filter((f) => param === 'billing' || f !== 'email').map((f) => [f, '']));
  if (!isObject(value)) throw invalidParam(param, `${param} is not of type object.`);
  const out: Record<string, string> = {};
  for (const f of ADDRESS_FIELDS) {
    if (param === 'shipping' && f === 'email') continue;
    const v = value[f];
    if (v !== undefined && v !== null && typeof v !== 'string') throw invalidParam(param, `${param}[${f}] is not of type string.`);
    out[f] = v ?? '';
  }
  if (param === 'billing' && out.email && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(out.email)) throw invalidParam('billing', 'Invalid billing email address.');
  return out;
}

function metaData(value: unknown, param: string, nextId: () => number): BOrder['metaData'] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalidParam(param, `${param} is not of type array.`);
  return value.map((m, i) => {
    if (!isObject(m) || typeof m.key !== 'string') throw invalidParam(param, `${param}[${i}][key] is not of type string.`);
    return { id: nextId(), key: m.key, value: m.value };
  });
}

function array(value: unknown, param: string): Json[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every(isObject)) throw invalidParam(param, `${param} is not of type array.`);
  return value;
}

function createOrder(store: Store, body: unknown): BOrder {
  if (!isObject(body)) throw restError(400, 'rest_invalid_json', 'Invalid JSON body passed.');
  if (body.id !== undefined) throw restError(400, 'woocommerce_rest_shop_order_exists', 'Cannot create existing order.');
  const currency = body.currency ?? store.currency;
  if (typeof currency !== 'string' || !isWooCurrency(currency)) throw invalidParam('currency', 'currency is not one of the supported currencies.');
  const status = body.status;
  if (status !== undefined && (typeof status !== 'string' || !ORDER_STATUSES.includes(status))) throw invalidParam('status', `status is not one of ${ORDER_STATUSES.join(', ')}.`);
  for (const f of ['payment_method', 'payment_method_title', 'transaction_id', 'customer_note'] as const) {
    if (body[f] !== undefined && typeof body[f] !== 'string') throw invalidParam(f, `${f} is not of type string.`);
  }
  if (body.set_paid !== undefined && typeof body.set_paid !== 'boolean') throw invalidParam('set_paid', 'set_paid is not of type boolean.');
  // wc_get_price_decimals(): the store's, whatever the order's currency.
  const dp = store.priceDecimals;

  const lines = array(body.line_items, 'line_items').map((l, i) => {
    const param = `line_items[${i}]`;
    const quantity = l.quantity ?? 1;
    if (typeof quantity !== 'number' || !Number.isInteger(quantity)) throw invalidParam('line_items', `${param}[quantity] is not of type integer.`);
    const productId = intOf(l.product_id) ?? 0;
    const variationId = intOf(l.variation_id) ?? 0;
    if (!productId && !variationId && !l.sku) throw restError(400, 'woocommerce_rest_required_product_reference', 'Product ID or SKU is required.');
    const found = findPurchasable(store, productId, variationId || undefined);
    // An id the store does not have adds an item without a product (product_id 0, no name, zero totals): WooCommerce
    // does not refuse it (seen on WooCommerce 10.0.2, test/real/).
    const computed = found ? found.price * quantity : 0;
    const subtotal = moneyField(l.subtotal, 'line_items', dp) ?? computed;
    const total = moneyField(l.total, 'line_items', dp) ?? computed;
    return {
      id: store.nextId(),
      name: typeof l.name === 'string' ? l.name : (found?.title ?? ''),
      productId: found?.product.id ?? 0,
      variationId: found?.variation?.id ?? 0,
      quantity,
      subtotal,
      total,
      sku: found?.sku ?? '',
      metaData: metaData(l.meta_data, 'line_items', store.nextId),
    };
  });
  const shippingLines = array(body.shipping_lines, 'shipping_lines').map((s) => {
    if (typeof s.method_id !== 'string' || !s.method_id) throw restError(400, 'woocommerce_rest_invalid_shipping_item', 'Shipping method ID is required.');
    return { id: store.nextId(), methodId: s.method_id, methodTitle: typeof s.method_title === 'string' ? s.method_title : '', total: moneyField(s.total, 'shipping_lines', dp) ?? 0 };
  });
  const feeLines = array(body.fee_lines, 'fee_lines').map((f) => {
    if (typeof f.name !== 'string' || !f.name) throw restError(400, 'woocommerce_rest_invalid_fee_item', 'Fee name is required.');
    return { id: store.nextId(), name: f.name, total: moneyField(f.total, 'fee_lines', dp) ?? 0 };
  });
  const couponLines = array(body.coupon_lines, 'coupon_lines');

  const now = new Date();
  const order: BOrder = {
    id: store.nextId(),
    orderKey: `wc_order_${randomHex(7)}`,
    status: 'pending',
    currency,
    decimals: dp,
    paymentMethod: (body.payment_method as string | undefined) ?? '',
    paymentMethodTitle: (body.payment_method_title as string | undefined) ?? '',
    transactionId: (body.transaction_id as string | undefined) ?? '',
    billing: address(body.billing, 'billing'),
    shipping: address(body.shipping, 'shipping'),
    lines,
    shippingLines,
    feeLines,
    metaData: metaData(body.meta_data, 'meta_data', store.nextId),
    total: 0,
    createdAt: now,
    modifiedAt: now,
    paidAt: null,
    taxes: UNTAXED,
    roundedAtSubtotal: store.taxes.roundAtSubtotal,
    refunds: [],
  };
  // save(): the row, its items and meta exist from here on, whatever fails next.
  store.orders.set(order.id, order);
  // calculate_totals(true): the store's taxes on the items and shipping (none while taxes are off); a negative fee is
  // capped so the total cannot go below zero.
  const place = (a: Record<string, string>) => ({ country: a.country ?? '', state: a.state ?? '', postcode: a.postcode ?? '', city: a.city ?? '' });
  order.taxes = calculateOrderTaxes(store.taxes, {
    lines: lines.map((l) => ({ subtotal: unitsToMajor(l.subtotal, dp), total: unitsToMajor(l.total, dp) })),
    shippingTotal: unitsToMajor(shippingLines.reduce((n, x) => n + x.total, 0), dp),
    shipping: place(order.shipping),
    billing: place(order.billing),
    shippingMethodId: shippingLines[0]?.methodId ?? '',
    decimals: dp,
  });
  for (const t of order.taxes.taxLines) t.itemId = store.nextId();
  const taxed = order.taxes;
  order.total = Math.max(0, majorToUnits(taxed.total, dp) + feeLines.reduce((n, f) => n + f.total, 0));

  // calculate_coupons(): every code must be a coupon of this store (the sandbox stores have none).
  for (const c of couponLines) {
    if (c.id !== undefined) throw restError(400, 'woocommerce_rest_coupon_item_id_readonly', 'Coupon item ID is readonly.');
    if (typeof c.code !== 'string' || !c.code.trim()) throw restError(400, 'woocommerce_rest_invalid_coupon', 'Coupon code is required.');
    order.status = 'checkout-draft';
    throw restError(400, 'woocommerce_rest_invalid_coupon', `Coupon "${c.code.toLowerCase()}" does not exist!`, { new_draft_order_id: order.id });
  }
  if (typeof status === 'string') order.status = status;
  // maybe_set_date_paid(): reaching processing or completed records the paid date.
  if (order.status === 'processing' || order.status === 'completed') order.paidAt = now;
  if (body.set_paid === true) paymentComplete(order, now);
  return order;
}

/** WC_Order::payment_complete(): only from a status that awaits payment; all items here need processing. */
function paymentComplete(order: BOrder, at: Date): void {
  if (!['on-hold', 'pending', 'failed', 'cancelled'].includes(order.status)) return;
  order.status = 'processing';
  order.paidAt ??= at;
  order.modifiedAt = at;
}

/** Gateways of a WooCommerce install with its core gateways: none of them refunds through an API (supports('refunds')). */
const CORE_GATEWAYS = new Set(['bacs', 'cheque', 'cod']);

/**
 * POST /wc/v3/orders/<id>/refunds (WC_REST_Order_Refunds_Controller + RestApiParameterUtil::adjust_create_refund_request_parameters
 * + wc_create_refund, WooCommerce 10.0.2): api_refund and api_restock default to true; line_items [{ id, quantity,
 * refund_total }] become the refunded items (and the amount when none is given); an amount above what is left, or a
 * gateway that cannot refund, is a 500 woocommerce_rest_cannot_create_order_refund; the last unit refunded turns the
 * order `refunded`.
 */
export function createRefund(store: Store, order: BOrder, body: unknown): BRefund {
  const b = isObject(body) ? body : {};
  const reason = typeof b.reason === 'string' && b.reason ? b.reason : '';
  const apiRefund = typeof b.api_refund === 'boolean' ? b.api_refund : true;
  const apiRestock = typeof b.api_restock === 'boolean' ? b.api_restock : true;
  const items = array(b.line_items, 'line_items').map((l) => ({
    lineId: intOf(l.id) ?? -1,
    quantity: intOf(l.quantity ?? l.qty) ?? 0,
    // refund_total is a number in the schema; PHP's is_numeric takes a numeric string too.
    refundTotal: moneyField(typeof l.refund_total === 'number' ? String(l.refund_total) : l.refund_total, 'line_items', order.decimals) ?? null,
  }));
  let amount = moneyField(b.amount, 'amount', order.decimals);
  if (amount === undefined) amount = items.every((i) => i.refundTotal !== null) && items.length ? items.reduce((n, i) => n + (i.refundTotal ?? 0), 0) : 0;
  if (amount < 0) throw restError(400, 'woocommerce_rest_invalid_order_refund', 'Refund amount must be greater than zero.');
  const failed = (message: string) => restError(500, 'woocommerce_rest_cannot_create_order_refund', message);
  const remaining = order.total - order.refunds.reduce((n, r) => n + r.amount, 0);
  if (amount > remaining) throw failed('Invalid refund amount.');
  if (apiRefund) {
    if (!CORE_GATEWAYS.has(order.paymentMethod)) throw failed('The payment gateway for this order does not exist.');
    throw failed('The payment gateway for this order does not support automatic refunds.');
  }
  const lines = items.filter((i) => order.lines.some((l) => l.id === i.lineId) && (i.quantity > 0 || (i.refundTotal ?? 0) > 0)).map((i) => ({ lineId: i.lineId, quantity: i.quantity, refundTotal: i.refundTotal ?? 0 }));
  const refund: BRefund = {
    id: store.nextId(), amount, reason, refundedPayment: false, createdAt: new Date(), lines,
    metaData: metaData(b.meta_data, 'meta_data', store.nextId), restocked: apiRestock && lines.some((l) => l.quantity > 0),
  };
  order.refunds.push(refund);
  if (remaining - amount <= 0) order.status = 'refunded';
  order.modifiedAt = new Date();
  return refund;
}

/** The merchant's "Mark as paid" on an order awaiting payment (admin edit → processing). */
export function markOrderPaid(order: BOrder): void {
  if (order.status !== 'pending' && order.status !== 'on-hold') return;
  order.status = 'processing';
  order.paidAt = order.modifiedAt = new Date();
}

/**
 * What `search` matches on posts storage (WC_Order_Data_Store_CPT::search_orders): a numeric term is an
 * order id; otherwise LIKE %term% over the billing and shipping address indexes, billing last name and
 * email, and order item names. Order meta (our session token) is never searched.
 */
function matchesSearch(o: BOrder, term: string): boolean {
  if (/^\d+$/.test(term) && o.id === Number(term)) return true;
  const index = (a: Record<string, string>) => Object.values(a).join(' ');
  const haystack = [index(o.billing), index(o.shipping), o.billing.last_name ?? '', o.billing.email ?? '', ...o.lines.map((l) => l.name)];
  return haystack.some((v) => v.toLowerCase().includes(term.toLowerCase()));
}

export function registerRest(app: FastifyInstance, stores: Map<string, Store>, publicUrl: PublicUrl): void {
  const root = '/stores/:store/wp-json';
  const prefix = `${root}/wc/v3`;
  const open = (request: RestRequest) => {
    const store = requireStore(stores, request.params.store, 'json');
    const homeUrl = homeUrlOf(publicUrl, request, store);
    return { store, homeUrl, user: authenticate(request, store, homeUrl), query: phpRequest(request).get };
  };
  const product = (store: Store, id: string | undefined) => {
    const found = store.products.find((p) => p.id === intOf(id));
    if (!found) throw restError(404, 'woocommerce_rest_product_invalid_id', 'Invalid ID.');
    return found;
  };

  // The REST index: public, names the active namespaces (our plugin's appears when it is active).
  app.get(`${root}/`, async (request: RestRequest) => {
    const store = requireStore(stores, request.params.store, 'json');
    const home = homeUrlOf(publicUrl, request, store);
    return { name: store.name, description: '', url: home, home, gmt_offset: 0, timezone_string: 'UTC', namespaces: ['oembed/1.0', 'wc/v3', 'wc/store/v1', ...(store.plugin.active ? ['wc-hosted-checkout/v1'] : []), 'wp/v2'] };
  });

  app.get(`${prefix}/system_status`, async (request: RestRequest) => {
    const { store, homeUrl, user, query } = open(request);
    if (!user) throw cannot.view();
    return onlyFields({
      environment: { home_url: homeUrl, site_url: homeUrl, version: PLATFORM_VERSION, wp_version: '6.8.8', php_version: '8.2.36', server_info: 'sandbox', language: 'en_US', timezone: 'UTC' },
      database: { wc_database_version: PLATFORM_VERSION },
      active_plugins: [
        { plugin: 'woocommerce/woocommerce.php', name: 'WooCommerce', version: PLATFORM_VERSION, version_latest: PLATFORM_VERSION, url: 'https://woocommerce.com/', author_name: 'Automattic', author_url: 'https://woocommerce.com', network_activated: false },
        ...(store.plugin.active ? [{ plugin: PLUGIN_FILE, name: 'Hosted Checkout Connector', version: store.plugin.version, version_latest: store.plugin.version, url: '', author_name: '', author_url: '', network_activated: false }] : []),
      ],
      settings: { api_enabled: true, currency: store.currency, currency_symbol: store.currency, currency_position: 'left', thousand_separator: ',', decimal_separator: '.', number_of_decimals: store.priceDecimals },
      security: { secure_connection: store.isSsl, hide_errors: true },
    }, query.get('_fields'));
  });

  app.get(`${prefix}/data/currencies/current`, async (request: RestRequest) => {
    const { store, user } = open(request);
    if (!user) throw cannot.viewOne();
    const name = new Intl.DisplayNames('en', { type: 'currency' }).of(store.currency);
    return { code: store.currency, name, symbol: store.currency };
  });

  /** A collection page as WC_REST_CRUD_Controller::get_items answers it: X-WP-Total, X-WP-TotalPages, Link prev/next. */
  const paginate = <T>(reply: FastifyReply, query: Map<string, string>, listUrl: string, all: T[]): T[] => {
    const perPage = intOf(query.get('per_page') ?? '10');
    const page = intOf(query.get('page') ?? '1');
    if (perPage === null || perPage < 1 || perPage > 100) throw invalidParam('per_page', 'per_page must be between 1 (inclusive) and 100 (inclusive)');
    if (page === null || page < 1) throw invalidParam('page', 'page must be greater than or equal to 1');
    const totalPages = Math.ceil(all.length / perPage);
    reply.header('x-wp-total', String(all.length)).header('x-wp-totalpages', String(totalPages));
    const linkTo = (n: number) => {
      const params = new URLSearchParams([...query.entries()].filter(([k]) => !k.startsWith('oauth_') && k !== 'page' && k !== 'consumer_key' && k !== 'consumer_secret'));
      params.set('page', String(n));
      return `<${listUrl}?${params.toString()}>`;
    };
    const links = [...(page > 1 ? [`${linkTo(Math.min(page - 1, Math.max(totalPages, 1)))}; rel="prev"`] : []), ...(page < totalPages ? [`${linkTo(page + 1)}; rel="next"`] : [])];
    if (links.length) reply.header('link', links.join(', '));
    return all.slice((page - 1) * perPage, page * perPage);
  };
  /** `include` as wp_parse_id_list reads it: CSV or include[0]=…; empty means no filter. */
  const includeOf = (query: Map<string, string>) => [...query.entries()].filter(([k]) => k === 'include' || k.startsWith('include[')).flatMap(([, v]) => v.split(/[\s,]+/)).map(Number).filter((n) => Number.isInteger(n) && n > 0);

  app.get(`${prefix}/products`, async (request: RestRequest, reply) => {
    const { store, homeUrl, user, query } = open(request);
    if (!user) throw cannot.view();
    const include = includeOf(query);
    const all = store.products.filter((p) => include.length === 0 || include.includes(p.id)).sort((a, b) => b.id - a.id);
    return paginate(reply, query, `${homeUrl}/wp-json/wc/v3/products`, all).map((p) => productJson(homeUrl, store, p));
  });

  app.get(`${prefix}/products/:id/variations`, async (request: RestRequest, reply) => {
    const { store, homeUrl, user, query } = open(request);
    if (!user) throw cannot.view();
    const p = product(store, request.params.id);
    const include = includeOf(query);
    const all = p.variations.filter((v) => include.length === 0 || include.includes(v.id));
    return paginate(reply, query, `${homeUrl}/wp-json/wc/v3/products/${p.id}/variations`, all).map((v) => variationJson(homeUrl, store, p, v));
  });

  app.get(`${prefix}/products/:id`, async (request: RestRequest) => {
    const { store, homeUrl, user } = open(request);
    if (!user) throw cannot.viewOne();
    return productJson(homeUrl, store, product(store, request.params.id));
  });

  app.get(`${prefix}/products/:id/variations/:vid`, async (request: RestRequest) => {
    const { store, homeUrl, user } = open(request);
    if (!user) throw cannot.viewOne();
    const p = product(store, request.params.id);
    const v = p.variations.find((x) => x.id === intOf(request.params.vid));
    if (!v) throw restError(404, 'woocommerce_rest_product_variation_invalid_id', 'Invalid ID.');
    return variationJson(homeUrl, store, p, v);
  });

  // No Idempotency-Key is read: every POST that gets this far creates an order.
  app.post(`${prefix}/orders`, async (request: RestRequest, reply) => {
    const { store, homeUrl, user } = open(request);
    if (!user) throw cannot.create();
    const order = createOrder(store, request.body);
    if (store.commitThenHang > 0) {
      store.commitThenHang -= 1;
      return holdUntilClientGivesUp(request, reply);
    }
    return reply.code(201).header('location', `${homeUrl}/wp-json/wc/v3/orders/${order.id}`).send(orderJson(homeUrl, order));
  });

  // WC_REST_Controller::batch_items: each of create/update/delete runs as its own request, errors inline; nothing
  // asked (an empty body) answers [] (PHP's empty array) and changes nothing: the service's write-permission probe.
  // The key's write permission is checked first (authenticate), then the user's (batch_items_permissions_check).
  app.post(`${prefix}/orders/batch`, async (request: RestRequest) => {
    const { store, homeUrl, user } = open(request);
    if (!user) throw restError(401, 'woocommerce_rest_cannot_batch', 'Sorry, you are not allowed to batch manipulate this resource.');
    const body = isObject(request.body) ? request.body : {};
    const asked = (k: string) => Array.isArray(body[k]) && (body[k] as unknown[]).length > 0;
    if (asked('update') || asked('delete')) throw restError(501, 'sandbox_not_simulated', 'The sandbox simulates batch create only (update and delete are not used by the service).');
    if (!asked('create')) return [];
    const items = body.create as unknown[];
    if (items.length > 100) throw restError(413, 'woocommerce_rest_request_entity_too_large', 'Unable to accept more than 100 items for this request.');
    return {
      create: items.map((item) => {
        try {
          return orderJson(homeUrl, createOrder(store, item));
        } catch (err) {
          if (!(err instanceof PlatformError)) throw err;
          const e = err.body as { code: string; message: string; data: unknown };
          return { id: 0, error: { code: e.code, message: e.message, data: e.data } };
        }
      }),
    };
  });

  // Collection params of v3 orders; anything else (meta_key, meta_value, …) is ignored, not refused.
  app.get(`${prefix}/orders`, async (request: RestRequest, reply) => {
    const { store, homeUrl, user, query } = open(request);
    if (!user) throw cannot.view();
    const search = query.get('search');
    const statuses = [...query.entries()].filter(([k]) => k === 'status' || k.startsWith('status[')).flatMap(([, v]) => v.split(','));
    const all = [...store.orders.values()]
      .filter((o) => !search || matchesSearch(o, search))
      .filter((o) => statuses.length === 0 || statuses.includes('any') || statuses.includes(o.status))
      .sort((a, b) => b.id - a.id);
    return paginate(reply, query, `${homeUrl}/wp-json/wc/v3/orders`, all).map((o) => orderJson(homeUrl, o));
  });

  app.get(`${prefix}/orders/:id`, async (request: RestRequest) => {
    const { store, homeUrl, user } = open(request);
    if (!user) throw cannot.viewOne();
    const order = store.orders.get(intOf(request.params.id) ?? -1);
    if (!order) throw restError(404, 'woocommerce_rest_shop_order_invalid_id', 'Invalid ID.');
    return orderJson(homeUrl, order);
  });

  // Settings groups (WC_REST_Setting_Options_Controller): the options the service reads, with their current values.
  app.get(`${prefix}/settings/:group`, async (request: RestRequest) => {
    const { store, user } = open(request);
    if (!user) throw cannot.view();
    const t = store.taxes;
    const yes = (b: boolean) => (b ? 'yes' : 'no');
    const groups: Record<string, Record<string, string>> = {
      general: {
        woocommerce_calc_taxes: yes(t.enabled), woocommerce_default_country: t.baseCountry, woocommerce_store_postcode: t.basePostcode, woocommerce_store_city: t.baseCity,
        woocommerce_currency: store.currency, woocommerce_price_num_decimals: String(store.priceDecimals),
      },
      tax: {
        woocommerce_prices_include_tax: yes(t.pricesIncludeTax), woocommerce_tax_based_on: t.basedOn, woocommerce_shipping_tax_class: t.shippingTaxClass,
        woocommerce_tax_round_at_subtotal: yes(t.roundAtSubtotal), woocommerce_tax_classes: '',
      },
    };
    const group = groups[request.params.group ?? ''];
    if (!group) throw restError(404, 'rest_setting_setting_group_invalid', 'Invalid setting group.');
    const options = Object.entries(group).map(([id, value]) => ({ id, label: id, description: '', type: 'text', default: '', value, _links: {} }));
    // General also holds the selling and shipping locations, with their real types (select, multiselect).
    return request.params.group === 'general' ? [...options, ...locationOptions(store)] : options;
  });

  // Tax rates and classes (WC_REST_Taxes_Controller, WC_REST_Tax_Classes_Controller).
  app.get(`${prefix}/taxes`, async (request: RestRequest, reply) => {
    const { store, homeUrl, user, query } = open(request);
    if (!user) throw cannot.view();
    // The deprecated single postcode and city are the last of the rate's (add_tax_rate_locales overwrites them in turn).
    const rates = store.taxes.rates.map(({ cities, postcodes, ...r }) => ({ ...r, postcode: postcodes.at(-1) ?? '', city: cities.at(-1) ?? '', postcodes, cities }));
    return paginate(reply, query, `${homeUrl}/wp-json/wc/v3/taxes`, rates);
  });
  app.get(`${prefix}/taxes/classes`, async (request: RestRequest) => {
    const { user } = open(request);
    if (!user) throw cannot.view();
    return [{ slug: 'standard', name: 'Standard rate' }, { slug: 'reduced-rate', name: 'Reduced rate' }, { slug: 'zero-rate', name: 'Zero rate' }];
  });

  app.post(`${prefix}/orders/:id/refunds`, async (request: RestRequest, reply) => {
    const { store, user } = open(request);
    if (!user) throw cannot.create();
    const order = store.orders.get(intOf(request.params.id) ?? -1);
    if (!order) throw restError(404, 'woocommerce_rest_invalid_order_id', 'Invalid order ID.');
    const refund = createRefund(store, order, request.body);
    if (store.commitThenHang > 0) {
      store.commitThenHang -= 1;
      return holdUntilClientGivesUp(request, reply);
    }
    return reply.code(201).send(refundJson(order, refund));
  });

  app.get(`${prefix}/orders/:id/refunds`, async (request: RestRequest, reply) => {
    const { store, homeUrl, user, query } = open(request);
    if (!user) throw cannot.view();
    const order = store.orders.get(intOf(request.params.id) ?? -1);
    if (!order) throw restError(404, 'woocommerce_rest_invalid_order_id', 'Invalid order ID.');
    const all = [...order.refunds].sort((a, b) => b.id - a.id);
    return paginate(reply, query, `${homeUrl}/wp-json/wc/v3/orders/${order.id}/refunds`, all).map((r) => refundJson(order, r));
  });

  // Our plugin's route (includes/class-hosted-checkout-rest.php): WooCommerce's key auth applies because the
  // namespace starts with "wc-". Registered only while the plugin is active.
  app.get(`${root}/wc-hosted-checkout/v1/orders/by-session/:token`, async (request: RestRequest) => {
    const store = requireStore(stores, request.params.store, 'json');
    const token = request.params.token ?? '';
    if (!store.plugin.active || !/^[A-Za-z0-9_-]{8,128}$/.test(token)) {
      throw restError(404, 'rest_no_route', 'No route was found matching the URL and request method.');
    }
    const { homeUrl, user } = open(request);
    if (!user) throw cannot.forbidden();
    // Not a checkout-draft (what a create that failed half-way leaves behind): the plugin does not count those.
    const found = [...store.orders.values()].filter((o) => sessionTokenOf(o) === token && o.status !== 'checkout-draft').sort((a, b) => a.id - b.id);
    if (found.length === 0) throw restError(404, 'hc_order_not_found', 'No order carries this session token.');
    if (found.length > 1) throw restError(409, 'hc_order_ambiguous', 'More than one order carries this session token.', { order_ids: found.map((o) => o.id) });
    const o = found[0]!;
    const json = orderJson(homeUrl, o);
    return { found: true, order_id: o.id, number: json.number, status: o.status, order_key: o.orderKey, date_created_gmt: json.date_created_gmt, date_paid_gmt: json.date_paid_gmt, total: json.total, currency: o.currency, transaction_id: o.transactionId };
  });

  // Our plugin's policies route (class-hosted-checkout-rest.php `policies`, 1.3.0): the terms, privacy and refund
  // pages the settings choose, published ones only, with their title and permalink. Its permission is
  // manage_woocommerce; the simulator's keys all belong to an administrator.
  app.get(`${root}/wc-hosted-checkout/v1/policies`, async (request: RestRequest) => {
    const store = requireStore(stores, request.params.store, 'json');
    if (!store.plugin.active) throw restError(404, 'rest_no_route', 'No route was found matching the URL and request method.');
    const { homeUrl, user } = open(request);
    if (!user) throw cannot.forbidden();
    const policies = (['terms', 'privacy', 'refund'] as const).flatMap((type) => {
      const page = store.pages.find((p) => p.id === store.policyPages[type]);
      return page && page.status === 'publish' ? [{ type, page_id: page.id, title: page.title, url: `${homeUrl}/${page.slug}/` }] : [];
    });
    return { policies };
  });
  // Our plugin's cart-prices route (class-hosted-checkout-rest.php `cart_prices`, 1.4.0): the products asked for, each
  // named variation of its product and the store currency, as the three wc/v3 reads it makes inside WordPress answer
  // them (rest_do_request: each its own permission check; the simulator's keys all belong to an administrator), only
  // the fields it passes on. WordPress checks the arguments against the route's patterns first.
  app.get(`${root}/wc-hosted-checkout/v1/cart-prices`, async (request: RestRequest) => {
    const store = requireStore(stores, request.params.store, 'json');
    if (!store.plugin.active || !pluginHas(store, '1.4.0')) throw restError(404, 'rest_no_route', 'No route was found matching the URL and request method.');
    const { homeUrl, user, query } = open(request);
    const products = query.get('products') ?? '';
    const variations = query.get('variations') ?? '';
    if (!CART_PRODUCT_IDS.test(products)) throw invalidParam('products', `products does not match pattern ${CART_PRODUCT_IDS.source}.`);
    if (!CART_VARIATION_PAIRS.test(variations)) throw invalidParam('variations', `variations does not match pattern ${CART_VARIATION_PAIRS.source}.`);
    if (!user) throw cannot.forbidden();
    // get_items of products and of a product's variations: include=… in one page (newest first for products).
    // An empty include= would list every product: none is read then.
    const productIds = new Set(products ? products.split(',').map(Number) : []);
    const byProduct = new Map<number, Set<number>>();
    for (const pair of variations ? variations.split(',') : []) {
      const [productId, variationId] = pair.split(':').map(Number) as [number, number];
      byProduct.set(productId, (byProduct.get(productId) ?? new Set()).add(variationId));
    }
    const answer = {
      currency: store.currency,
      products: store.products.filter((p) => productIds.has(p.id)).sort((a, b) => b.id - a.id).map((p) => {
        const j = productJson(homeUrl, store, p);
        return { id: j.id, name: j.name, type: j.type, price: j.price, stock_status: j.stock_status, images: j.images.slice(0, 1), variations: j.variations };
      }),
      // A product the store does not have has no variations (WooCommerce's list read filters by post_parent).
      variations: [...byProduct].flatMap(([productId, ids]) => {
        const p = store.products.find((x) => x.id === productId);
        return (p?.variations ?? []).filter((v) => ids.has(v.id)).map((v) => {
          const j = variationJson(homeUrl, store, p!, v);
          return { product_id: productId, id: j.id, price: j.price, stock_status: j.stock_status, image: j.image, attributes: j.attributes };
        });
      }),
    };
    return answer;
  });
}

/** The cart-prices route's argument patterns (Hosted_Checkout_Rest::PRODUCT_IDS_PATTERN, VARIATION_PAIRS_PATTERN). */
const CART_PRODUCT_IDS = /^([1-9][0-9]{0,14}(,[1-9][0-9]{0,14}){0,99})?$/;
const CART_VARIATION_PAIRS = /^([1-9][0-9]{0,14}:[1-9][0-9]{0,14}(,[1-9][0-9]{0,14}:[1-9][0-9]{0,14}){0,99})?$/;

/**
 * Settings → General's selling and shipping locations as WC_REST_Setting_Options_Controller answers them: one object per
 * option, `value` as get_option() answers it (a multi-select never saved: '').
 */
function locationOptions(store: Store) {
  const g = store.general;
  const option = (id: string, label: string, type: string, def: unknown, value: unknown, options?: Record<string, string>) => ({
    id, label, description: '', type, default: def, ...(options ? { options } : {}), tip: '', value, group_id: 'general', _links: {},
  });
  return [
    option('woocommerce_allowed_countries', 'Selling location(s)', 'select', 'all', g.allowedCountries, {
      all: 'Sell to all countries', all_except: 'Sell to all countries, except for&hellip;', specific: 'Sell to specific countries',
    }),
    option('woocommerce_all_except_countries', 'Sell to all countries, except for&hellip;', 'multiselect', '', g.allExceptCountries),
    option('woocommerce_specific_allowed_countries', 'Sell to specific countries', 'multiselect', '', g.specificAllowedCountries),
    option('woocommerce_ship_to_countries', 'Shipping location(s)', 'select', '', g.shipToCountries, {
      '': 'Ship to all countries you sell to', all: 'Ship to all countries', specific: 'Ship to specific countries only', disabled: 'Disable shipping &amp; shipping calculations',
    }),
    option('woocommerce_specific_ship_to_countries', 'Ship to specific countries', 'multiselect', '', g.specificShipToCountries),
  ];
}
