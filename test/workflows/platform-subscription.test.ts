// The platform subscription's clocks, on the time-skipping test server with the real activities against a
// real database, the processor sandbox (the platform's own Whop company) and the sandbox mailbox: Whop bills
// each renewal itself (the sandbox's control plane plays its billing run), and at the period end the workflow
// reads the membership: renewed is a new period; past due is retried over the grace period and then the
// account returns to Demo, with one email per step; cancel returns to Demo at once; a first payment never
// made is given up. Billing events while paid (delivered as the billing webhook route does, signal-with-start)
// make it read the membership at once: ended at Whop → Demo, renewed → the next period, past due → grace, each
// once however often and in whatever order the events come. Months pass in seconds: time skips while the test
// sleeps or awaits the result.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { platformSubscriptionWorkflow } from '../../workflows/billing/platform-subscription.js';
import { billingEventSignal, cancelUpdate, subscribeUpdate, subscriptionStateQuery, type BillingEventMessage, type PlatformSubscriptionTimings } from '../../workflows/billing/platform-subscription.messages.js';
import { readBillingStatus } from '../../model/merchant/billing-status.js';
import { createProcessorClient } from '../../integrations/processor/index.js';
import { PLATFORM_API_KEY } from '../../sandbox/processor/index.js';
import { startActivityRig, type ActivityRig } from '../harness/activity-rig.js';
import { startTimeSkipping, uniqueTaskQueue, type TimeSkippingTemporal } from '../harness/temporal.js';
import { WORKFLOWS } from '../../domain/temporal/workflow-names.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const TIMINGS: PlatformSubscriptionTimings = { periodMs: 30 * DAY, graceMs: 7 * DAY, renewalAttempts: 3, firstPollMs: 30_000, firstPaymentTimeoutMs: DAY };

let rig: ActivityRig;
let ts: TimeSkippingTemporal;

beforeAll(async () => {
  // Nothing listens at PUBLIC_API_URL here: the sandbox's billing webhooks go nowhere and the workflow
  // finds every payment by asking the processor (the webhook path is tested through the API).
  rig = await startActivityRig({ taskQueue: uniqueTaskQueue('billing'), env: { PUBLIC_API_URL: 'http://127.0.0.1:9' } });
});
afterAll(async () => {
  await rig?.close();
});
beforeEach(async () => {
  ts = await startTimeSkipping();
});
afterEach(async () => {
  await ts?.close();
});

const db = () => rig.database.db;
const platform = () => createProcessorClient({ apiKey: PLATFORM_API_KEY, baseUrl: `${rig.urls.processor}/api/v1` });

async function newMerchant() {
  const i = randomBytes(4).toString('hex');
  const email = `billing-${i}@shop.test`;
  const row = await db().merchant.create({ data: { email, passwordHash: 'x', shopName: `Billing Shop ${i}`, phone: '+49 30 1234', slug: `bill-${i}` } });
  return { id: row.id, email };
}

const start = (merchantId: string, timings = TIMINGS) =>
  ts.env.client.workflow.start(platformSubscriptionWorkflow, { taskQueue: ts.taskQueue, workflowId: WORKFLOWS.platformSubscription.id(merchantId), args: [{ merchantId, timings }] });

/** The merchant on the processor's hosted page with the test card that succeeds. */
async function pay(paymentUrl: string) {
  const res = await fetch(paymentUrl, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ card_number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123', name: 'Merchant' }).toString(),
  });
  expect(res.status).toBe(303);
}

/** The billing emails the merchant got, by kind (tag), in the sandbox mailbox. */
function emailsTo(email: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const m of rig.sims.email.messages({ to: email })) counts[m.Tag ?? ''] = (counts[m.Tag ?? ''] ?? 0) + 1;
  return counts;
}

/** Whop's membership (mem_…) of the merchant's paid first payment. */
async function subscriptionMembership(merchantId: string): Promise<string> {
  const [first] = await payments(merchantId);
  const [paid] = await platform().listPayments({ companyId: (await platform().getAccount()).id, checkoutIds: [first!.processorMembershipId] });
  return paid!.membershipId!;
}

