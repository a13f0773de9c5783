// Storefront A's state: apps, shops (catalogue, carts, script tags, orders, installs), access tokens and
// pending OAuth codes; and how shops and carts look on the wire.
import { CATALOGUE, priceIn, type CatalogueProduct } from '../storefront-common/catalogue.js';
import { CartStore } from '../storefront-common/cart.js';
import { PlatformError, randomHex } from '../storefront-common/web.js';
import { isValidShopHost } from '../../integrations/storefront-a/oauth.js';
import { page, html } from '../storefront-common/html.js';

export interface SimApp {
  clientId: string;
  clientSecret: string;
  name: string;
  /** When non-empty, the only redirect_uri values OAuth accepts. */
  redirectUrls: string[];
  /** Where the platform posts this app's webhooks. */
  webhookAddress: string | null;
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
  event: 'onload';
  displayScope: string;
  createdAt: string;
  updatedAt: string;
}

export interface SimOrder {
  id: number;
  number: number;
  clientId: string;
  email: string | null;
  customerId: number | null;
  currency: string;
  financialStatus: 'pending' | 'authorized' | 'paid';
  gateway: string;
  lines: Array<{ id: number; variantId: number | null; productId: number | null; title: string; variantTitle: string | null; sku: string | null; quantity: number; price: number }>;
  shippingLines: Array<{ id: number; title: string; code: string; price: number }>;
  discountCodes: Array<{ code: string; amount: number; type: string }>;
  shippingAddress: Record<string, unknown> | null;
  billingAddress: Record<string, unknown> | null;
  transactions: Array<{ id: number; kind: string; status: string; amount: number; gateway: string; authorization: string | null; createdAt: string }>;
  subtotal: number;
  totalShipping: number;
  totalDiscounts: number;
  total: number;
  tags: string[];
  noteAttributes: Array<{ name: string; value: string }>;
  createdAt: string;
  updatedAt: string;
}

export interface SimShop {
  id: number;
  host: string;
  name: string;
  email: string;
  currency: string;
  country: string;
  products: SimProduct[];
  carts: CartStore;
  scriptTags: Map<number, ScriptTagRecord>;
  orders: Map<number, SimOrder>;
  nextOrderNumber: number;
  /** Idempotency-Key → order id: a repeated key answers the first order. */
  idempotency: Map<string, number>;
  /** Apps installed now, with the scopes the merchant granted. */
  installs: Map<string, { scopes: string[]; installedAt: string }>;
  /** Apps ever installed: privacy webhooks still reach an app after its uninstall. */
  everInstalled: Set<string>;
  customers: Map<string, number>;
}

export interface TokenGrant {
  shop: string;
  clientId: string;
  scopes: string[];
}

export interface AuthCode extends TokenGrant {
  expiresAt: number;
}

export interface State {
  apps: Map<string, SimApp>;
  shops: Map<string, SimShop>;
  tokens: Map<string, TokenGrant>;
  codes: Map<string, AuthCode>;
  /** Ids count up from here; reset to 0 so a fresh sandbox always has the same (documented) ids. */
  lastId: number;
  nextId(): number;
}

export const DEMO_APP = {
  clientId: 'sfa-demo-client-0001',
  clientSecret: 'sfa_secret_demo_0123456789abcdef',
  name: 'Hosted Checkout (sandbox)',
} as const;
export const DEMO_SHOP = 'demo-shop.myshopify.com';

export const KNOWN_SCOPES = ['products', 'orders', 'customers', 'checkouts', 'script_tags', 'themes', 'shipping', 'locales'].flatMap((s) => [`read_${s}`, `write_${s}`]);

/** write_x implies read_x, as on the real platform. */
export function hasScope(granted: readonly string[], needed: string): boolean {
  return granted.includes(needed) || (needed.startsWith('read_') && granted.includes(`write_${needed.slice(5)}`));
}

export function createState(): State {
  const state: State = {
    apps: new Map(),
    shops: new Map(),
    tokens: new Map(),
    codes: new Map(),
    lastId: 0,
    // Ids in the platform's range, unique across every kind of resource.
    nextId: () => 6_100_000_000_000 + ++state.lastId * 7,
  };
  return state;
}

export function addApp(state: State, input: Partial<SimApp> = {}): SimApp {
  const app: SimApp = {
    clientId: input.clientId ?? randomHex(16),
    clientSecret: input.clientSecret ?? `sfa_secret_${randomHex(16)}`,
    name: input.name ?? 'Untitled app',
    redirectUrls: input.redirectUrls ?? [],
    webhookAddress: input.webhookAddress ?? null,
  };
  state.apps.set(app.clientId, app);
  return app;
}

export function addShop(state: State, input: { host: string; name?: string; email?: string; currency?: string; country?: string }): SimShop {
  const currency = input.currency ?? 'EUR';
  const label = input.host.split('.')[0] ?? input.host;
  const shop: SimShop = {
    id: state.nextId(),
    host: input.host,
    name: input.name ?? label.split('-').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' '),
    email: input.email ?? `owner@${label}.example`,
    currency,
    country: input.country ?? 'DE',
    products: CATALOGUE.map((source) => {
      const productId = state.nextId();
      return {
        id: productId,
        handle: source.handle,
        title: source.title,
        description: source.description,
        option: source.option,
        source,
        variants: source.variants.map((v) => ({ id: state.nextId(), productId, title: v.title, price: priceIn(v.price, currency), sku: v.sku })),
      };
    }),
    carts: new CartStore(),
    scriptTags: new Map(),
    orders: new Map(),
    nextOrderNumber: 1001,
    idempotency: new Map(),
    installs: new Map(),
    everInstalled: new Set(),
    customers: new Map(),
  };
  state.shops.set(shop.host, shop);
  return shop;
}

export function seed(state: State): void {
  addApp(state, { ...DEMO_APP });
  addShop(state, { host: DEMO_SHOP, name: 'Demo Shop', email: 'owner@demo-shop.example' });
}

/** The shop a URL names, or the platform's 404 (as JSON for the API, as a page for browsers). */
export function requireShop(state: State, host: string, as: 'json' | 'html'): SimShop {
  const shop = isValidShopHost(host) ? state.shops.get(host) : undefined;
  if (shop) return shop;
  if (as === 'json') throw new PlatformError(404, { errors: 'Not Found' });
  throw new PlatformError(404, page({ title: 'Shop unavailable', body: html`<h1>Sorry, this shop is currently unavailable.</h1>` }), 'text/html; charset=utf-8');
}

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

/** A cart as the platform's cart JSON: prices in integer minor units of the cart currency. */
export function serializeCart(base: string, shop: SimShop, token: string) {
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
      line_price: variant.price * line.quantity,
      image: imageUrl(base, shop, product),
      url: `/products/${product.handle}?variant=${variant.id}`,
      requires_shipping: true,
    }];
  });
  return {
    token,
    currency: shop.currency,
    market: { country: shop.country, handle: shop.country.toLowerCase() },
    item_count: items.reduce((n, i) => n + i.quantity, 0),
    total_price: items.reduce((n, i) => n + i.line_price, 0),
    requires_shipping: items.length > 0,
    items,
  };
}

export function shopJson(shop: SimShop) {
  return {
    id: shop.id,
    name: shop.name,
    email: shop.email,
    domain: shop.host,
    myshopify_domain: shop.host,
    currency: shop.currency,
    enabled_presentment_currencies: [shop.currency],
    country_code: shop.country,
    plan_name: 'basic',
    money_format: `{{amount}} ${shop.currency}`,
    created_at: '2024-01-15T09:00:00Z',
  };
}
