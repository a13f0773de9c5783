// Flash sale: N shoppers (default 1,000, FLASH_SALE_SHOPPERS), C at a time (FLASH_SALE_CONCURRENCY: a list,
// default 20,50: one sale per value), each through the whole card checkout over HTTP (scripts/bench/shopper.ts:
// create, bundle, init-payment, the processor's page shown, the card posted on it), then the processor's webhook, the order on the simulated store
// and the two emails (confirmation to the shopper, notification to the merchant), observed in the
// simulators (scripts/cluster/observer.ts). New shoppers stop arriving after FLASH_SALE_SECONDS (default
// 120); paid sessions then get up to 60 s to complete. Run against the `npm start` topology (one process:
// API + worker + simulators, Temporal dev server) and the cluster (scripts/cluster/cluster.ts: nginx, 2 API
// replicas, 2 workers, the real Temporal server on PostgreSQL); FLASH_SALE_TOPOLOGY=start|cluster runs one.
//
// Figures: completed checkouts/s (paid sessions with their order and both emails, over the time from the
// first shopper to the last completion), p50/p99 of each shopper step, of Pay → the processor's page shown
// (init-payment + the page's GET: what a shopper waits on after clicking Pay) and of webhook → order (first
// webhook delivery attempt → store order created, both on the simulators' clock), the background work left
// when the last shopper is through (orders and emails not done yet, activity tasks queued at Temporal) and how
// long it took to drain, and the ratio of
// checkouts/s against a bare workflow running the same number of activities (counted in a completed
// checkout's history, local ones included), each writing one row, started as many times at the same concurrency on the same
// Temporal server in the same run. Targets (issue 32): ratio ≥ 0.7, Pay → processor page p99 ≤ 1.5 s,
// webhook → order p99 ≤ 2 s, create p99 ≤ 300 ms, 0 lost, 0 duplicate orders, 0 duplicate emails.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { serviceTaskQueues } from '../../domain/temporal/task-queues.js';
import { createStorefrontBSimulator } from '../../sandbox/storefront-b/simulator.js';
import { DEMO_STORE } from '../../sandbox/storefront-b/state.js';
import { createDb } from '../../prisma/client.js';
import { givePaidPlan } from '../lib/stack/billing.js';
import { quietRuntime } from '../lib/stack/service-stack.js';
import { observeSandbox, type SandboxReport, type SessionObservation } from '../cluster/observer.js';
import { startCluster, type Cluster } from '../cluster/cluster.js';
import { atBenchExit, benchStack, demoCart, demoCartOf, type PluginCart } from './stack.js';
import { percentile } from './load.js';
import { runShopper, type ShopperOptions, type ShopperResult, type Step } from './shopper.js';
import type { BareActivities } from './activities-workflow.js';
import { BENCH_WORKFLOWS, WORKFLOWS } from '../../domain/temporal/workflow-names.js';

const BARE_WORKFLOW = fileURLToPath(new URL('./activities-workflow.ts', import.meta.url));
const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error };

/** The emails every completed card checkout sends, once each. */
export const CHECKOUT_EMAILS = ['order_confirmation', 'merchant_order_notification'] as const;

export interface FlashSaleTarget {
  name: string;
  apiUrl: string;
  cart: PluginCart;
  observe(): Promise<SandboxReport>;
  temporal: { client: Client; nativeConnection: NativeConnection; namespace: string };
  /** The application database (the bare baseline writes its rows there). */
  databaseUrl: string;
  /** The service's task queues, whose activity backlog is read when the last shopper is through. */
  taskQueues: string[];
}

export interface FlashSaleOptions extends ShopperOptions {
  shoppers: number;
  concurrency: number;
  /** No new shopper starts after this long. */
  arrivalMs: number;
  /** How long paid sessions may take to complete once the last shopper paid. */
  settleMs: number;
  log?: (line: string) => void;
  /** Called with the number of shoppers through so far, after each one. */
  onShopperDone?: (done: number) => void;
  /** Awaited after the last shopper, before settling (the drill's chaos finishes there). */
  beforeSettle?: () => Promise<unknown>;
}

