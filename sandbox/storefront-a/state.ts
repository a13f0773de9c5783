// Storefront A (Shopify) simulator state: apps (client id/secret, redirect URLs, deployed theme extensions),
// shops (catalogue, carts, themes, domains, draft orders, orders, legacy script tags, installs), access
// tokens and pending OAuth codes. Written from shopify.dev (docs/storefront-a.md), not from our client.
import { CATALOGUE, priceIn, type CatalogueProduct } from '../storefront-common/catalogue.js';
import { CartStore } from '../storefront-common/cart.js';
import { page, html } from '../storefront-common/html.js';
import { PlatformError, randomHex } from '../storefront-common/web.js';
import { fractionDigits } from './money.js';

/** A theme app extension as `shopify app deploy` ships it: blocks (Liquid with a schema) and assets. */
/** A Storefront API fault queued for a shop (storefront-access.ts answers it): a throttle status for `count` requests. */
export type StorefrontFault = { status: 429 | 430 | 'THROTTLED'; count: number; retryAfterSeconds?: number };

export interface DeployedExtension {
  handle: string;
  /** Block handle (file name without .liquid) → Liquid source. */
  blocks: Record<string, string>;
  /** Asset file name → content. */
  assets: Record<string, string>;
}

export interface SimApp {
  clientId: string;
  clientSecret: string;
  name: string;
  /** The app's handle (shopify://apps/<handle>/blocks/...). */
  handle: string;
  /** When non-empty, the only redirect_uri values OAuth accepts ([auth] redirect_urls). */
  redirectUrls: string[];
  /** App-configuration webhooks (shopify.app.toml): compliance topics and app/uninstalled go here. */
  webhookAddress: string | null;
  extensions: DeployedExtension[];
}

export interface SimVariant {
  id: number;
  productId: number;
  title: string | null;
  price: number;
  sku: string;
}

export interface SimProduct {
  id: number;
  handle: string;
  title: string;
  description: string;
  option: string | undefined;
  source: CatalogueProduct;
  variants: SimVariant[];
}

export interface ScriptTagRecord {
  id: number;
  clientId: string;
  src: string;
  displayScope: 'ONLINE_STORE' | 'ORDER_STATUS' | 'ALL';
  createdAt: string;
}

export interface MoneyLine {
  title: string;
  variantId: number | null;
  productId: number | null;
  sku: string | null;
  variantTitle: string | null;
  quantity: number;
  /** Minor units of the draft's currency. */
  unitPrice: number;
  customAttributes: Array<{ key: string; value: string }>;
}

export interface SimDraftOrder {
  id: number;
  clientId: string;
  name: string;
  status: 'OPEN' | 'INVOICE_SENT' | 'COMPLETED';
  currency: string;
  email: string | null;
  note: string | null;
  tags: string[];
  customAttributes: Array<{ key: string; value: string }>;
  lines: MoneyLine[];
  shipping: { title: string; price: number } | null;
  discount: { title: string; amount: number } | null;
  shippingAddress: Record<string, unknown> | null;
  billingAddress: Record<string, unknown> | null;
  orderId: number | null;
  createdAt: string;
  completedAt: string | null;
  /**
   * DraftOrder.ready is false while Shopify's asynchronous work on the draft runs: here, for this many more reads of
   * the draft (draftOrder(id)); 0 is ready.
   */
  notReadyReads: number;
  /** A completion is committing (the "completion in flight" fault): another completion is refused meanwhile. */
  completing: boolean;
  /** The payment terms the draft was created with (DraftOrderInput.paymentTerms): completed, its order is payment pending. */
  paymentTerms: { templateId: number; type: PaymentTermsType } | null;
}

export type PaymentTermsType = 'FIXED' | 'FULFILLMENT' | 'NET' | 'RECEIPT' | 'UNKNOWN';
/**
 * Shopify's standard payment terms templates (paymentTermsTemplates: "eligible for all shops"); the names and types are
 * the documented ones, the ids are the simulator's.
 */
