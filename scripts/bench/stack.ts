// What the checkout benchmarks run against, started once on first use and closed by scripts/bench.ts at the
// end: a throwaway embedded PostgreSQL server (as the test harness runs it), migrated;
// a Temporal dev server (the real server, in memory); the whole service as the end-to-end tests run it
// (scripts/lib/stack/service-stack.ts: every simulator on a loopback port, the API listening, a worker with every
// activity), with the rate limiters raised so they never answer 429 during a run; FX rates seeded as
// `npm start` does; and one merchant who connected the processor and a storefront B store through the API.
//
// Topology, as `npm start`: the API, the worker and the simulators share this process (one event loop), and
// so do the benchmarks' load clients (scripts/bench/load.ts); PostgreSQL and Temporal run in processes of
// their own.
import pg from 'pg';
import { CHECKOUT_CACHE_SECONDS_DEFAULT } from '../../config/index.js';
import { bundleWorkflows } from '../../worker/bundle.js';
import { seedFxRatesIfEmpty } from '../../activities/fx/fx-rates.js';
import { migrate } from '../../prisma/migrate.js';
import { DEMO_STORE, type Store } from '../../sandbox/storefront-b/state.js';
import { handoffHeaders } from '../../integrations/storefront-b/handoff.js';
import { startPostgres, type PostgresCluster } from '../lib/stack/postgres.js';
import { startServiceStack, type ServiceStack } from '../lib/stack/service-stack.js';
import { givePaidPlan } from '../lib/stack/billing.js';
import { startTemporalDevServer, type TemporalDevServer } from '../lib/temporal-dev-server.js';

export interface BenchMerchant {
  id: string;
  /** Session (JWT) of the merchant. */
  token: string;
  email: string;
  /** The storefront B store URL as connected (what the plugin sends to create). */
  storeUrl: string;
}

export interface BenchStack {
  service: ServiceStack;
  merchant: BenchMerchant;
  /** The service's database (for the bare baselines' own pools). */
  databaseUrl: string;
}

/**
 * Rate limits high enough that no benchmark run gets near them (the limits are per client IP, and every client
 * is 127.0.0.1); create's cache at its production default (the test harness turns it off).
 */
const BENCH_ENV = {
  RATE_LIMIT_CHECKOUT_CREATE: '100000000/60',
  RATE_LIMIT_INIT_PAYMENT: '100000000/60',
  RATE_LIMIT_REGISTER: '100000000/60',
  CHECKOUT_CACHE_SECONDS: String(CHECKOUT_CACHE_SECONDS_DEFAULT),
};

// Everything a benchmark starts outside this process (PostgreSQL runs detached, the Temporal dev server and
// Chromium are child processes) is registered here, so that scripts/bench.ts stops it at the end of the run
// and also when the run dies early (an uncaught error, Ctrl-C).
const cleanups: Array<() => Promise<void>> = [];
let started: Promise<BenchStack> | undefined;

/** Registers `stop` to run at the end of the run or when it dies; returns it wrapped to run once (call it when done). */
export function atBenchExit(stop: () => Promise<unknown>): () => Promise<void> {
  let done: Promise<void> | undefined;
  const once = () => (done ??= stop().then(() => undefined, () => undefined));
  cleanups.push(once);
  return once;
}

/** The shared environment; the first call starts it (about 10–20 s). */
export function benchStack(): Promise<BenchStack> {
  started ??= start();
  return started;
}

/** Stops everything registered with atBenchExit (and so the shared environment), newest first. */
export async function closeBenchStack(): Promise<void> {
  if (started) await started.catch(() => undefined);
  while (cleanups.length) await cleanups.pop()!();
  started = undefined;
}

