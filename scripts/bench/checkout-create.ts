// Checkout create: requests/s and p99 of POST /api/checkout/create with a storefront B cart, the whole real
// path (the one-statement store lookup with the merchant's plan, custom domain and FX rates; the prices from the
// store simulator in one call to the plugin's cart-prices route; the one-statement insert of the session and its event; no Temporal call: the
// workflow starts with the shopper's first action), against a bare Fastify route in the same process that does
// one INSERT (the same JSON body, as jsonb) into a table of the same database through the same Prisma client.
// Both over real loopback HTTP, same clients, same duration, in alternating slices. Targets (issue 32): ratio
// ≥ 0.8 with the cache, ≥ 0.3 without (docs/operations.md "What it costs" has the figures and what is left).
//
// The service runs with create's cache at its production default (CHECKOUT_CACHE_SECONDS): the store lookup
// and store prices are reused for 15 s, so with one cart most creates read neither the store nor those tables.
// The same create with the cache off (every create makes the lookup and reads the store: the products, the
// variations and the currency, in one call) is measured against the same baseline too, and printed as `noCache…`;
// and against a second bare route that makes the same store call before its INSERT (the plugin's cart-prices
// route on the simulator, OAuth-signed as over plain HTTP), printed as `noCacheStoreCall…`: the simulator answers
// in this process, so its half of the exchange is counted here, where a real store's is not.
import Fastify from 'fastify';
import { randomBytes } from 'node:crypto';
import { buildApp } from '../../api/app.js';
import { createUrlGuard } from '../../security/ssrf.js';
import { oauthFetch, PLUGIN_NAMESPACE, WP_JSON } from '../../integrations/storefront-b/client.js';
import { DEMO_STORE } from '../../sandbox/storefront-b/state.js';
import { benchStack, demoCart } from './stack.js';
import { compareLoad, measureLoad } from './load.js';

export async function benchCheckoutCreate(opts: { concurrency?: number; durationMs?: number; maxRequests?: number } = {}): Promise<Record<string, number>> {
  const concurrency = opts.concurrency ?? 8;
  const durationMs = opts.durationMs ?? 5_000;
  const maxRequests = opts.maxRequests ?? 20_000;
  const { service, merchant } = await benchStack();
  const { db } = service;

  const bare = Fastify({ logger: false });
  bare.post('/bare/insert', async (request, reply) => {
    const ref = randomBytes(24).toString('base64url');
    await db.$executeRaw`INSERT INTO bench_rows (ref, payload) VALUES (${ref}, ${JSON.stringify(request.body)}::jsonb)`;
    return reply.code(201).send({ token: ref });
  });
  // The bare cold path: the store's cart read (one signed GET, the answer parsed), then the same INSERT.
  const cart = demoCart(service, merchant.storeUrl);
  const storeFetch = oauthFetch(fetch, DEMO_STORE.consumerKey, DEMO_STORE.consumerSecret);
  const cartPricesUrl = `${merchant.storeUrl}${WP_JSON}/${PLUGIN_NAMESPACE}/cart-prices?${cartPricesQuery(cart.body)}`;
  bare.post('/bare/store-call-insert', async (request, reply) => {
    const res = await storeFetch(cartPricesUrl);
    const prices = (await res.json()) as { products?: unknown[] };
    if (!res.ok || !Array.isArray(prices.products)) throw new Error(`the store's cart-prices route answered ${res.status}`);
    const ref = randomBytes(24).toString('base64url');
    await db.$executeRaw`INSERT INTO bench_rows (ref, payload) VALUES (${ref}, ${JSON.stringify(request.body)}::jsonb)`;
    return reply.code(201).send({ token: ref });
  });
  const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });
  const sessionsBefore = await db.checkoutSession.count();
  try {
    // Signed as the plugin signs it; the bare baseline gets the same bytes and headers (and ignores them).
    const body = cart.body;
    const { target, baseline } = await compareLoad(
      { name: 'create', method: 'POST', url: () => `${service.apiUrl}/api/checkout/create`, body: () => body, headers: () => cart.headers(), expectStatus: 201 },
      { name: 'bare insert', method: 'POST', url: () => `${bareUrl}/bare/insert`, body: () => body, headers: () => cart.headers(), expectStatus: 201 },
      { concurrency, durationMs, maxRequests },
    );
    // The same route on a second app whose cache is off (same database, Temporal and simulators).
    const noCacheApp = await buildApp({
      config: { ...service.config, checkout: { ...service.config.checkout, cacheMs: 0 } },
      db,
      temporal: { client: service.temporal.client, connection: service.temporal.connection },
      logger: false,
      urlGuard: createUrlGuard({ allowedOrigins: Object.values(service.urls) }),
    });
    const noCacheUrl = await noCacheApp.listen({ port: 0, host: '127.0.0.1' });
    const [coldCreate, coldBare, coldStoreCall] = await measureLoad(
      [
        { name: 'create, no cache', method: 'POST', url: () => `${noCacheUrl}/api/checkout/create`, body: () => body, headers: () => cart.headers(), expectStatus: 201 },
        { name: 'bare insert', method: 'POST', url: () => `${bareUrl}/bare/insert`, body: () => body, headers: () => cart.headers(), expectStatus: 201 },
        { name: 'bare store call + insert', method: 'POST', url: () => `${bareUrl}/bare/store-call-insert`, body: () => body, headers: () => cart.headers(), expectStatus: 201 },
      ],
      { concurrency, durationMs: (durationMs * 3) / 4, maxRequests },
    ).finally(() => noCacheApp.close());
    const cold = { target: coldCreate!, baseline: coldBare!, storeCall: coldStoreCall! };
    const created = (await db.checkoutSession.count()) - sessionsBefore;
    return {
      concurrency,
      createRequests: target.requests,
      sessionsInclWarmup: created,
      createRps: target.rps,
      createP50Ms: target.p50Ms,
      createP99Ms: target.p99Ms,
      bareInsertRequests: baseline.requests,
      bareInsertRps: baseline.rps,
      bareInsertP50Ms: baseline.p50Ms,
      bareInsertP99Ms: baseline.p99Ms,
      ratio: target.rps / baseline.rps,
      noCacheCreateRps: cold.target.rps,
      noCacheCreateP99Ms: cold.target.p99Ms,
      noCacheBareInsertRps: cold.baseline.rps,
      noCacheRatio: cold.target.rps / cold.baseline.rps,
      noCacheStoreCallBareRps: cold.storeCall.rps,
      noCacheStoreCallBareP99Ms: cold.storeCall.p99Ms,
      noCacheStoreCallRatio: cold.target.rps / cold.storeCall.rps,
    };
  } finally {
    await bare.close();
  }
}

/** The cart-prices query the service's client sends for the cart `body` (every product, and product:variation pairs). */
function cartPricesQuery(body: string): string {
  const { cart } = JSON.parse(body) as { cart: { items: Array<{ productId: string; variationId?: string }> } };
  const products = [...new Set(cart.items.map((i) => i.productId))];
  const variations = cart.items.filter((i) => i.variationId).map((i) => `${i.productId}:${i.variationId}`);
  return new URLSearchParams({ products: products.join(','), variations: variations.join(',') }).toString();
}