export const PAYMENT_TERMS_TEMPLATES: ReadonlyArray<{ id: number; name: string; description: string; dueInDays: number | null; type: PaymentTermsType }> = [
  { id: 1, name: 'Due on receipt', description: 'Due on receipt', dueInDays: null, type: 'RECEIPT' },
  { id: 9, name: 'Due on fulfillment', description: 'Due on fulfillment', dueInDays: null, type: 'FULFILLMENT' },
  { id: 2, name: 'Net 7', description: 'Within 7 days', dueInDays: 7, type: 'NET' },
  { id: 3, name: 'Net 15', description: 'Within 15 days', dueInDays: 15, type: 'NET' },
  { id: 4, name: 'Net 30', description: 'Within 30 days', dueInDays: 30, type: 'NET' },
  { id: 8, name: 'Net 45', description: 'Within 45 days', dueInDays: 45, type: 'NET' },
  { id: 5, name: 'Net 60', description: 'Within 60 days', dueInDays: 60, type: 'NET' },
  { id: 6, name: 'Net 90', description: 'Within 90 days', dueInDays: 90, type: 'NET' },
  { id: 7, name: 'Fixed', description: 'Fixed date', dueInDays: null, type: 'FIXED' },
];

/** Faults of draft order completion, queued for the next drafts or completions (see simulator.ts /_control/faults/*). */
export interface DraftFaults {
  /** The next `count` drafts created answer ready: false for `reads` reads. */
  notReady?: { count: number; reads: number };
  /** The next `count` completions commit only after `commitMs`; their answer is lost at once; a completion meanwhile is refused. */
  inFlight?: { count: number; commitMs: number };
  /** The next `count` completions commit, then answer a GraphQL INTERNAL_SERVER_ERROR instead of the draft. */
  commitThenError?: { count: number };
}

/** A money movement on an order (OrderTransaction): the manual SALE of a draft completed as paid, its REFUNDs. */
export interface SimTransaction {
  id: number;
  kind: 'SALE' | 'REFUND';
  status: 'SUCCESS';
  gateway: string;
  /** Minor units of the order's currency. */
  amount: number;
  parentId: number | null;
  createdAt: string;
}

/** A refund of an order (Refund): its money (REFUND transactions), the lines it gave back and whether they were restocked. */
export interface SimRefund {
  id: number;
  note: string | null;
  createdAt: string;
  amount: number;
  transactionIds: number[];
  lines: Array<{ lineIndex: number; quantity: number; restockType: 'CANCEL' | 'LEGACY_RESTOCK' | 'NO_RESTOCK' | 'RETURN' }>;
}

export interface SimOrder {
  id: number;
  name: string;
  clientId: string;
  draftOrderId: number | null;
  email: string | null;
  currency: string;
  financialStatus: 'PENDING' | 'PAID' | 'PARTIALLY_REFUNDED' | 'REFUNDED';
  /** Line item ids (LineItem.id), one per line. */
  lineIds: number[];
  transactions: SimTransaction[];
  refunds: SimRefund[];
  lines: MoneyLine[];
  shipping: { title: string; price: number } | null;
  discount: { title: string; amount: number } | null;
  shippingAddress: Record<string, unknown> | null;
  /** Order.billingAddress: the draft's (completing a draft order keeps both of its addresses). */
  billingAddress: Record<string, unknown> | null;
  subtotal: number;
  total: number;
  /** The tax in `total` (taxes included) or added to it. */
  tax: number;
  taxesIncluded: boolean;
  tags: string[];
  customAttributes: Array<{ key: string; value: string }>;
  note: string | null;
  createdAt: string;
}

export interface AppEmbedBlock {
  /** shopify://apps/<app handle>/blocks/<block handle>/<uid> */
  type: string;
  disabled: boolean;
  settings: Record<string, unknown>;
}

export interface SimTheme {
  id: number;
  name: string;
  role: 'MAIN' | 'UNPUBLISHED';
  /** config/settings_data.json: current.blocks holds app embeds once first activated. */
  settingsData: { current: { blocks: Record<string, AppEmbedBlock> } & Record<string, unknown> };
}

export interface SimDomain {
  id: number;
  host: string;
  /** Served as a market's web presence (e.g. example.ca): shoppers browse on it. Other non-primary domains redirect to the primary one. */
  webPresence?: boolean;
}

