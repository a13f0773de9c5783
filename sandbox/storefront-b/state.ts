// Storefront B's state: self-hosted stores, each with its REST keys, catalogue, carts, orders and the
// official plugin's settings; and how products and orders look in the platform's REST API.
import { CATALOGUE, priceIn, type CatalogueProduct } from '../storefront-common/catalogue.js';
import { CartStore } from '../storefront-common/cart.js';
import { html, page } from '../storefront-common/html.js';
import { PlatformError, randomHex } from '../storefront-common/web.js';
import { formatWooAmount, priceDecimalsFor, wooPriceString } from './money.js';
import { wcApiHash } from './oauth.js';
import { NO_TAXES, rateCode, round, type SimOrderTaxes, type SimTaxSettings } from './taxes.js';

/** The order meta key our plugin reads (hosted-checkout-connector.php, HOSTED_CHECKOUT_SESSION_META). */
export const PLUGIN_SESSION_META = '_hosted_checkout_session';
/** The plugin as system_status lists it: folder/main file. */
export const PLUGIN_FILE = 'hosted-checkout-connector/hosted-checkout-connector.php';

export type KeyPermissions = 'read' | 'write' | 'read_write';

export interface ApiKey {
  consumerKey: string;
  consumerSecret: string;
  permissions: KeyPermissions;
  description: string;
  /** Nonces seen in the last 15 minutes, by timestamp (the key row's `nonces` column). */
  nonces: Map<number, string>;
}

export interface BVariation {
  id: number;
  title: string;
  price: number;
  sku: string;
}

export interface BProduct {
  id: number;
  slug: string;
  name: string;
  description: string;
  option: string | undefined;
  source: CatalogueProduct;
  /** A simple product has its own price and no variations; a variable one is priced per variation. */
  price: number;
  sku: string;
  variations: BVariation[];
}

export interface BOrder {
  id: number;
  orderKey: string;
  status: string;
  currency: string;
  /** wc_get_price_decimals() of its store: every amount of the order is in units of 10^-decimals, whatever its currency. */
  decimals: number;
  paymentMethod: string;
  paymentMethodTitle: string;
  transactionId: string;
  billing: Record<string, string>;
  shipping: Record<string, string>;
  lines: Array<{ id: number; name: string; productId: number; variationId: number; quantity: number; subtotal: number; total: number; sku: string; metaData: Array<{ id: number; key: string; value: unknown }> }>;
  shippingLines: Array<{ id: number; methodId: string; methodTitle: string; total: number }>;
  feeLines: Array<{ id: number; name: string; total: number }>;
  metaData: Array<{ id: number; key: string; value: unknown }>;
  total: number;
  /** calculate_taxes(): the items' and shipping's taxes (none while the store does not charge tax). */
  taxes: SimOrderTaxes;
  /** woocommerce_tax_round_at_subtotal when the order was calculated (how its lines' total_tax are summed). */
  roundedAtSubtotal: boolean;
  createdAt: Date;
  modifiedAt: Date;
  paidAt: Date | null;
  /** WC_Order_Refund children, oldest first. */
  refunds: BRefund[];
}

/** A refund of an order (WC_Order_Refund): its amount, reason, the items it gave back, and its meta. */
export interface BRefund {
  id: number;
  amount: number;
  reason: string;
  refundedPayment: boolean;
  createdAt: Date;
  lines: Array<{ lineId: number; quantity: number; refundTotal: number }>;
  metaData: Array<{ id: number; key: string; value: unknown }>;
  restocked: boolean;
}

/** The refund resource (WC_REST_Order_Refunds_V2_Controller::get_formatted_item_data): money as decimal strings. */
export function refundJson(o: BOrder, r: BRefund) {
  const money = (units: number) => formatWooAmount(units, o.decimals);
  return {
    id: r.id, date_created: wpDate(r.createdAt), date_created_gmt: wpDate(r.createdAt), amount: money(r.amount), reason: r.reason,
    refunded_by: 1, refunded_payment: r.refundedPayment, meta_data: r.metaData,
    line_items: r.lines.map((l) => {
      const line = o.lines.find((x) => x.id === l.lineId);
      return { id: l.lineId + 1_000_000, name: line?.name ?? '', product_id: line?.productId ?? 0, variation_id: line?.variationId ?? 0, quantity: -l.quantity, subtotal: money(-l.refundTotal), total: money(-l.refundTotal), meta_data: [{ key: '_refunded_item_id', value: String(l.lineId) }] };
    }),
    shipping_lines: [], tax_lines: [], fee_lines: [],
  };
}