const subscription = (merchantId: string) => db().platformSubscription.findUniqueOrThrow({ where: { merchantId } });
const payments = (merchantId: string) => db().platformBillingPayment.findMany({ where: { merchantId }, orderBy: [{ createdAt: 'asc' }, { attempt: 'asc' }] });

/** Subscribes to STARTER and pays; the workflow's first look at the processor (30 s later) activates the plan. */
async function subscribeAndPay(handle: WorkflowHandle, merchantId: string, timings = TIMINGS) {
  const { paymentUrl } = await handle.executeUpdate(subscribeUpdate, { args: [{ planId: 'STARTER' }] });
  expect(await subscription(merchantId)).toMatchObject({ planId: 'FREE', status: 'PENDING', pendingPlanId: 'STARTER', pendingPaymentUrl: paymentUrl });
  expect((await readBillingStatus(db(), merchantId)).paid).toBe(false);
  // A double click answers the same page.
  expect((await handle.executeUpdate(subscribeUpdate, { args: [{ planId: 'STARTER' }] })).paymentUrl).toBe(paymentUrl);
  await pay(paymentUrl);
  await ts.env.sleep(MINUTE);
  const active = await subscription(merchantId);
  expect(active).toMatchObject({ planId: 'STARTER', status: 'ACTIVE', pendingPlanId: null, renewalFailures: 0 });
  expect(active.currentPeriodEnd!.getTime() - active.currentPeriodStart!.getTime()).toBe(timings.periodMs);
  expect(await readBillingStatus(db(), merchantId)).toMatchObject({ planId: 'STARTER', paid: true, status: 'ACTIVE' });
  return active;
}

/** Whop's billing run for the membership's next period (card on file), ahead of the period end the workflow reads it at. */
async function whopBillsRenewal(membershipId: string, outcome: 'succeeded' | 'failed') {
  const answer = await fetch(`${rig.urls.processor}/_control/memberships/${membershipId}/renew`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ outcome }),
  });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { payment: { id: string } }).payment;
}

/** A STARTER plan subscribed to and paid (ACTIVE): its workflow, the first period, Whop's membership. */
async function activePlan(merchantId: string, timings = TIMINGS) {
  const handle = await start(merchantId, timings);
  const first = await subscribeAndPay(handle, merchantId, timings);
  return { handle, first, membershipId: first.processorMembershipId!, firstEnd: first.currentPeriodEnd!.getTime() };
}

/** A billing event as the billing webhook route passes it on: signal-with-start, so an ended workflow starts anew. */
async function deliver(merchantId: string, message: BillingEventMessage, timings = TIMINGS) {
  await ts.env.client.workflow.signalWithStart(platformSubscriptionWorkflow, {
    taskQueue: ts.taskQueue, workflowId: WORKFLOWS.platformSubscription.id(merchantId), args: [{ merchantId, timings }],
    signal: billingEventSignal, signalArgs: [message],
  });
}

/** Ends the membership at Whop at once, as a cancel in Whop's own pages, a refund or a dispute does. */
async function whopEndsMembership(membershipId: string) {
  expect(await platform().cancelMembership(membershipId)).toMatchObject({ status: 'canceled', valid: false });
}

/** When each renewal charge was scheduled, in the (skipped) time of the run that charged them. */
async function chargeTimes(workflowId: string): Promise<number[]> {
  const history = await ts.env.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'chargePlatformRenewal')
    .map((e) => Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6));
}

