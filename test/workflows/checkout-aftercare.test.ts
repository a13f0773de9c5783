// The checkout workflow's transitions after the shopper's part: cash on delivery (COD_CONFIRMED with one
// unpaid store order and both emails), the merchant's refund (asked once, REFUNDED on the processor's event,
// one refund email), and the forced status sync, also on sessions whose run has already ended (the API sends
// refund and backfill-status with update-with-start; a new run resumes from the database). Real activities
// against the sandboxes and a real database; the dev server, or the time-skipping server where the
// workflow's own refund polls are awaited.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WithStartWorkflowOperation, type Client, type WorkflowHandle } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { createWorker, type ServiceWorker } from '../../worker/worker.js';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { backgroundTaskQueue } from '../../domain/temporal/task-queues.js';
import { checkoutWorkflow } from '../../workflows/checkout/checkout.js';
import { backfillStatusUpdate, completeCodUpdate, initPaymentUpdate, processorEventSignal, refreshStatusUpdate, refundUpdate, storeRefundUpdate } from '../../workflows/checkout/checkout.messages.js';
import { type CheckoutWorkflowInput } from '../../domain/checkout/checkout-workflow.js';
import { DEMO_SHOP } from '../../sandbox/storefront-a/simulator.js';
import { simOrdersOf } from '../harness/storefront-a-seed.js';
import { startActivityRig, type ActivityRig } from '../harness/activity-rig.js';
import { connectTestTemporal, startTimeSkipping, testWorkflowBundle, type TestTemporal } from '../harness/temporal.js';
import { uniqueTaskQueue } from '../../scripts/lib/stack/service-stack.js';
import { createOpenSession, createSellingMerchant, settlePaymentSilently, shopperDetails, type SellingMerchant } from './checkout-fixtures.js';
import { activityCalls } from '../harness/history.js';
import { WORKFLOWS } from '../../domain/temporal/workflow-names.js';

const MINUTE = 60_000;

let temporal: TestTemporal;
let rig: ActivityRig;
let merchant: SellingMerchant;

let worker: ServiceWorker | undefined;
let workerRun: Promise<void> | undefined;

beforeAll(async () => {
  temporal = await connectTestTemporal();
  rig = await startActivityRig({ taskQueue: temporal.taskQueue });
  merchant = await createSellingMerchant(rig);
  // One worker for the dev-server tests of the file (one load of the workflow bundle): every test runs the same
  // real activities, and each acts on a session of its own.
  worker = await temporal.createWorker(rig.activities);
  workerRun = worker.run();
});
afterAll(async () => {
  worker?.shutdown();
  await workerRun;
  await rig?.close();
  await temporal?.close();
});

const db = () => rig.database.db;
const ordersFor = (token: string) => simOrdersOf(rig.sims.storefrontA.state.shops.get(DEMO_SHOP)!, token);
const mailsFor = (token: string, tag?: string) => rig.sims.email.messages({ metadataKey: 'token', metadataValue: token }).filter((m) => !tag || m.Tag === tag);
const statusChanges = async (token: string) =>
  (await db().sessionEvent.findMany({ where: { token, type: 'status_changed' }, orderBy: { at: 'asc' } })).map((e) => e.data as { from: string; to: string; cause: string });
const setCod = (enabled: boolean) => db().merchant.update({ where: { id: merchant.id }, data: { codEnabled: enabled } });

function start(client: Client, taskQueue: string, input: CheckoutWorkflowInput): Promise<WorkflowHandle<typeof checkoutWorkflow>> {
  return client.workflow.start(checkoutWorkflow, { taskQueue, workflowId: WORKFLOWS.checkout.id(input.token), args: [input] });
}

/** What the API does for refund and backfill-status: the update, to the running workflow or to a new run. */
function updateWithStart<Ret, Args extends unknown[]>(client: Client, taskQueue: string, input: CheckoutWorkflowInput, update: UpdateDefinition<Ret, Args>, ...args: Args): Promise<Ret> {
  const startWorkflowOperation = new WithStartWorkflowOperation(checkoutWorkflow, {
    workflowId: WORKFLOWS.checkout.id(input.token), taskQueue, args: [input], workflowIdConflictPolicy: 'USE_EXISTING',
  });
  return client.workflow.executeUpdateWithStart(update, { startWorkflowOperation, args });
}

