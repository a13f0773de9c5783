// Storefront A simulator: Shopify, written from shopify.dev (docs/storefront-a.md), never from our client.
// Shops live on <shop>.myshopify.com hosts; locally every shop is served under /shops/<shop host>/ and
// everything after that prefix is Shopify's own path (OAuth, GraphQL Admin and Storefront APIs, /cart.js,
// theme editor). See docs/sandbox.md.
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { createSimulator, type Simulator, type SimulatorOptions } from '../shared/simulator.js';
import { baseUrlOf, installErrorHandler, PlatformError, randomHex, registerFormParser, type PublicUrl } from '../storefront-common/web.js';
import { bucketKey, registerGraphql, settingsDataFile } from './graphql.js';
import { isCurrency, toDecimal } from './money.js';
import { registerOAuth } from './oauth.js';
import { registerPages, setEmbed } from './pages.js';
import { addApp, addShop, ajaxCart, createState, DEMO_APP, findVariant, gid, isShopHost, KNOWN_SCOPES, newCart, publicCartToken, requireShop, seed, SHOPIFY_COUNTRY_CODES, SHOP_POLICY_DEFAULTS, SHOP_POLICY_TYPES, type SimShop, type State } from './state.js';
import { restShop, retryDelivery, sendWebhooks, WEBHOOK_TOPICS, type WebhookDelivery } from './webhooks.js';

export { DEMO_APP, DEMO_SHOP, DEMO_SHOP_PRIMARY_DOMAIN } from './state.js';
export { CART_COOKIE, CHECKOUT_BUTTON_ID } from './pages.js';

export interface StorefrontASimulatorOptions {
  /** Base URL for absolute links (image URLs in the API); defaults to the request's own host. */
  publicUrl?: PublicUrl;
  logger?: SimulatorOptions['logger'];
  /** How long an OAuth code stays exchangeable (default 5 minutes). */
  authCodeTtlMs?: number;
  /** Time-out of one webhook delivery (default 5 s). */
  webhookTimeoutMs?: number;
}

export interface StorefrontASimulator extends Simulator {
  state: State;
  /** Installs an app on a shop without the OAuth dance and answers its access token (for tests). */
  install(shop: string, opts?: { clientId?: string; scopes?: string[] }): string;
  /** Creates a cart as a shopper's add-to-cart would, answering its token (for tests). */
  createCart(shop: string, items: Array<{ variantId: number; quantity: number }>): string;
  deliveries: WebhookDelivery[];
}

/** Scopes a hosted-checkout app asks for (docs/storefront-a.md), granted by install() without the OAuth dance. */
export const DEFAULT_SCOPES = ['write_draft_orders', 'write_orders', 'read_themes', 'read_markets', 'read_legal_policies', 'write_script_tags', 'unauthenticated_read_checkouts', 'unauthenticated_write_checkouts', 'unauthenticated_read_product_listings'];

const invalid = (error: z.ZodError) =>
  new PlatformError(400, { error: error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '), code: 'INVALID_INPUT' });
function parse<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw invalid(parsed.error);
  return parsed.data;
}

const url = z.url({ protocol: /^https?$/ });
const appSchema = z.object({
  clientId: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/).optional(),
  clientSecret: z.string().min(16).optional(),
  name: z.string().min(1).max(100).optional(),
  handle: z.string().regex(/^[a-z0-9-]{1,60}$/).optional(),
  redirectUrls: z.array(url).optional(),
  webhookAddress: url.optional(),
});
const shopSchema = z.object({
  shop: z.string().refine(isShopHost, 'must be a <name>.myshopify.com host'),
  primaryDomain: z.string().regex(/^[a-z0-9.-]+$/).optional(),
  name: z.string().min(1).optional(),
  email: z.email().optional(),
  currency: z.string().refine(isCurrency, 'must be an ISO 4217 code').optional(),
  country: z.string().regex(/^[A-Z]{2}$/).optional(),
  /** An ISO code as Shopify lists shop locales: "de", "pt-BR". */
  primaryLocale: z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/).optional(),
});
const cartSchema = z.object({ items: z.array(z.object({ variantId: z.number().int(), quantity: z.number().int().min(1).max(99) })).min(1) });
const installSchema = z.object({ clientId: z.string().optional(), scopes: z.array(z.enum(KNOWN_SCOPES as [string, ...string[]])).optional() });
const webhookSchema = z.object({
  shop: z.string(),
  topic: z.enum(WEBHOOK_TOPICS),
  address: url.optional(),
  clientId: z.string().optional(),
  customerEmail: z.email().optional(),
  /** refunds/create: the order and its refund the delivery is about. */
  orderId: z.number().int().optional(),
  refundId: z.number().int().optional(),
});

