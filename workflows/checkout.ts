import { ActivityFailure, ApplicationFailure, allHandlersFinished, condition, log, patched, proxyActivities, setHandler, upsertSearchAttributes, uuid4, type ActivityOptions, type LocalActivityOptions } from '@temporalio/workflow';
import { applyProcessorEvent, canTransition, isClosedToShopper, isPaidNotRefunded, isProcessorPaid, isRefundEvent, isSuccessEvent, refundRefusal, type CheckoutStatus, type EventFacts } from '../domain/checkout-status.js';
import { paymentFact } from '../domain/payment-check.js';
import { upsellOutcomeOfEvent, type UpsellChargeOutcome } from '../domain/upsell-purchase.js';
import type { ErrorCode } from '../domain/errors.js';
import type { CheckoutSessionActivities } from '../activities/checkout-session.js';
import type { CheckoutPaymentActivities } from '../activities/checkout-payment.js';
import type { FulfilmentActivities } from '../activities/checkout-fulfilment.js';
import type { MerchantWebhookActivities } from '../activities/merchant-webhooks.js';
import { SESSION_EVENT_OF_STATUS } from '../domain/merchant-webhooks.js';
import {
  acceptUpsellUpdate, backfillStatusUpdate, completeCodUpdate, initPaymentUpdate, payUpdate, PAYMENT_STATUS_EVENTS, processorEventSignal, refreshStatusUpdate, refundUpdate, statusQuery, storeRefundSignal, storeRefundUpdate,
  type BackfillResult, type CheckoutWorkflowInput, type InitPaymentResult, type ProcessorEventMessage, type RefundInput, type RefundResult, type RefundsState, type ShopperDetails, type StatusResult,
  type StoreRefundMessage,
} from './checkout.messages.js';
import { asCallerAnswer } from './failures.js';
import { searchAttributeKeys } from './search-attributes.js';
import { backgroundActivities, localActivities } from './activity-proxies.js';
import { PROFILES } from './activity-profiles.js';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
/** Polls for a refund's confirmation back off up to this. */
const REFUND_POLL_MAX_MS = 6 * HOUR;

// Two ways to run the steps below, chosen once per run (INTERACTIVE_LOCAL): as local activities (run by the worker that
// runs the workflow task, no round trip through Temporal's task queue: what a shopper waits on at init-payment, COD
// and the payment check of a webhook is one workflow task), or, in histories recorded before, as activities.
const both = <A>(options: ActivityOptions & LocalActivityOptions) => ({ remote: proxyActivities<A>(options), local: localActivities<A>(options) });

// Writes of the session's own record, and payment records that are ours alone (an upsell's outcome, a total of nothing
// to pay): retried until they land (PROFILES.sessionWrite says why).
const sessionCalls = both<CheckoutSessionActivities>(PROFILES.sessionWrite);
const recordCalls = both<CheckoutPaymentActivities>(PROFILES.sessionWrite);
// Someone waits on these (the shopper; the merchant at backfill-status; the store's tax quote): a few quick attempts,
// then a clear error.
const paymentCalls = both<CheckoutPaymentActivities>(PROFILES.waitedOn);
// Money moved at the processor beyond the shopper's own payment (a refund, an upsell's charge): always an activity. A
// local activity lost with its worker runs again from its first attempt, and these look for what an earlier attempt
// did only from the second attempt on (activities/checkout-payment.ts).
const money = proxyActivities<CheckoutPaymentActivities>(PROFILES.waitedOn);
// A merchant waits on the store's answer about a COD order (backfill-status); the store's tax is quoted while the shopper
// waits at init-payment or COD.
const storeWaitedOnCalls = both<FulfilmentActivities>(PROFILES.waitedOn);
// A paid session's order: keep trying for two days while the store is down; a permanent refusal stops at once.
// Always an activity: it runs alongside what follows the status write (fulfil), and two local activities in flight
// at once may resolve in one activation on replay but in two when they ran, which reorders the commands after them
// (a nondeterminism seen in a recorded history). Local activities here run one at a time, inside exclusive().
const storeActivities = (initialIntervalMs?: number) => proxyActivities<FulfilmentActivities>(PROFILES.storeOrder(initialIntervalMs));
// Nobody waits on the rest: the background queue (workflows/activity-proxies.ts).
const emails = backgroundActivities<FulfilmentActivities>(PROFILES.email);
const cart = backgroundActivities<FulfilmentActivities>(PROFILES.storeCart);
const merchantEvents = backgroundActivities<MerchantWebhookActivities>(PROFILES.merchantEvent);

/** A refusal the API answers as `{ error, code }` (the error handler maps ApplicationFailure types that are codes). */
const refusal = (type: ErrorCode, message: string) => ApplicationFailure.create({ type, message, nonRetryable: true });
const label = (status: CheckoutStatus) => status.toLowerCase().replace('_', ' ');

