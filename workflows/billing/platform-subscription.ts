// A merchant's paid plan with the platform, one workflow per merchant (platform-subscription-<merchantId>):
// a subscribe opens a processor membership and waits for its first payment (the billing webhook cues a
// look, and the workflow asks the processor itself, backing off, until the payment page expires); once
// paid the plan is ACTIVE for a period. Whop bills every renewal itself; the workflow reads the membership at
// each period end and whenever a billing event arrives while the plan is paid (the event is only a cue: the API
// is the truth, so a duplicate or a late event changes nothing). Renewed → the next period; past due → a
// failed renewal, retried over a grace period (PAST_DUE, still paid), then the account returns to Demo; ended
// at Whop (canceled, expired) → Demo at once. Cancel returns it to Demo at once. Every step emails the merchant
// once. The workflow continues as new each period and resumes from platform_subscriptions, so its history stays
// short.
import {
  ApplicationFailure, allHandlersFinished, condition, continueAsNew, log, patched, proxyActivities, setHandler, workflowInfo,
} from '@temporalio/workflow';
import { DEFAULT_GRACE, FREE_PLAN_ID, isPaidPlan, isPaidStatus, periodEndFrom, renewalAttemptAt, type GracePolicy } from '../../domain/merchant/plans.js';
import type { ErrorCode } from '../../domain/errors.js';
import type { PlatformBillingActivities, RenewalCheck, SubscriptionRecord } from '../../activities/billing/platform-billing.js';
import { describeProcessorFailure } from '../processor/processor-connection.messages.js';
import {
  billingEventSignal, cancelUpdate, subscribeUpdate, subscriptionStateQuery,
  type CancelResult, type PlatformSubscriptionInput, type SubscribeResult,
} from './platform-subscription.messages.js';
import { PROFILES } from '../activity-profiles.js';

const HOUR = 60 * 60 * 1000;

/**
 * Billing events read the membership while the plan is paid, and a membership ended at Whop returns the plan to
 * Demo at once. Runs from before took a cue while paid as a look at a pending first payment only, and an ended
 * membership as a failed attempt; they replay unchanged (workflows/__histories__/platform-subscription-cue-while-paid-before-follow.json).
 */
export const FOLLOW_MEMBERSHIP_EVENTS_PATCH = 'follow-membership-events';

// Our own records: quick, retried for a while (they keep the account's plan true).
const records = proxyActivities<PlatformBillingActivities>(PROFILES.billingRecord);
// The merchant waits on subscribe: a few quick attempts, then a clear error.
const interactive = proxyActivities<PlatformBillingActivities>(PROFILES.billingWaitedOn);
// Charges, checks and cancellations in the background: keep trying through a processor outage (the
// renewal's idempotency key makes every retry the same charge).
const background = proxyActivities<PlatformBillingActivities>(PROFILES.billingBackground);
// Emails: a few attempts, never a flood.
const emails = proxyActivities<PlatformBillingActivities>(PROFILES.email);

const DEMO: SubscriptionRecord = { planId: FREE_PLAN_ID, status: 'DEMO', membershipId: null, periodStart: null, periodEnd: null, renewalFailures: 0, pending: null };

const refusal = (code: ErrorCode, message: string) => ApplicationFailure.create({ type: code, message, nonRetryable: true });

/** A failed subscribe as the answer the merchant gets (a rejected platform key is our misconfiguration). */
function subscribeFailure(err: unknown): ApplicationFailure {
  const { code, message } = describeProcessorFailure(err);
  if (code === 'INVALID_PROCESSOR_KEY') return refusal('NOT_READY', 'Platform billing is not available right now: try again later');
  return refusal(code, code === 'INTERNAL_ERROR' ? 'The payment could not be started: try again' : message);
}

export interface PlatformSubscriptionResult {
  planId: string;
  status: string;
  /** Why this run ended: cancelled, grace_expired, membership_ended, payment_failed, payment_expired, idle. */
  reason: string;
}