describe('platform subscription renewals (time-skipping)', () => {
  it('given a paid STARTER plan / when the period ends / the renewal is charged once and a new period starts, with no email but the activation', async () => {
    const merchant = await newMerchant();
    await ts.withWorker(rig.activities, async () => {
      const handle = await start(merchant.id);
      const first = await subscribeAndPay(handle, merchant.id);
      const billed = await whopBillsRenewal(first.processorMembershipId!, 'succeeded');

      await ts.env.sleep(TIMINGS.periodMs! + HOUR);

      const renewed = await subscription(merchant.id);
      expect(renewed).toMatchObject({ planId: 'STARTER', status: 'ACTIVE', renewalFailures: 0, graceUntil: null });
      expect(renewed.currentPeriodStart).toEqual(first.currentPeriodEnd);
      expect(renewed.currentPeriodEnd!.getTime()).toBe(first.currentPeriodEnd!.getTime() + TIMINGS.periodMs!);
      expect((await payments(merchant.id)).map((p) => [p.kind, p.attempt, p.status, p.amountCents])).toEqual([
        ['first', 1, 'SUCCEEDED', 2_900],
        ['renewal', 1, 'SUCCEEDED', 2_900],
      ]);
      // Whop charged the membership once more, on the card on file; the period we read is the one it billed.
      const membership = await platform().getMembership(renewed.processorMembershipId!);
      expect(membership).toMatchObject({ status: 'active', valid: true });
      expect(Date.parse(membership.periodEnd!)).toBeGreaterThan(first.currentPeriodEnd!.getTime());
      expect((await platform().getPayment(billed.id)).state).toBe('paid');
      expect(await handle.query(subscriptionStateQuery)).toMatchObject({ planId: 'STARTER', status: 'ACTIVE', periodEnd: renewed.currentPeriodEnd!.getTime() });

      await handle.executeUpdate(cancelUpdate);
      expect(await handle.result()).toEqual({ planId: 'FREE', status: 'DEMO', reason: 'cancelled' });
    });
    expect(emailsTo(merchant.email)).toEqual({ billing_activated: 1, billing_cancelled: 1 });
  });

  it('given renewals that keep failing / 3 charges over the 7-day grace period, PAST_DUE (still paid) in between, then Demo with one email per step', async () => {
    const merchant = await newMerchant();
    const workflowId = WORKFLOWS.platformSubscription.id(merchant.id);
    const { result, periodEnd, graceState } = await ts.withWorker(rig.activities, async () => {
      const handle = await start(merchant.id);
      const active = await subscribeAndPay(handle, merchant.id);
      await whopBillsRenewal(active.processorMembershipId!, 'failed');
      const end = active.currentPeriodEnd!.getTime();

      // Just past the first failed charge: in grace, still paid.
      await ts.env.sleep(end - (await ts.env.currentTimeMs()) + HOUR);
      const grace = { row: await subscription(merchant.id), billing: await readBillingStatus(db(), merchant.id) };

      return { result: await handle.result(), periodEnd: end, graceState: grace };
    });

    expect(graceState.row).toMatchObject({ planId: 'STARTER', status: 'PAST_DUE', renewalFailures: 1 });
    expect(graceState.row.graceUntil!.getTime()).toBe(periodEnd + TIMINGS.graceMs!);
    expect(graceState.row.nextRetryAt!.getTime()).toBe(periodEnd + TIMINGS.graceMs! / 2);
    expect(graceState.billing).toMatchObject({ paid: true, status: 'PAST_DUE' });

    expect(result).toEqual({ planId: 'FREE', status: 'DEMO', reason: 'grace_expired' });
    // The charges ran at the period end, half-way through the grace period and at its end; only then Demo.
    const times = await chargeTimes(workflowId);
    expect(times).toHaveLength(3);
    times.forEach((at, n) => {
      const due = periodEnd + (TIMINGS.graceMs! * n) / 2;
      expect(at).toBeGreaterThanOrEqual(due);
      expect(at).toBeLessThan(due + MINUTE);
    });
    expect(await ts.env.currentTimeMs()).toBeGreaterThanOrEqual(periodEnd + TIMINGS.graceMs!);

    const row = await subscription(merchant.id);
    expect(row).toMatchObject({ planId: 'FREE', status: 'DEMO', endedReason: 'grace_expired', processorMembershipId: null, currentPeriodEnd: null, cancelledAt: null });
    expect(await readBillingStatus(db(), merchant.id)).toEqual({ planId: 'FREE', paid: false, status: 'DEMO', currentPeriodEnd: null });
    expect((await payments(merchant.id)).map((p) => [p.kind, p.attempt, p.status])).toEqual([
      ['first', 1, 'SUCCEEDED'],
      ['renewal', 1, 'FAILED'],
      ['renewal', 2, 'FAILED'],
      ['renewal', 3, 'FAILED'],
    ]);
    expect(emailsTo(merchant.email)).toEqual({ billing_activated: 1, billing_renewal_failed: 2, billing_downgraded: 1 });
    const failed = rig.sims.email.messages({ to: merchant.email, tag: 'billing_renewal_failed' });
    expect(failed.map((m) => m.TextBody.match(/attempt \d of \d/)?.[0]).sort()).toEqual(['attempt 1 of 3', 'attempt 2 of 3']);
    // Whop stops billing it.
    expect((await platform().getMembership((await subscriptionMembership(merchant.id)))).status).toBe('canceled');
  });

  it('given a plan PAST_DUE after a failed renewal / the merchant pays again on a new page / ACTIVE for a new period, the old membership cancelled', async () => {
    const merchant = await newMerchant();
    await ts.withWorker(rig.activities, async () => {
      const handle = await start(merchant.id);
      const active = await subscribeAndPay(handle, merchant.id);
      await whopBillsRenewal(active.processorMembershipId!, 'failed');
      await ts.env.sleep(active.currentPeriodEnd!.getTime() - (await ts.env.currentTimeMs()) + HOUR);
      expect(await subscription(merchant.id)).toMatchObject({ status: 'PAST_DUE', renewalFailures: 1 });

      const { paymentUrl } = await handle.executeUpdate(subscribeUpdate, { args: [{ planId: 'STARTER' }] });
      expect(await subscription(merchant.id)).toMatchObject({ planId: 'STARTER', status: 'PAST_DUE', pendingPlanId: 'STARTER' });
      await pay(paymentUrl);
      await ts.env.sleep(MINUTE);

      const renewed = await subscription(merchant.id);
      expect(renewed).toMatchObject({ planId: 'STARTER', status: 'ACTIVE', renewalFailures: 0, graceUntil: null, nextRetryAt: null, pendingPlanId: null });
      expect(renewed.processorMembershipId).not.toBe(active.processorMembershipId);
      expect((await platform().getMembership(active.processorMembershipId!)).status).toBe('canceled');
      // The new period starts at the payment: no further charges of the old period are due.
      await ts.env.sleep(TIMINGS.graceMs! + HOUR);
      expect(await subscription(merchant.id)).toMatchObject({ status: 'ACTIVE', processorMembershipId: renewed.processorMembershipId });
      expect((await payments(merchant.id)).filter((p) => p.kind === 'renewal').map((p) => p.status)).toEqual(['FAILED']);

      await handle.executeUpdate(cancelUpdate);
      await handle.result();
    });
    expect(emailsTo(merchant.email)).toEqual({ billing_activated: 2, billing_renewal_failed: 1, billing_cancelled: 1 });
  });

  it('given an active plan / when the merchant cancels / the account is on Demo when the answer comes, the membership is cancelled, one email', async () => {
    const merchant = await newMerchant();
    const { result, cancelledAt, ranFor, rowAfterCancel, billingAfterCancel } = await ts.withWorker(rig.activities, async () => {
      const handle = await start(merchant.id);
      await subscribeAndPay(handle, merchant.id);

      const answer = await handle.executeUpdate(cancelUpdate);
      expect(answer).toEqual({ previousPlanId: 'STARTER' });
      const rowAfterCancel = await subscription(merchant.id);
      const billingAfterCancel = await readBillingStatus(db(), merchant.id);
      const result = await handle.result();
      // The run that was cancelled (started at activation), start to close in its own time. The server's clock
      // is no measure here: once the result is in it may jump to the next pending timer.
      const { startTime, closeTime } = await ts.env.client.workflow.getHandle(WORKFLOWS.platformSubscription.id(merchant.id)).describe();
      return { result, cancelledAt: rowAfterCancel.cancelledAt, ranFor: closeTime!.getTime() - startTime.getTime(), rowAfterCancel, billingAfterCancel };
    });

    expect(rowAfterCancel).toMatchObject({ planId: 'FREE', status: 'DEMO', endedReason: 'cancelled', processorMembershipId: null, pendingPlanId: null });
    expect(cancelledAt).not.toBeNull();
    expect(billingAfterCancel).toEqual({ planId: 'FREE', paid: false, status: 'DEMO', currentPeriodEnd: null });
    expect(result).toEqual({ planId: 'FREE', status: 'DEMO', reason: 'cancelled' });
    // Nothing waited for the period to end.
    expect(ranFor).toBeLessThan(HOUR);
    expect(await platform().getMembership(await subscriptionMembership(merchant.id))).toMatchObject({ status: 'canceled', valid: false });
    expect((await payments(merchant.id)).filter((p) => p.kind === 'renewal')).toHaveLength(0);
    expect(emailsTo(merchant.email)).toEqual({ billing_activated: 1, billing_cancelled: 1 });
  });

  it('given a first payment never made / after its 24 hours the page is given up: Demo, membership cancelled, no email', async () => {
    const merchant = await newMerchant();
    const result = await ts.withWorker(rig.activities, async () => {
      const handle = await start(merchant.id);
      await handle.executeUpdate(subscribeUpdate, { args: [{ planId: 'GROWTH' }] });
      return handle.result();
    });

    expect(result).toEqual({ planId: 'FREE', status: 'DEMO', reason: 'payment_expired' });
    expect(await subscription(merchant.id)).toMatchObject({ planId: 'FREE', status: 'DEMO', endedReason: 'payment_expired', pendingPlanId: null });
    const [first] = await payments(merchant.id);
    expect(first).toMatchObject({ kind: 'first', planId: 'GROWTH', amountCents: 7_900, status: 'FAILED', error: 'payment_expired' });
    // Never paid: the checkout (ch_…) made no payment and no membership at Whop.
    expect(first!.processorMembershipId).toMatch(/^ch_/);
    expect(await platform().listPayments({ companyId: (await platform().getAccount()).id, checkoutIds: [first!.processorMembershipId] })).toEqual([]);
    expect(emailsTo(merchant.email)).toEqual({});
  });
});

