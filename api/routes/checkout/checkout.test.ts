// The public checkout end to end: store cart → POST /api/checkout/create → session row + running workflow,
// and the read paths (status, bundle, extras), against the storefront simulators of the test stack.
import { randomUUID } from 'node:crypto';
import { handoffHeaders, signHandoff } from '../../../integrations/storefront-b/handoff.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Client } from '@temporalio/client';
import { resolveDeps, type AppDeps } from '../../route-deps.js';
import { buildApp } from '../../app.js';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { createTestMerchant, type TestMerchant } from '../../../test/harness/merchants.js';
import { createSecretBox } from '../../../security/secrets.js';
import { createUrlGuard } from '../../../security/ssrf.js';
import { seedStorefrontAConnection } from '../../../test/harness/storefront-a-seed.js';
import { storefrontBAad } from '../../../model/connections.js';
import { convertFromEur } from '../../../domain/money.js';
import { checkoutOrigin } from '../merchant/view.js';
import { checkoutPublicRoutes } from './index.js';
import { shouldPassThrough, STORE_READ_TIMEOUT_MS } from '../../cart-sources.js';
import { WORKFLOWS } from '../../../domain/temporal/workflow-names.js';

type Json = Record<string, unknown> & { code?: string; error?: string };

let stack: TestStack;
/** The app serving the checkout routes: the stack's own once they are registered in app.ts, else one of ours. */
let app: FastifyInstance;
let apiUrl: string;
let secrets: ReturnType<typeof createSecretBox>;
const FX_DATE = '2026-11-20';

let ip = 0;
/** Each call from an address of its own, so the create limiter only counts where a test means it to. */
const nextIp = () => `10.9.${Math.floor(++ip / 250)}.${(ip % 250) + 1}`;

async function call(method: 'GET' | 'POST', url: string, body?: unknown, opts: { ip?: string; on?: FastifyInstance; headers?: Record<string, string> } = {}) {
  const res = await (opts.on ?? app).inject({ method, url, payload: body as Json | string | undefined, remoteAddress: opts.ip ?? nextIp(), headers: opts.headers });
  let json: Json = {};
  try {
    json = res.json();
  } catch {
    json = {};
  }
  return { status: res.statusCode, body: json, headers: res.headers };
}
const create = (body: unknown, opts: { ip?: string; on?: FastifyInstance } = {}) => call('POST', '/api/checkout/create', body, opts);
/** A storefront B create as our plugin sends it: the body signed with the store's REST key pair. */
const createB = (store: { consumerKey: string; consumerSecret: string }, body: unknown, opts: { ip?: string; on?: FastifyInstance } = {}) => {
  const raw = JSON.stringify(body);
  return call('POST', '/api/checkout/create', raw, { ...opts, headers: handoffHeaders(store.consumerKey, store.consumerSecret, raw) });
};