export interface WebhookSubscription {
  id: number;
  clientId: string;
  topic: string;
  uri: string;
}

/**
 * The CountryCode enum of the 2026-10 Admin API (shopify.dev, enums/CountryCode): ISO 3166-1 alpha-2 codes plus AC,
 * TA, XK, AN and ZZ ("Unknown Region"); the US territories are provinces of US there, not countries.
 */
export const SHOPIFY_COUNTRY_CODES: readonly string[] = (
  'AC AD AE AF AG AI AL AM AN AO AR AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC ' +
  'CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FO FR GA GB GD GE ' +
  'GF GG GH GI GL GM GN GP GQ GR GS GT GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM ' +
  'KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MK ML MM MN MO MQ MR MS MT MU MV MW MX MY MZ NA ' +
  'NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PS PT PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ ' +
  'SK SL SM SN SO SR SS ST SV SX SY SZ TA TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG ' +
  'VN VU WF WS XK YE YT ZA ZM ZW ZZ'
).split(' ');

/** A new shop's shipping zones reach everyone (a "Rest of World" zone): every country of the enum but ZZ. */
export const REST_OF_WORLD: readonly string[] = SHOPIFY_COUNTRY_CODES.filter((c) => c !== 'ZZ');

export interface SimShop {
  id: number;
  /** The permanent <name>.myshopify.com domain. */
  host: string;
  name: string;
  email: string;
  currency: string;
  country: string;
  /** The shop's primary language (Settings → Languages), what Liquid's request.locale is on its storefront here. */
  primaryLocale: string;
  /** The shop's own domains; the primary one is where shoppers browse. */
  domains: SimDomain[];
  primaryDomainId: number;
  products: SimProduct[];
  carts: CartStore;
  /** Cart token → its secret key (cart ids carry ?key=…). */
  cartKeys: Map<string, string>;
  themes: SimTheme[];
  scriptTags: Map<number, ScriptTagRecord>;
  draftOrders: Map<number, SimDraftOrder>;
  orders: Map<number, SimOrder>;
  nextOrderNumber: number;
  nextDraftNumber: number;
  /** Apps installed now, with the scopes the merchant granted. */
  installs: Map<string, { scopes: string[]; installedAt: string; installationId: number }>;
  /** Apps ever installed: privacy webhooks still reach an app after its uninstall. */
  everInstalled: Set<string>;
  /** App-owned metafields of each installation (clientId → "namespace.key" → value). */
  appMetafields: Map<string, Map<string, { type: string; value: string }>>;
  webhookSubscriptions: WebhookSubscription[];
  customers: Map<string, number>;
  /**
   * Tax settings (Settings → Taxes and duties): whether prices include tax, the rate (percent) each country charges, and
   * whether shipping is taxed. No rate for a country: no tax there.
   */
  taxes: { included: boolean; rates: Record<string, number>; shipping: boolean };
  /** `@idempotent(key:)` of mutations that take one (refundCreate), per app: key → what the first request made. */
  idempotencyKeys: Map<string, { fingerprint: string; refundId: number }>;
  /** Shop.shipsToCountries: the countries of the shop's shipping zones (Settings → Shipping and delivery). */
  shipsToCountries: string[];
  /** Settings → Policies: the policies the merchant wrote (Shop.shopPolicies lists these; a new shop has none). */
  policies: SimShopPolicy[];
}

/** ShopPolicyType of the Admin API 2026-10 (the enum's values, in its order). */
export const SHOP_POLICY_TYPES = ['CONTACT_INFORMATION', 'LEGAL_NOTICE', 'PRIVACY_POLICY', 'REFUND_POLICY', 'SHIPPING_POLICY', 'SUBSCRIPTION_POLICY', 'TERMS_OF_SALE', 'TERMS_OF_SERVICE'] as const;
export type ShopPolicyType = (typeof SHOP_POLICY_TYPES)[number];
/**
 * Each policy's default English title and the handle of its storefront page (`/policies/<handle>`, as Liquid's
 * `shop.refund_policy.url` and the online store's footer link them). The merchant's title replaces the default.
 */
