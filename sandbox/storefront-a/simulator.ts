// Storefront A simulator: a hosted commerce platform whose shops live on <shop>.myshopify.com hosts and
// connect apps by OAuth install. Locally every shop is served under /shops/<shop host>/ (the client's
// apiUrlTemplate is "http://127.0.0.1:4020/shops/{shop}"). See docs/sandbox.md.
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { isValidShopHost } from '../../integrations/storefront-a/oauth.js';
import { WEBHOOK_TOPICS } from '../../integrations/storefront-a/webhooks.js';
import { isCurrencyCode } from '../../integrations/storefront-common/money.js';
import { createSimulator, type Simulator, type SimulatorOptions } from '../shared/simulator.js';
import { baseUrlOf, installErrorHandler, PlatformError, randomHex, registerFormParser, type PublicUrl } from '../storefront-common/web.js';
import { registerAdminApi } from './api.js';
import { registerOAuth } from './oauth.js';
import { serializeOrder } from './orders.js';
import { registerPages } from './pages.js';
import { addApp, addShop, createState, DEMO_APP, findVariant, KNOWN_SCOPES, requireShop, seed, serializeCart, shopJson, type SimShop, type State } from './state.js';
import { sendWebhooks, type WebhookDelivery } from './webhooks.js';

export { DEMO_APP, DEMO_SHOP } from './state.js';
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

/** Scopes the checkout service needs: carts, script tags, orders. */
export const DEFAULT_SCOPES = ['read_products', 'read_checkouts', 'write_script_tags', 'write_orders'];

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
  redirectUrls: z.array(url).optional(),
  webhookAddress: url.optional(),
});
const shopSchema = z.object({
  shop: z.string().refine((s) => isValidShopHost(s), 'must be a <name>.myshopify.com host'),
  name: z.string().min(1).optional(),
  email: z.email().optional(),
  currency: z.string().refine(isCurrencyCode, 'must be an ISO 4217 code').optional(),
  country: z.string().regex(/^[A-Z]{2}$/).optional(),
});
const cartSchema = z.object({ items: z.array(z.object({ variantId: z.number().int(), quantity: z.number().int().min(1).max(99) })).min(1) });
const installSchema = z.object({ clientId: z.string().optional(), scopes: z.array(z.enum(KNOWN_SCOPES as [string, ...string[]])).optional() });
const webhookSchema = z.object({
  shop: z.string(),
  topic: z.enum(WEBHOOK_TOPICS),
  address: url.optional(),
  clientId: z.string().optional(),
  customerEmail: z.email().optional(),
});

export function createStorefrontASimulator(opts: StorefrontASimulatorOptions = {}): StorefrontASimulator {
  const sim = createSimulator('storefront-a', { logger: opts.logger });
  const { app } = sim;
  const state = createState();
  const deliveries: WebhookDelivery[] = [];
  seed(state);
  sim.onReset(() => {
    for (const key of ['apps', 'shops', 'tokens', 'codes'] as const) state[key].clear();
    deliveries.length = 0;
    state.lastId = 0;
    seed(state);
  });

  registerFormParser(app);
  installErrorHandler(app, (status, message) => (status >= 500 ? { errors: 'Internal Server Error' } : { errors: message }));
  registerOAuth(app, state, { authCodeTtlMs: opts.authCodeTtlMs ?? 5 * 60_000 });
  registerAdminApi(app, state, opts.publicUrl);
  registerPages(app, state, opts.publicUrl);

  const controlShop = (host: string) => {
    const shop = state.shops.get(host);
    if (!shop) throw new PlatformError(404, { error: `unknown shop ${host}`, code: 'NOT_FOUND' });
    return shop;
  };
  const install = (shop: SimShop, clientId: string, scopes: string[]) => {
    if (!state.apps.has(clientId)) throw new PlatformError(404, { error: `unknown app ${clientId}`, code: 'NOT_FOUND' });
    shop.installs.set(clientId, { scopes, installedAt: new Date().toISOString() });
    shop.everInstalled.add(clientId);
    const token = `sfat_${randomHex(16)}`;
    state.tokens.set(token, { shop: shop.host, clientId, scopes });
    return token;
  };
  const createCart = (shop: SimShop, items: Array<{ variantId: number; quantity: number }>) => {
    const token = shop.carts.create();
    for (const item of items) {
      const found = findVariant(shop, item.variantId);
      if (!found) throw new PlatformError(422, { error: `unknown variant ${item.variantId}`, code: 'INVALID_INPUT' });
      shop.carts.add(token, { productId: found.product.id, variantId: found.variant.id, quantity: item.quantity });
    }
    return token;
  };
  const shopSummary = (shop: SimShop, request: FastifyRequest) => ({
    ...shopJson(shop),
    storefrontUrl: `${baseUrlOf(opts.publicUrl, request)}/shops/${shop.host}/`,
    products: shop.products.map((p) => ({ id: p.id, handle: p.handle, title: p.title, variants: p.variants.map((v) => ({ id: v.id, title: v.title, price: v.price, sku: v.sku })) })),
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
      orders: [...shop.orders.values()].map((o) => serializeOrder(shop, o)),
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
    return reply.code(201).send({ token, cart: serializeCart(baseUrlOf(opts.publicUrl, request), shop, token) });
  });

  app.post('/_control/webhooks/send', async (request: Req) => {
    const input = parse(webhookSchema, request.body);
    const sent = await sendWebhooks(state, controlShop(input.shop), input, opts.webhookTimeoutMs ?? 5_000);
    deliveries.push(...sent);
    return { deliveries: sent };
  });
  app.get('/_control/webhooks/deliveries', async () => ({ deliveries }));

  return {
    ...sim,
    state,
    deliveries,
    install: (host, o = {}) => install(requireShop(state, host, 'json'), o.clientId ?? DEMO_APP.clientId, o.scopes ?? DEFAULT_SCOPES),
    createCart: (host, items) => createCart(requireShop(state, host, 'json'), items),
  };
}

