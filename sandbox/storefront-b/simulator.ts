// Storefront B simulator: a self-hosted commerce platform with a REST API (consumer key/secret) and our
// official plugin installed in the store. Several stores are served under /stores/<id>; the store URL the
// merchant enters is http://127.0.0.1:4030/stores/<id>. See docs/sandbox.md.
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { createSimulator, type Simulator, type SimulatorOptions } from '../shared/simulator.js';
import { installErrorHandler, PlatformError, registerFormParser, type PublicUrl } from '../storefront-common/web.js';
import { registerPages } from './pages.js';
import { interceptCheckout, type Interception } from './plugin.js';
import { isWooCurrency } from './money.js';
import { homeUrlOf, registerRest } from './rest.js';
import { addKey, addStore, findPurchasable, orderJson, POLICY_PAGE_TYPES, productJson, seed, type Store } from './state.js';

export { DEMO_STORE } from './state.js';
export { CART_COOKIE } from './pages.js';
export type { Interception, PluginCheckoutRequest } from './plugin.js';
export { HANDOFF_HEADERS, signHandoff } from './plugin.js';
export { PLUGIN_FILE, PLUGIN_SESSION_META } from './state.js';

export interface StorefrontBSimulatorOptions {
  /** Base URL of the simulator as shoppers and the service reach it; defaults to the request's own host. */
  publicUrl?: PublicUrl;
  /** Our checkout service's base URL, which the plugin calls (POST {serviceUrl}/api/checkout/create). */
  serviceUrl?: PublicUrl;
  logger?: SimulatorOptions['logger'];
  /** How long the plugin waits for the service before falling back to native checkout (default 5 s). */
  pluginTimeoutMs?: number;
}

export interface StorefrontBSimulator extends Simulator {
  stores: Map<string, Store>;
  interceptions: Interception[];
}

function parse<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) {
    throw new PlatformError(400, { error: parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '), code: 'INVALID_INPUT' });
  }
  return parsed.data;
}

const permissions = z.enum(['read', 'write', 'read_write']);
const storeSchema = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/).optional(),
  name: z.string().min(1).max(100).optional(),
  currency: z.string().refine(isWooCurrency, 'must be one of get_woocommerce_currencies()').optional(),
  /** woocommerce_price_num_decimals; default: what onboarding sets for the currency (money.ts). */
  priceDecimals: z.number().int().min(0).max(8).optional(),
  consumerKey: z.string().regex(/^ck_[A-Za-z0-9]{8,64}$/).optional(),
  consumerSecret: z.string().regex(/^cs_[A-Za-z0-9]{8,64}$/).optional(),
  permissions: permissions.optional(),
  pluginActive: z.boolean().optional(),
  /** The plugin's version (default the current one): an older plugin lacks the routes added since. */
  pluginVersion: z.string().regex(/^\d+\.\d+\.\d+$/).optional(),
  serviceUrl: z.url().optional(),
  /** is_ssl() on the store's server: true for an HTTPS store (or TLS offload with HTTPS=on). */
  isSsl: z.boolean().optional(),
});
const keySchema = z.object({ permissions: permissions.default('read_write'), description: z.string().optional() });
const pluginSchema = z.object({ active: z.boolean().optional(), version: z.string().regex(/^\d+\.\d+\.\d+$/).optional(), serviceUrl: z.url().nullable().optional(), connectionKey: z.string().nullable().optional() });
const serverSchema = z.object({ isSsl: z.boolean().optional(), commitThenTimeout: z.number().int().min(0).max(1000).optional() });
const countryList = z.array(z.string().regex(/^[A-Z]{2}$/));
const generalSettingsSchema = z.strictObject({
  allowedCountries: z.enum(['all', 'all_except', 'specific']).optional(),
  allExceptCountries: countryList.optional(),
  specificAllowedCountries: countryList.optional(),
  shipToCountries: z.enum(['', 'all', 'specific', 'disabled']).optional(),
  specificShipToCountries: countryList.optional(),
});
const policyPagesSchema = z.object({
  pages: z.array(z.object({
    type: z.enum(POLICY_PAGE_TYPES),
    /** null: no page chosen for it (the setting emptied). */
    page: z.object({ title: z.string().max(200), slug: z.string().regex(/^[a-z0-9_-]{1,200}$/).optional(), status: z.enum(['publish', 'draft', 'private', 'pending', 'trash']) }).nullable(),
  })),
});
const checkoutSchema = z.object({ items: z.array(z.object({ productId: z.number().int(), variationId: z.number().int().optional(), quantity: z.number().int().min(1).max(99) })).min(1) });