/** What the simulators say about every paid session: the exactly-once accounting of the sale. */
export interface SaleAccount {
  paid: number;
  completed: number;
  /** Paid, and no store order. */
  lost: number;
  /** Paid with an order, but an email missing. */
  missingEmails: number;
  duplicateOrders: number;
  duplicateEmails: number;
  /** Dropped webhooks (the processor's fault control) and deliveries in all. */
  droppedWebhooks: number;
  webhookDeliveries: number;
}

const isComplete = (s: SessionObservation) => s.orders >= 1 && CHECKOUT_EMAILS.every((k) => (s.emails[k] ?? 0) >= 1);

export function accountSale(report: SandboxReport): SaleAccount {
  const paid = report.sessions.filter((s) => s.paid);
  return {
    paid: paid.length,
    completed: paid.filter(isComplete).length,
    lost: paid.filter((s) => s.orders === 0).length,
    missingEmails: paid.filter((s) => s.orders >= 1 && !isComplete(s)).length,
    duplicateOrders: report.sessions.filter((s) => s.orders > 1).length,
    duplicateEmails: report.sessions.filter((s) => Object.values(s.emails).some((n) => n > 1)).length,
    droppedWebhooks: paid.filter((s) => s.dropped).length,
    webhookDeliveries: paid.reduce((n, s) => n + s.webhookDeliveries, 0),
  };
}

/** What was still to do when the last shopper was through the processor's page. */
export interface SaleBacklog {
  /** Paid sessions with no store order yet. */
  ordersPending: number;
  /** Paid sessions with their order whose confirmation or merchant email is not sent yet. */
  emailsPending: number;
  /** Activity tasks waiting in the service's task queues (Temporal's approximate backlog count; NaN where the server does not report it). */
  activityTasksQueued: number;
}

export interface FlashSaleOutcome {
  results: ShopperResult[];
  /** At the end of arrivals. */
  backlog: SaleBacklog;
  /** From the last shopper through to every paid session complete. */
  drainSeconds: number;
  report: SandboxReport;
  account: SaleAccount;
  /** From the first shopper's start to the first observation of every paid session complete (polled every 250 ms), or the settle deadline. */
  seconds: number;
  checkoutsPerSecond: number;
}

