// The checkout workflow's clocks, on the time-skipping test server with the real activities against a
// real database and the sandboxes: when no webhook comes, reconciliation asks the processor (and backs
// off); a session with no progress for 24 hours becomes ABANDONED, through its running workflow or, for a
// session nobody acted on (no workflow yet), through the idle sweep that starts one. Hours pass in seconds: time skips
// whenever no activity runs while the test awaits the workflow's result.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WorkflowHandle } from '@temporalio/client';
import { checkoutWorkflow } from '../../workflows/checkout/checkout.js';
import { checkoutIdleSweepWorkflow } from '../../workflows/checkout/checkout-idle-sweep.js';
import { initPaymentUpdate, processorEventSignal, statusQuery } from '../../workflows/checkout/checkout.messages.js';
import { searchAttributeKeys } from '../../workflows/search-attributes.js';
import { DEMO_SHOP } from '../../sandbox/storefront-a/simulator.js';
import { simOrdersOf } from '../harness/storefront-a-seed.js';
import { startActivityRig, type ActivityRig } from '../harness/activity-rig.js';
import { startTimeSkipping, uniqueTaskQueue, type TimeSkippingTemporal } from '../harness/temporal.js';
import { createOpenSession, createSellingMerchant, settlePaymentSilently, shopperDetails, SHIPPING_MINOR, type SellingMerchant } from './checkout-fixtures.js';
import { activityCalls } from '../harness/history.js';
import { WORKFLOWS } from '../../domain/temporal/workflow-names.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let rig: ActivityRig;
let merchant: SellingMerchant;
let ts: TimeSkippingTemporal;

beforeAll(async () => {
  rig = await startActivityRig({ taskQueue: uniqueTaskQueue('ts') });
  merchant = await createSellingMerchant(rig);
});
afterAll(async () => {
  await rig?.close();
});
// A server per test: each test's clock starts fresh and no other workflow's timers move it.
beforeEach(async () => {
  ts = await startTimeSkipping();
});
afterEach(async () => {
  await ts?.close();
});

const db = () => rig.database.db;
const startCheckout = (input: Awaited<ReturnType<typeof createOpenSession>>['input']) =>
  ts.env.client.workflow.start(checkoutWorkflow, { taskQueue: ts.taskQueue, workflowId: WORKFLOWS.checkout.id(input.token), args: [input] });
const statusChanges = async (token: string) =>
  (await db().sessionEvent.findMany({ where: { token, type: 'status_changed' }, orderBy: { at: 'asc' } })).map((e) => e.data as { from: string; to: string; cause: string });
const ordersFor = (token: string) => simOrdersOf(rig.sims.storefrontA.state.shops.get(DEMO_SHOP)!, token);
const mailsFor = (token: string) => rig.sims.email.messages({ metadataKey: 'token', metadataValue: token });

/** The status the workflow publishes for operators (the CheckoutStatus search attribute). */
async function publishedAttributes(handle: WorkflowHandle) {
  const { typedSearchAttributes: sa } = await handle.describe();
  return { merchantId: sa.get(searchAttributeKeys.merchantId), storePlatform: sa.get(searchAttributeKeys.storePlatform), checkoutStatus: sa.get(searchAttributeKeys.checkoutStatus) };
}

/**
 * How long the workflow ran, start to close, in its own (skipped) time. The server's clock itself is only a
 * lower bound: once the result is in and before the test locks time again, the test server may jump to its
 * next pending timer (the run's 10-year default timeout).
 */
async function workflowDuration(handle: WorkflowHandle): Promise<number> {
  const { startTime, closeTime } = await handle.describe();
  return closeTime!.getTime() - startTime.getTime();
}

/** When each reconciliation poll of the processor was scheduled, in (skipped) workflow time. */
async function pollTimes(handle: WorkflowHandle): Promise<number[]> {
  const history = await handle.fetchHistory();
  return activityCalls(history.events ?? [], 'getProcessorPaymentStatus').map((c) => c.at);
}