export function createStorefrontBSimulator(opts: StorefrontBSimulatorOptions = {}): StorefrontBSimulator {
  const sim = createSimulator('storefront-b', { logger: opts.logger });
  const { app } = sim;
  const stores = new Map<string, Store>();
  const interceptions: Interception[] = [];
  seed(stores);
  sim.onReset(() => {
    stores.clear();
    interceptions.length = 0;
    seed(stores);
  });

  const serviceUrl = () => (typeof opts.serviceUrl === 'function' ? opts.serviceUrl() : opts.serviceUrl);
  const pluginTimeoutMs = opts.pluginTimeoutMs ?? 5_000;
  registerFormParser(app);
  installErrorHandler(app, (status, message) => ({ code: status >= 500 ? 'internal_server_error' : 'rest_invalid_request', message, data: { status } }));
  registerRest(app, stores, opts.publicUrl);
  registerPages(app, stores, opts.publicUrl, { serviceUrl, timeoutMs: pluginTimeoutMs, record: (i) => void interceptions.push(i) });

  type Req<P = Record<string, string>> = FastifyRequest<{ Params: P; Querystring: Record<string, string | undefined>; Body: unknown }>;
  const controlStore = (id: string) => {
    const store = stores.get(id);
    if (!store) throw new PlatformError(404, { error: `unknown store ${id}`, code: 'NOT_FOUND' });
    return store;
  };
  const summary = (store: Store, request: FastifyRequest) => {
    const storeUrl = homeUrlOf(opts.publicUrl, request, store);
    return {
      id: store.id,
      name: store.name,
      storeUrl,
      isSsl: store.isSsl,
      currency: store.currency,
      priceDecimals: store.priceDecimals,
      keys: [...store.keys.values()].map(({ nonces: _nonces, ...k }) => k),
      plugin: { ...store.plugin, effectiveServiceUrl: store.plugin.serviceUrl ?? serviceUrl() ?? null },
      products: store.products.map((p) => ({ ...productJson(storeUrl, store, p), variation_prices: p.variations.map((v) => ({ id: v.id, title: v.title, price: v.price })) })),
    };
  };

  app.get('/_control/stores', async (request: Req) => ({ stores: [...stores.values()].map((s) => summary(s, request)) }));
  app.post('/_control/stores', async (request: Req, reply) => {
    const input = parse(storeSchema, request.body);
    if (input.id && stores.has(input.id)) throw new PlatformError(409, { error: `store ${input.id} exists`, code: 'CONFLICT' });
    const store = addStore(stores, input);
    const key = [...store.keys.values()][0];
    return reply.code(201).send({ ...summary(store, request), consumerKey: key?.consumerKey, consumerSecret: key?.consumerSecret });
  });
  app.get('/_control/stores/:id', async (request: Req<{ id: string }>) => {
    const store = controlStore(request.params.id);
    const s = summary(store, request);
    return { ...s, orders: [...store.orders.values()].map((o) => orderJson(s.storeUrl, o)) };
  });
  app.post('/_control/stores/:id/keys', async (request: Req<{ id: string }>, reply) => {
    return reply.code(201).send(addKey(controlStore(request.params.id), parse(keySchema, request.body)));
  });
  app.post('/_control/stores/:id/plugin', async (request: Req<{ id: string }>) => {
    const store = controlStore(request.params.id);
    const input = parse(pluginSchema, request.body);
    if (input.active !== undefined) store.plugin.active = input.active;
    if (input.version !== undefined) store.plugin.version = input.version;
    if (input.serviceUrl !== undefined) store.plugin.serviceUrl = input.serviceUrl;
    if (input.connectionKey !== undefined) store.plugin.connectionKey = input.connectionKey;
    return store.plugin;
  });
  // The merchant saves WooCommerce → Settings → General (selling and shipping locations); lists replace the saved ones.
  app.post('/_control/stores/:id/general-settings', async (request: Req<{ id: string }>) => {
    const store = controlStore(request.params.id);
    Object.assign(store.general, parse(generalSettingsSchema, request.body));
    return store.general;
  });
  // The merchant edits a policy page (title, published or not) or chooses none for it: the page already chosen for that
  // policy is changed, else a new page is made and chosen (as publishing a new page and picking it in the settings).
  app.post('/_control/stores/:id/policy-pages', async (request: Req<{ id: string }>) => {
    const store = controlStore(request.params.id);
    for (const { type, page } of parse(policyPagesSchema, request.body).pages) {
      if (!page) {
        store.policyPages[type] = 0;
        continue;
      }
      const slug = page.slug ?? (page.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || `page-${store.nextId()}`);
      const existing = store.pages.find((p) => p.id === store.policyPages[type]);
      if (existing) Object.assign(existing, { title: page.title, slug, status: page.status });
      else {
        const created = { id: store.nextId(), title: page.title, slug, status: page.status };
        store.pages.push(created);
        store.policyPages[type] = created.id;
      }
    }
    return { pages: store.pages, policyPages: store.policyPages };
  });
  // The store's server: is_ssl(), and the "commit, then time out" fault on the next N order creates.
  app.post('/_control/stores/:id/server', async (request: Req<{ id: string }>) => {
    const store = controlStore(request.params.id);
    const input = parse(serverSchema, request.body);
    if (input.isSsl !== undefined) store.isSsl = input.isSsl;
    if (input.commitThenTimeout !== undefined) store.commitThenHang = input.commitThenTimeout;
    return { isSsl: store.isSsl, commitThenTimeout: store.commitThenHang };
  });
  // WooCommerce → Settings → Tax as the merchant sets it, with its standard rates (prices that include tax are not
  // simulated: the real WooCommerce tier covers them).
  app.post('/_control/stores/:id/taxes', async (request: Req<{ id: string }>) => {
    const store = controlStore(request.params.id);
    const input = parse(z.object({
      enabled: z.boolean(),
      basedOn: z.enum(['shipping', 'billing', 'base']).default('shipping'),
      roundAtSubtotal: z.boolean().default(false),
      baseCountry: z.string().default('DE'),
      rates: z.array(z.object({ country: z.string().max(2).default(''), state: z.string().default(''), postcodes: z.array(z.string()).default([]), rate: z.number().min(0).max(100), name: z.string().default('Tax'), priority: z.number().int().default(1), compound: z.boolean().default(false), shipping: z.boolean().default(true) })).default([]),
    }), request.body);
    store.taxes = {
      enabled: input.enabled, pricesIncludeTax: false, basedOn: input.basedOn, shippingTaxClass: 'inherit', roundAtSubtotal: input.roundAtSubtotal,
      baseCountry: input.baseCountry, basePostcode: '', baseCity: '',
      rates: input.rates.map((r, i) => ({ id: store.nextId(), country: r.country.toUpperCase(), state: r.state.toUpperCase(), postcodes: r.postcodes, cities: [], rate: r.rate.toFixed(4), name: r.name, priority: r.priority, compound: r.compound, shipping: r.shipping, order: i, class: 'standard' })),
    };
    return store.taxes;
  });
  // A shopper's click on the checkout button, without a browser: the same interception the page runs.
  app.post('/_control/stores/:id/checkout', async (request: Req<{ id: string }>) => {
    const store = controlStore(request.params.id);
    const lines = parse(checkoutSchema, request.body).items.map((i) => {
      const found = findPurchasable(store, i.productId, i.variationId);
      if (!found) throw new PlatformError(422, { error: `no product ${i.productId}${i.variationId ? ` variation ${i.variationId}` : ''}`, code: 'INVALID_INPUT' });
      return { productId: i.productId, variantId: found.variation?.id ?? i.productId, quantity: i.quantity };
    });
    const home = homeUrlOf(opts.publicUrl, request, store);
    const nativeUrl = `${home}/checkout`;
    if (!store.plugin.active) return { location: nativeUrl, interception: null };
    const interception = await interceptCheckout(store, home, lines, { serviceUrl: serviceUrl(), timeoutMs: pluginTimeoutMs });
    interceptions.push(interception);
    return { location: interception.checkoutUrl ?? nativeUrl, interception };
  });
  app.get('/_control/plugin/interceptions', async (request: Req) => {
    const { store } = request.query;
    return { interceptions: interceptions.filter((i) => !store || i.storeId === store) };
  });

  return { ...sim, stores, interceptions };
}