/**
 * An activity failure as the merchant's answer: one that carries our error code passes through; a remote that
 * stayed unreachable through the retries becomes `timeout` or UPSTREAM_ERROR, never a 500.
 */
function asAnswer(err: unknown, what: string, timeout: 'PROCESSOR_TIMEOUT' | 'STORE_TIMEOUT'): never {
  if (!(err instanceof ActivityFailure)) throw err;
  throw asCallerAnswer(err, {
    timeout: { code: timeout, message: `${what} did not answer in time: try again` },
    otherwise: { code: 'UPSTREAM_ERROR', message: `${what} could not be reached: try again` },
  });
}

/** Someone waits for the answer: the processor refusing or unreachable through the retries is a clear 502/504, never a 500. */
const asProcessorAnswer = (err: unknown): never => asAnswer(err, 'The processor', 'PROCESSOR_TIMEOUT');

/**
 * Patch: after a success event, the store order starts alongside the COMPLETED status write instead of after
 * it. Histories recorded before (the status write, then the order) replay the old order of commands.
 */
const ORDER_ALONGSIDE_STATUS = 'order-alongside-status';

/**
 * Patch: a status the merchant hears of by webhook (COMPLETED, REFUNDED, ABANDONED) is reported as a merchant event
 * once written. Histories recorded before replay without the activity.
 */
const MERCHANT_EVENTS = 'merchant-events';

/**
 * Patch: a new payment attempt (after a decline, or with other details while one is pending) first asks the
 * processor about the attempts already made. Histories recorded before start the attempt at once.
 */
const NEW_ATTEMPT_AFTER_SYNC = 'new-attempt-after-sync';

/**
 * Patch: money is checked before it is believed. A success event completes the session only once the processor shows
 * the payment paid as asked (else ON_HOLD, no order); refunds are partial or full, reconciled from the processor's own
 * list, booked on the store order and confirmed to the shopper one by one; refunds made in the store are refunded at
 * the processor. Histories recorded before take the events at their word and refund in full only.
 */
const MONEY_CHECKS = 'money-checks';

/** Patch: the store's tax is quoted before payment and charged. Histories recorded before charge the pre-tax total. */
const STORE_TAXES = 'store-taxes';

/** Patch: after the order, the shopper's cart at the store is emptied. Histories recorded before send the emails at once. */
const EMPTY_STORE_CART = 'empty-store-cart';

/**
 * Patch: the steps someone waits on run as local activities: the session's own writes, the processor checkout and the
 * store's tax quote of init-payment and COD, the payment lookups and the check of a success webhook (the store order,
 * refunds and upsell charges stay activities). Histories recorded before ran them as activities and replay so.
 */
const INTERACTIVE_LOCAL = 'interactive-local-activities';

/** Patch: after a refund's shopper email, the merchant's refund notice (notification settings). Histories recorded before send none. */
const MERCHANT_REFUND_NOTIFICATION = 'merchant-refund-notification';

/**
 * Owns one checkout session from cart to paid (or cash-on-delivery) order: its status, its payment, the order
 * and emails after it, each exactly once, and the merchant's refund. A run ends once the session is settled
 * and nothing is pending; a later event (webhook: signal-with-start) or merchant action (refund,
 * backfill-status: update-with-start) starts a new run that resumes from the database.
 */