export const SHOP_POLICY_DEFAULTS: Record<ShopPolicyType, { title: string; handle: string }> = {
  CONTACT_INFORMATION: { title: 'Contact information', handle: 'contact-information' },
  LEGAL_NOTICE: { title: 'Legal notice', handle: 'legal-notice' },
  PRIVACY_POLICY: { title: 'Privacy policy', handle: 'privacy-policy' },
  REFUND_POLICY: { title: 'Refund policy', handle: 'refund-policy' },
  SHIPPING_POLICY: { title: 'Shipping policy', handle: 'shipping-policy' },
  SUBSCRIPTION_POLICY: { title: 'Cancellation policy', handle: 'subscription-policy' },
  TERMS_OF_SALE: { title: 'Terms of sale', handle: 'terms-of-sale' },
  TERMS_OF_SERVICE: { title: 'Terms of service', handle: 'terms-of-service' },
};

export interface SimShopPolicy {
  id: number;
  type: ShopPolicyType;
  title: string;
  /** HTML. */
  body: string;
  createdAt: string;
  updatedAt: string;
}

export interface TokenGrant {
  shop: string;
  clientId: string;
  scopes: string[];
  /** Made by delegateAccessTokenCreate (a subset of its parent's scopes). */
  delegate?: boolean;
  /** An expiring offline token (requested with expiring: "1"): when it stops working. */
  expiresAt?: number;
}

export interface StorefrontToken {
  shop: string;
  clientId: string;
  id: number;
  title: string;
  scopes: string[];
  createdAt: string;
}

export interface AuthCode extends TokenGrant {
  expiresAt: number;
}

/** Cost-based throttling of the GraphQL Admin API: a leaky bucket per app and shop. */
export interface Bucket {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
  updatedAt: number;
}

export interface State {
  apps: Map<string, SimApp>;
  shops: Map<string, SimShop>;
  tokens: Map<string, TokenGrant>;
  storefrontTokens: Map<string, StorefrontToken>;
  codes: Map<string, AuthCode>;
  buckets: Map<string, Bucket>;
  /** Mutation name → how many of the next calls commit and then never answer in time. */
  commitThenTimeout: Map<string, { count: number; hangMs: number }>;
  /** Per shop: the queued draft order faults. */
  draftFaults: Map<string, DraftFaults>;
  /** Storefront API: faults queued per shop (StorefrontFault), and the bot-protection budget of public tokens per shop and client IP (storefront-access.ts). */
  storefrontFaults: Map<string, StorefrontFault>;
  publicIpBudgets: Map<string, { available: number; updatedAt: number }>;
  /** The last Storefront API requests per shop as Shopify saw them (token kind, buyer IP header, client IP): newest last. */
  storefrontRequests: Map<string, Array<{ kind: 'public' | 'private'; buyerIp: string | null; clientIp: string; at: string }>>;
  /** Ids count up from here; reset to 0 so a fresh sandbox always has the same (documented) ids. */
  lastId: number;
  nextId(): number;
  /** Sends a webhook the shop's own activity triggers (a refund made through the API or in the admin); set by the simulator. */
  emitWebhook?: (shop: SimShop, input: { topic: 'refunds/create'; orderId: number; refundId: number }) => void;
}

export const DEMO_APP = {
  clientId: 'sfa-demo-client-0001',
  clientSecret: 'shpss_sandbox_demo_0123456789abcdef',
  name: 'Hosted Checkout (sandbox)',
  handle: 'hosted-checkout',
} as const;
export const DEMO_SHOP = 'demo-shop.myshopify.com';
/** The demo shop's primary domain (where shoppers browse, beside the myshopify host). */
export const DEMO_SHOP_PRIMARY_DOMAIN = 'www.demo-shop.example';

/** Admin scopes (subset) and the Storefront API's unauthenticated_* scopes. */
export const KNOWN_SCOPES = [
  ...['products', 'orders', 'draft_orders', 'customers', 'script_tags', 'themes', 'shipping', 'locales', 'checkouts', 'markets', 'legal_policies'].flatMap((s) => [`read_${s}`, `write_${s}`]),
  'unauthenticated_read_checkouts',
  'unauthenticated_write_checkouts',
  'unauthenticated_read_product_listings',
];