describe('reconciliation when no webhook arrives (time-skipping)', () => {
  it('given a payment that succeeded at the processor without a webhook / when 5 minutes pass / the workflow finds it: COMPLETED, one store order, two emails', async () => {
    const session = await createOpenSession(rig, merchant);
    const startedAt = await ts.env.currentTimeMs();

    const { result, handle, paymentId, paid, totalMinor } = await ts.withWorker(rig.activities, async () => {
      const handle = await startCheckout(session.input);
      const init = await handle.executeUpdate(initPaymentUpdate, { args: [shopperDetails(merchant)] });
      expect(await handle.query(statusQuery)).toEqual({ status: 'PAYMENT_PENDING' });
      // The shopper pays; the processor's webhook never comes (the control plane settles silently).
      const paid = await settlePaymentSilently(rig, init.paymentId!, 'succeeded');
      return { result: await handle.result(), handle, paymentId: init.paymentId, paid, totalMinor: init.totalMinor };
    });

    expect(result).toEqual({ status: 'COMPLETED' });
    // The five minutes were skipped, not waited: the test server's own clock moved by them (no wall clock asserted).
    expect((await ts.env.currentTimeMs()) - startedAt).toBeGreaterThanOrEqual(5 * MINUTE);
    const ranFor = await workflowDuration(handle);
    expect(ranFor).toBeGreaterThanOrEqual(5 * MINUTE);
    expect(ranFor).toBeLessThan(10 * MINUTE); // found by the first poll, not the backed-off ones
    expect(totalMinor).toBe(session.subtotalMinor + SHIPPING_MINOR);

    // No webhook was ever published: the status came from the reconciliation's lookup.
    const { events } = (await (await fetch(`${rig.urls.processor}/_control/webhooks/events`)).json()) as { events: unknown[] };
    expect(events).toHaveLength(0);
    expect(await pollTimes(handle)).toHaveLength(1);

    const row = await db().checkoutSession.findUniqueOrThrow({ where: { token: session.token } });
    expect(row).toMatchObject({ status: 'COMPLETED', processorPaymentId: paymentId, totalMinor, storeOrderError: null });
    expect(row.completedAt).not.toBeNull();
    expect(row.storeOrderId).not.toBeNull();
    expect(await statusChanges(session.token)).toEqual([
      { from: 'OPEN', to: 'PAYMENT_PENDING', cause: 'init-payment' },
      { from: 'PAYMENT_PENDING', to: 'COMPLETED', cause: `payment_succeeded (sync:${paid}:succeeded)` },
    ]);

    const orders = ordersFor(session.token);
    expect(orders).toHaveLength(1);
    expect(orders[0]).toMatchObject({ id: Number(row.storeOrderId), financialStatus: 'PAID', total: totalMinor });
    const mails = mailsFor(session.token);
    expect(mails.filter((m) => m.To === 'jane@customer.test')).toHaveLength(1);
    expect(mails.filter((m) => m.To === merchant.email)).toHaveLength(1);
    expect(mails).toHaveLength(2);

    expect(await publishedAttributes(handle)).toEqual({ merchantId: merchant.id, storePlatform: 'STOREFRONT_A', checkoutStatus: 'COMPLETED' });
  });

  it('given the processor down at the first poll / the run goes on and the next poll finds the payment: COMPLETED, one order', async () => {
    const session = await createOpenSession(rig, merchant);
    const { result, handle, paid } = await ts.withWorker(rig.activities, async () => {
      const handle = await startCheckout(session.input);
      const init = await handle.executeUpdate(initPaymentUpdate, { args: [shopperDetails(merchant)] });
      const paid = await settlePaymentSilently(rig, init.paymentId!, 'succeeded');
      // Every attempt of the first poll's activity (it tries 3 times) gets a 503.
      const fault = await fetch(`${rig.urls.processor}/_control/faults`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ mode: 'error', status: 503, count: 3, match: '/api/v1/payments', method: 'GET' }),
      });
      expect(fault.status).toBe(201);
      return { result: await handle.result(), handle, paid };
    });

    expect(result).toEqual({ status: 'COMPLETED' });
    const { faults } = (await (await fetch(`${rig.urls.processor}/_control/faults`)).json()) as { faults: unknown[] };
    expect(faults).toEqual([]);
    const polls = await pollTimes(handle);
    expect(polls).toHaveLength(2); // the failed one, then 10 minutes later the one that found it
    expect(Math.round((polls[1]! - polls[0]!) / MINUTE)).toBe(10);
    expect(await statusChanges(session.token)).toEqual([
      { from: 'OPEN', to: 'PAYMENT_PENDING', cause: 'init-payment' },
      { from: 'PAYMENT_PENDING', to: 'COMPLETED', cause: `payment_succeeded (sync:${paid}:succeeded)` },
    ]);
    expect(ordersFor(session.token)).toHaveLength(1);
  });

  it('given the database refusing the status write for 15 minutes after the success webhook / the write is retried until it lands: COMPLETED, one order', async () => {
    const session = await createOpenSession(rig, merchant);
    let refusals = 0;
    let refuseUntil = Infinity;
    const activities = {
      ...rig.activities,
      async recordSessionStatus(...args: Parameters<typeof rig.activities.recordSessionStatus>) {
        if (args[1] === 'COMPLETED' && (await ts.env.currentTimeMs()) < refuseUntil) {
          refusals += 1;
          throw new Error('connection refused: the database is down');
        }
        return rig.activities.recordSessionStatus(...args);
      },
    };
    const { result } = await ts.withWorker(activities, async () => {
      const handle = await startCheckout(session.input);
      const init = await handle.executeUpdate(initPaymentUpdate, { args: [shopperDetails(merchant)] });
      refuseUntil = (await ts.env.currentTimeMs()) + 15 * MINUTE;
      await settlePaymentSilently(rig, init.paymentId!, 'succeeded');
      await handle.signal(processorEventSignal, { eventId: 'evt_db_down', event: 'payment_succeeded', paymentId: init.paymentId! });
      return { result: await handle.result() };
    });

    expect(result).toEqual({ status: 'COMPLETED' });
    expect(refusals).toBeGreaterThan(20); // more attempts than a bounded retry policy of 20 would have made
    const row = await db().checkoutSession.findUniqueOrThrow({ where: { token: session.token } });
    expect(row).toMatchObject({ status: 'COMPLETED', storeOrderError: null });
    expect(ordersFor(session.token)).toHaveLength(1);
  });
});