/** The merchant refunds in the processor's own dashboard (Whop's API as its dashboard uses it), no webhook to us. */
async function refundAtProcessor(paymentId: string, amount?: number): Promise<void> {
  const res = await fetch(`${rig.urls.processor}/api/v1/payments/${paymentId}/refund`, {
    method: 'POST', headers: { authorization: `Bearer ${rig.sims.processor.defaultApiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(amount === undefined ? {} : { partial_amount: amount }),
  });
  expect(res.status).toBe(200);
}
const refundsOf = (token: string) => db().refund.findMany({ where: { token }, orderBy: { createdAt: 'asc' } });

/** The processor's word on a payment (its sandbox API, as the merchant's account sees it). */
async function processorPayment(paymentId: string): Promise<{ substatus: string; refunds: Array<{ id: string }> }> {
  const res = await fetch(`${rig.urls.processor}/api/v1/payments/${paymentId}`, { headers: { authorization: `Bearer ${rig.sims.processor.defaultApiKey}` } });
  return (await res.json()) as { substatus: string; refunds: Array<{ id: string }> };
}

/** A COMPLETED card session whose run has ended: its order is on the store and both emails went out. */
async function paidSession(client: Client, taskQueue: string) {
  const session = await createOpenSession(rig, merchant);
  const handle = await start(client, taskQueue, session.input);
  const init = await handle.executeUpdate(initPaymentUpdate, { args: [shopperDetails(merchant)] });
  // The session's payment attempt is Whop's checkout (ch_…); the payment (pay_…) exists once paid.
  const paymentId = await settlePaymentSilently(rig, init.paymentId!, 'succeeded');
  expect(await handle.executeUpdate(refreshStatusUpdate)).toEqual({ status: 'COMPLETED' });
  expect(await handle.result()).toEqual({ status: 'COMPLETED' });
  expect(ordersFor(session.token)).toHaveLength(1);
  return { ...session, checkoutId: init.paymentId, paymentId };
}

describe('cash on delivery (dev server)', () => {
  it('given an OPEN session and COD enabled / completeCod, twice at once / COD_CONFIRMED, one unpaid store order, two emails, and the run ends', async () => {
    await setCod(true);
    const session = await createOpenSession(rig, merchant);
    const handle = await start(temporal.client, temporal.taskQueue, session.input);
    const details = shopperDetails(merchant);
    const answers = await Promise.all([handle.executeUpdate(completeCodUpdate, { args: [details] }), handle.executeUpdate(completeCodUpdate, { args: [details] })]);
    expect(answers).toEqual([{ status: 'COD_CONFIRMED' }, { status: 'COD_CONFIRMED' }]);
    // Other details after the confirmation would need a second order.
    await expect(handle.executeUpdate(completeCodUpdate, { args: [{ ...details, email: 'someone@else.test' }] })).rejects.toMatchObject({ cause: { type: 'CONFLICT' } });
    expect(await handle.result()).toEqual({ status: 'COD_CONFIRMED' });

    const row = await db().checkoutSession.findUniqueOrThrow({ where: { token: session.token } });
    expect(row).toMatchObject({ status: 'COD_CONFIRMED', paymentMethod: 'cod', email: 'jane@customer.test', totalMinor: session.subtotalMinor + 490, completedAt: null });
    const orders = ordersFor(session.token);
    expect(orders).toHaveLength(1);
    expect(orders[0]).toMatchObject({ id: Number(row.storeOrderId), financialStatus: 'PENDING', total: row.totalMinor });
    expect(mailsFor(session.token).map((m) => m.Tag).sort()).toEqual(['merchant_order_notification', 'order_confirmation']);
    expect(await statusChanges(session.token)).toEqual([{ from: 'OPEN', to: 'COD_CONFIRMED', cause: 'complete-cod' }]);
    expect(await db().sessionEvent.count({ where: { token: session.token, type: 'cod_confirmed' } })).toBe(1);
  });

  it('given COD switched off, or a card payment pending / completeCod is refused and the session stays as it was', async () => {
    const session = await createOpenSession(rig, merchant);
    const handle = await start(temporal.client, temporal.taskQueue, session.input);
    await setCod(false);
    await expect(handle.executeUpdate(completeCodUpdate, { args: [shopperDetails(merchant)] })).rejects.toMatchObject({ cause: { cause: { type: 'COD_NOT_ENABLED' } } });
    await setCod(true);
    await handle.executeUpdate(initPaymentUpdate, { args: [shopperDetails(merchant)] });
    await expect(handle.executeUpdate(completeCodUpdate, { args: [shopperDetails(merchant)] })).rejects.toMatchObject({ cause: { type: 'CONFLICT' } });
    await handle.terminate('test done');
    expect(await db().checkoutSession.findUniqueOrThrow({ where: { token: session.token } })).toMatchObject({ status: 'PAYMENT_PENDING', paymentMethod: 'card', storeOrderId: null });
    expect(ordersFor(session.token)).toHaveLength(0);
  });
});

describe('refunds and status syncs on a session whose run has ended (dev server)', () => {
  it('given a COMPLETED session / a store refund by update (the WooCommerce plugin\'s path): more than was charged is refused with why; the same store refund id twice at once → one refund at the processor, never booked on the store', async () => {
    const { client, taskQueue } = temporal;
    const session = await paidSession(client, taskQueue);
    const { totalMinor } = await db().checkoutSession.findUniqueOrThrow({ where: { token: session.token } });
    const tooMuch = updateWithStart(client, taskQueue, session.input, storeRefundUpdate, { storeRefundId: 'wc-1', amountMinor: totalMinor! + 1, reason: null });
    await expect(tooMuch).rejects.toMatchObject({ cause: { type: 'NOT_REFUNDABLE', message: expect.stringMatching(/^The refund made in the store cannot be refunded at the processor: .+/) } });
    await expect(tooMuch).rejects.not.toMatchObject({ cause: { message: expect.stringContaining('see the order') } });
    expect(await db().sessionEvent.count({ where: { token: session.token, type: 'store_refund_not_refunded' } })).toBe(1);
    const twice = await Promise.all([0, 1].map(() => updateWithStart(client, taskQueue, session.input, storeRefundUpdate, { storeRefundId: 'wc-2', amountMinor: 300, reason: 'Goodwill' })));
    expect(twice[0]!.refund.id).toBe(twice[1]!.refund.id);
    expect(await refundsOf(session.token)).toEqual([expect.objectContaining({ origin: 'store', amountMinor: 300, storeRefundId: 'wc-2', storeState: 'created', reason: 'Goodwill' })]);
    expect((await processorPayment(session.paymentId)).refunds).toHaveLength(1);
    const handle = client.workflow.getHandle(WORKFLOWS.checkout.id(session.token));
    await handle.terminate('test done').catch(() => undefined);
    expect(ordersFor(session.token)[0]!.refunds).toHaveLength(0);
  });

  it('given a COMPLETED session / a full refund, twice at once → one refund at the processor, booked on the store once; REFUNDED, one refund email; a later refund is refused', async () => {
    const { client, taskQueue } = temporal;
    const session = await paidSession(client, taskQueue);
    const results = await Promise.allSettled([updateWithStart(client, taskQueue, session.input, refundUpdate, {}), updateWithStart(client, taskQueue, session.input, refundUpdate, {})]);
    const granted = results.filter((r) => r.status === 'fulfilled').map((r) => r.value);
    const refused = results.filter((r) => r.status === 'rejected').map((r) => r.reason as unknown);
    const row = await db().checkoutSession.findUniqueOrThrow({ where: { token: session.token } });
    expect(granted).toEqual([{ status: 'COMPLETED', refund: { state: 'requested', id: expect.any(String), refundId: expect.stringMatching(/^rf_/), amountMinor: row.totalMinor, currency: 'EUR' } }]);
    expect(refused).toMatchObject([{ cause: { type: 'REFUND_ALREADY_REQUESTED' } }]);
    const refundId = granted[0]!.refund.refundId;
    // Whop refunded the payment once: its substatus and its one refund (rf_…).
    const atWhop = await processorPayment(session.paymentId);
    expect(atWhop.substatus).toBe('refunded');
    expect(atWhop.refunds.map((r) => r.id)).toEqual([refundId]);

    // The processor's refund event (as the webhook route signals it), twice: applied once.
    const handle = client.workflow.getHandle(WORKFLOWS.checkout.id(session.token));
    for (let i = 0; i < 2; i++) await handle.signal(processorEventSignal, { eventId: 'evt_refund_1', event: 'payment_refunded', paymentId: session.paymentId });
    expect(await handle.result()).toEqual({ status: 'REFUNDED' });

    const after = await db().checkoutSession.findUniqueOrThrow({ where: { token: session.token } });
    expect(after).toMatchObject({ status: 'REFUNDED', processorRefundId: refundId, refundedMinor: after.totalMinor, storeOrderStatus: 'refunded' });
    expect(after.refundedAt).not.toBeNull();
    expect(await refundsOf(session.token)).toEqual([expect.objectContaining({ origin: 'merchant', state: 'succeeded', processorRefundId: refundId, amountMinor: after.totalMinor, storeState: 'created', storeRefundId: expect.any(String) })]);
    // The store order is refunded too, once.
    const [order] = ordersFor(session.token);
    expect(order).toMatchObject({ financialStatus: 'REFUNDED' });
    expect(order!.refunds).toHaveLength(1);
    expect(mailsFor(session.token, 'refund_confirmation')).toHaveLength(1);
    expect(mailsFor(session.token, 'refund_confirmation')[0]!.To).toBe('jane@customer.test');
    expect((await statusChanges(session.token)).at(-1)).toMatchObject({ from: 'COMPLETED', to: 'REFUNDED' });
    expect(await db().sessionEvent.count({ where: { token: session.token, type: 'refund_requested' } })).toBe(1);

    // After REFUNDED: refused without asking the processor; the backfill finds nothing new.
    await expect(updateWithStart(client, taskQueue, session.input, refundUpdate, {})).rejects.toMatchObject({ cause: { type: 'REFUND_ALREADY_REQUESTED', message: 'This order is already refunded in full' } });
    expect(await updateWithStart(client, taskQueue, session.input, backfillStatusUpdate)).toEqual({ status: 'REFUNDED', processorStatus: 'refunded', codPaidAt: null });
    expect(mailsFor(session.token, 'refund_confirmation')).toHaveLength(1);
    expect(ordersFor(session.token)[0]!.refunds).toHaveLength(1);
  });

  it('given a COMPLETED session refunded in part at the processor (its dashboard), no webhook / backfill-status records it as partial: still COMPLETED, the store refunded that much, one email; the rest later → REFUNDED; never back to paid', async () => {
    const { client, taskQueue } = temporal;
    const session = await paidSession(client, taskQueue);
    await refundAtProcessor(session.paymentId, 1);
    expect(await updateWithStart(client, taskQueue, session.input, backfillStatusUpdate)).toEqual({ status: 'COMPLETED', processorStatus: 'succeeded', codPaidAt: null });
    await client.workflow.getHandle(WORKFLOWS.checkout.id(session.token)).result();
    const partial = await db().checkoutSession.findUniqueOrThrow({ where: { token: session.token } });
    expect(partial).toMatchObject({ status: 'COMPLETED', refundedMinor: 100, storeOrderStatus: 'partially_refunded' });
    expect(await refundsOf(session.token)).toEqual([expect.objectContaining({ origin: 'processor', state: 'succeeded', amountMinor: 100, storeState: 'created' })]);
    expect(ordersFor(session.token)[0]).toMatchObject({ financialStatus: 'PARTIALLY_REFUNDED' });
    const mails = mailsFor(session.token, 'refund_confirmation');
    expect(mails).toHaveLength(1);
    expect(mails[0]!.Subject).toMatch(/^Partial refund of €1\.00/);
    expect(mails[0]!.TextBody).toMatch(/stays paid/);
    // A second sync changes nothing (the partial refund reads as paid at the processor: never a second order, never back).
    expect(await updateWithStart(client, taskQueue, session.input, backfillStatusUpdate)).toMatchObject({ status: 'COMPLETED' });
    await client.workflow.getHandle(WORKFLOWS.checkout.id(session.token)).result();
    expect(ordersFor(session.token)).toHaveLength(1);
    // The merchant refunds the rest at the processor as well.
    await refundAtProcessor(session.paymentId);
    expect(await updateWithStart(client, taskQueue, session.input, backfillStatusUpdate)).toEqual({ status: 'REFUNDED', processorStatus: 'refunded', codPaidAt: null });
    expect(await client.workflow.getHandle(WORKFLOWS.checkout.id(session.token)).result()).toEqual({ status: 'REFUNDED' });
    expect((await refundsOf(session.token)).map((r) => [r.amountMinor, r.state, r.storeState])).toEqual([[100, 'succeeded', 'created'], [partial.totalMinor! - 100, 'succeeded', 'created']]);
    expect(ordersFor(session.token)[0]).toMatchObject({ financialStatus: 'REFUNDED' });
    expect(mailsFor(session.token, 'refund_confirmation')).toHaveLength(2);
    // Refunded outside the service: there is nothing left to refund.
    await expect(updateWithStart(client, taskQueue, session.input, refundUpdate, {})).rejects.toMatchObject({ cause: { type: 'REFUND_ALREADY_REQUESTED' } });
  });

  it('given an OPEN session / a refund is refused as NOT_REFUNDABLE and the processor is not asked', async () => {
    const session = await createOpenSession(rig, merchant);
    const handle = await start(temporal.client, temporal.taskQueue, session.input);
    await expect(handle.executeUpdate(refundUpdate, { args: [{}] })).rejects.toMatchObject({ cause: { type: 'NOT_REFUNDABLE' } });
    await handle.terminate('test done');
    expect(await db().checkoutSession.findUniqueOrThrow({ where: { token: session.token } })).toMatchObject({ status: 'OPEN', refundRequestedAt: null });
  });
});

describe('a refund whose confirmation never arrives (time-skipping)', () => {
  it('given a refund the processor leaves pending, settled later without a webhook / the workflow asks again after 5 minutes: REFUNDED, booked on the store, one refund email, the run ends', async () => {
    const ts = await startTimeSkipping();
    try {
      const session = await createOpenSession(rig, merchant);
      const { result, polls, ranFor } = await ts.withWorker(rig.activities, async () => {
        const client = ts.env.client;
        const handle = await start(client, ts.taskQueue, session.input);
        const init = await handle.executeUpdate(initPaymentUpdate, { args: [shopperDetails(merchant)] });
        await settlePaymentSilently(rig, init.paymentId!, 'succeeded');
        await handle.executeUpdate(refreshStatusUpdate);
        expect(await handle.result()).toEqual({ status: 'COMPLETED' });
        // The card network takes its time: the refund stays pending at the processor.
        await fetch(`${rig.urls.processor}/_control/refunds/pending`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 1 }) });
        // The run has ended; the refund starts a new one, which waits for the processor's confirmation.
        const refund = await updateWithStart(client, ts.taskQueue, session.input, refundUpdate, {});
        expect(refund.status).toBe('COMPLETED');
        const latest = client.workflow.getHandle(WORKFLOWS.checkout.id(session.token));
        const history = async () => (await latest.fetchHistory()).events ?? [];
        const syncs = async () => activityCalls(await history(), 'syncProcessorRefunds').length;
        /** Refund syncs the run finished (their answer is in: what the processor showed then). */
        const syncsDone = async () => activityCalls(await history(), 'syncProcessorRefunds').filter((c) => c.finished).length;
        // The run looks once right after the request (still pending), then waits; the refund settles meanwhile, silently.
        for (let i = 0; i < 400 && (await syncsDone()) < 1; i++) await new Promise((r) => setTimeout(r, 25));
        for (let i = 0; i < 200 && (await db().refund.count({ where: { token: session.token, processorRefundId: { not: null } } })) === 0; i++) await new Promise((r) => setTimeout(r, 25));
        const pending = (await db().refund.findFirstOrThrow({ where: { token: session.token } })).processorRefundId!;
        await fetch(`${rig.urls.processor}/_control/refunds/${pending}/settle`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ status: 'succeeded' }) });
        const result = await latest.result();
        const { startTime, closeTime } = await latest.describe();
        return { result, polls: await syncs(), ranFor: closeTime!.getTime() - startTime.getTime() };
      });
      expect(result).toEqual({ status: 'REFUNDED' });
      expect(polls).toBe(2);
      expect(ranFor).toBeGreaterThanOrEqual(5 * MINUTE);
      expect(ranFor).toBeLessThan(10 * MINUTE);
      expect(mailsFor(session.token, 'refund_confirmation')).toHaveLength(1);
      expect(ordersFor(session.token)[0]).toMatchObject({ financialStatus: 'REFUNDED' });
      expect((await statusChanges(session.token)).at(-1)).toMatchObject({ from: 'COMPLETED', to: 'REFUNDED', cause: 'refund reconciliation' });
    } finally {
      await ts.close();
    }
  });
});

describe('interactive before background (dev server)', () => {
  it('given the background queue\'s worker stopped / a shopper pays / init-payment answers and the store order is created, the emails wait at Temporal, then go once each when it runs', async () => {
    // A queue of its own, whose two workers run separately: the service's (workflows and waited-on steps) and the background one.
    const taskQueue = uniqueTaskQueue('bg');
    const worker = await createWorker({ connection: temporal.nativeConnection, namespace: 'default', taskQueue, activities: rig.activities, workflowBundle: testWorkflowBundle() });
    const [service, background] = worker.workers;
    const serviceRun = service!.run();
    let backgroundRun: Promise<void> | undefined;
    try {
      const session = await createOpenSession(rig, merchant);
      const handle = await start(temporal.client, taskQueue, session.input);
      const init = await handle.executeUpdate(initPaymentUpdate, { args: [shopperDetails(merchant)] });
      expect(init.status).toBe('PAYMENT_PENDING');
      await settlePaymentSilently(rig, init.paymentId!, 'succeeded');
      expect(await handle.executeUpdate(refreshStatusUpdate)).toEqual({ status: 'COMPLETED' });
      for (let i = 0; i < 200 && ordersFor(session.token).length === 0; i++) await new Promise((r) => setTimeout(r, 25));
      expect(ordersFor(session.token)).toHaveLength(1);
      // Nobody polls the background queue: the emails (and the merchant's event) are queued there, not sent.
      await new Promise((r) => setTimeout(r, 500));
      expect(mailsFor(session.token)).toEqual([]);
      const described = await temporal.client.workflowService.describeTaskQueue({
        namespace: 'default', taskQueue: { name: backgroundTaskQueue(taskQueue) }, taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY, reportStats: true,
      });
      expect(Number(described.stats?.approximateBacklogCount ?? 0)).toBeGreaterThanOrEqual(1);

      backgroundRun = background!.run();
      expect(await handle.result()).toEqual({ status: 'COMPLETED' });
      expect(mailsFor(session.token).map((m) => m.Tag).sort()).toEqual(['merchant_order_notification', 'order_confirmation']);
      expect(ordersFor(session.token)).toHaveLength(1);
      // Its history (local activities, both queues) replays against the same code: a worker restarted mid-run resumes it.
      await expect(Worker.runReplayHistory({ workflowBundle: testWorkflowBundle() }, await handle.fetchHistory())).resolves.toBeUndefined();
    } finally {
      worker.shutdown();
      await serviceRun;
      await backgroundRun;
    }
  });
});