/** write_x implies read_x, as on the real platform. */
export function hasScope(granted: readonly string[], needed: string): boolean {
  return granted.includes(needed) || (needed.startsWith('read_') && granted.includes(`write_${needed.slice(5)}`));
}

export function createState(): State {
  const state: State = {
    apps: new Map(),
    shops: new Map(),
    tokens: new Map(),
    storefrontTokens: new Map(),
    codes: new Map(),
    buckets: new Map(),
    commitThenTimeout: new Map(),
    draftFaults: new Map(),
    storefrontFaults: new Map(),
    publicIpBudgets: new Map(),
    storefrontRequests: new Map(),
    lastId: 0,
    // Ids in the platform's range, unique across every kind of resource.
    nextId: () => 6_100_000_000_000 + ++state.lastId * 7,
  };
  return state;
}

export function addApp(state: State, input: Partial<SimApp> = {}): SimApp {
  const app: SimApp = {
    clientId: input.clientId ?? randomHex(16),
    clientSecret: input.clientSecret ?? `shpss_${randomHex(16)}`,
    name: input.name ?? 'Untitled app',
    handle: input.handle ?? (input.name ?? 'untitled-app').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, ''),
    redirectUrls: input.redirectUrls ?? [],
    webhookAddress: input.webhookAddress ?? null,
    extensions: input.extensions ?? [],
  };
  state.apps.set(app.clientId, app);
  return app;
}

export function addShop(state: State, input: { host: string; name?: string; email?: string; currency?: string; country?: string; primaryLocale?: string; primaryDomain?: string }): SimShop {
  const currency = input.currency ?? 'EUR';
  const label = input.host.split('.')[0] ?? input.host;
  const myshopify = { id: state.nextId(), host: input.host };
  const domains = [myshopify];
  if (input.primaryDomain) domains.push({ id: state.nextId(), host: input.primaryDomain });
  const shop: SimShop = {
    id: state.nextId(),
    host: input.host,
    name: input.name ?? label.split('-').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' '),
    email: input.email ?? `owner@${label}.example`,
    currency,
    country: input.country ?? 'DE',
    primaryLocale: input.primaryLocale ?? 'en',
    domains,
    primaryDomainId: domains.at(-1)!.id,
    products: CATALOGUE.map((source) => {
      const productId = state.nextId();
      return {
        id: productId,
        handle: source.handle,
        title: source.title,
        description: source.description,
        option: source.option,
        source,
        variants: source.variants.map((v) => ({ id: state.nextId(), productId, title: v.title, price: priceIn(v.price, fractionDigits(currency)), sku: v.sku })),
      };
    }),
    carts: new CartStore(),
    cartKeys: new Map(),
    // Theme JSON files carry Shopify's auto-generated comment header; readers must strip it.
    themes: [{ id: state.nextId(), name: 'Dawn', role: 'MAIN', settingsData: { current: { blocks: {} } } }],
    scriptTags: new Map(),
    draftOrders: new Map(),
    orders: new Map(),
    idempotencyKeys: new Map(),
    nextOrderNumber: 1001,
    nextDraftNumber: 1,
    installs: new Map(),
    everInstalled: new Set(),
    appMetafields: new Map(),
    webhookSubscriptions: [],
    customers: new Map(),
    taxes: { included: false, rates: {}, shipping: false },
    shipsToCountries: [...REST_OF_WORLD],
    policies: [],
  };
  state.shops.set(shop.host, shop);
  return shop;
}

export function seed(state: State): void {
  addApp(state, { ...DEMO_APP });
  addShop(state, { host: DEMO_SHOP, name: 'Demo Shop', email: 'owner@demo-shop.example', primaryDomain: DEMO_SHOP_PRIMARY_DOMAIN });
}

const SHOP_HOST = /^[a-zA-Z0-9][a-zA-Z0-9-]*\.myshopify\.com$/;

