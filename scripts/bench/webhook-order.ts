// Webhook → order: for each of N sessions (created through the API, the shopper's details and the processor
// checkout made with init-payment, then paid at the local Whop without its own delivery), the time from POSTing
// Whop's payment.succeeded delivery to our endpoint over loopback HTTP until the order enters the sandbox store's
// order table (Standard Webhooks signature check, audit row, dedupe lock, signal-with-start, the workflow's status
// write, the store order activity with its REST call). The delivery is what Whop sends: the simulator's own
// envelope ({ id, api_version, type, timestamp, company_id, data: Payment }) and webhook-id / webhook-timestamp /
// webhook-signature headers signed with the `standardwebhooks` library under Whop's key rule. Baseline, in the same run and interleaved one for one: a bare signal-with-start of a
// trivial workflow (scripts/bench/round-trip-workflow.ts, its own bundle, worker and task queue) whose one
// activity inserts one row, timed until that insert returned. Both ends are observed in-process as they
// happen (no polling): the store simulator's order table and the activity. Target: p50 ratio ≤ 1.15.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { Webhook } from 'standardwebhooks';
import { createSecretBox } from '../../security/secrets.js';
import { PROCESSOR_WEBHOOK_PATH } from '../../model/connections.js';
import { eventPayload } from '../../sandbox/processor/index.js';
import { processorAad } from '../../model/connections.js';
import type { BOrder } from '../../sandbox/storefront-b/state.js';
import { uniqueTaskQueue } from '../lib/stack/service-stack.js';
import { api, benchStack, createSession, demoCart } from './stack.js';
import { percentile } from './load.js';
import { roundTripSignal, type RoundTripActivities, type RoundTripMessage } from './round-trip-workflow.js';
import { PLUGIN_SESSION_META } from '../../sandbox/storefront-b/state.js';
import { BENCH_WORKFLOWS, WORKFLOWS } from '../../domain/temporal/workflow-names.js';

const ROUND_TRIP_WORKFLOW = fileURLToPath(new URL('./round-trip-workflow.ts', import.meta.url));
const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error };
const TIMEOUT_MS = 30_000;

/** A promise for `key` that `settle(key)` resolves, with a deadline. */
function waiters() {
  const pending = new Map<string, () => void>();
  return {
    wait(key: string, what: string): Promise<void> {
      const settled = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(key);
          reject(new Error(`timed out after ${TIMEOUT_MS} ms waiting for ${what}`));
        }, TIMEOUT_MS);
        timer.unref(); // a waiter left behind by a failed step must not hold the run open
        pending.set(key, () => {
          clearTimeout(timer);
          pending.delete(key);
          resolve();
        });
      });
      // Awaiting it still throws; a waiter nobody awaits any more (the step before it failed) is not fatal.
      settled.catch(() => undefined);
      return settled;
    },
    settle(key: string) {
      pending.get(key)?.();
    },
  };
}