/** Waits until every paid session has its order and emails (or the deadline); answers the last report and when it was taken. */
async function settle(target: FlashSaleTarget, deadline: number): Promise<{ report: SandboxReport; at: number }> {
  for (;;) {
    const report = await target.observe();
    if (report.sessions.filter((s) => s.paid).every(isComplete) || Date.now() > deadline) return { report, at: report.at };
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The sale itself: shoppers C at a time until N or the arrival window closes, then settling. */
export async function runFlashSale(target: FlashSaleTarget, opts: FlashSaleOptions): Promise<FlashSaleOutcome> {
  const started = Date.now();
  const stopArrivals = started + opts.arrivalMs;
  const results: ShopperResult[] = [];
  // Only this sale's sessions count (the simulators may hold an earlier sale's).
  const own = { ...target, observe: async (): Promise<SandboxReport> => {
    const tokens = new Set(results.flatMap((r) => (r.token ? [r.token] : [])));
    const report = await target.observe();
    return { ...report, sessions: report.sessions.filter((s) => tokens.has(s.token)) };
  } };
  let next = 0;
  const lanes = Array.from({ length: Math.min(opts.concurrency, opts.shoppers) }, async () => {
    while (next < opts.shoppers && Date.now() < stopArrivals) {
      const index = next++;
      results.push(await runShopper(target, index, opts));
      opts.onShopperDone?.(results.length);
      if (results.length % 100 === 0) opts.log?.(`  [${target.name}] ${results.length} shoppers through the card page (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    }
  });
  await Promise.all(lanes);
  const arrivalsEnded = Date.now();
  const backlog = await saleBacklog(own);
  await opts.beforeSettle?.();
  const { report, at } = await settle(own, Date.now() + opts.settleMs);
  const account = accountSale(report);
  const seconds = (at - started) / 1000;
  return { results, backlog, drainSeconds: (at - arrivalsEnded) / 1000, report, account, seconds, checkoutsPerSecond: account.completed / seconds };
}

/** The background work left when the last shopper is through: from the simulators, and from Temporal's task queues. */
async function saleBacklog(target: FlashSaleTarget): Promise<SaleBacklog> {
  const paid = (await target.observe()).sessions.filter((s) => s.paid);
  let activityTasksQueued = 0;
  for (const name of target.taskQueues) {
    try {
      const described = await target.temporal.client.workflowService.describeTaskQueue({
        namespace: target.temporal.namespace,
        taskQueue: { name },
        taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
        reportStats: true,
      });
      activityTasksQueued += Number(described.stats?.approximateBacklogCount ?? NaN);
    } catch {
      activityTasksQueued = NaN;
    }
  }
  return {
    ordersPending: paid.filter((s) => s.orders === 0).length,
    emailsPending: paid.filter((s) => s.orders >= 1 && !isComplete(s)).length,
    activityTasksQueued,
  };
}

/** How many activities one completed checkout ran: its history's ActivityTaskScheduled events and local activity markers. */
async function activitiesPerCheckout(target: FlashSaleTarget, token: string): Promise<{ activities: number; local: number }> {
  const history = await target.temporal.client.workflow.getHandle(WORKFLOWS.checkout.id(token)).fetchHistory();
  const events = history.events ?? [];
  const local = events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length;
  return { activities: events.filter((e) => e.activityTaskScheduledEventAttributes).length + local, local };
}

/** The bare baseline: `count` workflows of `activities` one-row activities, C at a time; workflows/s. */
async function runBare(target: FlashSaleTarget, opts: { count: number; concurrency: number; activities: number }): Promise<number> {
  const db = new pg.Pool({ connectionString: target.databaseUrl, max: 10 });
  await db.query('CREATE TABLE IF NOT EXISTS bench_bare_rows (id bigserial PRIMARY KEY, ref text NOT NULL, step int NOT NULL, created_at timestamptz NOT NULL DEFAULT now())');
  const taskQueue = `bench-bare-${randomBytes(4).toString('hex')}`;
  const { code } = await bundleWorkflowCode({ workflowsPath: BARE_WORKFLOW, logger: quiet });
  const activities: BareActivities = {
    async writeBareRow(ref, step) {
      await db.query('INSERT INTO bench_bare_rows (ref, step) VALUES ($1, $2)', [ref, step]);
    },
  };
  const worker = await Worker.create({ connection: target.temporal.nativeConnection, namespace: target.temporal.namespace, taskQueue, workflowBundle: { code }, activities });
  const running = worker.run();
  try {
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: opts.concurrency }, async () => {
        while (next < opts.count) {
          next++;
          const ref = randomBytes(8).toString('hex');
          await target.temporal.client.workflow.execute(BENCH_WORKFLOWS.activities.type, { workflowId: BENCH_WORKFLOWS.activities.id(ref), taskQueue, args: [ref, opts.activities] });
        }
      }),
    );
    return opts.count / ((performance.now() - t0) / 1000);
  } finally {
    worker.shutdown();
    await running;
    await db.end();
  }
}

/** The sale, then the bare baseline; the figures of one topology. */
export async function flashSaleFigures(target: FlashSaleTarget, opts: FlashSaleOptions): Promise<Record<string, number>> {
  const log = opts.log ?? (() => undefined);
  log(`  [${target.name}] ${opts.shoppers} shoppers, ${opts.concurrency} at a time …`);
  const sale = await runFlashSale(target, opts);
  const completedToken = sale.report.sessions.find(isComplete)?.token;
  const { activities, local } = completedToken ? await activitiesPerCheckout(target, completedToken) : { activities: 0, local: 0 };
  log(`  [${target.name}] sale done in ${sale.seconds.toFixed(1)} s; bare baseline: ${sale.results.length} workflows of ${activities} activities …`);
  const bareRate = activities ? await runBare(target, { count: sale.results.length, concurrency: opts.concurrency, activities }) : NaN;

  const steps: Step[] = ['create', 'bundle', 'initPayment', 'processorPage', 'payPage'];
  const figures: Record<string, number> = {
    shoppers: sale.results.length,
    shopperErrors: sale.results.filter((r) => r.error).length,
    paid: sale.account.paid,
    completed: sale.account.completed,
    lost: sale.account.lost,
    missingEmails: sale.account.missingEmails,
    duplicateOrders: sale.account.duplicateOrders,
    duplicateEmails: sale.account.duplicateEmails,
    saleSeconds: sale.seconds,
    checkoutsPerSecond: sale.checkoutsPerSecond,
  };
  for (const step of steps) {
    const sorted = sale.results.flatMap((r) => (r.stepsMs[step] === undefined ? [] : [r.stepsMs[step]])).sort((a, b) => a - b);
    figures[`${step}P50Ms`] = percentile(sorted, 50);
    figures[`${step}P99Ms`] = percentile(sorted, 99);
  }
  const payToPage = sale.results.flatMap((r) => (r.payToPageMs === undefined ? [] : [r.payToPageMs])).sort((a, b) => a - b);
  figures.payToProcessorPageP50Ms = percentile(payToPage, 50);
  figures.payToProcessorPageP99Ms = percentile(payToPage, 99);
  figures.backlogOrdersPending = sale.backlog.ordersPending;
  figures.backlogEmailsPending = sale.backlog.emailsPending;
  figures.backlogActivityTasks = sale.backlog.activityTasksQueued;
  figures.drainSeconds = sale.drainSeconds;
  const webhookToOrder = sale.report.sessions
    .filter((s) => s.paid && s.webhookAt !== undefined && s.orderAt !== undefined)
    .map((s) => s.orderAt! - s.webhookAt!)
    .sort((a, b) => a - b);
  figures.webhookToOrderP50Ms = percentile(webhookToOrder, 50);
  figures.webhookToOrderP99Ms = percentile(webhookToOrder, 99);
  figures.activitiesPerCheckout = activities;
  figures.localActivitiesPerCheckout = local;
  figures.bareWorkflowsPerSecond = bareRate;
  figures.ratio = sale.checkoutsPerSecond / bareRate;
  const errors = sale.results.filter((r) => r.error).slice(0, 3);
  for (const r of errors) log(`  [${target.name}] shopper ${r.index} failed at ${r.error!.step}: ${r.error!.message}`);
  return figures;
}

/** The sale's options from the environment; `concurrencies`: FLASH_SALE_CONCURRENCY, a comma-separated list (default 20,50), one sale each. */
export function flashSaleOptionsFromEnv(log: (line: string) => void): FlashSaleOptions & { concurrencies: number[] } {
  const whole = (name: string, v: string) => {
    if (!/^\d+$/.test(v) || Number(v) < 1) throw new Error(`${name} must be a positive whole number (or a comma-separated list of them)`);
    return Number(v);
  };
  const n = (name: string, fallback: number) => {
    const v = process.env[name];
    return v === undefined || v === '' ? fallback : whole(name, v);
  };
  const concurrencies = (process.env.FLASH_SALE_CONCURRENCY || '20,50').split(',').map((v) => whole('FLASH_SALE_CONCURRENCY', v.trim()));
  return {
    shoppers: n('FLASH_SALE_SHOPPERS', 1000),
    concurrency: concurrencies[0]!,
    concurrencies,
    arrivalMs: n('FLASH_SALE_SECONDS', 120) * 1000,
    settleMs: 60_000,
    log,
  };
}

/** A merchant selling through the demo storefront B store, set up over HTTP as a merchant would (plan written directly). */
export async function clusterMerchant(cluster: Cluster): Promise<{ storeUrl: string; token: string }> {
  const call = async (method: string, path: string, body: unknown, token?: string) => {
    const res = await fetch(`${cluster.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const reg = await call('POST', '/api/auth/register', { email: `flash-${randomBytes(3).toString('hex')}@shop.test`, password: 'correct horse battery 9', shopName: 'Flash Store', phone: '+49 30 1234567' });
  const token = reg.token as string;
  await call('POST', '/api/merchant/processor/connect', { apiKey: 'apik_sandbox_demo' }, token);
  await call('PATCH', '/api/merchant/config', { shippingRates: [{ name: 'Standard', basePriceCents: 490 }] }, token);
  const storeUrl = `${cluster.config.sandbox.urls.storefrontB}/stores/${DEMO_STORE.id}`;
  await call('POST', '/api/merchant/storefront-b/connect', { storeUrl, consumerKey: DEMO_STORE.consumerKey, consumerSecret: DEMO_STORE.consumerSecret }, token);
  const db = createDb(cluster.databaseUrl, { max: 1 });
  try {
    await givePaidPlan(db, (reg.merchant as { id: string }).id);
  } finally {
    await db.$disconnect();
  }
  return { storeUrl, token };
}

/** The cluster as a flash-sale target: its proxy, its sandbox's observer, a client of its Temporal server. */
export async function clusterTarget(cluster: Cluster): Promise<FlashSaleTarget & { close(): Promise<void> }> {
  quietRuntime();
  const { storeUrl } = await clusterMerchant(cluster);
  const demoStore = createStorefrontBSimulator().stores.get(DEMO_STORE.id)!;
  const connection = await Connection.connect({ address: cluster.temporalAddress });
  const nativeConnection = await NativeConnection.connect({ address: cluster.temporalAddress });
  const namespace = cluster.config.temporal.namespace;
  return {
    name: 'cluster',
    apiUrl: cluster.url,
    cart: demoCartOf(demoStore, storeUrl),
    observe: () => cluster.observe(),
    temporal: { client: new Client({ connection, namespace }), nativeConnection, namespace },
    databaseUrl: cluster.databaseUrl,
    taskQueues: serviceTaskQueues(cluster.config.temporal.taskQueue),
    async close() {
      await connection.close();
      await nativeConnection.close();
    },
  };
}

export async function benchFlashSale(): Promise<Record<string, number>> {
  const log = (line: string) => console.log(line);
  const opts = flashSaleOptionsFromEnv(log);
  const topology = process.env.FLASH_SALE_TOPOLOGY ?? 'both';
  if (!['both', 'start', 'cluster'].includes(topology)) throw new Error('FLASH_SALE_TOPOLOGY is both, start or cluster');
  const figures: Record<string, number> = {};
  // One sale per concurrency on the same topology: start.c20.*, start.c50.*, …
  const eachConcurrency = async (prefix: string, sale: (opts: FlashSaleOptions) => Promise<Record<string, number>>) => {
    for (const concurrency of opts.concurrencies) {
      const f = await sale({ ...opts, concurrency });
      for (const [k, v] of Object.entries(f)) figures[`${prefix}.c${concurrency}.${k}`] = v;
    }
  };

  if (topology !== 'cluster') {
    const { service, merchant, databaseUrl } = await benchStack();
    const observer = observeSandbox(service.sims);
    try {
      await eachConcurrency('start', (opts) => flashSaleFigures({
        name: 'npm start',
        apiUrl: service.apiUrl,
        cart: demoCart(service, merchant.storeUrl),
        observe: async () => observer.report(),
        temporal: { client: service.temporal.client, nativeConnection: service.temporal.nativeConnection, namespace: 'default' },
        databaseUrl,
        taskQueues: serviceTaskQueues(service.config.temporal.taskQueue),
      }, opts));
    } finally {
      observer.stop();
    }
  }
  if (topology !== 'start') {
    log('  [cluster] starting: PostgreSQL, Redis, Temporal server, sandbox, 2 workers, 2 API replicas, nginx …');
    const t0 = Date.now();
    const cluster = await startCluster({});
    atBenchExit(() => cluster.stop());
    log(`  [cluster] up in ${((Date.now() - t0) / 1000).toFixed(1)} s (logs in ${cluster.logDir})`);
    const target = await clusterTarget(cluster);
    try {
      await eachConcurrency('cluster', (opts) => flashSaleFigures(target, opts));
    } finally {
      await target.close();
      await cluster.stop();
    }
  }
  return figures;
}