export interface Store {
  id: string;
  name: string;
  currency: string;
  /** woocommerce_price_num_decimals: the decimals of every price and amount of the store (storefront-b/money.ts). */
  priceDecimals: number;
  /** REST keys by wc_api_hash(consumer key), as woocommerce_api_keys stores them. */
  keys: Map<string, ApiKey>;
  /** is_ssl(): whether PHP sees the request as HTTPS ($_SERVER['HTTPS'] on). Decides Basic vs OAuth and the signed scheme. */
  isSsl: boolean;
  products: BProduct[];
  carts: CartStore;
  orders: Map<number, BOrder>;
  /** Store-side fault: the next N order creates commit, then the response never comes (PHP still running, proxy timed out). */
  commitThenHang: number;
  /**
   * The plugin's settings: active, its version (an older one lacks the routes added since), the checkout service it
   * calls (else the simulator's), and the connection key (the REST consumer key whose secret signs the handoff).
   */
  plugin: { active: boolean; version: string; serviceUrl: string | null; connectionKey: string | null };
  /** WooCommerce → Settings → Tax, and the standard rates (off on a new store, as WooCommerce installs). */
  taxes: SimTaxSettings;
  /**
   * What the plugin keeps in each shopper's WooCommerce session (by cart cookie): the checkout their cart was handed
   * to, and when the service was last asked whether it was paid (class-hosted-checkout-cart.php).
   */
  handedOver: Map<string, { token: string; checkedAt: number }>;
  /** WooCommerce → Settings → General: the selling and shipping locations (the store's country is in `taxes`). */
  general: GeneralSettings;
  /** The site's pages (WordPress posts of type page): only the policy pages are kept here. */
  pages: BPage[];
  /**
   * Which page is which policy (0: none chosen): WooCommerce's terms page (woocommerce_terms_page_id), WordPress's
   * privacy page (wp_page_for_privacy_policy), WooCommerce's refund and returns page (woocommerce_refund_returns_page_id).
   */
  policyPages: Record<PolicyPageType, number>;
  nextId(): number;
}

export const POLICY_PAGE_TYPES = ['terms', 'privacy', 'refund'] as const;
export type PolicyPageType = (typeof POLICY_PAGE_TYPES)[number];

export interface BPage {
  id: number;
  title: string;
  /** post_name: the permalink's last segment with pretty permalinks. */
  slug: string;
  status: 'publish' | 'draft' | 'private' | 'pending' | 'trash';
}

/**
 * The general settings (WC_Settings_General) the REST API answers under settings/general. A multi-select never saved
 * holds its default '' rather than a list, as get_option() answers it.
 */
export interface GeneralSettings {
  /** Selling location(s): all, all_except, specific. */
  allowedCountries: 'all' | 'all_except' | 'specific';
  allExceptCountries: string[] | '';
  specificAllowedCountries: string[] | '';
  /** Shipping location(s): '' (ship to all countries you sell to), all, specific, disabled. */
  shipToCountries: '' | 'all' | 'specific' | 'disabled';
  specificShipToCountries: string[] | '';
}

/** A fresh install's settings: sells and ships everywhere. */
export const DEFAULT_GENERAL_SETTINGS: GeneralSettings = {
  allowedCountries: 'all',
  allExceptCountries: '',
  specificAllowedCountries: '',
  shipToCountries: '',
  specificShipToCountries: '',
};

export const DEMO_STORE = {
  id: 'demo',
  name: 'Demo Store',
  consumerKey: 'ck_5f0e2d8c1b4a79e3c6d2f1a0b9e8d7c6b5a4f3e2',
  consumerSecret: 'cs_9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b',
} as const;

