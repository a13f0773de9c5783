// The checkout workflow's decision logic, fast: its activities are plain functions over memory
// (fakes/checkout-activities.ts) on the time-skipping test server — no database, no processor, no store, and
// hours of timers pass in milliseconds. What is asserted is what the workflow decides: statuses, one order and
// one email of each kind however events arrive, refusals, and its own reconciliation. The same behaviour
// against real activities, PostgreSQL and the sandbox is tested in checkout-timers, checkout-aftercare and
// test/e2e.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplicationFailure, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import type { ServiceWorker } from '../../worker/worker.js';
import { createWorker } from '../../worker/worker.js';
import { checkoutWorkflow } from '../../workflows/checkout/checkout.js';
import { acceptUpsellUpdate, completeCodUpdate, initPaymentUpdate, processorEventSignal, refundUpdate, statusQuery, storeRefundSignal } from '../../workflows/checkout/checkout.messages.js';
import { type ShopperDetails } from '../../domain/checkout/checkout-workflow.js';
import { startTimeSkipping, testWorkflowBundle, uniqueTaskQueue, type TimeSkippingTemporal } from '../harness/temporal.js';
import { fakeCheckoutActivitiesByWorkflow, newWorld, FAKE_QUOTE, type FakeWorld } from './fakes/checkout-activities.js';
import { activityCalls } from '../harness/history.js';
import { WORKFLOWS } from '../../domain/temporal/workflow-names.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let ts: TimeSkippingTemporal;
/** The world of each test's workflow, by workflow id: what the file's one worker's activities act on. */
const worlds = new Map<string, FakeWorld>();
let worker: ServiceWorker;
let workerRun: Promise<void>;
beforeAll(async () => {
  ts = await startTimeSkipping({ taskQueue: uniqueTaskQueue('fast') });
  // One worker (one load of the workflow bundle) for the file; each test's workflow reaches only its own world.
  worker = await createWorker({ connection: ts.env.nativeConnection, namespace: 'default', taskQueue: ts.taskQueue, activities: fakeCheckoutActivitiesByWorkflow(worlds), workflowBundle: testWorkflowBundle() });
  workerRun = worker.run();
});
afterAll(async () => {
  if (worker) {
    worker.shutdown();
    await workerRun;
  }
  await ts?.close();
});

