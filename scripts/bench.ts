// `npm run bench [-- <name> ...]`: every benchmark of the service, each printing its figures and a ratio
// against the baseline it names. Timings belong here, not in tests (shared machines are noisy).
import { benchLoginTiming } from './bench/login-timing.js';
import { benchCheckoutCreate } from './bench/checkout-create.js';
import { benchSessionBundle } from './bench/session-bundle.js';
import { benchWebhookOrder } from './bench/webhook-order.js';
import { benchStats } from './bench/stats.js';
import { benchFlashSale } from './bench/flash-sale.js';
import { benchWeb } from './bench/web.js';
import { closeBenchStack } from './bench/stack.js';

// A number among the arguments is the stats benchmark's size: `npm run bench -- stats 1000000` (default 100k).
const args = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const sizes = args.filter((a) => /^\d[\d_]*$/.test(a)).map((a) => Number(a.replaceAll('_', '')));
const statsSessions = sizes[0] ?? 100_000;

const BENCHES: Record<string, { describe: string; run: () => Promise<Record<string, number>> }> = {
  'login-timing': {
    describe: 'login with an unknown email vs a wrong password: medians and their ratio (target 0.8–1.2)',
    run: () => benchLoginTiming(),
  },
  // The three below share one environment (scripts/bench/stack.ts: PostgreSQL, Temporal dev server, the
  // service with its simulators), started by the first of them and stopped after the last.
  'checkout-create': {
    describe: 'POST /api/checkout/create (storefront B cart; the store lookup with plan and FX rates, and the store prices, reused for CHECKOUT_CACHE_SECONDS) vs a bare Fastify route doing one INSERT; real HTTP, 8 clients, 5 s each: req/s, p99, ratio of req/s (target ≥ 0.8); then the same with the cache off (noCache…, target ≥ 0.3), also against a bare route making the same store call before its INSERT (noCacheStoreCall…: what the store exchange alone leaves)',
    run: () => benchCheckoutCreate(),
  },
  'session-bundle': {
    describe: 'GET /api/checkout/session-bundle/:token of the whole app vs a bare Fastify route (no plugins) reading the session row by its primary key over a raw pg pool; same run, real HTTP, 8 clients, 8 s each in 16 rotated slices: req/s, p50, p99, ratio of req/s (target ≥ 0.9, issue 32); for context the bundle\'s bytes from memory and the same pk read through Prisma',
    run: () => benchSessionBundle(),
  },
  web: {
    describe: 'the checkout page: JS loaded by /checkout/{token} (gzip, from the build and over HTTP) vs the 50 KB budget (ratio ≤ 1), and Lighthouse mobile performance and accessibility scores for a real session page (targets ≥ 95)',
    run: () => benchWeb(),
  },
  'webhook-order': {
    describe: 'Whop\'s payment.succeeded delivery (Standard Webhooks, signed with standardwebhooks) POSTed → order visible in the sandbox store, vs a bare signal-with-start of a one-activity workflow → its row inserted; 20 each, interleaved: p50/p99, ratio of p50 (target ≤ 1.15)',
    run: () => benchWebhookOrder(),
  },
  'flash-sale': {
    describe: 'N shoppers (FLASH_SALE_SHOPPERS, default 1000; FLASH_SALE_CONCURRENCY, a list, default 20,50: one sale per value; arrivals for FLASH_SALE_SECONDS 120) through create, bundle, init-payment, the processor page shown and the card posted over HTTP, then webhook → store order → 2 emails; against the npm start topology (start.c<N>.*) and the cluster (cluster.c<N>.*: nginx, 2 API replicas, 2 workers, the real Temporal server on PostgreSQL): completed checkouts/s, p50/p99 per step, Pay → processor page and webhook → order, the background work left when the last shopper is through and its drain time, ratio of checkouts/s vs a bare workflow with as many one-row activities on the same Temporal server (targets: ratio ≥ 0.7, payToProcessorPageP99Ms ≤ 1500, webhookToOrderP99Ms ≤ 2000, createP99Ms ≤ 300, 0 lost, 0 duplicate orders or emails)',
    run: () => benchFlashSale(),
  },
  // Its own PostgreSQL (100k sessions would skew the shared stack's benchmarks) and no Temporal.
  stats: {
    describe: `GET /api/merchant/stats and /stats/funnel for a merchant with ${statsSessions.toLocaleString('en')} sessions (size: a number argument, e.g. \`npm run bench -- stats 1000000\`; + the orders list's first page) from the daily rollups vs a bare route doing one primary-key read; real HTTP, one at a time, interleaved: p50/p99, ratio of p50 (target at 1M: year and funnel p50 < 100 ms, p99 < 250 ms); rollupEqualsRaw 1 when the rollups answer what the sessions alone answer`,
    run: () => benchStats({ sessions: statsSessions }),
  },
};

const wanted = args.filter((a) => !/^\d[\d_]*$/.test(a));
const unknown = wanted.filter((w) => !(w in BENCHES));
if (unknown.length) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; available: ${Object.keys(BENCHES).join(', ')}`);
  process.exit(2);
}
// A run that dies (an error thrown from a timer, a rejection nobody awaited, Ctrl-C) still stops the
// PostgreSQL clusters, Temporal dev server and browsers it started; otherwise they would outlive it.
let dying = false;
function die(code: number, err?: unknown): void {
  if (err !== undefined) console.error(err);
  if (dying) return;
  dying = true;
  void closeBenchStack().finally(() => process.exit(code));
}
process.on('uncaughtException', (err) => die(1, err));
process.on('unhandledRejection', (err) => die(1, err));
process.once('SIGINT', () => die(130));
process.once('SIGTERM', () => die(143));

try {
  for (const [name, bench] of Object.entries(BENCHES)) {
    if (wanted.length && !wanted.includes(name)) continue;
    console.log(`\n## ${name}: ${bench.describe}`);
    const started = Date.now();
    const figures = await bench.run();
    for (const [k, v] of Object.entries(figures)) console.log(`  ${k.padEnd(24)} ${Number.isInteger(v) ? v : v.toFixed(3)}`);
    console.log(`  (${((Date.now() - started) / 1000).toFixed(1)}s)`);
  }
} finally {
  await closeBenchStack();
}