async function start(): Promise<BenchStack> {
  const t0 = Date.now();
  const [postgres, temporal, bundle] = await Promise.all([
    startPostgres().then((p: PostgresCluster) => (atBenchExit(p.stop), p)),
    startTemporalDevServer().then((t: TemporalDevServer) => (atBenchExit(t.stop), t)),
    bundleWorkflows(),
  ]);
  const admin = new pg.Client({ connectionString: postgres.url() });
  await admin.connect();
  await admin.query('CREATE DATABASE checkout_bench');
  await admin.end();
  const databaseUrl = postgres.url('checkout_bench');
  await migrate(databaseUrl);

  const service = await startServiceStack({ databaseUrl, temporalAddress: temporal.address, workflowBundle: () => ({ code: bundle.code }), env: BENCH_ENV });
  atBenchExit(() => service.close());
  await seedFxRatesIfEmpty(service.db);
  // The bare baselines' one-row inserts go to a table of the service's own database.
  await service.db.$executeRawUnsafe('CREATE TABLE bench_rows (id bigserial PRIMARY KEY, ref text NOT NULL, payload jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())');
  await service.db.$executeRawUnsafe('CREATE INDEX bench_rows_ref ON bench_rows (ref)');
  const merchant = await createMerchant(service);
  console.log(`  [stack] postgres :${postgres.port}, temporal ${temporal.address}, API ${service.apiUrl}: ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return { service, merchant, databaseUrl };
}

type Json = Record<string, unknown>;

/** Calls the API through inject (set-up only, never measured). */
export async function api(service: ServiceStack, method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown, token?: string): Promise<Json> {
  const res = await service.app.inject({ method, url, payload: body as Json | undefined, headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (res.statusCode >= 300) throw new Error(`${method} ${url} answered ${res.statusCode}: ${res.body}`);
  return res.json();
}

/** A session created as the store's plugin creates it (set-up only, never measured): answers the token. */
export async function createSession(service: ServiceStack, cart: PluginCart): Promise<string> {
  const res = await service.app.inject({ method: 'POST', url: '/api/checkout/create', payload: cart.body, headers: cart.headers() });
  if (res.statusCode >= 300) throw new Error(`POST /api/checkout/create answered ${res.statusCode}: ${res.body}`);
  return (res.json() as { token: string }).token;
}

/** A merchant as the end-to-end test makes one: registered, processor connected, two shipping rates, the storefront B demo store. */
async function createMerchant(service: ServiceStack): Promise<BenchMerchant> {
  const email = `bench-${Date.now()}@shop.test`;
  const reg = await api(service, 'POST', '/api/auth/register', { email, password: 'correct horse battery 9', shopName: 'Bench Store', phone: '+49 30 1234567' });
  const token = reg.token as string;
  const id = (reg.merchant as Json).id as string;
  await api(service, 'POST', '/api/merchant/processor/connect', { apiKey: 'apik_sandbox_demo' }, token);
  await api(service, 'PATCH', '/api/merchant/config', { shippingRates: [{ name: 'Express', basePriceCents: 1290 }, { name: 'Standard', basePriceCents: 490 }] }, token);
  const storeUrl = `${service.urls.storefrontB}/stores/demo`;
  await api(service, 'POST', '/api/merchant/storefront-b/connect', { storeUrl, consumerKey: DEMO_STORE.consumerKey, consumerSecret: DEMO_STORE.consumerSecret }, token);
  // A paid plan, as a merchant who went through billing has: a Demo merchant's checkouts pass through.
  await givePaidPlan(service.db, id);
  return { id, token, email, storeUrl };
}

/** A create request as the store's plugin sends it: the body, and its signature headers made fresh per request (the
 * service accepts a timestamp within 5 minutes, and benches run longer). */
export interface PluginCart {
  body: string;
  headers(): Record<string, string>;
}

/** A storefront B cart as the plugin hands it over: a simple product and a variation of a variable one. */
export function demoCart(service: ServiceStack, storeUrl: string): PluginCart {
  return demoCartOf(service.sims.storefrontB.stores.get('demo')!, storeUrl);
}

/** The same cart from a store's catalogue (the seeded demo store has the same ids and keys in every simulator). */
export function demoCartOf(store: Store, storeUrl: string): PluginCart {
  const simple = store.products.find((p) => p.variations.length === 0)!;
  const variable = store.products.find((p) => p.variations.length > 0)!;
  const body = JSON.stringify({
    platform: 'storefront-b',
    storeUrl,
    cart: { items: [{ productId: simple.id, quantity: 2 }, { productId: variable.id, variationId: variable.variations[0]!.id, quantity: 1 }] },
  });
  return { body, headers: () => handoffHeaders(DEMO_STORE.consumerKey, DEMO_STORE.consumerSecret, body) };
}