describe('expiry after 24 hours without progress (time-skipping)', () => {
  it('given a session where the shopper never enters details / when 24 hours pass / it is ABANDONED and its workflow ends', async () => {
    const session = await createOpenSession(rig, merchant);
    const startedAt = await ts.env.currentTimeMs();

    const { result, handle } = await ts.withWorker(rig.activities, async () => {
      const handle = await startCheckout(session.input);
      return { result: await handle.result(), handle };
    });

    expect(result).toEqual({ status: 'ABANDONED' });
    expect((await ts.env.currentTimeMs()) - startedAt).toBeGreaterThanOrEqual(24 * HOUR - MINUTE);
    // Idle time counts from the shopper's last step (here: create, just before the workflow started); the
    // test server's clock and the database's may differ by a moment.
    const row = await db().checkoutSession.findUniqueOrThrow({ where: { token: session.token } });
    const { closeTime } = await handle.describe();
    expect(Math.abs(closeTime!.getTime() - row.lastActivityAt.getTime() - 24 * HOUR)).toBeLessThan(MINUTE);
    expect(await workflowDuration(handle)).toBeLessThan(24 * HOUR + MINUTE);
    expect((await handle.describe()).status.name).toBe('COMPLETED');

    expect(row).toMatchObject({ status: 'ABANDONED', email: null, processorPaymentId: null, storeOrderId: null });
    expect(await statusChanges(session.token)).toEqual([{ from: 'OPEN', to: 'ABANDONED', cause: 'no progress for 24 hours' }]);
    expect(await pollTimes(handle)).toHaveLength(0);
    expect(mailsFor(session.token)).toHaveLength(0);
    expect(await publishedAttributes(handle)).toEqual({ merchantId: merchant.id, storePlatform: 'STOREFRONT_A', checkoutStatus: 'ABANDONED' });
  });

  it('given a payment that never completes / when 24 hours pass / reconciliation backs off to hourly polls and the session is ABANDONED', async () => {
    const session = await createOpenSession(rig, merchant);
    const startedAt = await ts.env.currentTimeMs();

    const { result, handle, paymentId } = await ts.withWorker(rig.activities, async () => {
      const handle = await startCheckout(session.input);
      const init = await handle.executeUpdate(initPaymentUpdate, { args: [shopperDetails(merchant)] });
      return { result: await handle.result(), handle, paymentId: init.paymentId };
    });

    expect(result).toEqual({ status: 'ABANDONED' });
    expect((await ts.env.currentTimeMs()) - startedAt).toBeGreaterThanOrEqual(24 * HOUR);
    const ranFor = await workflowDuration(handle);
    expect(ranFor).toBeGreaterThanOrEqual(24 * HOUR);
    expect(ranFor).toBeLessThan(25 * HOUR + MINUTE); // the last hourly wait may end past the 24 hours

    // Backed off: 5, 10, 20, 40 minutes, then hourly — about 27 polls in a day, not 288 every 5 minutes.
    const polls = await pollTimes(handle);
    expect(polls.length).toBeGreaterThanOrEqual(20);
    expect(polls.length).toBeLessThanOrEqual(30);
    const gaps = polls.slice(1).map((t, i) => t - polls[i]!);
    expect(gaps.slice(0, 3).map((g) => Math.round(g / MINUTE))).toEqual([10, 20, 40]);
    for (const [i, gap] of gaps.entries()) {
      expect(gap).toBeGreaterThanOrEqual(i === 0 ? 0 : gaps[i - 1]! - MINUTE); // never shorter than the one before
      expect(gap).toBeLessThanOrEqual(HOUR + MINUTE); // capped at an hour
    }
    expect(gaps.filter((g) => Math.abs(g - HOUR) < MINUTE).length).toBeGreaterThanOrEqual(gaps.length - 4);

    // Nobody paid the session's Whop checkout (ch_…): no payment of it exists.
    expect([...rig.sims.processor.store.payments.values()].filter((p) => p.checkout_configuration_id === paymentId)).toEqual([]);
    const row = await db().checkoutSession.findUniqueOrThrow({ where: { token: session.token } });
    expect(row).toMatchObject({ status: 'ABANDONED', processorPaymentId: paymentId, storeOrderId: null, completedAt: null });
    expect(await statusChanges(session.token)).toEqual([
      { from: 'OPEN', to: 'PAYMENT_PENDING', cause: 'init-payment' },
      { from: 'PAYMENT_PENDING', to: 'ABANDONED', cause: 'no payment result' },
    ]);
    expect(ordersFor(session.token)).toHaveLength(0);
    expect(mailsFor(session.token)).toHaveLength(0);
    expect(await publishedAttributes(handle)).toEqual({ merchantId: merchant.id, storePlatform: 'STOREFRONT_A', checkoutStatus: 'ABANDONED' });
  });

  it('given sessions nobody acted on (no workflow) / when the idle sweep runs a day later / each one\'s workflow starts and abandons it; later progress and previews are left alone', async () => {
    const idle = [await createOpenSession(rig, merchant), await createOpenSession(rig, merchant), await createOpenSession(rig, merchant)];
    const later = await createOpenSession(rig, merchant);
    const preview = await createOpenSession(rig, merchant);
    // The shopper of `later` entered their email two hours after create; `preview` is a merchant's preview.
    await db().checkoutSession.update({ where: { token: later.token }, data: { lastActivityAt: new Date(Date.now() + 2 * HOUR) } });
    await db().checkoutSession.update({ where: { token: preview.token }, data: { source: 'preview' } });

    await ts.env.sleep(24 * HOUR + 10 * MINUTE);
    const results = await ts.withWorker(rig.activities, async () => {
      // One session per batch and two batches per run: the third session is found by a continued run.
      await ts.env.client.workflow.execute(checkoutIdleSweepWorkflow, { taskQueue: ts.taskQueue, workflowId: `sweep-${idle[0]!.token}`, args: [{ abandonAfterMs: 24 * HOUR, batchSize: 1, batchesPerRun: 2 }] });
      return Promise.all(idle.map((s) => ts.env.client.workflow.getHandle(WORKFLOWS.checkout.id(s.token)).result()));
    });

    expect(results).toEqual(idle.map(() => ({ status: 'ABANDONED' })));
    for (const s of idle) {
      expect(await statusChanges(s.token)).toEqual([{ from: 'OPEN', to: 'ABANDONED', cause: 'no progress for 24 hours' }]);
      expect((await db().checkoutSession.findUniqueOrThrow({ where: { token: s.token } })).workflowStartedAt).toBeInstanceOf(Date);
      expect(await publishedAttributes(ts.env.client.workflow.getHandle(WORKFLOWS.checkout.id(s.token)))).toEqual({ merchantId: merchant.id, storePlatform: 'STOREFRONT_A', checkoutStatus: 'ABANDONED' });
    }
    for (const s of [later, preview]) {
      expect(await db().checkoutSession.findUniqueOrThrow({ where: { token: s.token } })).toMatchObject({ status: 'OPEN', workflowStartedAt: null });
      await expect(ts.env.client.workflow.getHandle(WORKFLOWS.checkout.id(s.token)).describe()).rejects.toThrow(/not found/i);
    }
  });

  it('given a session nobody acted on for 25 hours / when the shopper comes back and starts a payment / the run it starts abandons it first: CONFLICT, no payment', async () => {
    const session = await createOpenSession(rig, merchant);
    await ts.env.sleep(25 * HOUR);

    const { refused, result } = await ts.withWorker(rig.activities, async () => {
      const handle = await startCheckout(session.input);
      const refused = await handle.executeUpdate(initPaymentUpdate, { args: [shopperDetails(merchant)] }).then(() => null, (err: unknown) => err);
      return { refused, result: await handle.result() };
    });

    expect(refused).toMatchObject({ cause: { type: 'CONFLICT', message: expect.stringContaining('abandoned') } });
    expect(result).toEqual({ status: 'ABANDONED' });
    const row = await db().checkoutSession.findUniqueOrThrow({ where: { token: session.token } });
    expect(row).toMatchObject({ status: 'ABANDONED', processorPaymentId: null, email: null });
    expect(await statusChanges(session.token)).toEqual([{ from: 'OPEN', to: 'ABANDONED', cause: 'no progress for 24 hours' }]);
  });
});