function post(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = http.request(
      { method: 'POST', host: u.hostname, port: u.port, path: u.pathname, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function benchWebhookOrder(opts: { sessions?: number; warmup?: number } = {}): Promise<Record<string, number>> {
  const sessions = opts.sessions ?? 20;
  const warmup = opts.warmup ?? 2;
  const { service, merchant } = await benchStack();
  const { db, config, temporal } = service;

  // The baseline's worker: its own bundle (only round-trip-workflow.ts) on its own task queue.
  const rowWritten = waiters();
  const taskQueue = uniqueTaskQueue('bench-round-trip');
  const { code } = await bundleWorkflowCode({ workflowsPath: ROUND_TRIP_WORKFLOW, logger: quiet });
  const activities: RoundTripActivities = {
    async writeBenchRow(ref, message) {
      await db.$executeRaw`INSERT INTO bench_rows (ref, payload) VALUES (${ref}, ${JSON.stringify(message)}::jsonb)`;
      rowWritten.settle(ref);
    },
  };
  const worker = await Worker.create({ connection: temporal.nativeConnection, namespace: 'default', taskQueue, workflowBundle: { code }, activities });
  const running = worker.run();

  // The store's order table, watched: an order carrying a session token settles that token's waiter.
  const store = service.sims.storefrontB.stores.get('demo')!;
  const orderVisible = waiters();
  const orders = store.orders;
  const insert = orders.set.bind(orders);
  orders.set = (id: number, order: BOrder) => {
    const result = insert(id, order);
    const token = order.metaData.find((m) => m.key === PLUGIN_SESSION_META)?.value;
    if (typeof token === 'string') orderVisible.settle(token);
    return result;
  };

  const connection = await db.processorConnection.findUniqueOrThrow({ where: { merchantId: merchant.id } });
  const webhookSecret = createSecretBox(config.secretsKey!).decrypt(connection.webhookSecretEnc!, processorAad.webhookSecret(merchant.id));
  // Whop's key rule: the HMAC key is the UTF-8 bytes of the `ws_…` secret, which standardwebhooks takes base64-encoded.
  const signer = new Webhook(Buffer.from(webhookSecret, 'utf8').toString('base64'));
  const cart = demoCart(service, merchant.storeUrl);

  /**
   * A session with the shopper's details and its Whop checkout, paid by the shopper at the local Whop as a silent
   * control-plane move (no delivery of its own): what exists when Whop's success delivery comes. Answers the
   * Payment as Whop's API shows it.
   */
  async function paidSession(): Promise<{ token: string; payment: { id: string } & Record<string, unknown> }> {
    const { token, paymentId: checkoutId } = await pendingSession();
    const res = await fetch(`${service.urls.processor}/_control/checkout_configurations/${checkoutId}/pay`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ silent: true }),
    });
    if (res.status !== 200) throw new Error(`the processor sandbox answered ${res.status}: ${await res.text()}`);
    return { token, payment: (await res.json()) as { id: string } & Record<string, unknown> };
  }

  /** A session with the shopper's details and the processor checkout (init-payment). */
  async function pendingSession(): Promise<{ token: string; paymentId: string; totalMinor: number; currency: string }> {
    const token = await createSession(service, cart);
    const bundle = await api(service, 'GET', `/api/checkout/session-bundle/${token}`);
    const rate = (bundle.shipping as Array<{ id: string }>)[0]!;
    const init = await api(service, 'POST', `/api/checkout/${token}/init-payment`, {
      email: 'jane@customer.test',
      address: { name: 'Jane Doe', line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
      shippingRateId: rate.id,
    });
    return { token, paymentId: init.paymentId as string, totalMinor: init.totalMinor as number, currency: init.currency as string };
  }

  /** Whop's delivery POSTed → order in the store; then (untimed) the workflow's end, i.e. its emails sent. */
  async function webhookToOrder(): Promise<number> {
    const s = await paidSession();
    const event = eventPayload(connection.businessId!, 'payment.succeeded', s.payment);
    const body = JSON.stringify(event);
    const visible = orderVisible.wait(s.token, `the store order of ${s.token}`);
    const t0 = performance.now();
    const sentAt = new Date();
    const res = await post(`${service.apiUrl}${PROCESSOR_WEBHOOK_PATH}`, body, {
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': signer.sign(event.id, sentAt, body),
    });
    if (res.status !== 200) throw new Error(`webhook answered ${res.status}: ${res.body}`);
    await visible;
    const ms = performance.now() - t0;
    await temporal.client.workflow.getHandle(WORKFLOWS.checkout.id(s.token)).result();
    return ms;
  }

  /** signal-with-start → its activity's row inserted; then (untimed) the workflow's end. */
  async function bareRoundTrip(): Promise<number> {
    const ref = randomBytes(12).toString('hex');
    const message: RoundTripMessage = { eventId: `evt_${ref}`, event: 'payment_succeeded', paymentId: `pay_${ref}` };
    const written = rowWritten.wait(ref, `the row of ${ref}`);
    const t0 = performance.now();
    const handle = await temporal.client.workflow.signalWithStart(BENCH_WORKFLOWS.roundTrip.type, {
      workflowId: BENCH_WORKFLOWS.roundTrip.id(ref),
      taskQueue,
      args: [ref],
      signal: roundTripSignal,
      signalArgs: [message],
    });
    await written;
    const ms = performance.now() - t0;
    await handle.result();
    return ms;
  }

  try {
    for (let i = 0; i < warmup; i++) {
      await bareRoundTrip();
      await webhookToOrder();
    }
    const ours: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < sessions; i++) {
      // Alternating which goes first, so neither always follows the other's tail work.
      if (i % 2 === 0) {
        bare.push(await bareRoundTrip());
        ours.push(await webhookToOrder());
      } else {
        ours.push(await webhookToOrder());
        bare.push(await bareRoundTrip());
      }
    }
    const sortedOurs = [...ours].sort((a, b) => a - b);
    const sortedBare = [...bare].sort((a, b) => a - b);
    const ordersFor = (token: string) => [...store.orders.values()].filter((o) => o.metaData.some((m) => m.key === PLUGIN_SESSION_META && m.value === token)).length;
    const tokens = new Set([...store.orders.values()].flatMap((o) => o.metaData.filter((m) => m.key === PLUGIN_SESSION_META).map((m) => String(m.value))));
    return {
      sessions,
      ordersInStore: store.orders.size,
      sessionsWithTwoOrders: [...tokens].filter((t) => ordersFor(t) > 1).length,
      webhookToOrderP50Ms: percentile(sortedOurs, 50),
      webhookToOrderP99Ms: percentile(sortedOurs, 99),
      bareRoundTripP50Ms: percentile(sortedBare, 50),
      bareRoundTripP99Ms: percentile(sortedBare, 99),
      ratioP50: percentile(sortedOurs, 50) / percentile(sortedBare, 50),
    };
  } finally {
    Reflect.deleteProperty(orders, 'set');
    worker.shutdown();
    await running;
  }
}