const details = (overrides: Partial<ShopperDetails> = {}): ShopperDetails => ({
  email: 'shopper@example.com',
  address: { name: 'Ada Shopper', line1: 'Main St 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
  shippingRateId: 'rate-standard',
  ...overrides,
});

const newToken = () => `cs_${randomBytes(24).toString('base64url')}`;
let eventSeq = 0;
const event = (name: string, paymentId = 'pay_1') => ({ eventId: `evt_${++eventSeq}`, event: name, paymentId });

/**
 * Runs `fn` against the checkout workflow of a fresh session, whose activities act on `world` (registered under
 * this workflow's id, a new token each time, so a workflow of an earlier test can never reach this world); the
 * workflow is ended and its world forgotten whatever happens.
 */
async function withCheckout<T>(world: FakeWorld, fn: (handle: WorkflowHandle<typeof checkoutWorkflow>) => Promise<T>): Promise<T> {
  const token = newToken();
  const workflowId = WORKFLOWS.checkout.id(token);
  // The test server's clock is skipped ahead by earlier tests: idle time counts from its own now.
  world.session.lastActivityAt = (await ts.env.currentTimeMs()) - world.session.idleForMs;
  worlds.set(workflowId, world);
  try {
    const handle = await ts.env.client.workflow.start(checkoutWorkflow, {
      taskQueue: ts.taskQueue,
      workflowId,
      args: [{ token, merchantId: 'm-fast', platform: 'STOREFRONT_B', reconcileAfterMs: 5 * MINUTE, storeRetryInitialMs: 1_000 }],
    });
    try {
      return await fn(handle);
    } finally {
      await handle.terminate('test over').catch(() => undefined);
    }
  } finally {
    worlds.delete(workflowId);
  }
}

/**
 * The status once the signals sent so far are applied (a signal returns before the workflow handles it): polls
 * until it reads `expected`, for up to `withinMs` — by default 30 s, a deadline a busy machine does not miss and
 * only a failing test waits out. A check that the status does NOT move passes a short window instead.
 */
async function statusAfterSignals(handle: WorkflowHandle<typeof checkoutWorkflow>, expected: string, withinMs = 30_000): Promise<string> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const { status } = await handle.query(statusQuery);
    if (status === expected || Date.now() > deadline) return status;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The error code an update was refused with: the first ApplicationFailure type in its causes, as the API maps it. */
async function refusedWith(run: Promise<unknown>): Promise<string | undefined> {
  try {
    await run;
    return undefined;
  } catch (err) {
    if (!(err instanceof WorkflowUpdateFailedError)) throw err;
    for (let e: unknown = err.cause; e instanceof Error; e = e.cause) {
      if (e instanceof ApplicationFailure && e.type) return e.type;
    }
    return 'no code';
  }
}

describe('checkout workflow decisions (fast tier: activities in memory)', () => {
  it('given a pending payment / when the success event arrives three times, mixed with a late failure / one COMPLETED, one order, each email once', async () => {
    const world = newWorld();
    const result = await withCheckout(world, async (handle) => {
      await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      for (const name of ['payment_succeeded', 'invoice_paid', 'payment_failed', 'payment_succeeded']) await handle.signal(processorEventSignal, event(name));
      return handle.result();
    });
    expect(result).toEqual({ status: 'COMPLETED' });
    expect(world.session.statusWrites.map((w) => w.to)).toEqual(['PAYMENT_PENDING', 'COMPLETED']);
    expect(world.storeOrders).toHaveLength(1);
    expect(world.emails.sort()).toEqual(['merchant_order_notification', 'order_confirmation']);
    // Asked once each: the workflow decides "exactly once", not only the activities' own idempotency.
    const calls = (name: string) => world.calls.filter((c) => c === name).length;
    expect([calls('createStoreOrder'), calls('sendOrderConfirmation'), calls('sendMerchantOrderNotification')]).toEqual([1, 1, 1]);
    // The merchant's webhook event of the fact, asked for once.
    expect(world.merchantEvents).toEqual(['session.completed']);
    expect(calls('emitMerchantEvent')).toBe(1);
  });

  it('given a session refunded at the processor / when the success event is delivered again, or a new one arrives / it stays REFUNDED (never back)', async () => {
    const world = newWorld();
    // The refund email waits until the redelivery was judged: a settled run with nothing pending ends, and a signal
    // to an ended run fails (in production a later webhook starts a new run with signal-with-start instead).
    let release = () => undefined as void;
    world.holds.sendRefundConfirmation = new Promise<void>((resolve) => (release = resolve));
    await withCheckout(world, async (handle) => {
      await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      const success = event('payment_succeeded');
      await handle.signal(processorEventSignal, success);
      // The merchant refunds in the processor's own dashboard: its refund event comes.
      world.refundRows.push({ id: 'b0000000-0000-4000-8000-000000000001', amountMinor: FAKE_QUOTE.totalMinor, state: 'succeeded', storeState: 'pending', origin: 'processor' });
      await handle.signal(processorEventSignal, event('payment_refunded'));
      expect(await statusAfterSignals(handle, 'REFUNDED')).toBe('REFUNDED');
      await handle.signal(processorEventSignal, success);
      await handle.signal(processorEventSignal, event('payment_succeeded'));
      await handle.signal(processorEventSignal, event('payment_failed'));
      // Watched for a second for a wrong turn back; the status writes asserted after the run are the proof (every
      // signal sent before the run ends is applied before it can end).
      expect(await statusAfterSignals(handle, 'COMPLETED', 1_000)).toBe('REFUNDED');
      // Let the run finish on its own: an activity cut off by a termination would keep the test server from skipping time.
      release();
      await handle.result();
    });
    expect(world.session.statusWrites.map((w) => w.to)).toEqual(['PAYMENT_PENDING', 'COMPLETED', 'REFUNDED']);
  });

  it('given the same event id delivered twice / it is applied once', async () => {
    const world = newWorld();
    await withCheckout(world, async (handle) => {
      await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      const failed = event('payment_failed');
      await handle.signal(processorEventSignal, failed);
      await handle.signal(processorEventSignal, failed);
      expect(await statusAfterSignals(handle, 'FAILED')).toBe('FAILED');
    });
    expect(world.session.statusWrites.filter((w) => w.to === 'FAILED')).toHaveLength(1);
  });

  it('given a failed payment / when a refund event arrives / nothing changes (REFUNDED only from COMPLETED)', async () => {
    const world = newWorld();
    await withCheckout(world, async (handle) => {
      await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      await handle.signal(processorEventSignal, event('payment_failed'));
      expect(await statusAfterSignals(handle, 'FAILED')).toBe('FAILED');
      await handle.signal(processorEventSignal, event('payment_refunded'));
      // Applied in order: a query answered after a later signal (below) has seen the refund event too.
      await handle.signal(processorEventSignal, event('payment_failed'));
      expect(await statusAfterSignals(handle, 'FAILED')).toBe('FAILED');
    });
    expect(world.storeOrders).toEqual([]);
    expect(world.emails).toEqual([]);
  });

  it('given init-payment / when it is clicked again with the same details it answers the same payment; cash on delivery is refused meanwhile', async () => {
    const world = newWorld();
    await withCheckout(world, async (handle) => {
      const first = await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      const again = await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      expect(again).toEqual(first);
      expect(first).toMatchObject({ totalMinor: FAKE_QUOTE.totalMinor, currency: 'EUR' });
      // Cash on delivery is not offered while a card payment is pending: one session is never paid twice.
      expect(await refusedWith(handle.executeUpdate(completeCodUpdate, { args: [details()] }))).toBe('CONFLICT');
    });
    expect(world.processor.created).toBe(1);
    expect(world.processor.lookups).toBe(0);
  });

  it('given a pending payment / when the shopper goes back and sends other details / the processor is asked first, then a new attempt replaces the unpaid one', async () => {
    const world = newWorld();
    await withCheckout(world, async (handle) => {
      const first = await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      const second = await handle.executeUpdate(initPaymentUpdate, { args: [details({ shippingRateId: 'rate-express' })] });
      expect(second.paymentUrl).not.toBe(first.paymentUrl);
      expect(second.status).toBe('PAYMENT_PENDING');
      expect(await handle.query(statusQuery)).toEqual({ status: 'PAYMENT_PENDING' });
    });
    expect(world.processor.created).toBe(2);
    expect(world.processor.lookups).toBe(1);
    expect(world.session.details?.shippingRateId).toBe('rate-express');
  });

  it('given a pending payment the shopper paid in another tab / when other details arrive / the session completes, no second payment starts (CONFLICT)', async () => {
    const world = newWorld();
    const result = await withCheckout(world, async (handle) => {
      await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      world.processor.status = 'succeeded';
      expect(await refusedWith(handle.executeUpdate(initPaymentUpdate, { args: [details({ email: 'other@example.com' })] }))).toBe('CONFLICT');
      return handle.result();
    });
    expect(result).toEqual({ status: 'COMPLETED' });
    expect(world.processor.created).toBe(1);
    expect(world.storeOrders).toHaveLength(1);
  });

  it('given a declined card / when the shopper pays on the processor\'s page after all and then clicks Pay on ours / no second payment: COMPLETED, one order', async () => {
    const world = newWorld();
    const result = await withCheckout(world, async (handle) => {
      await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      await handle.signal(processorEventSignal, event('payment_failed'));
      expect(await statusAfterSignals(handle, 'FAILED')).toBe('FAILED');
      // The good card on the same page: the processor has it paid, its webhook has not come yet.
      world.processor.status = 'succeeded';
      expect(await refusedWith(handle.executeUpdate(initPaymentUpdate, { args: [details()] }))).toBe('CONFLICT');
      return handle.result();
    });
    expect(result).toEqual({ status: 'COMPLETED' });
    expect(world.processor.created).toBe(1);
    expect(world.storeOrders).toHaveLength(1);
    expect(world.emails.sort()).toEqual(['merchant_order_notification', 'order_confirmation']);
  });

  it('given a declined card / a retry the processor shows unpaid starts a new attempt', async () => {
    const world = newWorld();
    await withCheckout(world, async (handle) => {
      await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      world.processor.status = 'failed';
      await handle.signal(processorEventSignal, event('payment_failed'));
      expect(await statusAfterSignals(handle, 'FAILED')).toBe('FAILED');
      expect(await handle.executeUpdate(initPaymentUpdate, { args: [details()] })).toMatchObject({ status: 'PAYMENT_PENDING' });
    });
    expect(world.processor.created).toBe(2);
  });

  it('given a total of 0 / init-payment completes it without the processor: one order, both emails, a double click answers the same', async () => {
    const world = newWorld();
    // The run ends once settled and idle: hold the confirmation so the later clicks reach this run, not an ended one.
    let release = () => undefined as void;
    world.holds.sendOrderConfirmation = new Promise<void>((resolve) => (release = resolve));
    const result = await withCheckout(world, async (handle) => {
      const first = await handle.executeUpdate(initPaymentUpdate, { args: [details({ discountCode: 'FREE100' })] });
      expect(first).toEqual({ paymentId: null, paymentUrl: expect.stringContaining('/checkout/'), totalMinor: 0, currency: 'EUR', status: 'COMPLETED' });
      expect(await handle.query(statusQuery)).toEqual({ status: 'COMPLETED' });
      expect(await handle.executeUpdate(initPaymentUpdate, { args: [details({ discountCode: 'FREE100' })] })).toEqual(first);
      // Other details after the order is placed would need a second order.
      expect(await refusedWith(handle.executeUpdate(initPaymentUpdate, { args: [details({ discountCode: 'FREE100', email: 'other@example.com' })] }))).toBe('CONFLICT');
      expect(await refusedWith(handle.executeUpdate(completeCodUpdate, { args: [details({ discountCode: 'FREE100' })] }))).toBe('CONFLICT');
      release();
      return handle.result();
    });
    expect(result).toEqual({ status: 'COMPLETED' });
    expect(world.processor.created).toBe(0);
    expect(world.session.paymentMethod).toBe('free');
    expect(world.session.statusWrites).toEqual([{ to: 'COMPLETED', cause: 'init-payment: nothing to pay' }]);
    expect(world.storeOrders).toHaveLength(1);
    expect(world.emails.sort()).toEqual(['merchant_order_notification', 'order_confirmation']);
  });

  it('given a total of 0 / cash on delivery still confirms it', async () => {
    const world = newWorld();
    const result = await withCheckout(world, async (handle) => {
      expect(await handle.executeUpdate(completeCodUpdate, { args: [details({ discountCode: 'FREE100' })] })).toEqual({ status: 'COD_CONFIRMED' });
      return handle.result();
    });
    expect(result).toEqual({ status: 'COD_CONFIRMED' });
    expect(world.processor.created).toBe(0);
    expect(world.storeOrders).toHaveLength(1);
  });

  it('given a paid session whose store refuses the order for good / the failure is recorded, the merchant is told, the shopper still gets the confirmation', async () => {
    const world = newWorld();
    world.faults.createStoreOrder = ['permanent'];
    const result = await withCheckout(world, async (handle) => {
      await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      await handle.signal(processorEventSignal, event('payment_succeeded'));
      return handle.result();
    });
    expect(result).toEqual({ status: 'COMPLETED' });
    expect(world.storeOrders).toEqual([]);
    expect(world.session.storeOrderError).toMatch(/refused for good/);
    expect(world.emails.sort()).toEqual(['merchant_order_notification', 'order_confirmation', 'store_order_problem']);
  });

  it('given a store that adds its tax / the shopper is charged the taxed total the store quoted', async () => {
    const world = newWorld();
    world.storeTax = 568;
    await withCheckout(world, async (handle) => {
      const started = await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      expect(started).toMatchObject({ totalMinor: FAKE_QUOTE.totalMinor + 568, status: 'PAYMENT_PENDING' });
    });
    expect(world.calls.indexOf('quoteStoreTaxes')).toBeLessThan(world.calls.indexOf('createProcessorPayment'));
  });

  it('given a store that refuses to price the order / init-payment answers that the shop cannot confirm the total (not "try again"), and nothing is charged', async () => {
    const world = newWorld();
    world.faults.quoteStoreTaxes = ['permanent'];
    await withCheckout(world, async (handle) => {
      const refused = await handle.executeUpdate(initPaymentUpdate, { args: [details()] }).then(() => null, (err: unknown) => err as Error);
      expect(refused?.cause).toMatchObject({ type: 'UPSTREAM_ERROR', message: 'The shop could not confirm the total of this order: please contact the shop' });
    });
    expect(world.calls).not.toContain('createProcessorPayment');
    expect(world.session.status).toBe('OPEN');
  });

  it('given a paid checkout the store would book for more (its tax not charged) / no paid store order: the order fails with the store\'s totals, the merchant is told, the money is kept', async () => {
    const world = newWorld();
    world.storeBooks = FAKE_QUOTE.totalMinor + 568;
    const result = await withCheckout(world, async (handle) => {
      await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      await handle.signal(processorEventSignal, event('payment_succeeded'));
      return handle.result();
    });
    expect(result).toEqual({ status: 'COMPLETED' });
    expect(world.storeOrders).toEqual([]);
    expect(world.session.storeOrderError).toMatch(/would book 3558, the shopper was charged 2990/);
    expect(world.emails.sort()).toEqual(['merchant_order_notification', 'order_confirmation', 'store_order_problem']);
  });

  it('given a store that is down for a while / the order is retried until it lands, once', async () => {
    const world = newWorld();
    world.faults.createStoreOrder = ['retryable', 'retryable', 'retryable', 'retryable'];
    await withCheckout(world, async (handle) => {
      await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      await handle.signal(processorEventSignal, event('payment_succeeded'));
      return handle.result();
    });
    expect(world.calls.filter((c) => c === 'createStoreOrder')).toHaveLength(5);
    expect(world.storeOrders).toHaveLength(1);
    expect(world.session.storeOrderError).toBeNull();
  });

  it('given a payment that succeeded without a webhook and a processor that fails the first poll / the next poll finds it: COMPLETED, one order', async () => {
    const world = newWorld();
    // The first poll's three attempts fail (the activity's retry policy): the run must carry on to the next poll.
    world.faults.getProcessorPaymentStatus = ['retryable', 'retryable', 'retryable'];
    const result = await withCheckout(world, async (handle) => {
      await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      world.processor.status = 'succeeded';
      return handle.result();
    });
    expect(result).toEqual({ status: 'COMPLETED' });
    expect(world.processor.lookups).toBe(1);
    expect(world.storeOrders).toHaveLength(1);
    expect(world.session.statusWrites.at(-1)).toMatchObject({ to: 'COMPLETED', cause: 'payment_succeeded (sync:pay_1:succeeded)' });
  });

  it('given a payment nobody ever completes / after 24 hours of polls it is ABANDONED', async () => {
    const world = newWorld();
    const { result, times } = await withCheckout(world, async (handle) => {
      await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      const result = await handle.result();
      // When the workflow asked, on the test server's (skipped) clock: the history's own times.
      return { result, times: activityCalls((await handle.fetchHistory()).events ?? [], 'getProcessorPaymentStatus').map((c) => c.at) };
    });
    expect(result).toEqual({ status: 'ABANDONED' });
    expect(world.session.statusWrites.at(-1)).toEqual({ to: 'ABANDONED', cause: 'no payment result' });
    expect(world.merchantEvents).toEqual(['session.abandoned']);
    expect(times).toHaveLength(world.processor.lookups);
    // Asked 5 minutes after the start, then backing off by doubling up to an hour, for 24 hours.
    const gaps = times.slice(1).map((t, i) => Math.round((t - times[i]!) / MINUTE));
    expect(gaps.slice(0, 5)).toEqual([10, 20, 40, 60, 60]);
    expect(new Set(gaps.slice(4))).toEqual(new Set([60]));
    // The last wait starts before the 24 hours are up and may end up to an hour after.
    expect(times.at(-1)! - times[0]!).toBeGreaterThan(23 * HOUR);
    expect(times.at(-1)! - times[0]!).toBeLessThan(25 * HOUR);
  });

  it('given a session nobody acts on / it is ABANDONED after 24 hours', async () => {
    const world = newWorld({ idleForMs: 23 * HOUR });
    const result = await withCheckout(world, (handle) => handle.result());
    expect(result).toEqual({ status: 'ABANDONED' });
    expect(world.calls).not.toContain('createProcessorPayment');
    expect(world.merchantEvents).toEqual(['session.abandoned']);
  });

  it('given a session idle for longer than the delay when its workflow starts (the idle sweep) / ABANDONED at load, reported once', async () => {
    const world = newWorld({ idleForMs: 25 * HOUR });
    const result = await withCheckout(world, (handle) => handle.result());
    expect(result).toEqual({ status: 'ABANDONED' });
    expect(world.session.statusWrites).toEqual([{ to: 'ABANDONED', cause: 'no progress for 24 hours' }]);
    expect(world.merchantEvents).toEqual(['session.abandoned']);
    expect(world.calls.filter((c) => c === 'emitMerchantEvent')).toHaveLength(1);
  });

  it('given a completed card payment / the refund is asked of the processor once; confirmed, it is booked on the store, REFUNDED, one email', async () => {
    const world = newWorld();
    world.processor.settleRefunds = false;
    const result = await withCheckout(world, async (handle) => {
      await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      await handle.signal(processorEventSignal, event('payment_succeeded'));
      const refund = await handle.executeUpdate(refundUpdate, { args: [{}] });
      expect(refund).toMatchObject({ status: 'COMPLETED', refund: { state: 'requested', amountMinor: FAKE_QUOTE.totalMinor, currency: 'EUR' } });
      expect(await refusedWith(handle.executeUpdate(refundUpdate, { args: [{}] }))).toBe('REFUND_ALREADY_REQUESTED');
      // The processor confirms it; its events arrive twice.
      for (const r of world.refundRows) r.state = 'succeeded';
      await handle.signal(processorEventSignal, event('payment_refunded'));
      await handle.signal(processorEventSignal, event('invoice_refunded'));
      return handle.result();
    });
    expect(result).toEqual({ status: 'REFUNDED' });
    expect(world.processor.refunds).toBe(1);
    expect(world.storeRefunds).toEqual([world.refundRows[0]!.id]);
    expect(world.emails.filter((e) => e.startsWith('refund_confirmation'))).toEqual([`refund_confirmation:${world.refundRows[0]!.id}`]);
    expect(world.merchantEvents).toEqual(['session.completed', 'session.refunded']);
    expect(world.calls.filter((c) => c === 'emitMerchantEvent')).toHaveLength(2);
  });

  it('given the merchant wants refund notices / a confirmed refund sends the shopper\'s email and the merchant\'s notice, each once; without, the notice is asked and switched off', async () => {
    for (const notifyRefund of [true, false]) {
      const world = newWorld();
      world.notifyRefund = notifyRefund;
      const result = await withCheckout(world, async (handle) => {
        await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
        await handle.signal(processorEventSignal, event('payment_succeeded'));
        await handle.executeUpdate(refundUpdate, { args: [{}] });
        for (const r of world.refundRows) r.state = 'succeeded';
        await handle.signal(processorEventSignal, event('payment_refunded'));
        await handle.signal(processorEventSignal, event('payment_refunded'));
        return handle.result();
      });
      expect(result).toEqual({ status: 'REFUNDED' });
      const id = world.refundRows[0]!.id;
      expect(world.emails.filter((e) => e.includes(id)).sort()).toEqual(notifyRefund ? [`merchant_refund_notification:${id}`, `refund_confirmation:${id}`] : [`refund_confirmation:${id}`]);
      expect(world.calls.filter((c) => c === 'sendMerchantRefundNotification')).toHaveLength(1);
    }
  });

  it('given a completed card payment / two partial refunds: each booked on the store and emailed once; COMPLETED until the last unit, then REFUNDED; more than is left is refused', async () => {
    const world = newWorld();
    let release = () => undefined as void;
    world.holds.sendRefundConfirmation = new Promise<void>((resolve) => (release = resolve));
    const result = await withCheckout(world, async (handle) => {
      await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      await handle.signal(processorEventSignal, event('payment_succeeded'));
      await handle.executeUpdate(refundUpdate, { args: [{ amountMinor: 100, reason: 'scratched', restock: false }] });
      expect(await handle.query(statusQuery)).toEqual({ status: 'COMPLETED' });
      expect(await refusedWith(handle.executeUpdate(refundUpdate, { args: [{ amountMinor: FAKE_QUOTE.totalMinor }] }))).toBe('REFUND_EXCEEDS_BALANCE');
      // A status sync that reads the partial refund as "paid" must not undo anything.
      await handle.signal(processorEventSignal, event('payment_succeeded'));
      expect(await handle.query(statusQuery)).toEqual({ status: 'COMPLETED' });
      await handle.executeUpdate(refundUpdate, { args: [{}] });
      expect(await statusAfterSignals(handle, 'REFUNDED')).toBe('REFUNDED');
      release();
      return handle.result();
    });
    expect(result).toEqual({ status: 'REFUNDED' });
    expect(world.refundRows.map((r) => [r.amountMinor, r.state, r.storeState])).toEqual([[100, 'succeeded', 'created'], [FAKE_QUOTE.totalMinor - 100, 'succeeded', 'created']]);
    expect(world.emails.filter((e) => e.startsWith('refund_confirmation')).sort()).toEqual(world.refundRows.map((r) => `refund_confirmation:${r.id}`).sort());
    expect(world.session.statusWrites.map((w) => w.to)).toEqual(['PAYMENT_PENDING', 'COMPLETED', 'REFUNDED']);
  });

  it('given a refund made in the store (a store refund signalled twice) / refunded at the processor once, not booked on the store again', async () => {
    const world = newWorld();
    let release = () => undefined as void;
    world.holds.sendRefundConfirmation = new Promise<void>((resolve) => (release = resolve));
    await withCheckout(world, async (handle) => {
      await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      await handle.signal(processorEventSignal, event('payment_succeeded'));
      for (let i = 0; i < 2; i++) await handle.signal(storeRefundSignal, { storeRefundId: '9001', amountMinor: 500, reason: 'returned' });
      for (let i = 0; i < 50 && !world.calls.includes('sendRefundConfirmation'); i++) await new Promise((r) => setTimeout(r, 20));
      release();
      return handle.result();
    });
    expect(world.refundRows).toEqual([expect.objectContaining({ amountMinor: 500, origin: 'store', storeRefundId: '9001', storeState: 'created', state: 'succeeded' })]);
    expect(world.storeRefunds).toEqual([]);
    expect(world.processor.refunds).toBe(1);
  });

  it('given a delayed success whose payment the processor shows refunded / ON_HOLD: no store order, the merchant told, then REFUNDED with the refund recorded', async () => {
    const world = newWorld();
    world.processor.verdict = 'payment_refunded';
    // The processor's own refund (made in its dashboard) is on its list.
    world.refundRows.push({ id: 'a0000000-0000-4000-8000-000000000001', amountMinor: FAKE_QUOTE.totalMinor, state: 'succeeded', storeState: 'pending', origin: 'processor' });
    const result = await withCheckout(world, async (handle) => {
      await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      await handle.signal(processorEventSignal, event('payment_succeeded'));
      return handle.result();
    });
    expect(result).toEqual({ status: 'REFUNDED' });
    expect(world.session.holdReason).toBe('payment_refunded');
    expect(world.session.statusWrites.map((w) => w.to)).toEqual(['PAYMENT_PENDING', 'ON_HOLD', 'REFUNDED']);
    expect(world.storeOrders).toEqual([]);
    expect(world.refundRows[0]!.storeState).toBe('none');
    expect(world.emails.sort()).toEqual(['payment_held', 'refund_confirmation:a0000000-0000-4000-8000-000000000001']);
    expect(world.calls).not.toContain('createStoreOrder');
  });

  it.each(['amount_mismatch', 'currency_mismatch', 'payment_disputed'] as const)('given a success whose payment the processor shows %s / ON_HOLD, no store order, no shopper confirmation, the merchant told once', async (reason) => {
    const world = newWorld();
    world.processor.verdict = reason;
    const result = await withCheckout(world, async (handle) => {
      await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      await handle.signal(processorEventSignal, event('payment_succeeded'));
      await handle.signal(processorEventSignal, event('payment.succeeded'));
      return handle.result();
    });
    expect(result).toEqual({ status: 'ON_HOLD' });
    expect(world.session.holdReason).toBe(reason);
    expect(world.storeOrders).toEqual([]);
    expect(world.emails).toEqual(['payment_held']);
    expect(world.merchantEvents).toEqual([]);
  });

  it('given a lone membership event with no paid payment behind it / nothing happens: no order, still pending', async () => {
    const world = newWorld();
    world.processor.verdict = 'unpaid';
    await withCheckout(world, async (handle) => {
      await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      await handle.signal(processorEventSignal, event('membership_activated', 'mem_1'));
      await handle.signal(processorEventSignal, event('payment_failed'));
      expect(await statusAfterSignals(handle, 'FAILED')).toBe('FAILED');
    });
    expect(world.storeOrders).toEqual([]);
    expect(world.session.statusWrites.map((w) => w.to)).toEqual(['PAYMENT_PENDING', 'FAILED']);
  });

  it('given the processor unreachable when the success arrives / the event waits, is asked about again, and completes once', async () => {
    const world = newWorld();
    world.faults.checkSessionPayment = ['retryable', 'retryable', 'retryable'];
    const result = await withCheckout(world, async (handle) => {
      await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      await handle.signal(processorEventSignal, event('payment_succeeded'));
      return handle.result();
    });
    expect(result).toEqual({ status: 'COMPLETED' });
    expect(world.calls.filter((c) => c === 'checkSessionPayment').length).toBeGreaterThanOrEqual(4);
    expect(world.storeOrders).toHaveLength(1);
  });
});

describe('the checkout workflow, given a one-click upsell accepted on the paid checkout', () => {
  const UPSELL = '7f0b8c2e-3c4d-4e5f-8a9b-0c1d2e3f4a5b';
  const upsellEvent = (name: string, eventId = `evt_${++eventSeq}`) => ({ eventId, event: name, paymentId: `pay_upsell_${UPSELL}`, upsellId: UPSELL });

  it('charges it once, adds its order once and one email, whatever the clicks and duplicate or late webhooks; the checkout stays COMPLETED', async () => {
    const world = newWorld();
    // The run ends once everything is done: hold the upsell's email so every event below reaches this run (in
    // production a late webhook starts a new run with signal-with-start instead).
    let release = () => undefined as void;
    world.holds.sendUpsellConfirmation = new Promise<void>((resolve) => (release = resolve));
    const result = await withCheckout(world, async (handle) => {
      await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      await handle.signal(processorEventSignal, event('payment_succeeded'));
      const first = await handle.executeUpdate(acceptUpsellUpdate, { args: [{ upsellId: UPSELL }] });
      expect(first).toMatchObject({ upsellId: UPSELL, state: 'paid' });
      expect(await handle.executeUpdate(acceptUpsellUpdate, { args: [{ upsellId: UPSELL }] })).toEqual(first);
      // Whop's webhooks for the upsell's payment: twice, a failure after the success, and a success again.
      const dup = upsellEvent('payment_succeeded');
      for (const e of [dup, dup, upsellEvent('payment_failed'), upsellEvent('payment.succeeded')]) await handle.signal(processorEventSignal, e);
      release();
      return handle.result();
    });
    expect(result).toEqual({ status: 'COMPLETED' });
    expect(world.upsells.get(UPSELL)).toEqual({ state: 'paid', charges: 1 });
    expect(world.storeOrders.filter((o) => o.startsWith('upsell-'))).toEqual([`upsell-${UPSELL}`]);
    expect(world.storeOrders).toHaveLength(2);
    expect(world.emails.sort()).toEqual(['merchant_order_notification', 'order_confirmation', `upsell_confirmation:${UPSELL}`]);
    expect(world.session.statusWrites.map((w) => w.to)).toEqual(['PAYMENT_PENDING', 'COMPLETED']);
  });

  it('given the charge pending / its order waits for the success webhook; a refund of the upsell does not refund the checkout', async () => {
    const world = newWorld();
    world.upsellChargeAnswer = 'pending';
    let release = () => undefined as void;
    world.holds.sendUpsellConfirmation = new Promise<void>((resolve) => (release = resolve));
    const result = await withCheckout(world, async (handle) => {
      await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      await handle.signal(processorEventSignal, event('payment_succeeded'));
      expect(await handle.executeUpdate(acceptUpsellUpdate, { args: [{ upsellId: UPSELL }] })).toMatchObject({ state: 'pending' });
      expect(world.storeOrders).toHaveLength(1);
      await handle.signal(processorEventSignal, upsellEvent('payment_succeeded'));
      await handle.signal(processorEventSignal, upsellEvent('payment_refunded'));
      release();
      return handle.result();
    });
    expect(result).toEqual({ status: 'COMPLETED' });
    expect(world.upsells.get(UPSELL)?.state).toBe('refunded');
    expect(world.storeOrders).toEqual([expect.stringMatching(/^order-/), `upsell-${UPSELL}`]);
  });

  it('given a checkout not paid / the offer is refused and nothing is charged', async () => {
    const world = newWorld();
    await withCheckout(world, async (handle) => {
      await handle.executeUpdate(initPaymentUpdate, { args: [details()] });
      expect(await refusedWith(handle.executeUpdate(acceptUpsellUpdate, { args: [{ upsellId: UPSELL }] }))).toBe('UPSELL_NOT_AVAILABLE');
      await handle.signal(processorEventSignal, event('payment_succeeded'));
      return handle.result();
    });
    expect(world.upsells.size).toBe(0);
  });
});