describe('platform subscription following Whop\'s membership events (time-skipping)', () => {
  it('given an active plan / Whop ends the membership mid-period (membership.deactivated) / Demo at once, not at the period end, one email; the event again and an older one after it change nothing', async () => {
    const merchant = await newMerchant();
    const workflowId = WORKFLOWS.platformSubscription.id(merchant.id);
    const { result, closedAt, periodEnd } = await ts.withWorker(rig.activities, async () => {
      const { handle, membershipId, firstEnd } = await activePlan(merchant.id);
      const { runId } = await handle.describe();
      await ts.env.sleep(10 * DAY);

      await whopEndsMembership(membershipId);
      const deactivated = { eventId: 'msg_deactivated_00000000001', event: 'membership.deactivated', objectId: membershipId };
      await deliver(merchant.id, deactivated);
      await deliver(merchant.id, deactivated);
      await deliver(merchant.id, { eventId: 'msg_activated_000000000000', event: 'membership.activated', objectId: membershipId });
      const ran = ts.env.client.workflow.getHandle(workflowId, runId);
      const result = await ran.result();
      // A delivery that came after the run ended started one that found Demo and ended idle.
      await ts.env.sleep(5 * MINUTE);
      return { result, closedAt: (await ran.describe()).closeTime!.getTime(), periodEnd: firstEnd };
    });

    expect(result).toEqual({ planId: 'FREE', status: 'DEMO', reason: 'membership_ended' });
    // Policy: Whop will never bill an ended membership again, so no grace period: Demo when the event came.
    expect(closedAt).toBeLessThan(periodEnd - 19 * DAY);
    expect(await subscription(merchant.id)).toMatchObject({ planId: 'FREE', status: 'DEMO', endedReason: 'membership_ended', processorMembershipId: null, currentPeriodEnd: null, cancelledAt: null });
    expect(await readBillingStatus(db(), merchant.id)).toEqual({ planId: 'FREE', paid: false, status: 'DEMO', currentPeriodEnd: null });
    expect((await payments(merchant.id)).map((p) => [p.kind, p.attempt, p.status, p.error])).toEqual([
      ['first', 1, 'SUCCEEDED', null],
      ['renewal', 1, 'FAILED', 'canceled'],
    ]);
    expect(emailsTo(merchant.email)).toEqual({ billing_activated: 1, billing_downgraded: 1 });
    expect(rig.sims.email.messages({ to: merchant.email, tag: 'billing_downgraded' })[0]!.TextBody).toContain('ended at our payment provider');
  });

  it('given an active plan / Whop bills the renewal early (payment.succeeded) / the next period is recorded then, once: the event again and an older one after it change nothing, no email, no read at the old period end', async () => {
    const merchant = await newMerchant();
    const workflowId = WORKFLOWS.platformSubscription.id(merchant.id);
    await ts.withWorker(rig.activities, async () => {
      const { handle, membershipId, firstEnd } = await activePlan(merchant.id);
      await ts.env.sleep(10 * DAY);

      const billed = await whopBillsRenewal(membershipId, 'succeeded');
      const renewal = { eventId: 'msg_renewal_000000000000001', event: 'payment.succeeded', objectId: billed.id };
      await deliver(merchant.id, renewal);
      await ts.env.sleep(MINUTE);
      expect(await ts.env.currentTimeMs()).toBeLessThan(firstEnd - 19 * DAY);
      const renewed = await subscription(merchant.id);
      expect(renewed).toMatchObject({ planId: 'STARTER', status: 'ACTIVE', renewalFailures: 0, processorMembershipId: membershipId });
      expect(renewed.currentPeriodStart!.getTime()).toBe(firstEnd);
      expect(renewed.currentPeriodEnd!.getTime()).toBe(firstEnd + TIMINGS.periodMs!);

      // The same delivery again, then an older event (the first payment's membership.activated) after the newer one.
      await deliver(merchant.id, renewal);
      await deliver(merchant.id, { eventId: 'msg_activated_000000000000', event: 'membership.activated', objectId: membershipId });
      await ts.env.sleep(MINUTE);
      expect(await subscription(merchant.id)).toMatchObject({ status: 'ACTIVE', currentPeriodStart: renewed.currentPeriodStart, currentPeriodEnd: renewed.currentPeriodEnd });
      expect((await payments(merchant.id)).map((p) => [p.kind, p.attempt, p.status])).toEqual([
        ['first', 1, 'SUCCEEDED'],
        ['renewal', 1, 'SUCCEEDED'],
      ]);

      // Past the old period end: nothing is due there any more.
      await ts.env.sleep(firstEnd - (await ts.env.currentTimeMs()) + HOUR);
      expect(await chargeTimes(workflowId)).toEqual([]);
      expect(await handle.query(subscriptionStateQuery)).toMatchObject({ status: 'ACTIVE', periodEnd: renewed.currentPeriodEnd!.getTime(), renewalFailures: 0 });
      expect(await payments(merchant.id)).toHaveLength(2);

      await handle.executeUpdate(cancelUpdate);
      await handle.result();
    });
    expect(emailsTo(merchant.email)).toEqual({ billing_activated: 1, billing_cancelled: 1 });
  });

  it('given an active plan / Whop\'s renewal charge fails before our period end (past due) / PAST_DUE at once, counted once as attempt 1 of 3 with one email however many events; Whop\'s retry succeeding renews it', async () => {
    const merchant = await newMerchant();
    await ts.withWorker(rig.activities, async () => {
      const { handle, membershipId, firstEnd } = await activePlan(merchant.id);
      await ts.env.sleep(25 * DAY);

      // Whop's billing run declines: payment.failed and membership.deactivated (past due), one of them twice.
      const declined = await whopBillsRenewal(membershipId, 'failed');
      const failed = { eventId: 'msg_failed_0000000000000001', event: 'payment.failed', objectId: declined.id };
      await deliver(merchant.id, failed);
      await deliver(merchant.id, { eventId: 'msg_deactivated_00000000001', event: 'membership.deactivated', objectId: membershipId });
      await deliver(merchant.id, failed);
      await ts.env.sleep(MINUTE);
      expect(await ts.env.currentTimeMs()).toBeLessThan(firstEnd);
      const grace = await subscription(merchant.id);
      // Policy: past due is a failed renewal, so the grace period of our spec starts (from our period end).
      expect(grace).toMatchObject({ planId: 'STARTER', status: 'PAST_DUE', renewalFailures: 1 });
      expect(grace.graceUntil!.getTime()).toBe(firstEnd + TIMINGS.graceMs!);
      expect(grace.nextRetryAt!.getTime()).toBe(firstEnd + TIMINGS.graceMs! / 2);
      expect((await readBillingStatus(db(), merchant.id)).paid).toBe(true);
      expect(emailsTo(merchant.email)).toEqual({ billing_activated: 1, billing_renewal_failed: 1 });

      // Whop retries the card and it goes through: payment.succeeded and membership.activated.
      const retried = await whopBillsRenewal(membershipId, 'succeeded');
      await deliver(merchant.id, { eventId: 'msg_activated_00000000002', event: 'membership.activated', objectId: membershipId });
      await deliver(merchant.id, { eventId: 'msg_paid_00000000000000002', event: 'payment.succeeded', objectId: retried.id });
      await ts.env.sleep(MINUTE);
      const renewed = await subscription(merchant.id);
      expect(renewed).toMatchObject({ planId: 'STARTER', status: 'ACTIVE', renewalFailures: 0, graceUntil: null, nextRetryAt: null });
      expect(renewed.currentPeriodStart!.getTime()).toBe(firstEnd);
      expect(renewed.currentPeriodEnd!.getTime()).toBe(firstEnd + TIMINGS.periodMs!);
      expect((await payments(merchant.id)).map((p) => [p.kind, p.attempt, p.status, p.error])).toEqual([
        ['first', 1, 'SUCCEEDED', null],
        ['renewal', 1, 'FAILED', 'past_due'],
        ['renewal', 2, 'SUCCEEDED', null],
      ]);

      await handle.executeUpdate(cancelUpdate);
      await handle.result();
    });
    expect(emailsTo(merchant.email)).toEqual({ billing_activated: 1, billing_renewal_failed: 1, billing_cancelled: 1 });
  });

  it('given Whop\'s paid period reaching past our next one (its 30-day periods against a shorter one of ours, as against a February) / the same Whop state read on two events / one renewal, our period carried to Whop\'s end', async () => {
    const merchant = await newMerchant();
    const short = { ...TIMINGS, periodMs: 10 * DAY };
    await ts.withWorker(rig.activities, async () => {
      const { handle, first, membershipId } = await activePlan(merchant.id, short);

      const billed = await whopBillsRenewal(membershipId, 'succeeded');
      const whopEnd = Date.parse((await platform().getMembership(membershipId)).periodEnd!);
      expect(whopEnd).toBeGreaterThan(first.currentPeriodEnd!.getTime() + short.periodMs);
      await deliver(merchant.id, { eventId: 'msg_renewal_000000000000001', event: 'payment.succeeded', objectId: billed.id }, short);
      await ts.env.sleep(MINUTE);
      await deliver(merchant.id, { eventId: 'msg_cancel_flag_00000000001', event: 'membership.cancel_at_period_end_changed', objectId: membershipId }, short);
      await ts.env.sleep(MINUTE);

      const renewed = await subscription(merchant.id);
      expect(renewed).toMatchObject({ status: 'ACTIVE', renewalFailures: 0 });
      expect(renewed.currentPeriodStart).toEqual(first.currentPeriodEnd);
      expect(renewed.currentPeriodEnd!.getTime()).toBe(whopEnd);
      expect((await payments(merchant.id)).map((p) => [p.kind, p.attempt, p.status])).toEqual([
        ['first', 1, 'SUCCEEDED'],
        ['renewal', 1, 'SUCCEEDED'],
      ]);
      await handle.executeUpdate(cancelUpdate);
      await handle.result();
    });
  });
});