export function createStorefrontASimulator(opts: StorefrontASimulatorOptions = {}): StorefrontASimulator {
  const sim = createSimulator('storefront-a', { logger: opts.logger });
  const { app } = sim;
  const state = createState();
  const deliveries: WebhookDelivery[] = [];
  seed(state);
  sim.onReset(() => {
    for (const key of ['apps', 'shops', 'tokens', 'storefrontTokens', 'codes', 'buckets', 'commitThenTimeout', 'draftFaults', 'storefrontFaults', 'publicIpBudgets', 'storefrontRequests'] as const) state[key].clear();
    deliveries.length = 0;
    state.lastId = 0;
    seed(state);
  });

  registerFormParser(app);
  installErrorHandler(app, (status, message) => (status >= 500 ? { errors: 'Internal Server Error' } : { errors: message }));
  registerOAuth(app, state, { authCodeTtlMs: opts.authCodeTtlMs ?? 5 * 60_000 });
  registerGraphql(app, state, (request) => baseUrlOf(opts.publicUrl, request));
  registerPages(app, state, opts.publicUrl);

  const controlShop = (host: string) => {
    const shop = state.shops.get(host);
    if (!shop) throw new PlatformError(404, { error: `unknown shop ${host}`, code: 'NOT_FOUND' });
    return shop;
  };
  const install = (shop: SimShop, clientId: string, scopes: string[]) => {
    if (!state.apps.has(clientId)) throw new PlatformError(404, { error: `unknown app ${clientId}`, code: 'NOT_FOUND' });
    shop.installs.set(clientId, { scopes, installedAt: new Date().toISOString(), installationId: shop.installs.get(clientId)?.installationId ?? state.nextId() });
    shop.everInstalled.add(clientId);
    const token = `shpat_${randomHex(16)}`;
    state.tokens.set(token, { shop: shop.host, clientId, scopes });
    return token;
  };
  const createCart = (shop: SimShop, items: Array<{ variantId: number; quantity: number }>) => {
    const token = newCart(shop);
    for (const item of items) {
      const found = findVariant(shop, item.variantId);
      if (!found) throw new PlatformError(422, { error: `unknown variant ${item.variantId}`, code: 'INVALID_INPUT' });
      shop.carts.add(token, { productId: found.product.id, variantId: found.variant.id, quantity: item.quantity });
    }
    return publicCartToken(shop, token);
  };
  const shopSummary = (shop: SimShop, request: FastifyRequest) => ({
    ...restShop(shop),
    domains: shop.domains.map((d) => d.host),
    storefrontUrl: `${baseUrlOf(opts.publicUrl, request)}/shops/${shop.host}/`,
    products: shop.products.map((p) => ({ id: p.id, handle: p.handle, title: p.title, variants: p.variants.map((v) => ({ id: v.id, gid: gid('ProductVariant', v.id), title: v.title, price: v.price, priceDecimal: toDecimal(v.price, shop.currency), sku: v.sku })) })),
  });

  type Req<P = Record<string, string>> = FastifyRequest<{ Params: P; Body: unknown }>;

  app.get('/_control/apps', async () => ({ apps: [...state.apps.values()] }));
  app.post('/_control/apps', async (request: Req, reply) => {
    const input = parse(appSchema, request.body);
    if (input.clientId && state.apps.has(input.clientId)) throw new PlatformError(409, { error: `app ${input.clientId} exists`, code: 'CONFLICT' });
    return reply.code(201).send(addApp(state, input));
  });
  app.post('/_control/apps/:clientId/webhook-address', async (request: Req<{ clientId: string }>) => {
    const target = state.apps.get(request.params.clientId);
    if (!target) throw new PlatformError(404, { error: `unknown app ${request.params.clientId}`, code: 'NOT_FOUND' });
    target.webhookAddress = parse(z.object({ url }), request.body).url;
    return target;
  });

  app.get('/_control/shops', async (request: Req) => ({ shops: [...state.shops.values()].map((s) => shopSummary(s, request)) }));
  app.post('/_control/shops', async (request: Req, reply) => {
    const input = parse(shopSchema, request.body);
    if (state.shops.has(input.shop)) throw new PlatformError(409, { error: `shop ${input.shop} exists`, code: 'CONFLICT' });
    return reply.code(201).send(shopSummary(addShop(state, { ...input, host: input.shop }), request));
  });
  app.get('/_control/shops/:shop', async (request: Req<{ shop: string }>) => {
    const shop = controlShop(request.params.shop);
    return {
      ...shopSummary(shop, request),
      installs: [...shop.installs].map(([clientId, i]) => ({ clientId, ...i })),
      scriptTags: [...shop.scriptTags.values()],
      draftOrders: [...shop.draftOrders.values()],
      orders: [...shop.orders.values()],
      webhookSubscriptions: shop.webhookSubscriptions,
      settingsData: settingsDataFile(shop.themes.find((t) => t.role === 'MAIN')!),
    };
  });
  app.post('/_control/shops/:shop/install', async (request: Req<{ shop: string }>, reply) => {
    const shop = controlShop(request.params.shop);
    const input = parse(installSchema, request.body);
    const scopes = input.scopes ?? DEFAULT_SCOPES;
    return reply.code(201).send({ accessToken: install(shop, input.clientId ?? DEMO_APP.clientId, scopes), scope: scopes.join(',') });
  });
  app.post('/_control/shops/:shop/carts', async (request: Req<{ shop: string }>, reply) => {
    const shop = controlShop(request.params.shop);
    const token = createCart(shop, parse(cartSchema, request.body).items);
    const internal = /^c1-([0-9a-f]+)\?/.exec(token)![1]!;
    return reply.code(201).send({ token, cart: ajaxCart(baseUrlOf(opts.publicUrl, request), shop, internal) });
  });

  // `shopify app deploy`: the app's theme app extension (blocks and assets) becomes available to its shops.
  const deploySchema = z.object({ handle: z.string().regex(/^[a-z0-9-]{1,60}$/), blocks: z.record(z.string().regex(/^[a-z0-9-_]+$/), z.string()), assets: z.record(z.string().regex(/^[\w.-]+$/), z.string()) });
  app.post('/_control/apps/:clientId/extensions', async (request: Req<{ clientId: string }>, reply) => {
    const target = state.apps.get(request.params.clientId);
    if (!target) throw new PlatformError(404, { error: `unknown app ${request.params.clientId}`, code: 'NOT_FOUND' });
    const ext = parse(deploySchema, request.body);
    target.extensions = [...target.extensions.filter((e) => e.handle !== ext.handle), ext];
    return reply.code(201).send({ handle: ext.handle, blocks: Object.keys(ext.blocks), assets: Object.keys(ext.assets) });
  });
  // What the merchant's Save in the theme editor does (or a theme switch that lacks the embed).
  app.post('/_control/shops/:shop/app-embeds', async (request: Req<{ shop: string }>) => {
    const shop = controlShop(request.params.shop);
    const input = parse(z.object({ clientId: z.string(), block: z.string(), enabled: z.boolean() }), request.body);
    const target = state.apps.get(input.clientId);
    if (!target) throw new PlatformError(404, { error: `unknown app ${input.clientId}`, code: 'NOT_FOUND' });
    const theme = shop.themes.find((t) => t.role === 'MAIN')!;
    setEmbed(theme, target, input.block, input.enabled);
    return { settingsData: settingsDataFile(theme) };
  });
  // A script tag made before 2026-10-01 (they can no longer be created through the API).
  app.post('/_control/shops/:shop/script-tags', async (request: Req<{ shop: string }>, reply) => {
    const shop = controlShop(request.params.shop);
    const input = parse(z.object({ clientId: z.string(), src: url }), request.body);
    const tag = { id: state.nextId(), clientId: input.clientId, src: input.src, displayScope: 'ONLINE_STORE' as const, createdAt: new Date().toISOString() };
    shop.scriptTags.set(tag.id, tag);
    return reply.code(201).send({ ...tag, gid: gid('ScriptTag', tag.id) });
  });
  // The merchant adds a domain (optionally primary, or a market's own web presence, else it redirects to the primary
  // one); Shopify then sends domains/create (and shop/update).
  app.post('/_control/shops/:shop/domains', async (request: Req<{ shop: string }>, reply) => {
    const shop = controlShop(request.params.shop);
    const input = parse(z.object({ host: z.string().regex(/^[a-z0-9.-]+$/), primary: z.boolean().default(false), webPresence: z.boolean().default(false) }), request.body);
    const domain = shop.domains.find((d) => d.host === input.host) ?? { id: state.nextId(), host: input.host };
    domain.webPresence = input.webPresence;
    if (!shop.domains.includes(domain)) shop.domains.push(domain);
    if (input.primary) shop.primaryDomainId = domain.id;
    return reply.code(201).send({ domains: shop.domains.map((d) => d.host), primary: shop.domains.find((d) => d.id === shop.primaryDomainId)?.host });
  });
  // The merchant edits the shop's shipping zones: shipsToCountries answers their countries (codes of the CountryCode enum).
  app.post('/_control/shops/:shop/ships-to', async (request: Req<{ shop: string }>) => {
    const shop = controlShop(request.params.shop);
    const input = parse(z.object({ countries: z.array(z.enum(SHOPIFY_COUNTRY_CODES as [string, ...string[]])) }), request.body);
    shop.shipsToCountries = [...new Set(input.countries)].sort();
    return { shipsToCountries: shop.shipsToCountries };
  });
  // The merchant writes the shop's policies (Settings → Policies): each given type is set (its title defaults to
  // Shopify's English one), an empty body removes it as clearing the text in the admin does; others stay as they were.
  app.post('/_control/shops/:shop/policies', async (request: Req<{ shop: string }>) => {
    const shop = controlShop(request.params.shop);
    const input = parse(z.object({ policies: z.array(z.object({ type: z.enum(SHOP_POLICY_TYPES), title: z.string().min(1).max(255).optional(), body: z.string().max(512 * 1024) })) }), request.body);
    const now = new Date().toISOString();
    for (const p of input.policies) {
      const existing = shop.policies.find((x) => x.type === p.type);
      if (!p.body) shop.policies = shop.policies.filter((x) => x !== existing);
      else if (existing) Object.assign(existing, { title: p.title ?? existing.title, body: p.body, updatedAt: now });
      else shop.policies.push({ id: state.nextId(), type: p.type, title: p.title ?? SHOP_POLICY_DEFAULTS[p.type].title, body: p.body, createdAt: now, updatedAt: now });
    }
    return { policies: shop.policies.map(({ type, title }) => ({ type, title })) };
  });
  // Faults: the next `count` calls of `mutation` commit, then hang for `hangMs` and drop the connection.
  app.post('/_control/faults/commit-then-timeout', async (request: Req) => {
    const input = parse(z.object({ mutation: z.enum(['draftOrderCreate', 'draftOrderComplete', 'refundCreate']), count: z.number().int().min(0).max(1000), hangMs: z.number().int().min(1).max(120_000).default(10_000) }), request.body);
    if (input.count === 0) state.commitThenTimeout.delete(input.mutation);
    else state.commitThenTimeout.set(input.mutation, { count: input.count, hangMs: input.hangMs });
    return { [input.mutation]: state.commitThenTimeout.get(input.mutation) ?? null };
  });
  // Draft order faults of one shop, for its next drafts or completions (state.ts DraftFaults): a draft "not ready" for
  // `reads` reads; a completion "in flight" for `commitMs` (its answer lost, another completion refused meanwhile); a
  // completion that commits, then answers INTERNAL_SERVER_ERROR. A count of 0 clears one.
  app.post('/_control/shops/:shop/faults/draft-orders', async (request: Req<{ shop: string }>) => {
    const shop = controlShop(request.params.shop);
    const count = z.number().int().min(0).max(1000);
    const input = parse(
      z.object({
        notReady: z.object({ count, reads: z.number().int().min(1).max(1000) }).optional(),
        inFlight: z.object({ count, commitMs: z.number().int().min(1).max(120_000) }).optional(),
        commitThenError: z.object({ count }).optional(),
      }),
      request.body,
    );
    const faults = { ...state.draftFaults.get(shop.host), ...input };
    state.draftFaults.set(shop.host, faults);
    return { draftFaults: faults };
  });
  // The shop's tax settings (Settings → Taxes and duties): prices with or without tax, a rate per country, shipping taxed.
  app.post('/_control/shops/:shop/taxes', async (request: Req<{ shop: string }>) => {
    const shop = controlShop(request.params.shop);
    shop.taxes = parse(z.object({ included: z.boolean(), rates: z.record(z.string().regex(/^[A-Z]{2}$/), z.number().min(0).max(100)), shipping: z.boolean().default(false) }), request.body);
    return shop.taxes;
  });
  // Storefront API throttles of a shop: the next `count` requests answer 430, 429 (no body; Retry-After when given) or THROTTLED.
  app.post('/_control/shops/:shop/storefront-throttle', async (request: Req<{ shop: string }>) => {
    const shop = controlShop(request.params.shop);
    const input = parse(z.object({ status: z.union([z.literal(429), z.literal(430), z.literal('THROTTLED')]), count: z.number().int().min(0).max(1000), retryAfterSeconds: z.number().int().min(0).max(60).optional() }), request.body);
    if (input.count === 0) state.storefrontFaults.delete(shop.host);
    else state.storefrontFaults.set(shop.host, input);
    return { storefrontThrottle: state.storefrontFaults.get(shop.host) ?? null };
  });
  // What the shop's Storefront API saw lately: the token kind and the Shopify-Storefront-Buyer-IP of each request.
  app.get('/_control/shops/:shop/storefront-requests', async (request: Req<{ shop: string }>) => ({ requests: state.storefrontRequests.get(controlShop(request.params.shop).host) ?? [] }));
  // The GraphQL cost bucket of one app on one shop (drain it to provoke THROTTLED).
  app.post('/_control/shops/:shop/throttle', async (request: Req<{ shop: string }>) => {
    const shop = controlShop(request.params.shop);
    const input = parse(z.object({ clientId: z.string().default(DEMO_APP.clientId), currentlyAvailable: z.number().min(0), maximumAvailable: z.number().min(1).default(2000), restoreRate: z.number().min(1).default(100) }), request.body);
    const bucket = { ...input, updatedAt: Date.now() };
    state.buckets.set(bucketKey(shop.host, input.clientId), { maximumAvailable: bucket.maximumAvailable, currentlyAvailable: bucket.currentlyAvailable, restoreRate: bucket.restoreRate, updatedAt: bucket.updatedAt });
    return { throttleStatus: { maximumAvailable: bucket.maximumAvailable, currentlyAvailable: bucket.currentlyAvailable, restoreRate: bucket.restoreRate } };
  });

  // Webhooks the shop's own activity triggers go out on their own, into the same log.
  state.emitWebhook = (shop, input) => {
    void sendWebhooks(state, shop, { topic: input.topic, subject: { orderId: input.orderId, refundId: input.refundId } }, opts.webhookTimeoutMs ?? 5_000)
      .then((sent) => deliveries.push(...sent))
      .catch(() => undefined);
  };

  app.post('/_control/webhooks/send', async (request: Req) => {
    const input = parse(webhookSchema, request.body);
    const subject = input.orderId !== undefined && input.refundId !== undefined ? { orderId: input.orderId, refundId: input.refundId } : undefined;
    const sent = await sendWebhooks(state, controlShop(input.shop), { ...input, subject }, opts.webhookTimeoutMs ?? 5_000);
    deliveries.push(...sent);
    return { deliveries: sent };
  });
  app.get('/_control/webhooks/deliveries', async () => ({ deliveries }));
  // Shopify retries a delivery that failed or was not answered within 5 s: the same event under a new webhook id.
  app.post('/_control/webhooks/deliveries/:id/retry', async (request: Req<{ id: string }>) => {
    const previous = deliveries.find((d) => d.id === request.params.id);
    if (!previous) throw new PlatformError(404, { error: `unknown delivery ${request.params.id}`, code: 'NOT_FOUND' });
    const retried = await retryDelivery(previous, opts.webhookTimeoutMs ?? 5_000);
    deliveries.push(retried);
    return { delivery: retried };
  });

  return {
    ...sim,
    state,
    deliveries,
    install: (host, o = {}) => install(requireShop(state, host, 'json'), o.clientId ?? DEMO_APP.clientId, o.scopes ?? DEFAULT_SCOPES),
    createCart: (host, items) => createCart(requireShop(state, host, 'json'), items),
  };
}