/** The WooCommerce release the real tier runs (test/real/): what system_status reports. */
export const PLATFORM_VERSION = '10.0.2';
/** The version of our plugin a store runs unless told otherwise (hosted-checkout-connector.php, HOSTED_CHECKOUT_VERSION). */
export const PLUGIN_VERSION = '1.4.0';

/** Whether plugin version `version` is at least `since` (x.y.z, as PHP's version_compare reads ours). */
export function pluginHas(store: Store, since: string): boolean {
  const parts = (v: string) => v.split('.').map(Number);
  const [a, b] = [parts(store.plugin.version), parts(since)];
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

export function addStore(
  stores: Map<string, Store>,
  input: { id?: string; name?: string; currency?: string; priceDecimals?: number; consumerKey?: string; consumerSecret?: string; permissions?: KeyPermissions; pluginActive?: boolean; pluginVersion?: string; serviceUrl?: string; isSsl?: boolean },
): Store {
  let counter = 9; // post ids of a fresh install start after the sample pages
  const currency = input.currency ?? 'EUR';
  // The decimals onboarding gives a store of that currency, unless the merchant changed them (Settings → General).
  const decimals = input.priceDecimals ?? priceDecimalsFor(currency);
  const store: Store = {
    id: input.id ?? randomHex(4),
    name: input.name ?? 'Sandbox Store',
    currency,
    priceDecimals: decimals,
    keys: new Map(),
    isSsl: input.isSsl ?? false,
    products: [],
    carts: new CartStore(),
    orders: new Map(),
    commitThenHang: 0,
    plugin: { active: input.pluginActive ?? true, version: input.pluginVersion ?? PLUGIN_VERSION, serviceUrl: input.serviceUrl ?? null, connectionKey: null },
    taxes: { ...NO_TAXES, rates: [] },
    handedOver: new Map(),
    general: { ...DEFAULT_GENERAL_SETTINGS },
    pages: [],
    policyPages: { terms: 0, privacy: 0, refund: 0 },
    nextId: () => ++counter,
  };
  // A fresh install: WordPress makes its Privacy Policy page as a draft (wp_install_defaults, post 3) and WooCommerce,
  // last of its pages, its "Refund and Returns Policy" page as a draft (WC_Install::create_pages); no terms page is
  // chosen. Both ids lie before the catalogue's (the counter above), so product ids stay what they were.
  store.pages.push({ id: 3, title: 'Privacy Policy', slug: 'privacy-policy', status: 'draft' }, { id: 9, title: 'Refund and Returns Policy', slug: 'refund_returns', status: 'draft' });
  store.policyPages = { terms: 0, privacy: 3, refund: 9 };
  store.products = CATALOGUE.map((source) => {
    const id = store.nextId();
    const variations = source.variants.length > 1 ? source.variants.map((v) => ({ id: store.nextId(), title: v.title ?? '', price: priceIn(v.price, decimals), sku: v.sku })) : [];
    const first = source.variants[0];
    return {
      id,
      slug: source.handle,
      name: source.title,
      description: source.description,
      option: source.option,
      source,
      price: variations.length ? Math.min(...variations.map((v) => v.price)) : priceIn(first?.price ?? 0, decimals),
      sku: variations.length ? '' : (first?.sku ?? ''),
      variations,
    };
  });
  const key = addKey(store, { consumerKey: input.consumerKey, consumerSecret: input.consumerSecret, permissions: input.permissions ?? 'read_write' });
  // The merchant pastes the key they connected into the plugin's settings.
  store.plugin.connectionKey = key.consumerKey;
  stores.set(store.id, store);
  return store;
}

export function addKey(store: Store, input: { consumerKey?: string; consumerSecret?: string; permissions: KeyPermissions; description?: string }): ApiKey {
  const key: ApiKey = {
    consumerKey: input.consumerKey ?? `ck_${randomHex(20)}`,
    consumerSecret: input.consumerSecret ?? `cs_${randomHex(20)}`,
    permissions: input.permissions,
    description: input.description ?? 'Hosted checkout',
    nonces: new Map(),
  };
  store.keys.set(wcApiHash(key.consumerKey), key);
  return key;
}

export function seed(stores: Map<string, Store>): void {
  addStore(stores, { ...DEMO_STORE });
}

export function requireStore(stores: Map<string, Store>, id: string, as: 'json' | 'html'): Store {
  const store = stores.get(id);
  if (store) return store;
  if (as === 'json') throw new PlatformError(404, { code: 'rest_no_route', message: 'No route was found matching the URL and request method.', data: { status: 404 } });
  throw new PlatformError(404, page({ title: 'Not found', body: html`<h1>This site can’t be found.</h1>` }), 'text/html; charset=utf-8');
}

/** What a cart line or order line points at: a simple product, or one variation of a variable product. */
export function findPurchasable(store: Store, productId: number, variationId?: number | null) {
  const product = store.products.find((p) => p.id === productId);
  if (!product) return undefined;
  if (product.variations.length === 0) return variationId ? undefined : { product, variation: undefined, price: product.price, sku: product.sku, title: product.name };
  const variation = product.variations.find((v) => v.id === variationId);
  return variation && { product, variation, price: variation.price, sku: variation.sku, title: `${product.name} - ${variation.title}` };
}

/** The platform stores prices trimmed ("24.9", "18"); clients must not assume two decimals. */
export const priceString = (units: number, store: Store) => wooPriceString(units, store.priceDecimals);

export const imageOf = (storeUrl: string, p: BProduct) => ({ id: p.id + 1000, src: `${storeUrl}/wp-content/uploads/${p.slug}.svg`, name: p.slug, alt: p.name });

export function productJson(storeUrl: string, store: Store, p: BProduct) {
  return {
    id: p.id,
    name: p.name,
    slug: p.slug,
    permalink: `${storeUrl}/product/${p.slug}/`,
    type: p.variations.length ? 'variable' : 'simple',
    status: 'publish',
    description: `<p>${p.description}</p>`,
    short_description: p.description,
    sku: p.sku,
    price: priceString(p.price, store),
    regular_price: p.variations.length ? '' : priceString(p.price, store),
    sale_price: '',
    on_sale: false,
    purchasable: true,
    manage_stock: false,
    stock_status: 'instock',
    tax_status: 'taxable',
    tax_class: '',
    images: [imageOf(storeUrl, p)],
    attributes: p.variations.length ? [{ id: 0, name: p.option ?? 'Option', position: 0, visible: true, variation: true, options: p.variations.map((v) => v.title) }] : [],
    variations: p.variations.map((v) => v.id),
  };
}

export function variationJson(storeUrl: string, store: Store, p: BProduct, v: BVariation) {
  return {
    id: v.id,
    permalink: `${storeUrl}/product/${p.slug}/?attribute_${(p.option ?? 'option').toLowerCase()}=${encodeURIComponent(v.title)}`,
    sku: v.sku,
    price: priceString(v.price, store),
    regular_price: priceString(v.price, store),
    sale_price: '',
    on_sale: false,
    status: 'publish',
    purchasable: true,
    manage_stock: false,
    stock_status: 'instock',
    tax_status: 'taxable',
    tax_class: 'parent',
    image: imageOf(storeUrl, p),
    attributes: [{ id: 0, name: p.option ?? 'Option', option: v.title }],
  };
}

/** The platform's REST dates: site-local (the sandbox runs in UTC) without a zone, plus a _gmt twin. */
const wpDate = (d: Date | null) => (d ? d.toISOString().slice(0, 19) : null);

export function orderJson(storeUrl: string, o: BOrder) {
  const money = (units: number) => formatWooAmount(units, o.decimals);
  // Taxes are kept in major units to 6 places and shown to the price decimals (wc_format_decimal($tax, dp)).
  const dp = o.decimals;
  const tax = (major: number) => round(major, dp).toFixed(dp);
  // WC_Order_Item::set_taxes: a line's total_tax is its rates' taxes each rounded, unless taxes round at subtotal.
  const lineTax = (pairs: Array<[number, number]>) => pairs.reduce((n, [, x]) => n + (o.roundedAtSubtotal ? x : round(x, dp)), 0);
  const t = o.taxes;
  const shippingTotal = o.shippingLines.reduce((n, s) => n + s.total, 0);
  return {
    id: o.id,
    parent_id: 0,
    number: String(o.id),
    order_key: o.orderKey,
    created_via: 'rest-api',
    version: PLATFORM_VERSION,
    status: o.status,
    currency: o.currency,
    date_created: wpDate(o.createdAt),
    date_created_gmt: wpDate(o.createdAt),
    date_modified: wpDate(o.modifiedAt),
    date_modified_gmt: wpDate(o.modifiedAt),
    // calculate_totals(): the discount is what the line totals sit below their subtotals.
    discount_total: money(o.lines.reduce((n, l) => n + l.subtotal - l.total, 0)),
    discount_tax: tax(t.discountTax),
    shipping_total: money(shippingTotal),
    total: money(o.total),
    shipping_tax: tax(t.shippingTax),
    cart_tax: tax(t.cartTax),
    total_tax: tax(t.totalTax),
    prices_include_tax: false,
    customer_id: 0,
    billing: o.billing,
    shipping: o.shipping,
    payment_method: o.paymentMethod,
    payment_method_title: o.paymentMethodTitle,
    transaction_id: o.transactionId,
    date_paid: wpDate(o.paidAt),
    date_paid_gmt: wpDate(o.paidAt),
    date_completed: null,
    date_completed_gmt: null,
    meta_data: o.metaData,
    line_items: o.lines.map((l, i) => {
      const lt = t.lines[i] ?? { total: [], subtotal: [] };
      return {
        id: l.id, name: l.name, product_id: l.productId, variation_id: l.variationId, quantity: l.quantity,
        tax_class: '', subtotal: money(l.subtotal), subtotal_tax: tax(lineTax(lt.subtotal)), total: money(l.total), total_tax: tax(lineTax(lt.total)),
        taxes: lt.total.map(([id, total]) => ({ id, total: tax(total), subtotal: tax(lt.subtotal.find(([s]) => s === id)?.[1] ?? 0) })), meta_data: l.metaData,
        sku: l.sku, price: Number(money(l.total)) / l.quantity,
      };
    }),
    tax_lines: t.taxLines.map((x) => ({
      id: x.itemId, rate_code: rateCode(x.rate), rate_id: x.rate.id, label: x.rate.name, compound: x.rate.compound,
      tax_total: tax(x.taxTotal), shipping_tax_total: tax(x.shippingTaxTotal), rate_percent: Number(x.rate.rate), meta_data: [],
    })),
    // The order's shipping taxes are its one shipping line's (the service sends one).
    shipping_lines: o.shippingLines.map((s) => ({
      id: s.id, method_id: s.methodId, method_title: s.methodTitle, total: money(s.total), total_tax: tax(lineTax(t.shipping)),
      taxes: t.shipping.map(([id, total]) => ({ id, total: tax(total), subtotal: '' })), tax_status: 'taxable',
    })),
    fee_lines: o.feeLines.map((f) => ({ id: f.id, name: f.name, tax_status: 'none', total: money(f.total), total_tax: money(0) })),
    coupon_lines: [],
    refunds: o.refunds.map((r) => ({ id: r.id, reason: r.reason, total: money(-r.amount) })),
    payment_url: `${storeUrl}/checkout/order-pay/${o.id}/?pay_for_order=true&key=${o.orderKey}`,
    needs_payment: o.paidAt === null && (o.status === 'pending' || o.status === 'failed'),
    _links: { self: [{ href: `${storeUrl}/wp-json/wc/v3/orders/${o.id}` }], collection: [{ href: `${storeUrl}/wp-json/wc/v3/orders` }] },
  };
}

export const sessionTokenOf = (o: BOrder) => {
  const value = o.metaData.find((m) => m.key === PLUGIN_SESSION_META)?.value;
  return typeof value === 'string' ? value : null;
};