export async function checkoutWorkflow(input: CheckoutWorkflowInput): Promise<StatusResult> {
  const { token } = input;
  const abandonAfterMs = input.abandonAfterMs ?? 24 * HOUR;
  const reconcileAfterMs = input.reconcileAfterMs ?? 5 * 60 * 1000;
  const refundWaitMs = input.refundWaitMs ?? 14 * DAY;
  const store = storeActivities(input.storeRetryInitialMs);
  const local = patched(INTERACTIVE_LOCAL);
  const way = <A>(calls: { remote: A; local: A }): A => (local ? calls.local : calls.remote);
  const session = way(sessionCalls);
  const records = way(recordCalls);
  const payment = way(paymentCalls);
  const storeQuote = way(storeWaitedOnCalls);
  const storeLookup = storeQuote;

  let status = 'OPEN' as CheckoutStatus; // set by the load below and by handlers
  let attempt = 0;
  let lastActivity = Date.now();
  let current: (InitPaymentResult & { detailsKey: string }) | undefined;
  const seenEvents = new Set<string>();
  // Operators find any session in the Web UI by merchant, store platform and status (kept current below).
  upsertSearchAttributes([
    { key: searchAttributeKeys.merchantId, value: input.merchantId },
    { key: searchAttributeKeys.storePlatform, value: input.platform },
  ]);
  const publishStatus = () => upsertSearchAttributes([{ key: searchAttributeKeys.checkoutStatus, value: status }]);
  let fulfilment: Promise<void> | undefined;
  let fulfilled = false;
  // The merchant asked for the refund; REFUNDED comes with the processor's event (or a sync that sees it).
  let refundRequested = false;
  let refundWaitOver = false;
  let refundEmail: Promise<void> | undefined;
  let refundEmailSent = false;
  /** The details a COD confirmation was made with (a double click with the same ones answers the same). */
  let codDetailsKey: string | undefined;
  /** Signals and updates queued or running: the run never ends under one of them. */
  let busy = 0;
  /** Accepted upsells whose charge has no outcome yet (polled below), and the orders + emails of paid ones. */
  const upsellsPending = new Set<string>();
  const upsellsFulfilled = new Set<string>();
  let upsellJobs = 0;
  let upsellWaitOver = false;
  /** Merchant events being recorded: the run ends only once they are (their deliveries run on their own). */
  let eventsPending = 0;
  // Everything below is the money-checks way (see MONEY_CHECKS); histories recorded before replay the old one.
  const moneyChecks = patched(MONEY_CHECKS);
  /** Refunds asked of the processor and not settled yet (polled while there are any). */
  let refundsInFlight = false;
  /** Refunds whose store booking and email were started (each once per run; the activities are idempotent across runs). */
  const refundsHandled = new Set<string>();
  let refundJobs = 0;
  /** Success events whose payment could not be read at the processor yet: asked again, backing off. */
  const unverified: ProcessorEventMessage[] = [];
  let verifying: Promise<void> | undefined;
  let holdEmail: Promise<void> | undefined;
  let holdEmailSent = false;

  /** OPEN or FAILED: abandoned after abandonAfterMs without progress (a pending payment has its own rule below). */
  const idleAbandonable = () => status !== 'PAYMENT_PENDING' && canTransition(status, 'ABANDONED');
  const idleCause = () => `no progress for ${abandonAfterMs / HOUR} hours`;

  // The workflow starts with the first action that needs it (api/checkout-workflow.ts), a late event, or the
  // idle sweep, and resumes from what the database holds. The load is the first item of the queue below, so
  // handlers registered before it finishes wait for it.
  const load = session.loadSessionStatus(token).then(async (loaded) => {
    status = loaded.status;
    publishStatus();
    attempt = loaded.paymentAttempt;
    refundRequested = loaded.refundRequested === true; // absent in histories recorded before refunds existed
    refundsInFlight = loaded.refundsPending === true;
    if (loaded.hasOrder) {
      fulfilment = Promise.resolve();
      fulfilled = true;
    }
    // Idle time counts from the shopper's last step, which may be long before this run (absent in histories
    // recorded when the workflow started at create: idle from the start, as then). A session already idle
    // for the whole delay is abandoned before any queued action is handled: a shopper back after it
    // finds the checkout expired, as when the workflow ran all along.
    if (loaded.lastActivityAt !== undefined) {
      lastActivity = loaded.lastActivityAt;
      if (idleAbandonable() && Date.now() - lastActivity >= abandonAfterMs) await setStatus('ABANDONED', idleCause());
    }
  });

  // One change at a time: signals and updates that arrive together are applied in order.
  let lock: Promise<unknown> = load;
  function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    busy += 1;
    const run = lock.then(fn);
    lock = run.catch(() => undefined);
    void lock.then(() => (busy -= 1));
    return run;
  }

  async function setStatus(next: CheckoutStatus, cause: string) {
    if (next === status) return;
    await session.recordSessionStatus(token, next, cause);
    status = next;
    publishStatus();
    lastActivity = Date.now();
    reportToMerchant(next);
  }

  /**
   * The merchant's webhook event of a status (session.completed, ...), alongside whatever follows the status (the
   * order, the emails): exactly once per fact, by its fact key, however many runs or retries get here.
   */
  function reportToMerchant(reached: CheckoutStatus) {
    const type = SESSION_EVENT_OF_STATUS[reached];
    if (!type || !patched(MERCHANT_EVENTS)) return;
    eventsPending += 1;
    void merchantEvents.emitMerchantEvent({ type, token })
      .catch((err: unknown) => log.error('merchant event not recorded', { token, type, error: String(err) }))
      .finally(() => (eventsPending -= 1));
  }

  /**
   * The order on the store, then the emails. `alongside`: the COMPLETED status write running at the same time
   * (the order activity is told the session is paid; the emails wait for the write).
   */
  async function fulfil(alongside?: Promise<void>) {
    const before = alongside ?? Promise.resolve();
    try {
      await (alongside ? store.createStoreOrder(token, { paid: true }) : store.createStoreOrder(token));
    } catch (err) {
      // The store refused for good (or for two days): keep the paid session, flag it and tell the merchant.
      const message = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      log.error('store order failed', { token, message });
      await before;
      await store.recordStoreOrderFailure(token, message);
      await emails.sendStoreOrderProblemEmail(token).catch((e: unknown) => log.error('problem email failed', { token, error: String(e) }));
    }
    await before;
    // The shopper's cart at the store is emptied now that the order is placed (a few tries: the order does not depend on it).
    if (patched(EMPTY_STORE_CART)) await cart.emptyStoreCart(token).catch((e: unknown) => log.warn('store cart not emptied', { token, error: String(e) }));
    for (const send of [emails.sendOrderConfirmation, emails.sendMerchantOrderNotification]) {
      await send(token).catch((e: unknown) => log.error('order email failed', { token, error: String(e) }));
    }
    fulfilled = true;
  }

  /** A paid upsell's own order on the store, then the shopper's confirmation: each once (its row and email key hold across runs). */
  async function fulfilUpsell(upsellId: string) {
    upsellJobs += 1;
    try {
      await store.createUpsellStoreOrder(token, upsellId);
    } catch (err) {
      const message = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      log.error('upsell store order failed', { token, upsellId, message });
      await store.recordUpsellStoreOrderFailure(token, upsellId, message).catch((e: unknown) => log.error('upsell order failure not recorded', { token, upsellId, error: String(e) }));
    } finally {
      await emails.sendUpsellConfirmation(token, upsellId).catch((e: unknown) => log.error('upsell email failed', { token, upsellId, error: String(e) }));
      upsellJobs -= 1;
    }
  }

  /** What the processor said of an upsell's charge: pending ones are polled; a paid one gets its order and email once. */
  function followUpsell(upsellId: string, state: UpsellChargeOutcome) {
    if (state === 'pending') {
      upsellsPending.add(upsellId);
      upsellWaitOver = false;
      return;
    }
    upsellsPending.delete(upsellId);
    if (state === 'paid' && !upsellsFulfilled.has(upsellId)) {
      upsellsFulfilled.add(upsellId);
      void fulfilUpsell(upsellId);
    }
  }

  /** A webhook (or poll) about an upsell's charge: recorded on its purchase, never on the checkout's own status. */
  async function applyUpsellEvent(upsellId: string, message: ProcessorEventMessage) {
    const outcome = upsellOutcomeOfEvent(message.event);
    if (!outcome) return;
    const charge = await records.recordUpsellPayment(token, upsellId, { state: outcome, paymentId: message.paymentId });
    followUpsell(upsellId, charge.state);
  }

  /** While an accepted upsell's charge has no outcome: ask the processor, backing off, for at most abandonAfterMs. */
  async function awaitUpsells() {
    const since = Date.now();
    let wait = reconcileAfterMs;
    while (upsellsPending.size > 0 && Date.now() - since < abandonAfterMs) {
      const seen = upsellsPending.size;
      if (await condition(() => upsellsPending.size !== seen, Math.min(wait, abandonAfterMs - (Date.now() - since)))) continue;
      await exclusive(async () => {
        for (const upsellId of [...upsellsPending]) {
          const charge = await payment.getUpsellPaymentStatus(token, upsellId).catch((err: unknown) => {
            if (!(err instanceof ActivityFailure)) throw err;
            log.warn('upsell payment lookup failed; asking again at the next poll', { token, upsellId, error: err.cause?.message ?? err.message });
            return null;
          });
          if (charge) followUpsell(upsellId, charge.state);
        }
      });
      wait = Math.min(wait * 2, HOUR);
    }
    if (upsellsPending.size > 0) {
      log.warn('upsell charge without an outcome; a late webhook still applies it', { token, upsells: [...upsellsPending] });
      upsellWaitOver = true;
    }
  }

  async function sendRefundEmail() {
    await emails.sendRefundConfirmation(token).catch((e: unknown) => log.error('refund email failed', { token, error: String(e) }));
    refundEmailSent = true;
  }

  async function applyEvent(message: ProcessorEventMessage) {
    if (seenEvents.has(message.eventId)) return;
    seenEvents.add(message.eventId);
    if (message.upsellId !== undefined) return applyUpsellEvent(message.upsellId, message);
    if (moneyChecks) return applyCheckedEvent(message);
    const outcome = applyProcessorEvent(status, message.event);
    if (outcome.effect === 'create_order' && !fulfilment && patched(ORDER_ALONGSIDE_STATUS)) {
      // The store order needs nothing the status write records (the payment method was stored with the
      // payment): both activities go out together, saving the shopper's order a round trip.
      const written = outcome.changed ? setStatus(outcome.next, `${message.event} (${message.eventId})`) : Promise.resolve();
      fulfilment = fulfil(written);
      await written;
    } else {
      if (outcome.changed) await setStatus(outcome.next, `${message.event} (${message.eventId})`);
      // Every COMPLETED session gets its order exactly once, however many success events arrive.
      if (outcome.effect === 'create_order' && !fulfilment) fulfilment = fulfil();
    }
    // The shopper hears of the refund once (the email's idempotency key also holds across runs).
    if (outcome.changed && outcome.next === 'REFUNDED' && !refundEmail) refundEmail = sendRefundEmail();
  }

  /**
   * A processor event, checked against the processor before it is believed. A success: the payment behind it is read and
   * judged (domain/payment-check.ts): paid as asked, COMPLETED and the order; refunded, disputed or another amount,
   * ON_HOLD with no order and the merchant told; no paid payment, nothing. The processor unreachable: the event waits
   * and is asked about again (never lost, never believed unchecked). A refund: the processor's refunds decide.
   */
  async function applyCheckedEvent(message: ProcessorEventMessage) {
    const cause = `${message.event} (${message.eventId})`;
    // A refund of a session never paid here has nothing to book: if its payment turns up later, the hold reconciles it.
    if (isRefundEvent(message.event)) return isProcessorPaid(status) ? void (await reconcileRefunds(cause)) : undefined;
    const facts: EventFacts = {};
    let hold: { reason: NonNullable<Exclude<EventFacts['payment'], 'paid' | 'unpaid'>>; message: string; paymentId: string | null } | undefined;
    if (isSuccessEvent(message.event) && status !== 'COMPLETED' && status !== 'REFUNDED') {
      let verdict;
      try {
        verdict = await payment.checkSessionPayment(token, message.paymentId);
      } catch (err) {
        if (!(err instanceof ActivityFailure)) throw err;
        log.warn('payment not verifiable yet; asking again later', { token, eventId: message.eventId, error: err.cause?.message ?? err.message });
        seenEvents.delete(message.eventId);
        if (!unverified.some((m) => m.eventId === message.eventId)) unverified.push(message);
        verifying ??= awaitUnverified().finally(() => (verifying = undefined));
        return;
      }
      facts.payment = paymentFact(verdict);
      if (verdict.verdict === 'held') hold = { reason: verdict.reason, message: verdict.message, paymentId: verdict.paymentId };
      if (verdict.verdict === 'unpaid') log.info('success event without a paid payment of this checkout', { token, eventId: message.eventId });
    }
    const outcome = applyProcessorEvent(status, message.event, facts);
    if (outcome.effect === 'hold' && hold) {
      await records.recordPaymentHold(token, hold);
      await setStatus('ON_HOLD', `${cause}: ${hold.reason}`);
      if (!holdEmail) holdEmail = emails.sendPaymentHeldEmail(token).catch((e: unknown) => log.error('hold email failed', { token, error: String(e) })).then(() => void (holdEmailSent = true));
      // Refunded before the order: the refund itself is recorded (and the shopper told) as any other.
      if (hold.reason === 'payment_refunded') await reconcileRefunds('held: refunded at the processor');
      return;
    }
    if (outcome.effect === 'create_order' && !fulfilment) {
      const written = outcome.changed ? setStatus(outcome.next, cause) : Promise.resolve();
      fulfilment = fulfil(written);
      await written;
      return;
    }
    if (outcome.changed) await setStatus(outcome.next, cause);
  }

  /**
   * Success events waiting for the processor to answer, alongside whatever else the run does: asked again, backing off
   * to hourly, until each is judged (the run does not end before).
   */
  async function awaitUnverified() {
    let wait = Math.min(reconcileAfterMs, 60_000);
    while (unverified.length > 0) {
      await condition(() => unverified.length === 0, wait);
      await exclusive(async () => {
        for (const message of unverified.splice(0)) await applyEvent(message);
      });
      wait = Math.min(wait * 2, HOUR);
    }
  }

  /**
   * The processor's refunds made ours (activities syncProcessorRefunds): the session is REFUNDED once every unit came
   * back; each refund the processor confirmed is booked on the store order and confirmed to the shopper, once. The
   * processor unreachable: the polls ask again.
   */
  async function reconcileRefunds(cause: string): Promise<RefundsState | null> {
    let state: RefundsState;
    try {
      state = await payment.syncProcessorRefunds(token);
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      log.warn('refunds not readable at the processor; asking again at the next poll', { token, cause, error: err.cause?.message ?? err.message });
      return null;
    }
    refundsInFlight = state.pendingMinor > 0;
    const fully = state.totalMinor > 0 && state.refundedMinor >= state.totalMinor;
    if (fully && isPaidNotRefunded(status)) await setStatus('REFUNDED', cause);
    for (const refundId of state.succeeded) {
      if (refundsHandled.has(refundId)) continue;
      refundsHandled.add(refundId);
      followRefund(refundId, state.toStore.includes(refundId));
    }
    return state;
  }

  /** A refund the processor made: booked on the store order (once the order exists), then the shopper's email. */
  function followRefund(refundId: string, toStore: boolean) {
    refundJobs += 1;
    void (async () => {
      try {
        if (toStore) {
          await fulfilment;
          const booked = await store.createStoreRefund(token, refundId).catch((err: unknown) => {
            log.error('store refund failed', { token, refundId, error: String(err) });
            return null;
          });
          if (booked?.state === 'failed') await emails.sendStoreRefundProblemEmail(token, refundId).catch((e: unknown) => log.error('store refund problem email failed', { token, refundId, error: String(e) }));
        }
        await emails.sendRefundConfirmation(token, refundId).catch((e: unknown) => log.error('refund email failed', { token, refundId, error: String(e) }));
        // The merchant's refund notice (sent only when the merchant's notification settings ask for it), once per refund.
        if (patched(MERCHANT_REFUND_NOTIFICATION)) {
          await emails.sendMerchantRefundNotification(token, refundId).catch((e: unknown) => log.error('merchant refund email failed', { token, refundId, error: String(e) }));
        }
      } finally {
        refundJobs -= 1;
      }
    })();
  }

  /** A refund at the processor: refused (what is left, a COD order) as the API's answer, else in flight until it settles. */
  async function requestRefund(input: RefundInput & { origin: 'merchant' | 'store'; storeRefundId?: string }): Promise<RefundResult> {
    const made = await money.refundProcessorPayment(token, { ...input, refundId: uuid4() }).catch(asProcessorAnswer);
    refundsInFlight = true;
    refundWaitOver = false;
    // The processor may have settled it already (its webhook follows): look now, after this answer.
    void exclusive(() => reconcileRefunds('refund requested'));
    return { status, refund: { state: 'requested', refundId: made.refundId, id: made.id, amountMinor: made.amountMinor, currency: made.currency } };
  }

  /**
   * Asks the processor for the session's payment and applies its status like a webhook; answers that status.
   * `unreachable` decides what the lookup failing through its retries means (only the lookup: a failure to
   * apply the status is not the processor's and propagates).
   */
  async function syncProcessor(cause: string, unreachable: (err: unknown) => null): Promise<string | null> {
    const found = await payment.getProcessorPaymentStatus(token).catch(unreachable);
    const event = found ? PAYMENT_STATUS_EVENTS[found.status] : undefined;
    if (found && event) await applyEvent({ eventId: `sync:${found.paymentId}:${found.status}`, event, paymentId: found.paymentId });
    log.info('status sync', { token, cause, processorStatus: found?.status ?? null, status });
    return found?.status ?? null;
  }

  async function syncWithProcessor(cause: string): Promise<StatusResult> {
    await syncProcessor(cause, asProcessorAnswer);
    return { status };
  }

  /**
   * The run's own polls (payment and refund reconciliation): the processor unreachable through the activity's
   * retries is asked again at the next poll. A failed lookup must not end the run: its clocks (the next poll,
   * abandonment) and the order after a late success live in it.
   */
  async function pollProcessor(cause: string): Promise<void> {
    await syncProcessor(cause, (err) => {
      if (!(err instanceof ActivityFailure)) throw err;
      log.warn('processor lookup failed; asking again at the next poll', { token, cause, error: err.cause?.message ?? err.message });
      return null;
    });
  }

  /** After a refund request: wait for the processor's refund event, asking it now and then, for at most refundWaitMs. */
  async function awaitRefund() {
    const since = Date.now();
    let wait = reconcileAfterMs;
    if (moneyChecks) {
      while (refundPending() && Date.now() - since < refundWaitMs) {
        if (await condition(() => !refundPending(), Math.min(wait, refundWaitMs - (Date.now() - since)))) break;
        await exclusive(() => reconcileRefunds('refund reconciliation'));
        wait = Math.min(wait * 2, REFUND_POLL_MAX_MS);
      }
      if (refundPending()) {
        log.warn('refund not confirmed by the processor', { token, waitedMs: Date.now() - since });
        refundWaitOver = true;
      }
      return;
    }
    while (status === 'COMPLETED' && Date.now() - since < refundWaitMs) {
      if (await condition(() => status !== 'COMPLETED', Math.min(wait, refundWaitMs - (Date.now() - since)))) break;
      await exclusive(() => pollProcessor('refund reconciliation'));
      wait = Math.min(wait * 2, REFUND_POLL_MAX_MS);
    }
    if (status === 'COMPLETED') {
      // A late refund event still applies (signal-with-start); backfill-status asks again on demand.
      log.warn('refund not confirmed by the processor', { token, waitedMs: Date.now() - since });
      refundWaitOver = true;
    }
  }

  /**
   * The shopper's details priced, then the store's own tax on them (the shopper waits: a few quick tries, then a clear
   * 502/504): the total charged is the total the store books.
   */
  async function priceWithStoreTaxes(details: ShopperDetails) {
    const quote = await session.recordShopperDetails(token, details);
    if (!patched(STORE_TAXES)) return quote;
    return storeQuote.quoteStoreTaxes(token).catch((err: unknown) => {
      // The store answered but will not price the order as we would charge it: trying again will not help.
      if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type?.endsWith('.rejected')) {
        log.warn('the store refused to price the order', { token, reason: err.cause.message });
        throw refusal('UPSTREAM_ERROR', 'The shop could not confirm the total of this order: please contact the shop');
      }
      return asAnswer(err, 'The store', 'STORE_TIMEOUT');
    });
  }

  setHandler(statusQuery, () => ({ status }));

  setHandler(processorEventSignal, (message) => {
    void exclusive(() => applyEvent(message));
  });

  setHandler(initPaymentUpdate, (details: ShopperDetails) =>
    exclusive(async (): Promise<InitPaymentResult> => {
      const detailsKey = JSON.stringify(details);
      const nothingPaid = status === 'COMPLETED' && current?.paymentId === null;
      if (current && (status === 'PAYMENT_PENDING' || nothingPaid)) {
        // A double click gets the same payment (or the same free order).
        const { detailsKey: startedWith, ...answer } = current;
        if (startedWith === detailsKey) return answer;
        if (nothingPaid || !patched(NEW_ATTEMPT_AFTER_SYNC)) throw refusal('CONFLICT', nothingPaid ? 'This order is already confirmed' : 'A payment for this checkout is already in progress');
      }
      if ((status === 'PAYMENT_PENDING' || (status === 'FAILED' && attempt > 0)) && patched(NEW_ATTEMPT_AFTER_SYNC)) {
        // Before a new attempt (other details while one is pending, or a retry after a decline), the processor is
        // asked about the attempts already made: a shopper who paid on the processor's page after a decline, or in
        // another tab, is paid, and must not be charged again. Found paid, the session completes and the new attempt
        // is refused: the page follows the session to its confirmation.
        await syncProcessor('init-payment', asProcessorAnswer);
        if (status !== 'PAYMENT_PENDING' && status !== 'FAILED') throw refusal('CONFLICT', `This checkout is ${label(status)}: no new payment can start`);
      }
      // PAYMENT_PENDING here: the shopper went back from the payment step and changed the details; the processor
      // shows the pending attempt unpaid, so a new attempt with the new total replaces it (its page stays open at the
      // processor: a payment made there later is checked against its own amount before any order).
      if (status !== 'PAYMENT_PENDING' && !canTransition(status, 'PAYMENT_PENDING')) throw refusal('CONFLICT', `This checkout is ${label(status)}: no payment can start`);
      const quote = await priceWithStoreTaxes(details);
      if (quote.totalMinor === 0) {
        // A 100 % code with free shipping: nothing to charge, so no processor payment; the order and its
        // emails follow as after a paid one, and the shopper goes straight to the confirmed checkout page.
        const { returnUrl } = await records.confirmNothingToPay(token);
        await setStatus('COMPLETED', 'init-payment: nothing to pay');
        if (!fulfilment) fulfilment = fulfil();
        current = { paymentId: null, paymentUrl: returnUrl, totalMinor: 0, currency: quote.currency, status: 'COMPLETED', detailsKey };
        const { detailsKey: _, ...answer } = current;
        return answer;
      }
      attempt += 1;
      const created = await payment.createProcessorPayment(token, attempt).catch(asProcessorAnswer);
      await setStatus('PAYMENT_PENDING', 'init-payment');
      current = { ...created, totalMinor: quote.totalMinor, currency: quote.currency, status: 'PAYMENT_PENDING', detailsKey };
      return { paymentId: created.paymentId, paymentUrl: created.paymentUrl, totalMinor: quote.totalMinor, currency: quote.currency, status: 'PAYMENT_PENDING' };
    }),
  );

  setHandler(completeCodUpdate, (details: ShopperDetails) =>
    exclusive(async (): Promise<StatusResult> => {
      const detailsKey = JSON.stringify(details);
      if (status === 'COD_CONFIRMED') {
        // A double click answers the same confirmation; other details now would need a second order.
        if (codDetailsKey !== undefined && codDetailsKey !== detailsKey) throw refusal('CONFLICT', 'This order is already confirmed');
        return { status };
      }
      if (!canTransition(status, 'COD_CONFIRMED')) {
        throw refusal('CONFLICT', status === 'PAYMENT_PENDING'
          ? 'A card payment for this checkout is in progress: cash on delivery is not available'
          : `This checkout is ${label(status)}: it cannot be confirmed`);
      }
      await priceWithStoreTaxes(details);
      await session.confirmCashOnDelivery(token);
      await setStatus('COD_CONFIRMED', 'complete-cod');
      codDetailsKey = detailsKey;
      // The order (in pending payment) and both emails, exactly once, as after a card payment.
      if (!fulfilment) fulfilment = fulfil();
      return { status };
    }),
  );

  setHandler(refundUpdate, (input?: RefundInput) =>
    exclusive(async (): Promise<RefundResult> => {
      // What is left is checked by the activity, under a lock: two clicks that both passed the API's check cannot both take it.
      if (moneyChecks) return requestRefund({ ...(input ?? {}), origin: 'merchant' });
      // Checked again here: two clicks that both passed the API's check are handled one after the other.
      const legacy = { status, paymentMethod: 'card', totalMinor: 1, refundedMinor: status === 'REFUNDED' ? 1 : 0, pendingMinor: refundRequested ? 1 : 0 };
      const refused = refundRefusal(legacy);
      if (refused) throw refusal(refused.code, refused.message);
      const { refundId } = await money.refundProcessorPayment(token).catch(asProcessorAnswer);
      refundRequested = true;
      refundWaitOver = false;
      return { status, refund: { state: 'requested', refundId } };
    }),
  );

  // A refund the merchant made in the store's admin: the money goes back through the processor, once per store refund.
  setHandler(storeRefundSignal, (message: StoreRefundMessage) => {
    void exclusive(async () => {
      if (!moneyChecks) return;
      await requestRefund({ amountMinor: message.amountMinor, reason: message.reason ?? null, origin: 'store', storeRefundId: message.storeRefundId }).catch((err: unknown) => {
        log.error('refund made in the store not refunded at the processor', { token, storeRefundId: message.storeRefundId, error: String(err) });
      });
    });
  });

  // The same, for a caller that waits (storefront B's plugin refunding from wp-admin): a refusal is its answer, and the
  // store then drops its refund. Once per store refund id: a repeat answers the refund already made.
  setHandler(storeRefundUpdate, (message: StoreRefundMessage) =>
    exclusive(async (): Promise<RefundResult> => {
      if (!moneyChecks) throw refusal('NOT_REFUNDABLE', 'This checkout predates partial refunds: refund it from the checkout dashboard');
      return requestRefund({ amountMinor: message.amountMinor, reason: message.reason ?? null, origin: 'store', storeRefundId: message.storeRefundId });
    }),
  );

  setHandler(backfillStatusUpdate, () =>
    exclusive(async (): Promise<BackfillResult> => {
      const processorStatus = await syncProcessor('backfill-status', asProcessorAnswer);
      // The merchant's sync also picks up refunds (made anywhere) and books on the store those it never could.
      if (moneyChecks && processorStatus !== null) await reconcileRefunds('backfill-status');
      // A COD order is paid to the merchant in cash: only the store knows whether it was marked paid.
      const cod = status === 'COD_CONFIRMED'
        ? await storeLookup.syncStoreOrderPayment(token).catch((err: unknown) => asAnswer(err, 'The store', 'STORE_TIMEOUT'))
        : null;
      return { status, processorStatus, codPaidAt: cod?.codPaidAt ?? null };
    }),
  );

  setHandler(acceptUpsellUpdate, ({ upsellId }) =>
    exclusive(async () => {
      if (status !== 'COMPLETED') throw refusal('UPSELL_NOT_AVAILABLE', `This checkout is ${label(status)}: an offer can only be added to a paid order`);
      // Charged once whatever the clicks or runs (the purchase row and the processor's idempotency key).
      const charge = await money.chargeUpsell(token, upsellId).catch(asProcessorAnswer);
      followUpsell(upsellId, charge.state);
      return charge;
    }),
  );

  setHandler(payUpdate, () => exclusive(() => syncWithProcessor('pay')));
  setHandler(refreshStatusUpdate, () => exclusive(() => syncWithProcessor('refresh-status')));

  const refundPending = () => (moneyChecks ? refundsInFlight && isPaidNotRefunded(status) : status === 'COMPLETED' && refundRequested) && !refundWaitOver;
  const upsellPending = () => upsellsPending.size > 0 && !upsellWaitOver;
  const idle = () => (fulfilment === undefined || fulfilled) && (refundEmail === undefined || refundEmailSent) && (holdEmail === undefined || holdEmailSent)
    && upsellJobs === 0 && refundJobs === 0 && eventsPending === 0 && verifying === undefined && busy === 0 && allHandlersFinished();

  await load;

  while (!isClosedToShopper(status)) {
    if (status === 'PAYMENT_PENDING') {
      // Processors stop retrying webhooks quickly: when none came, ask, backing off up to an hour.
      let wait = reconcileAfterMs;
      while (status === 'PAYMENT_PENDING' && Date.now() - lastActivity < abandonAfterMs) {
        if (await condition(() => status !== 'PAYMENT_PENDING', wait)) break;
        await exclusive(() => pollProcessor('reconciliation'));
        wait = Math.min(wait * 2, HOUR);
      }
      if (status === 'PAYMENT_PENDING') await exclusive(() => setStatus('ABANDONED', 'no payment result'));
      continue;
    }
    const seen = lastActivity;
    const idleFor = Date.now() - lastActivity;
    const progressed = await condition(() => lastActivity !== seen || isClosedToShopper(status), Math.max(abandonAfterMs - idleFor, 1));
    // Checked again in turn: an action queued when the delay ran out may have moved the session on.
    if (!progressed) await exclusive(async () => (lastActivity === seen && idleAbandonable() ? setStatus('ABANDONED', idleCause()) : undefined));
  }

  // Settled. A refund asked for (in this run or a started one) keeps the run until the processor confirms it;
  // otherwise the run ends once the order, the emails and every queued signal or update are done.
  for (;;) {
    if (refundPending()) await awaitRefund();
    if (upsellPending()) await awaitUpsells();
    await condition(() => refundPending() || upsellPending() || idle());
    if (!refundPending() && !upsellPending()) return { status };
  }
}