/** Keeps one merchant's paid plan paid for, period after period, or returns the account to Demo. */
export async function platformSubscriptionWorkflow(input: PlatformSubscriptionInput): Promise<PlatformSubscriptionResult> {
  const { merchantId } = input;
  const t = input.timings ?? {};
  const grace: GracePolicy = { attempts: Math.max(1, t.renewalAttempts ?? DEFAULT_GRACE.attempts), graceMs: t.graceMs ?? DEFAULT_GRACE.graceMs };
  const firstPaymentTimeoutMs = t.firstPaymentTimeoutMs ?? 24 * HOUR;
  const firstPollMs = t.firstPollMs ?? 30_000;

  let sub: SubscriptionRecord = DEMO;
  // Set by handlers: declared wide so the compiler does not narrow them to their first value.
  let cancelled = null as { previousPlanId: string; memberships: string[]; wasPaid: boolean } | null;
  let ended = null as string | null;
  let nextRun = false as boolean;
  /** Bumped by billing events (a cue to look at the processor) and by changes of the pending payment. */
  let cues = 0;
  /** Billing events received, and how many of them a read of the processor has answered (a failed read leaves them due). */
  let events = 0;
  let eventsAnswered = input.membershipCue ? -1 : 0;
  let pollDelay = firstPollMs;
  let nextPollAt = 0;
  let subscribes = 0;
  const seenEvents = new Set<string>();
  /** Processor clean-ups and emails run after the step that caused them, outside the lock, so a slow
   *  processor or mailbox never holds up a cancel. */
  const followUps: Array<() => Promise<void>> = [];
  let backoffUntil = 0;

  const paid = () => isPaidStatus(sub.planId, sub.status);

  // The run resumes from the database; handlers registered now wait for it (it heads the queue below).
  const load = records.loadPlatformSubscription(merchantId).then((found) => {
    sub = found ?? DEMO;
    if (sub.pending) nextPollAt = Date.now();
  });
  // One change at a time: updates, signals and the main loop's steps apply in order.
  let lock: Promise<unknown> = load;
  function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = lock.then(fn);
    lock = run.catch(() => undefined);
    return run;
  }

  function sendEmail(request: Parameters<PlatformBillingActivities['sendPlatformBillingEmail']>[0]) {
    followUps.push(() =>
      emails.sendPlatformBillingEmail(request).then(
        () => undefined,
        (err: unknown) => log.error('billing email failed', { merchantId, kind: request.kind, error: String(err) }),
      ));
  }

  function cancelAtProcessor(membershipId: string) {
    followUps.push(() =>
      background.cancelPlatformMembership(membershipId).catch((err: unknown) => log.error('membership not cancelled at the processor', { merchantId, membershipId, error: String(err) })));
  }

  async function runFollowUps() {
    while (followUps.length) await followUps.shift()!();
  }

  /** A renewal is charged only for a membership we hold (a plan granted without one never renews). */
  const renewalDueAt = () => (paid() && sub.periodEnd !== null && sub.membershipId ? renewalAttemptAt(sub.periodEnd, sub.renewalFailures, grace) : Infinity);

  /** The first payment of the pending plan: paid → ACTIVE; failed, or unpaid past its deadline → forgotten. */
  async function checkPending() {
    const pending = sub.pending;
    if (!pending) return;
    const { state } = await background.checkPlatformPayment(pending.membershipId);
    if (state === 'paid') {
      const replaced = paid() ? sub.membershipId : null;
      const periodStart = Date.now();
      const periodEnd = periodEndFrom(periodStart, t.periodMs);
      await records.activatePlatformPlan({ merchantId, planId: pending.planId, membershipId: pending.membershipId, periodStart, periodEnd });
      sub = { planId: pending.planId, status: 'ACTIVE', membershipId: pending.membershipId, periodStart, periodEnd, renewalFailures: 0, pending: null };
      if (replaced && replaced !== pending.membershipId) cancelAtProcessor(replaced);
      sendEmail({ merchantId, kind: 'billing_activated', idempotencyKey: `billing_activated:${pending.membershipId}`, planId: pending.planId, periodEnd });
      nextRun = true;
      return;
    }
    const expired = Date.now() >= pending.since + firstPaymentTimeoutMs;
    if (state === 'open' && !expired) {
      nextPollAt = Date.now() + pollDelay;
      pollDelay = Math.min(pollDelay * 2, HOUR);
      return;
    }
    // Cancelled at the processor so an old payment page can no longer take money.
    if (state === 'open') cancelAtProcessor(pending.membershipId);
    const reason = state === 'open' ? 'payment_expired' : 'payment_failed';
    await records.clearPendingPlatformPayment({ merchantId, membershipId: pending.membershipId, reason });
    sub = { ...sub, pending: null, status: sub.status === 'PENDING' ? 'DEMO' : sub.status };
    if (!paid()) ended = reason;
  }

  /** The renewal charge due now: Whop's word on the membership at the attempt's time. */
  async function renew() {
    const { planId, membershipId, periodEnd } = sub;
    if (!membershipId || periodEnd === null) return;
    const attempt = sub.renewalFailures + 1;
    await applyRenewal(await background.chargePlatformRenewal({ merchantId, planId, membershipId, periodEnd, attempt }), attempt);
  }

  /**
   * A billing event while paid: Whop's word on the membership now. Renewed or ended applies as at a due time; a
   * failure counts early only as the period's first one (never its last: the downgrade waits for the grace
   * period's own read); still in our period changes nothing.
   */
  async function followMembership() {
    const { planId, membershipId, periodEnd } = sub;
    if (!membershipId || periodEnd === null) return;
    const attempt = sub.renewalFailures + 1;
    const countsFailure = attempt === 1 && attempt < grace.attempts;
    const look = await background.followPlatformMembership({ merchantId, planId, membershipId, periodEnd, attempt, countsFailure });
    if (look.standing === 'current' || (look.standing === 'failing' && !countsFailure)) return;
    await applyRenewal(look, attempt);
  }

  /** Renewal `attempt` decided: success → next period; ended at Whop → Demo; failure → PAST_DUE and a retry, or Demo after the last. */
  async function applyRenewal(look: RenewalCheck, attempt: number) {
    const { planId, membershipId, periodEnd } = sub;
    if (!membershipId || periodEnd === null) return;
    if (look.outcome === 'succeeded') {
      // At least as far as Whop's own paid period: the same answer read again is no second renewal.
      const next = Math.max(periodEndFrom(periodEnd, t.periodMs), look.renewedUntil ?? 0);
      await records.recordPlatformRenewal({ merchantId, periodStart: periodEnd, periodEnd: next });
      sub = { ...sub, status: 'ACTIVE', periodStart: periodEnd, periodEnd: next, renewalFailures: 0 };
      nextRun = true;
      return;
    }
    // Whop will never bill an ended membership again: no grace to wait out. (Patched: a run whose read was
    // recorded by a worker of both versions during a rolling deploy took it as a failed attempt.)
    if (look.standing === 'ended' && patched(FOLLOW_MEMBERSHIP_EVENTS_PATCH)) return downgrade('membership_ended');
    const graceUntil = renewalAttemptAt(periodEnd, grace.attempts - 1, grace);
    if (attempt >= grace.attempts) return downgrade('grace_expired');
    const nextRetryAt = renewalAttemptAt(periodEnd, attempt, grace);
    await records.recordPlatformRenewalFailure({ merchantId, failures: attempt, nextRetryAt, graceUntil });
    sub = { ...sub, status: 'PAST_DUE', renewalFailures: attempt };
    sendEmail({
      merchantId, kind: 'billing_renewal_failed', idempotencyKey: `billing_renewal_failed:${membershipId}:${periodEnd}:${attempt}`,
      planId, attempt, attempts: grace.attempts, nextRetryAt, graceUntil,
    });
  }

  /** Back to Demo from a paid plan that was not renewed; one email per membership and period, whichever way it ended. */
  async function downgrade(reason: 'grace_expired' | 'membership_ended') {
    const { planId, membershipId, periodEnd } = sub;
    await records.downgradePlatformToDemo({ merchantId, reason });
    const pending = sub.pending;
    sub = { ...DEMO, pending: null };
    // An ended membership is over at Whop already.
    if (membershipId && reason === 'grace_expired') cancelAtProcessor(membershipId);
    if (pending) cancelAtProcessor(pending.membershipId);
    sendEmail({
      merchantId, kind: 'billing_downgraded', idempotencyKey: `billing_downgraded:${membershipId}:${periodEnd}`, planId,
      ...(reason === 'grace_expired' ? {} : { reason }),
    });
    ended = reason;
  }

  setHandler(subscriptionStateQuery, () => ({
    planId: sub.planId, status: sub.status, periodEnd: sub.periodEnd, pendingPlanId: sub.pending?.planId ?? null, renewalFailures: sub.renewalFailures,
  }));

  setHandler(billingEventSignal, (message) => {
    if (seenEvents.has(message.eventId)) return;
    seenEvents.add(message.eventId);
    events += 1;
    cues += 1;
  });

  setHandler(subscribeUpdate, ({ planId }) =>
    exclusive(async (): Promise<SubscribeResult> => {
      if (cancelled || ended) throw refusal('CONFLICT', 'The subscription is changing: try again in a moment');
      // While PAST_DUE the same plan may be bought again: paying ends the grace period at once.
      if (sub.status === 'ACTIVE' && sub.planId === planId && !sub.pending) throw refusal('CONFLICT', `The account is already on the ${planId} plan`);
      // A double click gets the same payment page.
      if (sub.pending?.planId === planId) return { planId, paymentUrl: sub.pending.paymentUrl };
      const replaced = sub.pending;
      const since = Date.now();
      subscribes += 1;
      const started = await interactive
        .startPlatformPlanPayment({ merchantId, planId, key: `platform-membership:${merchantId}:${workflowInfo().runId}:${subscribes}`, since })
        .catch((err: unknown) => {
          throw subscribeFailure(err);
        });
      if (replaced) cancelAtProcessor(replaced.membershipId);
      sub = { ...sub, status: paid() ? sub.status : 'PENDING', pending: { planId, membershipId: started.membershipId, paymentUrl: started.paymentUrl, since } };
      pollDelay = firstPollMs;
      nextPollAt = since + firstPollMs;
      cues += 1;
      return { planId, paymentUrl: started.paymentUrl };
    }),
  {
    validator: ({ planId }) => {
      if (typeof planId !== 'string' || !isPaidPlan(planId)) throw refusal('INVALID_INPUT', `planId: ${String(planId)} is not a paid plan`);
    },
  });

  setHandler(cancelUpdate, () =>
    exclusive(async (): Promise<CancelResult> => {
      if (cancelled) return { previousPlanId: cancelled.previousPlanId };
      const wasPaid = paid();
      if (!wasPaid && !sub.pending) throw refusal('CONFLICT', 'The account is on the Demo plan: there is no plan to cancel');
      const previousPlanId = wasPaid ? sub.planId : sub.pending!.planId;
      const memberships = [wasPaid ? sub.membershipId : null, sub.pending?.membershipId ?? null].filter((m): m is string => m !== null);
      // Demo from this instant: the processor side and the email follow in the main loop.
      await records.downgradePlatformToDemo({ merchantId, reason: 'cancelled' });
      cancelled = { previousPlanId, memberships, wasPaid };
      sub = DEMO;
      return { previousPlanId };
    }),
  );

  await load;
  while (!cancelled && !ended && !nextRun) {
    if (!paid() && !sub.pending) {
      // Started for a subscribe (its update follows the start) or by a stray event: wait briefly, then end.
      if (!(await condition(() => sub.pending !== null || cancelled !== null, '1 minute'))) ended = 'idle';
      continue;
    }
    const pendingAt = sub.pending ? Math.min(nextPollAt, sub.pending.since + firstPaymentTimeoutMs) : Infinity;
    // An event no read has answered yet (its read failed, or it came during one) is looked at now.
    const eventDueAt = events !== eventsAnswered && paid() ? Date.now() : Infinity;
    const wakeAt = Math.max(Math.min(renewalDueAt(), pendingAt, eventDueAt), backoffUntil);
    const seen = cues;
    const woken = () => cues !== seen || cancelled !== null;
    if (wakeAt === Infinity) await condition(woken);
    else if (wakeAt > Date.now()) await condition(woken, wakeAt - Date.now());
    if (cancelled) break;
    await exclusive(async () => {
      if (cancelled) return;
      const answering = events;
      if (sub.pending && (cues !== seen || Date.now() >= nextPollAt || Date.now() >= sub.pending.since + firstPaymentTimeoutMs)) await checkPending();
      if (!nextRun && !ended && Date.now() >= renewalDueAt()) await renew();
      else if (answering !== eventsAnswered && !nextRun && !ended && paid() && sub.membershipId && patched(FOLLOW_MEMBERSHIP_EVENTS_PATCH)) await followMembership();
      eventsAnswered = answering;
    }).catch((err: unknown) => {
      // The processor or the database stayed unreachable through every retry: try again in an hour.
      log.error('billing step failed', { merchantId, error: String(err) });
      backoffUntil = Date.now() + HOUR;
    });
    await runFollowUps();
    // Long waits for a first payment poll now and then: keep the history short there too.
    if (workflowInfo().continueAsNewSuggested) nextRun = true;
  }

  if (cancelled) {
    const { memberships, previousPlanId, wasPaid } = cancelled;
    for (const membershipId of memberships) cancelAtProcessor(membershipId);
    // A plan granted without a membership (none to key by) is keyed by the moment of the cancel.
    const key = memberships[0] && wasPaid ? memberships[0] : `${merchantId}:${Date.now()}`;
    if (wasPaid) sendEmail({ merchantId, kind: 'billing_cancelled', idempotencyKey: `billing_cancelled:${key}`, planId: previousPlanId });
    ended = 'cancelled';
  }
  await runFollowUps();
  await condition(allHandlersFinished);
  await runFollowUps();
  if (!ended) {
    // A new period (or a long wait): the next run starts from the database with an empty history, and reads the
    // membership first if an event came that no read answered.
    const { membershipCue: _, ...next } = input;
    await continueAsNew<typeof platformSubscriptionWorkflow>(events !== eventsAnswered ? { ...next, membershipCue: true } : next);
  }
  log.info('platform subscription ended', { merchantId, reason: ended });
  return { planId: sub.planId, status: sub.status, reason: ended ?? 'idle' };
}