async function control(base: string, path: string, body: unknown, method = 'POST') {
  const res = await fetch(`${base}/_control/${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return (await res.json()) as Record<string, unknown>;
}
const fault = (base: string, rule: Record<string, unknown>) => control(base, 'faults', rule);
const clearFaults = (base: string) => fetch(`${base}/_control/faults`, { method: 'DELETE' });
/** How each call the simulator held for fault rule `ruleId` ended (sandbox/shared/faults.ts). */
const heldBy = async (base: string, ruleId: number) =>
  ((await (await fetch(`${base}/_control/faults`)).json()) as { held: Array<{ ruleId: number; outcome: string }> }).held.filter((c) => c.ruleId === ruleId).map((c) => c.outcome);

const db = () => stack.database.db;
const sessionsOf = (m: TestMerchant) => db().checkoutSession.findMany({ where: { merchantId: m.id }, include: { events: true } });

/** Builds an app with the checkout routes (from app.ts when registered there, else registered here). */
async function appWith(deps: AppDeps): Promise<FastifyInstance> {
  const built = await buildApp(deps);
  if (!built.hasRoute({ method: 'POST', url: '/api/checkout/create' })) await built.register(checkoutPublicRoutes, resolveDeps(deps));
  await built.ready();
  return built;
}

let shopN = 0;
/** A storefront A shop in the sandbox, installed, and a merchant connected to it (row inserted, token sealed). */
async function shopA(opts: { currency?: string; connected?: boolean; plan?: 'demo' } = {}) {
  const shop = `co-shop-${++shopN}-${process.pid}.myshopify.com`;
  await control(stack.urls.storefrontA, 'shops', { shop, currency: opts.currency ?? 'EUR' });
  const m = await createTestMerchant(db(), stack.app, `Shop A${shopN}`, { plan: opts.plan });
  await seedStorefrontAConnection({ db: db(), secrets, config: stack.config, sim: stack.sims.storefrontA }, m.id, shop, { connected: opts.connected });
  const simShop = stack.sims.storefrontA.state.shops.get(shop)!;
  /** [product index, variant index, quantity] → a cart at the shop. */
  const cart = (lines: Array<[number, number, number]>) =>
    stack.sims.storefrontA.createCart(shop, lines.map(([p, v, quantity]) => ({ variantId: simShop.products[p]!.variants[v]!.id, quantity })));
  return { m, shop, simShop, cart };
}

interface SimBProduct { id: number; name: string; price: string; variations: number[]; variation_prices: Array<{ id: number; title: string; price: number }> }
let storeN = 0;
/** A storefront B store in the sandbox and a merchant connected to it (row inserted, keys sealed). */
async function storeB(opts: { currency?: string; plan?: 'demo' } = {}) {
  const created = (await control(stack.urls.storefrontB, 'stores', { id: `co-store-${++storeN}-${process.pid}`, currency: opts.currency ?? 'EUR' })) as {
    id: string; storeUrl: string; consumerKey: string; consumerSecret: string; products: SimBProduct[];
  };
  const m = await createTestMerchant(db(), stack.app, `Store B${storeN}`, { plan: opts.plan });
  await db().storefrontBConnection.create({
    data: {
      merchantId: m.id,
      storeUrl: created.storeUrl,
      consumerKeyEnc: secrets.encrypt(created.consumerKey, storefrontBAad.consumerKey(m.id)),
      consumerKeyLast4: created.consumerKey.slice(-4),
      consumerSecretEnc: secrets.encrypt(created.consumerSecret, storefrontBAad.consumerSecret(m.id)),
      connectedAt: new Date(),
    },
  });
  await db().merchant.update({ where: { id: m.id }, data: { storePlatform: 'STOREFRONT_B', shopDomain: new URL(created.storeUrl).host } });
  const simple = created.products.find((p) => p.variations.length === 0)!;
  const variable = created.products.find((p) => p.variations.length > 0)!;
  return { m, ...created, simple, variable };
}

async function workflowStatus(token: string): Promise<string | undefined> {
  try {
    return (await stack.temporal.client.workflow.getHandle(WORKFLOWS.checkout.id(token)).describe()).status.name;
  } catch {
    return undefined;
  }
}

beforeAll(async () => {
  stack = await startTestStack();
  secrets = createSecretBox(stack.config.secretsKey!);
  await db().fxRate.createMany({
    data: [
      { currency: 'USD', rate: '1.1', rateDate: new Date(FX_DATE), source: 'test' },
      { currency: 'JPY', rate: '160', rateDate: new Date('2026-11-19'), source: 'test' },
    ],
  });
  if (stack.app.hasRoute({ method: 'POST', url: '/api/checkout/create' })) {
    app = stack.app;
    apiUrl = stack.apiUrl;
  } else {
    app = await appWith({ config: stack.config, db: db(), temporal: { client: stack.temporal.client, connection: stack.temporal.connection }, logger: false, urlGuard: createUrlGuard({ allowedOrigins: Object.values(stack.urls) }) });
    apiUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  }
});
afterAll(async () => {
  if (app && app !== stack?.app) await app.close();
  await stack?.close();
});
beforeEach(async () => {
  await Promise.all([clearFaults(stack.urls.storefrontA), clearFaults(stack.urls.storefrontB)]);
});

describe('POST /api/checkout/create from a storefront A cart', () => {
  it('given a connected shop and a cart / the session holds the store\'s prices, the FX snapshot and a created event; no workflow until the shopper acts', async () => {
    const { m, shop, simShop, cart } = await shopA();
    const cartToken = cart([[0, 0, 2], [3, 2, 1]]);

    const res = await create({ platform: 'storefront-a', shop, cartToken }, { ip: '203.0.113.44' });

    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // The shop's Storefront API saw one read, with the install's private token and the shopper's own IP (not ours).
    const seen = (await (await fetch(`${stack.urls.storefrontA}/_control/shops/${shop}/storefront-requests`)).json()) as { requests: Array<{ kind: string; buyerIp: string | null }> };
    expect(seen.requests.map(({ kind, buyerIp }) => ({ kind, buyerIp }))).toEqual([{ kind: 'private', buyerIp: '203.0.113.44' }]);
    const token = String(res.body.token);
    expect(token).toMatch(/^cs_[A-Za-z0-9_-]{32}$/);
    const merchant = await db().merchant.findUniqueOrThrow({ where: { id: m.id } });
    expect(res.body).toEqual({ token, checkoutUrl: `${checkoutOrigin(merchant.slug, stack.config)}/checkout/${token}` });
    const tote = simShop.products[0]!;
    const tee = simShop.products[3]!;
    const [session] = await sessionsOf(m);
    expect(session).toMatchObject({
      token,
      platform: 'STOREFRONT_A',
      status: 'OPEN',
      source: 'store_cart',
      storeCartRef: cartToken,
      currency: 'EUR',
      subtotalMinor: 2 * tote.variants[0]!.price + tee.variants[2]!.price,
      fxRates: { date: FX_DATE, rates: { USD: '1.1', JPY: '160' } },
      items: [
        { productId: String(tote.id), variantId: String(tote.variants[0]!.id), title: tote.title, variantTitle: null, quantity: 2, unitPrice: tote.variants[0]!.price, imageUrl: expect.stringContaining('.svg') },
        { productId: String(tee.id), variantId: String(tee.variants[2]!.id), title: tee.title, variantTitle: 'L', quantity: 1, unitPrice: tee.variants[2]!.price, imageUrl: expect.any(String) },
      ],
    });
    expect(session!.events.map((e) => e.type)).toEqual(['created']);
    // Create makes no Temporal call: the workflow starts with the first action that needs it (init-payment, COD, an event).
    expect(session!.workflowStartedAt).toBeNull();
    expect(await workflowStatus(token)).toBeUndefined();
  });

  it('given a body that also sends prices or lines / 400 INVALID_INPUT and nothing is created (prices only come from the store)', async () => {
    const { m, shop, cart } = await shopA();
    const cartToken = cart([[0, 0, 1]]);

    const withPrice = await create({ platform: 'storefront-a', shop, cartToken, price: 1 });
    const withItems = await create({ platform: 'storefront-a', shop, cartToken, items: [{ variantId: 1, quantity: 1, price: 1 }] });

    expect(withPrice).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    expect(withItems).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    expect(await sessionsOf(m)).toHaveLength(0);
  });

  it('given the storefront\'s language with the cart (the app embed\'s request.locale) / recorded canonical for the page; a tag that is no locale is refused, nothing created', async () => {
    const { m, shop, cart } = await shopA();
    const german = await create({ platform: 'storefront-a', shop, cartToken: cart([[0, 0, 1]]), locale: 'pt-br' });
    expect(german.status, JSON.stringify(german.body)).toBe(201);
    expect((await db().checkoutSession.findUniqueOrThrow({ where: { token: String(german.body.token) } })).storeLocale).toBe('pt-BR');
    const bad = await create({ platform: 'storefront-a', shop, cartToken: cart([[0, 0, 1]]), locale: 'de"><script>' });
    expect(bad).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    expect(await sessionsOf(m)).toHaveLength(1);
  });

  it('given an unknown shop, a disconnected one or a malformed host / 404, 404, 400', async () => {
    const gone = await shopA({ connected: false });

    const unknown = await create({ platform: 'storefront-a', shop: 'nobody-here.myshopify.com', cartToken: 'abc' });
    const disconnected = await create({ platform: 'storefront-a', shop: gone.shop, cartToken: gone.cart([[0, 0, 1]]) });
    const malformed = await create({ platform: 'storefront-a', shop: 'https://evil.example/', cartToken: 'abc' });

    expect(unknown).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    expect(disconnected).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    expect(malformed).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    expect(await sessionsOf(gone.m)).toHaveLength(0);
  });

  it('given a cart token the store does not know, or an empty cart / 404 NOT_FOUND, 400 INVALID_INPUT', async () => {
    const { m, shop, cart } = await shopA();

    const unknownCart = await create({ platform: 'storefront-a', shop, cartToken: 'deadbeefdeadbeefdeadbeefdeadbeef' });
    const empty = await create({ platform: 'storefront-a', shop, cartToken: cart([]) });

    expect(unknownCart).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    expect(empty).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT', error: 'The cart is empty' } });
    expect(await sessionsOf(m)).toHaveLength(0);
  });

  it('given the store fails, or does not answer / 502 UPSTREAM_ERROR, 504 STORE_TIMEOUT after one read abandoned within the callers\' 5 s, nothing created', async () => {
    const { m, shop, cart } = await shopA();
    const cartToken = cart([[0, 0, 1]]);

    await fault(stack.urls.storefrontA, { mode: 'error', status: 500, match: `/shops/${shop}/api/` });
    const failing = await create({ platform: 'storefront-a', shop, cartToken });
    const hang = (await fault(stack.urls.storefrontA, { mode: 'timeout', match: `/shops/${shop}/api/` })) as { id: number };
    const slow = await create({ platform: 'storefront-a', shop, cartToken });

    expect(failing).toMatchObject({ status: 502, body: { code: 'UPSTREAM_ERROR' } });
    expect(slow).toMatchObject({ status: 504, body: { code: 'STORE_TIMEOUT' } });
    // "Within the callers' 5 s" without a stopwatch: the read's own time-out is under 5 s and it was tried once —
    // the one hung read was abandoned (its connection closed), not retried.
    expect(STORE_READ_TIMEOUT_MS).toBeLessThan(5_000);
    await expect.poll(() => heldBy(stack.urls.storefrontA, hang.id), { timeout: 30_000, interval: 50 }).toEqual(['abandoned']);
    expect(await sessionsOf(m)).toHaveLength(0);
  });

  it('given a cart in a currency without an exchange rate / 422 UNSUPPORTED_CURRENCY', async () => {
    const { m, shop, cart } = await shopA({ currency: 'GBP' });

    const res = await create({ platform: 'storefront-a', shop, cartToken: cart([[0, 0, 1]]) });

    expect(res).toMatchObject({ status: 422, body: { code: 'UNSUPPORTED_CURRENCY', error: expect.stringContaining('GBP') } });
    expect(await sessionsOf(m)).toHaveLength(0);
  });

  it('given a cart in a currency Whop cannot charge in (ISK), with an exchange rate / 422 UNSUPPORTED_CURRENCY naming the processor, nothing created; a Whop currency with a rate is created', async () => {
    // ISK is an ISO 4217 currency with an exchange rate here but not in Whop's Currency enum: a payment page in it would
    // fail at Whop, so the shopper is sent back to the store's own checkout at once.
    await db().fxRate.create({ data: { currency: 'ISK', rate: '150', rateDate: new Date(FX_DATE), source: 'test' } });
    try {
      const { m, shop, cart } = await shopA({ currency: 'ISK' });
      const res = await create({ platform: 'storefront-a', shop, cartToken: cart([[0, 0, 1]]) });
      expect(res).toMatchObject({ status: 422, body: { code: 'UNSUPPORTED_CURRENCY', error: 'The payment processor cannot charge in ISK: checkout is not available in this currency' } });
      expect(await sessionsOf(m)).toHaveLength(0);

      const usd = await shopA({ currency: 'USD' });
      expect((await create({ platform: 'storefront-a', shop: usd.shop, cartToken: usd.cart([[0, 0, 1]]) })).status).toBe(201);
    } finally {
      await db().fxRate.delete({ where: { currency: 'ISK' } });
    }
  });
});

describe('POST /api/checkout/create from a storefront B cart', () => {
  it('given the official plugin intercepts a checkout button / the shopper is redirected to our checkout, prices re-read, the interception recorded', async () => {
    const s = await storeB();
    if (apiUrl !== stack.apiUrl) await control(stack.urls.storefrontB, `stores/${s.id}/plugin`, { serviceUrl: apiUrl });
    const variation = s.variable.variation_prices[1]!;

    const clicked = (await control(stack.urls.storefrontB, `stores/${s.id}/checkout`, {
      items: [{ productId: s.simple.id, quantity: 2 }, { productId: s.variable.id, variationId: variation.id, quantity: 1 }],
    })) as { location: string; interception: { outcome: string; checkoutUrl?: string; error?: string } };

    expect(clicked.interception, JSON.stringify(clicked)).toMatchObject({ outcome: 'redirected' });
    const [session] = await sessionsOf(s.m);
    expect(clicked.location).toBe(`${checkoutOrigin((await db().merchant.findUniqueOrThrow({ where: { id: s.m.id } })).slug, stack.config)}/checkout/${session!.token}`);
    const simplePrice = Math.round(Number(s.simple.price) * 100);
    expect(session).toMatchObject({
      platform: 'STOREFRONT_B',
      status: 'OPEN',
      storeCartRef: null,
      currency: 'EUR',
      subtotalMinor: 2 * simplePrice + variation.price,
      items: [
        { productId: String(s.simple.id), variantId: null, title: s.simple.name, variantTitle: null, quantity: 2, unitPrice: simplePrice, imageUrl: expect.stringContaining('.svg') },
        { productId: String(s.variable.id), variantId: String(variation.id), title: s.variable.name, variantTitle: variation.title, quantity: 1, unitPrice: variation.price, imageUrl: expect.any(String) },
      ],
    });
    expect(session!.workflowStartedAt).toBeNull();
    const connection = await db().storefrontBConnection.findUniqueOrThrow({ where: { merchantId: s.m.id } });
    expect(connection.pluginInterceptedAt).toBeInstanceOf(Date);
  });

  it('given a handoff not signed by the connected key / 401 UNAUTHORIZED and nothing recorded; the first good one records the interception', async () => {
    const s = await storeB();
    const raw = JSON.stringify({ platform: 'storefront-b', storeUrl: s.storeUrl, cart: { items: [{ productId: s.simple.id, quantity: 1 }] }, locale: 'en_US' });
    const ts = Math.floor(Date.now() / 1000);
    const signed = (secret: string, key = s.consumerKey, at = ts) => app.inject({
      method: 'POST', url: '/api/checkout/create', payload: raw, remoteAddress: nextIp(),
      headers: { 'content-type': 'application/json', 'x-hosted-checkout-key': key, 'x-hosted-checkout-timestamp': String(at), 'x-hosted-checkout-signature': signHandoff(secret, at, raw) },
    });
    for (const res of [await signed('cs_someone_else'), await signed(s.consumerSecret, 'ck_other'), await signed(s.consumerSecret, s.consumerKey, ts - 600)]) {
      expect(res.statusCode, res.body).toBe(401);
      expect(res.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    }
    expect(await sessionsOf(s.m)).toHaveLength(0);
    expect((await db().storefrontBConnection.findUniqueOrThrow({ where: { merchantId: s.m.id } })).pluginInterceptedAt).toBeNull();
    const created = await signed(s.consumerSecret);
    expect(created.statusCode).toBe(201);
    expect((await db().storefrontBConnection.findUniqueOrThrow({ where: { merchantId: s.m.id } })).pluginInterceptedAt).toBeInstanceOf(Date);
    // The store's locale (WordPress's en_US) is recorded in its canonical form: the checkout page speaks it first.
    expect((await db().checkoutSession.findUniqueOrThrow({ where: { token: created.json<{ token: string }>().token } })).storeLocale).toBe('en-US');
  });

  it('given a create without the plugin\'s signature / 401 UNAUTHORIZED naming the headers, for a connected store and an unknown one alike; nothing read, created or recorded', async () => {
    const s = await storeB();
    const body = (storeUrl: string) => ({ platform: 'storefront-b', storeUrl, cart: { items: [{ productId: s.simple.id, quantity: 1 }] }, locale: 'en_US' });
    const raw = JSON.stringify(body(s.storeUrl));
    const signed = handoffHeaders(s.consumerKey, s.consumerSecret, raw);
    const { 'x-hosted-checkout-signature': _signature, ...keyAndTimeOnly } = signed;
    await fault(stack.urls.storefrontB, { mode: 'error', status: 503, count: 10, match: `/stores/${s.id}/wp-json` });

    const answers = [
      await create(body(s.storeUrl)),
      await create(body(`${stack.urls.storefrontB}/stores/nobody`)),
      await call('POST', '/api/checkout/create', raw, { headers: keyAndTimeOnly }),
    ];

    for (const res of answers) {
      // 401, not the store's 502: refused before the store is read; an unknown store is not told apart from a known one.
      expect(res).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED', error: expect.stringContaining('x-hosted-checkout-signature') } });
    }
    expect(await sessionsOf(s.m)).toHaveLength(0);
    expect((await db().storefrontBConnection.findUniqueOrThrow({ where: { merchantId: s.m.id } })).pluginInterceptedAt).toBeNull();
    await clearFaults(stack.urls.storefrontB);
  });

  it('given one signed handoff sent 10 times at once (a retrying proxy, a replay) / one session: one 201 and nine 409 HANDOFF_REPLAYED naming it; a new handoff makes a new one', async () => {
    const s = await storeB();
    const raw = JSON.stringify({ platform: 'storefront-b', storeUrl: s.storeUrl, cart: { items: [{ productId: s.simple.id, quantity: 1 }], currency: 'EUR' }, handoffId: randomUUID() });
    const headers = handoffHeaders(s.consumerKey, s.consumerSecret, raw);
    const answers = await Promise.all(Array.from({ length: 10 }, () => call('POST', '/api/checkout/create', raw, { headers })));

    expect(answers.map((a) => a.status).sort()).toEqual([201, ...Array(9).fill(409)]);
    const sessions = await sessionsOf(s.m);
    expect(sessions).toHaveLength(1);
    const made = answers.find((a) => a.status === 201)!.body;
    for (const copy of answers.filter((a) => a.status === 409)) {
      expect(copy.body).toMatchObject({ code: 'HANDOFF_REPLAYED', details: { token: sessions[0]!.token, checkoutUrl: made.checkoutUrl } });
    }
    // Later in the window, the same copy again: still that session, still nothing new.
    expect((await call('POST', '/api/checkout/create', raw, { headers })).body).toMatchObject({ code: 'HANDOFF_REPLAYED', details: { token: sessions[0]!.token } });
    // The shopper's next click is a new handoff (the plugin makes a new handoffId, so another signature): a new checkout.
    const nextRaw = raw.replace(/"handoffId":"[^"]+"/, `"handoffId":"${randomUUID()}"`);
    const next = await call('POST', '/api/checkout/create', nextRaw, { headers: handoffHeaders(s.consumerKey, s.consumerSecret, nextRaw) });
    expect(next.status, JSON.stringify(next.body)).toBe(201);
    expect(await sessionsOf(s.m)).toHaveLength(2);
  });

  it('given two shoppers\' identical carts handed over in the same second by a plugin without handoffId (before 1.2.0) / two checkouts: alike signatures are not taken for copies', async () => {
    const s = await storeB();
    const raw = JSON.stringify({ platform: 'storefront-b', storeUrl: s.storeUrl, cart: { items: [{ productId: s.simple.id, quantity: 1 }], currency: 'EUR' } });
    const headers = handoffHeaders(s.consumerKey, s.consumerSecret, raw);
    const answers = await Promise.all([call('POST', '/api/checkout/create', raw, { headers }), call('POST', '/api/checkout/create', raw, { headers })]);
    expect(answers.map((a) => a.status)).toEqual([201, 201]);
    expect(new Set(answers.map((a) => a.body.token)).size).toBe(2);
  });

  it('given a signed handoff whose create fails (the store is down) / the claim is given back: the same handoff sent again makes the checkout', async () => {
    const s = await storeB();
    const raw = JSON.stringify({ platform: 'storefront-b', storeUrl: s.storeUrl, cart: { items: [{ productId: s.simple.id, quantity: 1 }], currency: 'EUR' }, handoffId: randomUUID() });
    const headers = handoffHeaders(s.consumerKey, s.consumerSecret, raw);
    await fault(stack.urls.storefrontB, { mode: 'error', status: 503, count: 10, match: `/stores/${s.id}/wp-json` });
    expect((await call('POST', '/api/checkout/create', raw, { headers })).status).toBe(502);
    await clearFaults(stack.urls.storefrontB);
    expect((await call('POST', '/api/checkout/create', raw, { headers })).status).toBe(201);
    expect(await sessionsOf(s.m)).toHaveLength(1);
  });

  it('given ids as strings and a shopper-chosen quantity / accepted, every price from the store', async () => {
    const s = await storeB();

    const res = await createB(s, { platform: 'storefront-b', storeUrl: `${s.storeUrl}/`, cart: { items: [{ productId: String(s.simple.id), quantity: 7 }], currency: 'EUR' } });

    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [session] = await sessionsOf(s.m);
    expect(session!.subtotalMinor).toBe(7 * Math.round(Number(s.simple.price) * 100));
  });

  it('given a line carrying a price / 400 INVALID_INPUT, nothing created', async () => {
    const s = await storeB();

    const res = await createB(s, { platform: 'storefront-b', storeUrl: s.storeUrl, cart: { items: [{ productId: s.simple.id, quantity: 1, price: '0.01' }] } });

    expect(res).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    expect(await sessionsOf(s.m)).toHaveLength(0);
  });

  it('given an unknown store, an empty cart, an unknown product, a variable product without its variation / 404, 400, 400, 400', async () => {
    const s = await storeB();
    const body = (items: unknown[], storeUrl = s.storeUrl) => ({ platform: 'storefront-b', storeUrl, cart: { items } });

    const unknownStore = await createB(s, body([{ productId: s.simple.id, quantity: 1 }], `${stack.urls.storefrontB}/stores/nope`));
    const empty = await createB(s, body([]));
    const unknownProduct = await createB(s, body([{ productId: 999999, quantity: 1 }]));
    const noVariation = await createB(s, body([{ productId: s.variable.id, quantity: 1 }]));
    const foreignVariation = await createB(s, body([{ productId: s.variable.id, variationId: s.simple.id, quantity: 1 }]));

    expect(unknownStore).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    // The schema states it (minItems 1), so it is refused before the store is looked up.
    expect(empty).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT', details: { fields: { 'body.cart.items': 'the cart is empty' } } } });
    expect(unknownProduct).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT', error: expect.stringContaining('999999') } });
    expect(noVariation).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT', error: expect.stringContaining('variation') } });
    expect(foreignVariation).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    expect(await sessionsOf(s.m)).toHaveLength(0);
  });

  it('given a simple product and a variation / one store call: the plugin\'s cart-prices route (no wc/v3 read); a failing route is the answer (502), not a reason to read again', async () => {
    const s = await storeB();
    const cart = { platform: 'storefront-b', storeUrl: s.storeUrl, cart: { items: [{ productId: s.simple.id, quantity: 2 }, { productId: s.variable.id, variationId: s.variable.variations[1], quantity: 1 }] } };
    // Every wc/v3 read would fail: create does not make one.
    await fault(stack.urls.storefrontB, { mode: 'error', status: 503, count: 10, match: `/stores/${s.id}/wp-json/wc/v3` });

    const res = await createB(s, cart);

    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [session] = await sessionsOf(s.m);
    const variation = s.variable.variation_prices.find((v) => v.id === s.variable.variations[1])!;
    expect(session!.subtotalMinor).toBe(2 * Math.round(Number(s.simple.price) * 100) + variation.price);

    await clearFaults(stack.urls.storefrontB);
    await fault(stack.urls.storefrontB, { mode: 'error', status: 503, count: 1, match: `/stores/${s.id}/wp-json/wc-hosted-checkout/v1/cart-prices` });
    expect(await createB(s, cart)).toMatchObject({ status: 502, body: { code: 'UPSTREAM_ERROR' } });
    expect(await sessionsOf(s.m)).toHaveLength(1);
  });

  it('given a store whose plugin is older than the cart-prices route (1.3.0) / the wc/v3 reads price the cart alike', async () => {
    const s = await storeB();
    await control(stack.urls.storefrontB, `stores/${s.id}/plugin`, { version: '1.3.0' });
    const cart = { platform: 'storefront-b', storeUrl: s.storeUrl, cart: { items: [{ productId: s.simple.id, quantity: 2 }, { productId: s.variable.id, variationId: s.variable.variations[1], quantity: 1 }] } };

    const res = await createB(s, cart);

    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [session] = await sessionsOf(s.m);
    const variation = s.variable.variation_prices.find((v) => v.id === s.variable.variations[1])!;
    expect(session!.subtotalMinor).toBe(2 * Math.round(Number(s.simple.price) * 100) + variation.price);
    expect(await createB(s, { ...cart, cart: { items: [{ productId: s.variable.id, variationId: 999999, quantity: 1 }] } })).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT', error: expect.stringContaining('999999') } });
  });

  it('given a signed handoff whose body streams past the body limit (chunked, no length declared) / 413 PAYLOAD_TOO_LARGE before the store is looked up, nothing created', async () => {
    const s = await storeB();
    const { Readable } = await import('node:stream');
    const raw = JSON.stringify({ platform: 'storefront-b', storeUrl: s.storeUrl, cart: { items: [{ productId: s.simple.id, quantity: 1 }] }, locale: 'x'.repeat(stack.config.api.bodyLimit) });

    const res = await app.inject({
      method: 'POST', url: '/api/checkout/create', remoteAddress: nextIp(),
      headers: { ...handoffHeaders(s.consumerKey, s.consumerSecret, raw), 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      payload: Readable.from([Buffer.from(raw.slice(0, 1000)), Buffer.from(raw.slice(1000))]),
    });

    expect(res.statusCode).toBe(413);
    expect(res.json().code).toBe('PAYLOAD_TOO_LARGE');
    expect(await sessionsOf(s.m)).toHaveLength(0);
  });

  it('given the store fails / 502 UPSTREAM_ERROR and nothing created', async () => {
    const s = await storeB();
    await fault(stack.urls.storefrontB, { mode: 'error', status: 503, count: 10, match: `/stores/${s.id}/wp-json` });

    const res = await createB(s, { platform: 'storefront-b', storeUrl: s.storeUrl, cart: { items: [{ productId: s.simple.id, quantity: 1 }] } });

    expect(res).toMatchObject({ status: 502, body: { code: 'UPSTREAM_ERROR' } });
    expect(await sessionsOf(s.m)).toHaveLength(0);
  });

  it('given create\'s cache on (CHECKOUT_CACHE_SECONDS) / the next cart of the store reuses the prices just read: a store failing meanwhile is not asked', async () => {
    const s = await storeB();
    const config = { ...stack.config, checkout: { ...stack.config.checkout, cacheMs: 60_000 } };
    const cached = await appWith({ config, db: db(), temporal: { client: stack.temporal.client, connection: stack.temporal.connection }, logger: false, urlGuard: createUrlGuard({ allowedOrigins: Object.values(stack.urls) }) });
    try {
      const cart = { platform: 'storefront-b', storeUrl: s.storeUrl, cart: { items: [{ productId: s.simple.id, quantity: 1 }] } };
      const first = await createB(s, cart, { on: cached });
      await fault(stack.urls.storefrontB, { mode: 'error', status: 503, count: 10, match: `/stores/${s.id}/wp-json` });

      const second = await createB(s, cart, { on: cached });
      const uncached = await createB(s, cart);

      expect([first.status, second.status, uncached.status]).toEqual([201, 201, 502]);
      const sessions = await sessionsOf(s.m);
      expect(sessions).toHaveLength(2);
      expect(sessions.map((x) => x.subtotalMinor)).toEqual([Math.round(Number(s.simple.price) * 100), Math.round(Number(s.simple.price) * 100)]);
    } finally {
      await cached.close();
    }
  });
});

describe('the FX snapshot of a session', () => {
  it('given a USD cart / shipping is quoted in USD with the snapshot, a later rates refresh does not move it, a new session uses the new rate', async () => {
    const { m, shop, simShop, cart } = await shopA({ currency: 'USD' });
    await db().shippingRate.createMany({
      data: [
        { merchantId: m.id, name: 'Express', basePriceCents: 1200, freeThresholdCents: 1_000_000, position: 0 },
        { merchantId: m.id, name: 'Standard', basePriceCents: 500, position: 1 },
        { merchantId: m.id, name: 'Pickup', free: true, basePriceCents: 300, position: 2 },
        { merchantId: m.id, name: 'Over 20 EUR free', basePriceCents: 900, freeThresholdCents: 2000, position: 3 },
      ],
    });
    const first = await create({ platform: 'storefront-a', shop, cartToken: cart([[0, 0, 1]]) });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const quotes = (rates: { USD: string }) => [
      { id: expect.any(String), name: 'Pickup', price: { amount: 0, currency: 'USD' }, free: true, reason: 'free_rate', countries: null, deliveryDays: null },
      // The tote costs 24.90 USD: over 20 EUR × 1.1 = 22.00 USD but under 20 EUR × 2 = 40.00 USD.
      ...(rates.USD === '1.1' ? [{ id: expect.any(String), name: 'Over 20 EUR free', price: { amount: 0, currency: 'USD' }, free: true, reason: 'threshold', countries: null, deliveryDays: null }] : []),
      { id: expect.any(String), name: 'Standard', price: convertFromEur(500, 'USD', rates), free: false, countries: null, deliveryDays: null },
      ...(rates.USD === '1.1' ? [] : [{ id: expect.any(String), name: 'Over 20 EUR free', price: convertFromEur(900, 'USD', rates), free: false, countries: null, deliveryDays: null }]),
      { id: expect.any(String), name: 'Express', price: convertFromEur(1200, 'USD', rates), free: false, countries: null, deliveryDays: null },
    ];
    expect(simShop.products[0]!.variants[0]!.price).toBe(2490);

    const before = await call('GET', `/api/checkout/session-bundle/${String(first.body.token)}`);
    expect(before.status).toBe(200);
    expect(before.body.currency).toBe('USD');
    expect(before.body.shipping).toEqual(quotes({ USD: '1.1' }));
    expect((before.body.shipping as Array<{ price: { amount: number } }>)[2]!.price.amount).toBe(550);

    await db().fxRate.update({ where: { currency: 'USD' }, data: { rate: '2', rateDate: new Date('2026-11-21') } });
    try {
      const after = await call('GET', `/api/checkout/session-bundle/${String(first.body.token)}`);
      expect(after.body.shipping).toEqual(before.body.shipping);

      const second = await create({ platform: 'storefront-a', shop, cartToken: cart([[0, 0, 1]]) });
      const fresh = await call('GET', `/api/checkout/session-bundle/${String(second.body.token)}`);
      expect(fresh.body.shipping).toEqual(quotes({ USD: '2' }));
      const row = await db().checkoutSession.findUniqueOrThrow({ where: { token: String(second.body.token) } });
      expect(row.fxRates).toEqual({ date: '2026-11-21', rates: { USD: '2', JPY: '160' } });
    } finally {
      await db().fxRate.update({ where: { currency: 'USD' }, data: { rate: '1.1', rateDate: new Date(FX_DATE) } });
    }
  });
});

describe('passthrough, workflow start and the dedicated limiter', () => {
  it('given a merchant on Demo (no plan) / create answers { passthrough: true } for both stores and creates nothing', async () => {
    const a = await shopA({ plan: 'demo' });
    const b = await storeB({ plan: 'demo' });

    const resA = await create({ platform: 'storefront-a', shop: a.shop, cartToken: a.cart([[0, 0, 1]]) });
    const resB = await createB(b, { platform: 'storefront-b', storeUrl: b.storeUrl, cart: { items: [{ productId: String(b.simple.id), quantity: 1 }] } });

    expect(resA).toMatchObject({ status: 200, body: { passthrough: true } });
    expect(resB).toMatchObject({ status: 200, body: { passthrough: true } });
    expect(await sessionsOf(a.m)).toHaveLength(0);
    expect(await sessionsOf(b.m)).toHaveLength(0);
    expect(await db().sessionEvent.count({ where: { session: { merchantId: { in: [a.m.id, b.m.id] } } } })).toBe(0);
    // Nothing marks the plugin as having delivered a checkout either.
    expect((await db().storefrontBConnection.findUniqueOrThrow({ where: { merchantId: b.m.id } })).pluginInterceptedAt).toBeNull();
  });

  it('given the plan changes / ACTIVE and PAST_DUE (grace) create sessions, back on DEMO it passes through again', async () => {
    const { m, shop, cart } = await shopA({ plan: 'demo' });
    const createOnce = () => create({ platform: 'storefront-a', shop, cartToken: cart([[0, 0, 1]]) });
    const setPlan = (planId: string, status: string) =>
      db().platformSubscription.upsert({ where: { merchantId: m.id }, create: { merchantId: m.id, planId, status }, update: { planId, status } });

    await setPlan('FREE', 'PENDING'); // a first payment started but not confirmed is still Demo
    expect((await createOnce()).body).toEqual({ passthrough: true });
    await setPlan('STARTER', 'ACTIVE');
    expect((await createOnce()).status).toBe(201);
    await setPlan('STARTER', 'PAST_DUE');
    expect((await createOnce()).status).toBe(201);
    await setPlan('FREE', 'DEMO');
    expect((await createOnce()).body).toEqual({ passthrough: true });
    expect(await sessionsOf(m)).toHaveLength(2);

    const withPlan = await db().merchant.findUniqueOrThrow({ where: { id: m.id }, include: { platformSubscription: true } });
    expect(shouldPassThrough(withPlan)).toBe(true);
    const doc = (await call('GET', '/docs/json')).body as {
      paths: Record<string, Record<string, { responses: Record<string, { content: { 'application/json': { schema: { $ref?: string } } } }> }>>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    expect(doc.paths['/api/checkout/create']!.post!.responses['200']!.content['application/json'].schema.$ref).toBe('#/components/schemas/CheckoutPassthrough');
    expect(doc.components.schemas.CheckoutPassthrough!.properties).toEqual({ passthrough: expect.objectContaining({ const: true }) });
  });

  it('given Temporal is unreachable / create still answers 201 and the page\'s bundle is served: neither calls Temporal', async () => {
    const { m, shop, cart } = await shopA();
    const down = () => Promise.reject(new Error('Temporal is down'));
    const unreachable = { workflow: new Proxy({}, { get: () => down }) } as unknown as Client;
    const broken = await appWith({ config: stack.config, db: db(), temporal: { client: unreachable, connection: stack.temporal.connection }, logger: false, urlGuard: createUrlGuard({ allowedOrigins: Object.values(stack.urls) }) });
    try {
      const res = await create({ platform: 'storefront-a', shop, cartToken: cart([[0, 0, 1]]) }, { on: broken });

      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(await sessionsOf(m)).toHaveLength(1);
      const bundle = await broken.inject({ method: 'GET', url: `/api/checkout/session-bundle/${String(res.body.token)}` });
      expect(bundle.statusCode).toBe(200);
    } finally {
      await broken.close();
    }
  });

  it('given the limit of creates from one address / the next answers 429 RATE_LIMITED, another address is still served', async () => {
    const { max } = stack.config.rateLimits.checkoutCreate;
    const body = { platform: 'storefront-a', shop: 'nobody-here.myshopify.com', cartToken: 'abc' };
    const address = '10.99.0.1';

    const answers = await Promise.all(Array.from({ length: max }, () => create(body, { ip: address })));
    const over = await create(body, { ip: address });
    const other = await create(body, { ip: '10.99.0.2' });

    expect(answers.map((a) => a.status)).toEqual(Array(max).fill(404));
    expect(over).toMatchObject({ status: 429, body: { code: 'RATE_LIMITED' } });
    expect(over.headers['retry-after']).toBeDefined();
    expect(other.status).toBe(404);
  });
});

describe('the read paths', () => {
  it('given a new session / its status answers without personal data, its bundle carries cart, branding, shipping and the shopper\'s entries', async () => {
    const { m, shop, simShop, cart } = await shopA();
    await db().merchant.update({
      where: { id: m.id },
      data: { logoUrl: 'https://cdn.example/logo.svg', primaryColor: '#112233', accentColor: '#001122', codEnabled: true, checkoutTexts: { headline: 'Almost yours' } },
    });
    await db().shippingRate.create({ data: { merchantId: m.id, name: 'Standard', basePriceCents: 495, position: 0 } });
    const created = await create({ platform: 'storefront-a', shop, cartToken: cart([[1, 1, 3]]) });
    const token = String(created.body.token);
    const mug = simShop.products[1]!;
    const address = { name: 'Ada Shopper', line1: 'Main St 1', city: 'Berlin', postalCode: '10115', country: 'DE' };
    await db().checkoutSession.update({ where: { token }, data: { email: 'ada@shopper.test', shippingAddress: address, shippingRateId: 'r1' } });

    const status = await call('GET', `/api/checkout/session/${token}`);
    const bundle = await call('GET', `/api/checkout/session-bundle/${token}`);

    expect(status.status).toBe(200);
    expect(status.body).toEqual({ token, status: 'OPEN', currency: 'EUR', totalMinor: null, paymentUrl: null, storeOrder: null });
    expect(status.headers['cache-control']).toBe('no-store');
    expect(bundle.status).toBe(200);
    expect(bundle.body).toEqual({
      token,
      status: 'OPEN',
      currency: 'EUR',
      preview: false,
      cart: {
        items: [{ productId: String(mug.id), variantId: String(mug.variants[1]!.id), title: mug.title, variantTitle: 'Slate', quantity: 3, unitPrice: 1800, imageUrl: expect.any(String) }],
        subtotal: { amount: 5400, currency: 'EUR' },
      },
      shopName: expect.stringContaining('Shop A'),
      shopUrl: expect.stringMatching(/^https:\/\//),
      branding: { logoUrl: 'https://cdn.example/logo.svg', primaryColor: '#112233', accentColor: '#001122' },
      checkoutTexts: { headline: 'Almost yours' },
      codEnabled: true,
      recoveryOptIn: null,
      shipping: [{ id: expect.any(String), name: 'Standard', price: { amount: 495, currency: 'EUR' }, free: false, countries: null, deliveryDays: null }],
      storeCountries: null,
      pixels: [],
      storePolicies: [],
      shopper: { email: 'ada@shopper.test', address, billingAddress: null, shippingRateId: 'r1', discountCode: null, discountMinor: 0, orderBumpIds: [] },
    });
  });

  it('given a completed session / its status shows the total, payment URL and store order id', async () => {
    const { shop, cart } = await shopA();
    const token = String((await create({ platform: 'storefront-a', shop, cartToken: cart([[0, 0, 1]]) })).body.token);
    await db().checkoutSession.update({ where: { token }, data: { status: 'COMPLETED', totalMinor: 2985, paymentUrl: 'http://pay.example/p/1', storeOrderId: '4711', storeOrderNumber: '#1001' } });

    const res = await call('GET', `/api/checkout/session/${token}`);

    expect(res.body).toEqual({ token, status: 'COMPLETED', currency: 'EUR', totalMinor: 2985, paymentUrl: 'http://pay.example/p/1', storeOrderId: '4711', storeOrder: { state: 'created', id: '4711', number: '#1001' } });
  });

  it('given a preview session / the bundle says preview', async () => {
    const { m } = await shopA();
    const token = `prev_${'p'.repeat(32)}`;
    await db().checkoutSession.create({
      data: { token, merchantId: m.id, platform: 'STOREFRONT_A', source: 'preview', currency: 'EUR', fxRates: { date: FX_DATE, rates: {} }, items: [], subtotalMinor: 0 },
    });

    const res = await call('GET', `/api/checkout/session-bundle/${token}`);

    expect(res).toMatchObject({ status: 200, body: { token, preview: true, cart: { items: [], subtotal: { amount: 0, currency: 'EUR' } } } });
  });

  it('given a session / upsells, pixels and order bumps answer an empty list', async () => {
    const { shop, cart } = await shopA();
    const token = String((await create({ platform: 'storefront-a', shop, cartToken: cart([[0, 0, 1]]) })).body.token);

    for (const path of ['upsells', 'pixels', 'order-bumps']) {
      expect(await call('GET', `/api/checkout/${token}/${path}`)).toMatchObject({ status: 200, body: { items: [] } });
    }
  });

  it('given an unknown or malformed token / every read path answers 404 NOT_FOUND', async () => {
    const unknown = `cs_${'A'.repeat(32)}`;
    for (const token of [unknown, 'abc', `cs_${'A'.repeat(31)}!`, `${unknown}x`]) {
      for (const url of [`/api/checkout/session/${encodeURIComponent(token)}`, `/api/checkout/session-bundle/${encodeURIComponent(token)}`, ...['upsells', 'pixels', 'order-bumps'].map((p) => `/api/checkout/${encodeURIComponent(token)}/${p}`)]) {
        expect(await call('GET', url), url).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
      }
    }
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await call('GET', '/docs/json')).body as { paths: Record<string, Record<string, { tags?: string[] }>> };

    for (const [path, method] of [
      ['/api/checkout/create', 'post'],
      ['/api/checkout/session/{token}', 'get'],
      ['/api/checkout/session-bundle/{token}', 'get'],
      ['/api/checkout/{token}/upsells', 'get'],
      ['/api/checkout/{token}/pixels', 'get'],
      ['/api/checkout/{token}/order-bumps', 'get'],
    ] as const) {
      expect(doc.paths[path]?.[method]?.tags, `${method} ${path}`).toEqual(['checkout']);
    }
  });
});