/** The shop a URL names, or the platform's 404 (as JSON for the API, as a page for browsers). */
export function requireShop(state: State, host: string, as: 'json' | 'html'): SimShop {
  const shop = SHOP_HOST.test(host) ? state.shops.get(host) : undefined;
  if (shop) return shop;
  if (as === 'json') throw new PlatformError(404, { errors: 'Not Found' });
  throw new PlatformError(404, page({ title: 'Shop unavailable', body: html`<h1>Sorry, this shop is currently unavailable.</h1>` }), 'text/html; charset=utf-8');
}

export const isShopHost = (host: string) => SHOP_HOST.test(host);

export function findVariant(shop: SimShop, variantId: number): { product: SimProduct; variant: SimVariant } | undefined {
  for (const product of shop.products) {
    const variant = product.variants.find((v) => v.id === variantId);
    if (variant) return { product, variant };
  }
  return undefined;
}

/** The customer id behind an email, created on first sight (privacy webhooks name customers by id). */
export function customerId(state: State, shop: SimShop, email: string): number {
  const key = email.toLowerCase();
  let id = shop.customers.get(key);
  if (id === undefined) shop.customers.set(key, (id = state.nextId()));
  return id;
}

export const imageUrl = (base: string, shop: SimShop, product: SimProduct) => `${base}/shops/${shop.host}/cdn/products/${product.handle}.svg`;

/** A new cart: its public token is "<token>?key=<key>" as /cart.js and cart ids carry it since 2024. */
export function newCart(shop: SimShop): string {
  const token = shop.carts.create();
  shop.cartKeys.set(token, randomHex(10));
  return token;
}
export const publicCartToken = (shop: SimShop, token: string) => `c1-${token}?key=${shop.cartKeys.get(token) ?? ''}`;
/** The internal token of a public "<token>?key=<key>", or undefined when the key is wrong. */
export function cartTokenOf(shop: SimShop, publicToken: string): string | undefined {
  const m = /^c1-([0-9a-f]+)\?key=([0-9a-f]+)$/.exec(publicToken);
  if (!m || shop.cartKeys.get(m[1]!) !== m[2]) return undefined;
  return m[1];
}

/** The Ajax API cart (/cart.js): prices in integer minor units of the cart currency. */
export function ajaxCart(base: string, shop: SimShop, token: string) {
  const items = (shop.carts.get(token) ?? []).flatMap((line) => {
    const found = findVariant(shop, line.variantId);
    if (!found) return [];
    const { product, variant } = found;
    return [{
      id: variant.id,
      key: `${variant.id}:${token.slice(0, 8)}`,
      product_id: product.id,
      variant_id: variant.id,
      title: variant.title ? `${product.title} - ${variant.title}` : product.title,
      product_title: product.title,
      variant_title: variant.title,
      sku: variant.sku,
      handle: product.handle,
      quantity: line.quantity,
      price: variant.price,
      original_price: variant.price,
      final_price: variant.price,
      line_price: variant.price * line.quantity,
      final_line_price: variant.price * line.quantity,
      image: imageUrl(base, shop, product),
      url: `/products/${product.handle}?variant=${variant.id}`,
      requires_shipping: true,
      properties: {},
    }];
  });
  const total = items.reduce((n, i) => n + i.line_price, 0);
  return {
    token: publicCartToken(shop, token),
    note: null,
    attributes: {},
    original_total_price: total,
    total_price: total,
    total_discount: 0,
    total_weight: 0,
    item_count: items.reduce((n, i) => n + i.quantity, 0),
    items,
    requires_shipping: items.length > 0,
    currency: shop.currency,
    items_subtotal_price: total,
    cart_level_discount_applications: [],
  };
}

export const primaryDomainOf = (shop: SimShop) => shop.domains.find((d) => d.id === shop.primaryDomainId) ?? shop.domains[0]!;
export const gid = (type: string, id: number) => `gid://shopify/${type}/${id}`;
/** The numeric id of a gid of that type, or null. */
export function idOf(type: string, value: unknown): number | null {
  const m = typeof value === 'string' ? new RegExp(`^gid://shopify/${type}/(\\d+)$`).exec(value) : null;
  return m ? Number(m[1]) : null;
}
