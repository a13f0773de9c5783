import { ActivityFailure, ApplicationFailure, allHandlersFinished, condition, log, patched, proxyActivities, setHandler, upsertSearchAttributes, uuid4, type ActivityInterfaceFor, type ActivityOptions, type LocalActivityOptions } from '@temporalio/workflow';
import { canTransition, isClosedToShopper, isPaidNotRefunded, isProcessorPaid, type CheckoutStatus } from '../../domain/checkout/checkout-status.js';
import { refundRefusal } from '../../domain/checkout/refunds.js';
import { applyProcessorEvent, isRefundEvent, isSuccessEvent, type EventFacts } from '../../domain/checkout/processor-events.js';
import { paymentFact } from '../../domain/checkout/payment-check.js';
import { upsellOutcomeOfEvent, type UpsellChargeOutcome } from '../../domain/checkout/upsell-purchase.js';
import type { ErrorCode } from '../../domain/errors.js';
import type { CheckoutSessionActivities } from '../../activities/checkout/checkout-session.js';
import type { CheckoutPaymentActivities } from '../../activities/checkout/checkout-payment.js';
import type { FulfilmentActivities } from '../../activities/checkout/checkout-fulfilment.js';
import type { MerchantWebhookActivities } from '../../activities/merchant-webhooks/merchant-webhooks.js';
import { SESSION_EVENT_OF_STATUS } from '../../domain/merchant-webhooks/merchant-webhooks.js';
import { acceptUpsellUpdate, backfillStatusUpdate, completeCodUpdate, initPaymentUpdate, payUpdate, PAYMENT_STATUS_EVENTS, processorEventSignal, refreshStatusUpdate, refundUpdate, statusQuery, storeRefundSignal, storeRefundUpdate } from './checkout.messages.js';
import { type BackfillResult, type CheckoutWorkflowInput, type InitPaymentResult, type ProcessorEventMessage, type RefundInput, type RefundResult, type RefundsState, type ShopperDetails, type StatusResult, type StoreRefundMessage } from '../../domain/checkout/checkout-workflow.js';
import { asCallerAnswer } from '../failures.js';
import { searchAttributeKeys } from '../search-attributes.js';
import { backgroundActivities, localActivities } from '../activity-proxies.js';
import { PROFILES } from '../activity-profiles.js';

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
// did only from the second attempt on (activities/checkout/checkout-payment.ts).
const money = proxyActivities<CheckoutPaymentActivities>(PROFILES.waitedOn);
// A merchant waits on the store's answer about a COD order (backfill-status); the store's tax is quoted while the shopper
// waits at init-payment or COD.
const storeWaitedOnCalls = both<FulfilmentActivities>(PROFILES.waitedOn);
// A paid session's order: keep trying for two days while the store is down; a permanent refusal stops at once. After a
// processor's success its first try is a local activity (CheckoutSession.placeStoreOrder).
const storeActivities = (initialIntervalMs?: number) => proxyActivities<FulfilmentActivities>(PROFILES.storeOrder(initialIntervalMs));
// The store order's first try after a processor's success (CheckoutSession.placeStoreOrder): once, as long as a store call may take.
const storeFirstTry = localActivities<FulfilmentActivities>(PROFILES.storeOrderFirstTry);
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
 * One change at a time: signals and updates that arrive together are applied in order, each once the one before it
 * has finished (its activities, local ones included: two local activities in flight at once replay out of order). The
 * queue of Temporal's safe-message-handlers sample (a Mutex around each handler), kept as our own promise chain: its
 * order of steps is the one the recorded histories replay. It counts what is queued or running: the run never ends
 * under one of them.
 */
export class Mutex {
  private tail: Promise<unknown>;
  private queued = 0;

  /** `first`: what every handler waits for (the session's load). */
  constructor(first: Promise<unknown> = Promise.resolve()) {
    this.tail = first;
  }

  /** Signals and updates queued or running. */
  get busy(): boolean {
    return this.queued > 0;
  }

  /** Runs `fn` once everything queued before it has finished (failed or not); answers what `fn` answers. */
  runExclusive<T>(fn: () => Promise<T>): Promise<T> {
    this.queued += 1;
    const run = this.tail.then(fn);
    this.tail = run.catch(() => undefined);
    void this.tail.then(() => (this.queued -= 1));
    return run;
  }
}

/**
 * Owns one checkout session from cart to paid (or cash-on-delivery) order: its status, its payment, the order
 * and emails after it, each exactly once, and the merchant's refund. A run ends once the session is settled
 * and nothing is pending; a later event (webhook: signal-with-start) or merchant action (refund,
 * backfill-status: update-with-start) starts a new run that resumes from the database.
 */
export async function checkoutWorkflow(input: CheckoutWorkflowInput): Promise<StatusResult> {
  const checkout = new CheckoutSession(input);
  checkout.registerHandlers();
  return checkout.run();
}

/**
 * One run of a session's workflow: its state, and what its handlers and its main loop do with it. Every signal and
 * update runs under the mutex, one at a time, after the session's load; refusals known before a handler runs (they
 * depend only on what the run fixed at its start) are its update validator's.
 */
class CheckoutSession {
  private readonly token: string;
  private readonly abandonAfterMs: number;
  private readonly reconcileAfterMs: number;
  private readonly refundWaitMs: number;
  /** The store order, its refunds, an upsell's order: activities (see storeActivities). */
  private readonly store: ReturnType<typeof storeActivities>;
  // The steps someone waits on, as local activities or (histories recorded before INTERACTIVE_LOCAL) as activities.
  private readonly session: ActivityInterfaceFor<CheckoutSessionActivities>;
  private readonly records: ActivityInterfaceFor<CheckoutPaymentActivities>;
  private readonly payment: ActivityInterfaceFor<CheckoutPaymentActivities>;
  private readonly storeQuote: ActivityInterfaceFor<FulfilmentActivities>;
  private readonly storeLookup: ActivityInterfaceFor<FulfilmentActivities>;
  /** Waited-on steps as local activities (INTERACTIVE_LOCAL). Fixed for the run. */
  private readonly local: boolean;
  /** Everything the money-checks way does (see MONEY_CHECKS); histories recorded before replay the old one. Fixed for the run. */
  private readonly moneyChecks: boolean;
  /** The session's status as loaded, then as the handlers and the loop change it. */
  private status: CheckoutStatus = 'OPEN';
  private attempt = 0;
  private lastActivity = Date.now();
  private current: (InitPaymentResult & { detailsKey: string }) | undefined;
  private readonly seenEvents = new Set<string>();
  private fulfilment: Promise<void> | undefined;
  private fulfilled = false;
  // The merchant asked for the refund; REFUNDED comes with the processor's event (or a sync that sees it).
  private refundRequested = false;
  private refundWaitOver = false;
  private refundEmail: Promise<void> | undefined;
  private refundEmailSent = false;
  /** The details a COD confirmation was made with (a double click with the same ones answers the same). */
  private codDetailsKey: string | undefined;
  /** Accepted upsells whose charge has no outcome yet (polled by upsellLoop), and the orders + emails of paid ones. */
  private readonly upsellsPending = new Set<string>();
  private readonly upsellsFulfilled = new Set<string>();
  private upsellJobs = 0;
  private upsellWaitOver = false;
  /** Merchant events being recorded: the run ends only once they are (their deliveries run on their own). */
  private eventsPending = 0;
  /** Refunds asked of the processor and not settled yet (polled while there are any). */
  private refundsInFlight = false;
  /** Refunds whose store booking and email were started (each once per run; the activities are idempotent across runs). */
  private readonly refundsHandled = new Set<string>();
  private refundJobs = 0;
  /** Success events whose payment could not be read at the processor yet: asked again, backing off. */
  private readonly unverified: ProcessorEventMessage[] = [];
  private verifying: Promise<void> | undefined;
  private holdEmail: Promise<void> | undefined;
  private holdEmailSent = false;
  /** The session's load: the first thing every handler waits for. */
  private readonly load: Promise<void>;
  private readonly mutex: Mutex;

  constructor(input: CheckoutWorkflowInput) {
    this.token = input.token;
    this.abandonAfterMs = input.abandonAfterMs ?? 24 * HOUR;
    this.reconcileAfterMs = input.reconcileAfterMs ?? 5 * 60 * 1000;
    this.refundWaitMs = input.refundWaitMs ?? 14 * DAY;
    this.store = storeActivities(input.storeRetryInitialMs);
    const local = patched(INTERACTIVE_LOCAL);
    this.local = local;
    const way = <A>(calls: { remote: A; local: A }): A => (local ? calls.local : calls.remote);
    this.session = way(sessionCalls);
    this.records = way(recordCalls);
    this.payment = way(paymentCalls);
    this.storeQuote = way(storeWaitedOnCalls);
    this.storeLookup = this.storeQuote;
    // Operators find any session in the Web UI by merchant, store platform and status (kept current by publishStatus).
    upsertSearchAttributes([
      { key: searchAttributeKeys.merchantId, value: input.merchantId },
      { key: searchAttributeKeys.storePlatform, value: input.platform },
    ]);
    this.moneyChecks = patched(MONEY_CHECKS);
    // The workflow starts with the first action that needs it (api/checkout-workflow.ts), a late event, or the
    // idle sweep, and resumes from what the database holds. The load is the first item of the mutex's queue, so
    // handlers registered before it finishes wait for it.
    this.load = this.session.loadSessionStatus(this.token).then(async (loaded) => {
      this.status = loaded.status;
      this.publishStatus();
      this.attempt = loaded.paymentAttempt;
      this.refundRequested = loaded.refundRequested === true; // absent in histories recorded before refunds existed
      this.refundsInFlight = loaded.refundsPending === true;
      if (loaded.hasOrder) {
        this.fulfilment = Promise.resolve();
        this.fulfilled = true;
      }
      // Idle time counts from the shopper's last step, which may be long before this run (absent in histories
      // recorded when the workflow started at create: idle from the start, as then). A session already idle
      // for the whole delay is abandoned before any queued action is handled: a shopper back after it
      // finds the checkout expired, as when the workflow ran all along.
      if (loaded.lastActivityAt !== undefined) {
        this.lastActivity = loaded.lastActivityAt;
        if (this.idleAbandonable() && Date.now() - this.lastActivity >= this.abandonAfterMs) await this.setStatus('ABANDONED', this.idleCause());
      }
    });
    this.mutex = new Mutex(this.load);
  }

  /** The handlers, each run under the mutex (in the order they were registered when messages wait for them). */
  registerHandlers(): void {
    setHandler(statusQuery, () => ({ status: this.status }));
    setHandler(processorEventSignal, (message) => {
      void this.exclusive(() => this.applyEvent(message, true));
    });
    setHandler(initPaymentUpdate, (details: ShopperDetails) => this.exclusive(() => this.initPayment(details)));
    setHandler(completeCodUpdate, (details: ShopperDetails) => this.exclusive(() => this.completeCod(details)));
    setHandler(refundUpdate, (input?: RefundInput) => this.exclusive(() => this.refund(input)));
    // A refund the merchant made in the store's admin: the money goes back through the processor, once per store refund.
    setHandler(storeRefundSignal, (message: StoreRefundMessage) => {
      void this.exclusive(() => this.refundStoreRefund(message));
    });
    // The same, for a caller that waits (storefront B's plugin refunding from wp-admin): a refusal is its answer, and the
    // store then drops its refund. Once per store refund id: a repeat answers the refund already made. A run that
    // predates partial refunds refuses it before it is accepted (the run's way is fixed at its start).
    setHandler(storeRefundUpdate, (message: StoreRefundMessage) => this.exclusive(() => this.requestStoreRefund(message)), {
      validator: (_message: StoreRefundMessage) => {
        if (!this.moneyChecks) throw refusal('NOT_REFUNDABLE', 'This checkout predates partial refunds: refund it from the checkout dashboard');
      },
    });
    setHandler(backfillStatusUpdate, () => this.exclusive(() => this.backfillStatus()));
    setHandler(acceptUpsellUpdate, ({ upsellId }) => this.exclusive(() => this.acceptUpsell(upsellId)));
    setHandler(payUpdate, () => this.exclusive(() => this.syncWithProcessor('pay')));
    setHandler(refreshStatusUpdate, () => this.exclusive(() => this.syncWithProcessor('refresh-status')));
  }

  /** The run: the session loaded, then followed until settled, then kept while a refund or an upsell is pending. */
  async run(): Promise<StatusResult> {
    await this.load;

    while (!isClosedToShopper(this.status)) {
      if (this.status === 'PAYMENT_PENDING') {
        // Processors stop retrying webhooks quickly: when none came, ask, backing off up to an hour.
        let wait = this.reconcileAfterMs;
        while (this.status === 'PAYMENT_PENDING' && Date.now() - this.lastActivity < this.abandonAfterMs) {
          if (await condition(() => this.status !== 'PAYMENT_PENDING', wait)) break;
          await this.exclusive(() => this.pollProcessor('reconciliation'));
          wait = Math.min(wait * 2, HOUR);
        }
        if (this.status === 'PAYMENT_PENDING') await this.exclusive(() => this.setStatus('ABANDONED', 'no payment result'));
        continue;
      }
      const seen = this.lastActivity;
      const idleFor = Date.now() - this.lastActivity;
      const progressed = await condition(() => this.lastActivity !== seen || isClosedToShopper(this.status), Math.max(this.abandonAfterMs - idleFor, 1));
      // Checked again in turn: an action queued when the delay ran out may have moved the session on.
      if (!progressed) await this.exclusive(async () => (this.lastActivity === seen && this.idleAbandonable() ? this.setStatus('ABANDONED', this.idleCause()) : undefined));
    }

    // Settled. A refund asked for (in this run or a started one) keeps the run until the processor confirms it;
    // otherwise the run ends once the order, the emails and every queued signal or update are done.
    for (;;) {
      if (this.refundPending()) await this.refundLoop();
      if (this.upsellPending()) await this.upsellLoop();
      await condition(() => this.refundPending() || this.upsellPending() || this.idle());
      if (!this.refundPending() && !this.upsellPending()) return { status: this.status };
    }
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.mutex.runExclusive(fn);
  }

  private publishStatus() {
    upsertSearchAttributes([{ key: searchAttributeKeys.checkoutStatus, value: this.status }]);
  }

  /** OPEN or FAILED: abandoned after abandonAfterMs without progress (a pending payment has its own rule in run). */
  private idleAbandonable() {
    return this.status !== 'PAYMENT_PENDING' && canTransition(this.status, 'ABANDONED');
  }

  private idleCause() {
    return `no progress for ${this.abandonAfterMs / HOUR} hours`;
  }

  private refundPending() {
    return (this.moneyChecks ? this.refundsInFlight && isPaidNotRefunded(this.status) : this.status === 'COMPLETED' && this.refundRequested) && !this.refundWaitOver;
  }

  private upsellPending() {
    return this.upsellsPending.size > 0 && !this.upsellWaitOver;
  }

  private idle() {
    return (this.fulfilment === undefined || this.fulfilled) && (this.refundEmail === undefined || this.refundEmailSent) && (this.holdEmail === undefined || this.holdEmailSent)
      && this.upsellJobs === 0 && this.refundJobs === 0 && this.eventsPending === 0 && this.verifying === undefined && !this.mutex.busy && allHandlersFinished();
  }

  // ---- the handlers (each under the mutex) ----

  private async initPayment(details: ShopperDetails): Promise<InitPaymentResult> {
    const detailsKey = JSON.stringify(details);
    const nothingPaid = this.status === 'COMPLETED' && this.current?.paymentId === null;
    if (this.current && (this.status === 'PAYMENT_PENDING' || nothingPaid)) {
      // A double click gets the same payment (or the same free order).
      const { detailsKey: startedWith, ...answer } = this.current;
      if (startedWith === detailsKey) return answer;
      if (nothingPaid || !patched(NEW_ATTEMPT_AFTER_SYNC)) throw refusal('CONFLICT', nothingPaid ? 'This order is already confirmed' : 'A payment for this checkout is already in progress');
    }
    if ((this.status === 'PAYMENT_PENDING' || (this.status === 'FAILED' && this.attempt > 0)) && patched(NEW_ATTEMPT_AFTER_SYNC)) {
      // Before a new attempt (other details while one is pending, or a retry after a decline), the processor is
      // asked about the attempts already made: a shopper who paid on the processor's page after a decline, or in
      // another tab, is paid, and must not be charged again. Found paid, the session completes and the new attempt
      // is refused: the page follows the session to its confirmation.
      await this.syncProcessor('init-payment', asProcessorAnswer);
      if (this.status !== 'PAYMENT_PENDING' && this.status !== 'FAILED') throw refusal('CONFLICT', `This checkout is ${label(this.status)}: no new payment can start`);
    }
    // PAYMENT_PENDING here: the shopper went back from the payment step and changed the details; the processor
    // shows the pending attempt unpaid, so a new attempt with the new total replaces it (its page stays open at the
    // processor: a payment made there later is checked against its own amount before any order).
    if (this.status !== 'PAYMENT_PENDING' && !canTransition(this.status, 'PAYMENT_PENDING')) throw refusal('CONFLICT', `This checkout is ${label(this.status)}: no payment can start`);
    const quote = await this.priceWithStoreTaxes(details);
    if (quote.totalMinor === 0) {
      // A 100 % code with free shipping: nothing to charge, so no processor payment; the order and its
      // emails follow as after a paid one, and the shopper goes straight to the confirmed checkout page.
      const { returnUrl } = await this.records.confirmNothingToPay(this.token);
      await this.setStatus('COMPLETED', 'init-payment: nothing to pay');
      if (!this.fulfilment) this.fulfilment = this.fulfil();
      this.current = { paymentId: null, paymentUrl: returnUrl, totalMinor: 0, currency: quote.currency, status: 'COMPLETED', detailsKey };
      const { detailsKey: _, ...answer } = this.current;
      return answer;
    }
    this.attempt += 1;
    const created = await this.payment.createProcessorPayment(this.token, this.attempt).catch(asProcessorAnswer);
    await this.setStatus('PAYMENT_PENDING', 'init-payment');
    this.current = { ...created, totalMinor: quote.totalMinor, currency: quote.currency, status: 'PAYMENT_PENDING', detailsKey };
    return { paymentId: created.paymentId, paymentUrl: created.paymentUrl, totalMinor: quote.totalMinor, currency: quote.currency, status: 'PAYMENT_PENDING' };
  }

  private async completeCod(details: ShopperDetails): Promise<StatusResult> {
    const detailsKey = JSON.stringify(details);
    if (this.status === 'COD_CONFIRMED') {
      // A double click answers the same confirmation; other details now would need a second order.
      if (this.codDetailsKey !== undefined && this.codDetailsKey !== detailsKey) throw refusal('CONFLICT', 'This order is already confirmed');
      return { status: this.status };
    }
    if (!canTransition(this.status, 'COD_CONFIRMED')) {
      throw refusal('CONFLICT', this.status === 'PAYMENT_PENDING'
        ? 'A card payment for this checkout is in progress: cash on delivery is not available'
        : `This checkout is ${label(this.status)}: it cannot be confirmed`);
    }
    await this.priceWithStoreTaxes(details);
    await this.session.confirmCashOnDelivery(this.token);
    await this.setStatus('COD_CONFIRMED', 'complete-cod');
    this.codDetailsKey = detailsKey;
    // The order (in pending payment) and both emails, exactly once, as after a card payment.
    if (!this.fulfilment) this.fulfilment = this.fulfil();
    return { status: this.status };
  }

  private async refund(input?: RefundInput): Promise<RefundResult> {
    // What is left is checked by the activity, under a lock: two clicks that both passed the API's check cannot both take it.
    if (this.moneyChecks) return this.requestRefund({ ...(input ?? {}), origin: 'merchant' });
    // Checked again here: two clicks that both passed the API's check are handled one after the other.
    const legacy = { status: this.status, paymentMethod: 'card', totalMinor: 1, refundedMinor: this.status === 'REFUNDED' ? 1 : 0, pendingMinor: this.refundRequested ? 1 : 0 };
    const refused = refundRefusal(legacy);
    if (refused) throw refusal(refused.code, refused.message);
    const { refundId } = await money.refundProcessorPayment(this.token).catch(asProcessorAnswer);
    this.refundRequested = true;
    this.refundWaitOver = false;
    return { status: this.status, refund: { state: 'requested', refundId } };
  }

  private async refundStoreRefund(message: StoreRefundMessage): Promise<void> {
    if (!this.moneyChecks) return;
    await this.requestRefund({ amountMinor: message.amountMinor, reason: message.reason ?? null, origin: 'store', storeRefundId: message.storeRefundId }).catch((err: unknown) => {
      log.error('refund made in the store not refunded at the processor', { token: this.token, storeRefundId: message.storeRefundId, error: String(err) });
    });
  }

  /** Only on a money-checks run (the update's validator refuses it on another). */
  private async requestStoreRefund(message: StoreRefundMessage): Promise<RefundResult> {
    return this.requestRefund({ amountMinor: message.amountMinor, reason: message.reason ?? null, origin: 'store', storeRefundId: message.storeRefundId });
  }

  private async backfillStatus(): Promise<BackfillResult> {
    const processorStatus = await this.syncProcessor('backfill-status', asProcessorAnswer);
    // The merchant's sync also picks up refunds (made anywhere) and books on the store those it never could.
    if (this.moneyChecks && processorStatus !== null) await this.reconcileRefunds('backfill-status');
    // A COD order is paid to the merchant in cash: only the store knows whether it was marked paid.
    const cod = this.status === 'COD_CONFIRMED'
      ? await this.storeLookup.syncStoreOrderPayment(this.token).catch((err: unknown) => asAnswer(err, 'The store', 'STORE_TIMEOUT'))
      : null;
    return { status: this.status, processorStatus, codPaidAt: cod?.codPaidAt ?? null };
  }

  private async acceptUpsell(upsellId: string) {
    if (this.status !== 'COMPLETED') throw refusal('UPSELL_NOT_AVAILABLE', `This checkout is ${label(this.status)}: an offer can only be added to a paid order`);
    // Charged once whatever the clicks or runs (the purchase row and the processor's idempotency key).
    const charge = await money.chargeUpsell(this.token, upsellId).catch(asProcessorAnswer);
    this.followUpsell(upsellId, charge.state);
    return charge;
  }

  // ---- what the handlers and the loop do ----

  private async setStatus(next: CheckoutStatus, cause: string) {
    if (next === this.status) return;
    await this.session.recordSessionStatus(this.token, next, cause);
    this.status = next;
    this.publishStatus();
    this.lastActivity = Date.now();
    this.reportToMerchant(next);
  }

  /**
   * The merchant's webhook event of a status (session.completed, ...), alongside whatever follows the status (the
   * order, the emails): exactly once per fact, by its fact key, however many runs or retries get here.
   */
  private reportToMerchant(reached: CheckoutStatus) {
    const type = SESSION_EVENT_OF_STATUS[reached];
    if (!type || !patched(MERCHANT_EVENTS)) return;
    this.eventsPending += 1;
    void merchantEvents.emitMerchantEvent({ type, token: this.token })
      .catch((err: unknown) => log.error('merchant event not recorded', { token: this.token, type, error: String(err) }))
      .finally(() => (this.eventsPending -= 1));
  }

  /**
   * The store order. `firstTryHere` (a processor's success, with local activities: nobody waits on the workflow task):
   * first tried as a local activity queued on the lock right after the status write, so the webhook's check, status and
   * order are one workflow task with no trip through the task queue; if that try does not land (the store down or slow,
   * the worker lost), the activity with its two days of retries. The activity is idempotent (the order is looked up by
   * the session before it is created), so a first try that committed and then timed out makes no second order; a
   * permanent refusal stops at once either way. On the lock because two local activities in flight at once may resolve
   * in one activation on replay but in two when they ran, which reorders the commands after them (seen in a recorded
   * history). A COD confirmation or a free order answers its caller before the order, as an activity.
   */
  private async placeStoreOrder(paid: boolean, firstTryHere: boolean) {
    const { token } = this;
    // Called with the token alone when not told it is paid, as histories recorded before show it.
    const place = (activities: FulfilmentActivities) => (paid ? activities.createStoreOrder(token, { paid: true }) : activities.createStoreOrder(token));
    if (firstTryHere) {
      try {
        return await this.exclusive(() => place(storeFirstTry));
      } catch (err) {
        if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.nonRetryable) throw err;
        log.warn('store order not placed at the first try; retrying as an activity', { token, error: err instanceof Error ? err.message : String(err) });
      }
    }
    return place(this.store);
  }

  /**
   * The order on the store, then the emails. `alongside`: the COMPLETED status write running at the same time
   * (the order activity is told the session is paid; the emails wait for the write).
   */
  private async fulfil(alongside?: Promise<void>, firstTryHere = false) {
    const before = alongside ?? Promise.resolve();
    try {
      await this.placeStoreOrder(alongside !== undefined, firstTryHere);
    } catch (err) {
      // The store refused for good (or for two days): keep the paid session, flag it and tell the merchant.
      const message = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      log.error('store order failed', { token: this.token, message });
      await before;
      await this.store.recordStoreOrderFailure(this.token, message);
      await emails.sendStoreOrderProblemEmail(this.token).catch((e: unknown) => log.error('problem email failed', { token: this.token, error: String(e) }));
    }
    await before;
    // The shopper's cart at the store is emptied now that the order is placed (a few tries: the order does not depend on it).
    if (patched(EMPTY_STORE_CART)) await cart.emptyStoreCart(this.token).catch((e: unknown) => log.warn('store cart not emptied', { token: this.token, error: String(e) }));
    for (const send of [emails.sendOrderConfirmation, emails.sendMerchantOrderNotification]) {
      await send(this.token).catch((e: unknown) => log.error('order email failed', { token: this.token, error: String(e) }));
    }
    this.fulfilled = true;
  }

  /** A paid upsell's own order on the store, then the shopper's confirmation: each once (its row and email key hold across runs). */
  private async fulfilUpsell(upsellId: string) {
    this.upsellJobs += 1;
    try {
      await this.store.createUpsellStoreOrder(this.token, upsellId);
    } catch (err) {
      const message = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      log.error('upsell store order failed', { token: this.token, upsellId, message });
      await this.store.recordUpsellStoreOrderFailure(this.token, upsellId, message).catch((e: unknown) => log.error('upsell order failure not recorded', { token: this.token, upsellId, error: String(e) }));
    } finally {
      await emails.sendUpsellConfirmation(this.token, upsellId).catch((e: unknown) => log.error('upsell email failed', { token: this.token, upsellId, error: String(e) }));
      this.upsellJobs -= 1;
    }
  }

  /** What the processor said of an upsell's charge: pending ones are polled; a paid one gets its order and email once. */
  private followUpsell(upsellId: string, state: UpsellChargeOutcome) {
    if (state === 'pending') {
      this.upsellsPending.add(upsellId);
      this.upsellWaitOver = false;
      return;
    }
    this.upsellsPending.delete(upsellId);
    if (state === 'paid' && !this.upsellsFulfilled.has(upsellId)) {
      this.upsellsFulfilled.add(upsellId);
      void this.fulfilUpsell(upsellId);
    }
  }

  /** A webhook (or poll) about an upsell's charge: recorded on its purchase, never on the checkout's own status. */
  private async applyUpsellEvent(upsellId: string, message: ProcessorEventMessage) {
    const outcome = upsellOutcomeOfEvent(message.event);
    if (!outcome) return;
    const charge = await this.records.recordUpsellPayment(this.token, upsellId, { state: outcome, paymentId: message.paymentId });
    this.followUpsell(upsellId, charge.state);
  }

  /** While an accepted upsell's charge has no outcome: ask the processor, backing off, for at most abandonAfterMs. */
  private async upsellLoop() {
    const since = Date.now();
    let wait = this.reconcileAfterMs;
    while (this.upsellsPending.size > 0 && Date.now() - since < this.abandonAfterMs) {
      const seen = this.upsellsPending.size;
      if (await condition(() => this.upsellsPending.size !== seen, Math.min(wait, this.abandonAfterMs - (Date.now() - since)))) continue;
      await this.exclusive(async () => {
        for (const upsellId of [...this.upsellsPending]) {
          const charge = await this.payment.getUpsellPaymentStatus(this.token, upsellId).catch((err: unknown) => {
            if (!(err instanceof ActivityFailure)) throw err;
            log.warn('upsell payment lookup failed; asking again at the next poll', { token: this.token, upsellId, error: err.cause?.message ?? err.message });
            return null;
          });
          if (charge) this.followUpsell(upsellId, charge.state);
        }
      });
      wait = Math.min(wait * 2, HOUR);
    }
    if (this.upsellsPending.size > 0) {
      log.warn('upsell charge without an outcome; a late webhook still applies it', { token: this.token, upsells: [...this.upsellsPending] });
      this.upsellWaitOver = true;
    }
  }

  private async sendRefundEmail() {
    await emails.sendRefundConfirmation(this.token).catch((e: unknown) => log.error('refund email failed', { token: this.token, error: String(e) }));
    this.refundEmailSent = true;
  }

  /** `nobodyWaits`: a webhook or the run's own poll (no update waits on this workflow task): the order may be placed in it. */
  private async applyEvent(message: ProcessorEventMessage, nobodyWaits = false) {
    if (this.seenEvents.has(message.eventId)) return;
    this.seenEvents.add(message.eventId);
    if (message.upsellId !== undefined) return this.applyUpsellEvent(message.upsellId, message);
    if (this.moneyChecks) return this.applyCheckedEvent(message, nobodyWaits);
    const outcome = applyProcessorEvent(this.status, message.event);
    if (outcome.effect === 'create_order' && !this.fulfilment && patched(ORDER_ALONGSIDE_STATUS)) {
      // The store order needs nothing the status write records (the payment method was stored with the
      // payment): both activities go out together, saving the shopper's order a round trip.
      const written = outcome.changed ? this.setStatus(outcome.next, `${message.event} (${message.eventId})`) : Promise.resolve();
      this.fulfilment = this.fulfil(written);
      await written;
    } else {
      if (outcome.changed) await this.setStatus(outcome.next, `${message.event} (${message.eventId})`);
      // Every COMPLETED session gets its order exactly once, however many success events arrive.
      if (outcome.effect === 'create_order' && !this.fulfilment) this.fulfilment = this.fulfil();
    }
    // The shopper hears of the refund once (the email's idempotency key also holds across runs).
    if (outcome.changed && outcome.next === 'REFUNDED' && !this.refundEmail) this.refundEmail = this.sendRefundEmail();
  }

  /**
   * A processor event, checked against the processor before it is believed. A success: the payment behind it is read and
   * judged (domain/checkout/payment-check.ts): paid as asked, COMPLETED and the order; refunded, disputed or another amount,
   * ON_HOLD with no order and the merchant told; no paid payment, nothing. The processor unreachable: the event waits
   * and is asked about again (never lost, never believed unchecked). A refund: the processor's refunds decide.
   */
  private async applyCheckedEvent(message: ProcessorEventMessage, nobodyWaits: boolean) {
    const cause = `${message.event} (${message.eventId})`;
    // A refund of a session never paid here has nothing to book: if its payment turns up later, the hold reconciles it.
    if (isRefundEvent(message.event)) return isProcessorPaid(this.status) ? void (await this.reconcileRefunds(cause)) : undefined;
    const facts: EventFacts = {};
    let hold: { reason: NonNullable<Exclude<EventFacts['payment'], 'paid' | 'unpaid'>>; message: string; paymentId: string | null } | undefined;
    if (isSuccessEvent(message.event) && this.status !== 'COMPLETED' && this.status !== 'REFUNDED') {
      let verdict;
      try {
        verdict = await this.payment.checkSessionPayment(this.token, message.paymentId);
      } catch (err) {
        if (!(err instanceof ActivityFailure)) throw err;
        log.warn('payment not verifiable yet; asking again later', { token: this.token, eventId: message.eventId, error: err.cause?.message ?? err.message });
        this.seenEvents.delete(message.eventId);
        if (!this.unverified.some((m) => m.eventId === message.eventId)) this.unverified.push(message);
        this.verifying ??= this.awaitUnverified().finally(() => (this.verifying = undefined));
        return;
      }
      facts.payment = paymentFact(verdict);
      if (verdict.verdict === 'held') hold = { reason: verdict.reason, message: verdict.message, paymentId: verdict.paymentId };
      if (verdict.verdict === 'unpaid') log.info('success event without a paid payment of this checkout', { token: this.token, eventId: message.eventId });
    }
    const outcome = applyProcessorEvent(this.status, message.event, facts);
    if (outcome.effect === 'hold' && hold) {
      await this.records.recordPaymentHold(this.token, hold);
      await this.setStatus('ON_HOLD', `${cause}: ${hold.reason}`);
      if (!this.holdEmail) this.holdEmail = emails.sendPaymentHeldEmail(this.token).catch((e: unknown) => log.error('hold email failed', { token: this.token, error: String(e) })).then(() => void (this.holdEmailSent = true));
      // Refunded before the order: the refund itself is recorded (and the shopper told) as any other.
      if (hold.reason === 'payment_refunded') await this.reconcileRefunds('held: refunded at the processor');
      return;
    }
    if (outcome.effect === 'create_order' && !this.fulfilment) {
      const written = outcome.changed ? this.setStatus(outcome.next, cause) : Promise.resolve();
      this.fulfilment = this.fulfil(written, this.local && nobodyWaits);
      await written;
      return;
    }
    if (outcome.changed) await this.setStatus(outcome.next, cause);
  }

  /**
   * Success events waiting for the processor to answer, alongside whatever else the run does: asked again, backing off
   * to hourly, until each is judged (the run does not end before).
   */
  private async awaitUnverified() {
    let wait = Math.min(this.reconcileAfterMs, 60_000);
    while (this.unverified.length > 0) {
      await condition(() => this.unverified.length === 0, wait);
      await this.exclusive(async () => {
        for (const message of this.unverified.splice(0)) await this.applyEvent(message, true);
      });
      wait = Math.min(wait * 2, HOUR);
    }
  }

  /**
   * The processor's refunds made ours (activities syncProcessorRefunds): the session is REFUNDED once every unit came
   * back; each refund the processor confirmed is booked on the store order and confirmed to the shopper, once. The
   * processor unreachable: the polls ask again.
   */
  private async reconcileRefunds(cause: string): Promise<RefundsState | null> {
    let state: RefundsState;
    try {
      state = await this.payment.syncProcessorRefunds(this.token);
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      log.warn('refunds not readable at the processor; asking again at the next poll', { token: this.token, cause, error: err.cause?.message ?? err.message });
      return null;
    }
    this.refundsInFlight = state.pendingMinor > 0;
    const fully = state.totalMinor > 0 && state.refundedMinor >= state.totalMinor;
    if (fully && isPaidNotRefunded(this.status)) await this.setStatus('REFUNDED', cause);
    for (const refundId of state.succeeded) {
      if (this.refundsHandled.has(refundId)) continue;
      this.refundsHandled.add(refundId);
      this.followRefund(refundId, state.toStore.includes(refundId));
    }
    return state;
  }

  /** A refund the processor made: booked on the store order (once the order exists), then the shopper's email. */
  private followRefund(refundId: string, toStore: boolean) {
    this.refundJobs += 1;
    void (async () => {
      try {
        if (toStore) {
          await this.fulfilment;
          const booked = await this.store.createStoreRefund(this.token, refundId).catch((err: unknown) => {
            log.error('store refund failed', { token: this.token, refundId, error: String(err) });
            return null;
          });
          if (booked?.state === 'failed') await emails.sendStoreRefundProblemEmail(this.token, refundId).catch((e: unknown) => log.error('store refund problem email failed', { token: this.token, refundId, error: String(e) }));
        }
        await emails.sendRefundConfirmation(this.token, refundId).catch((e: unknown) => log.error('refund email failed', { token: this.token, refundId, error: String(e) }));
        // The merchant's refund notice (sent only when the merchant's notification settings ask for it), once per refund.
        if (patched(MERCHANT_REFUND_NOTIFICATION)) {
          await emails.sendMerchantRefundNotification(this.token, refundId).catch((e: unknown) => log.error('merchant refund email failed', { token: this.token, refundId, error: String(e) }));
        }
      } finally {
        this.refundJobs -= 1;
      }
    })();
  }

  /** A refund at the processor: refused (what is left, a COD order) as the API's answer, else in flight until it settles. */
  private async requestRefund(input: RefundInput & { origin: 'merchant' | 'store'; storeRefundId?: string }): Promise<RefundResult> {
    const made = await money.refundProcessorPayment(this.token, { ...input, refundId: uuid4() }).catch(asProcessorAnswer);
    this.refundsInFlight = true;
    this.refundWaitOver = false;
    // The processor may have settled it already (its webhook follows): look now, after this answer.
    void this.exclusive(() => this.reconcileRefunds('refund requested'));
    return { status: this.status, refund: { state: 'requested', refundId: made.refundId, id: made.id, amountMinor: made.amountMinor, currency: made.currency } };
  }

  /**
   * Asks the processor for the session's payment and applies its status like a webhook; answers that status.
   * `unreachable` decides what the lookup failing through its retries means (only the lookup: a failure to
   * apply the status is not the processor's and propagates).
   */
  private async syncProcessor(cause: string, unreachable: (err: unknown) => null, nobodyWaits = false): Promise<string | null> {
    const found = await this.payment.getProcessorPaymentStatus(this.token).catch(unreachable);
    const event = found ? PAYMENT_STATUS_EVENTS[found.status] : undefined;
    if (found && event) await this.applyEvent({ eventId: `sync:${found.paymentId}:${found.status}`, event, paymentId: found.paymentId }, nobodyWaits);
    log.info('status sync', { token: this.token, cause, processorStatus: found?.status ?? null, status: this.status });
    return found?.status ?? null;
  }

  private async syncWithProcessor(cause: string): Promise<StatusResult> {
    await this.syncProcessor(cause, asProcessorAnswer);
    return { status: this.status };
  }

  /**
   * The run's own polls (payment and refund reconciliation): the processor unreachable through the activity's
   * retries is asked again at the next poll. A failed lookup must not end the run: its clocks (the next poll,
   * abandonment) and the order after a late success live in it.
   */
  private async pollProcessor(cause: string): Promise<void> {
    await this.syncProcessor(cause, (err) => {
      if (!(err instanceof ActivityFailure)) throw err;
      log.warn('processor lookup failed; asking again at the next poll', { token: this.token, cause, error: err.cause?.message ?? err.message });
      return null;
    }, true);
  }

  /** After a refund request: wait for the processor's refund event, asking it now and then, for at most refundWaitMs. */
  private async refundLoop() {
    const since = Date.now();
    let wait = this.reconcileAfterMs;
    if (this.moneyChecks) {
      while (this.refundPending() && Date.now() - since < this.refundWaitMs) {
        if (await condition(() => !this.refundPending(), Math.min(wait, this.refundWaitMs - (Date.now() - since)))) break;
        await this.exclusive(() => this.reconcileRefunds('refund reconciliation'));
        wait = Math.min(wait * 2, REFUND_POLL_MAX_MS);
      }
      if (this.refundPending()) {
        log.warn('refund not confirmed by the processor', { token: this.token, waitedMs: Date.now() - since });
        this.refundWaitOver = true;
      }
      return;
    }
    while (this.status === 'COMPLETED' && Date.now() - since < this.refundWaitMs) {
      if (await condition(() => this.status !== 'COMPLETED', Math.min(wait, this.refundWaitMs - (Date.now() - since)))) break;
      await this.exclusive(() => this.pollProcessor('refund reconciliation'));
      wait = Math.min(wait * 2, REFUND_POLL_MAX_MS);
    }
    if (this.status === 'COMPLETED') {
      // A late refund event still applies (signal-with-start); backfill-status asks again on demand.
      log.warn('refund not confirmed by the processor', { token: this.token, waitedMs: Date.now() - since });
      this.refundWaitOver = true;
    }
  }

  /**
   * The shopper's details priced, then the store's own tax on them (the shopper waits: a few quick tries, then a clear
   * 502/504): the total charged is the total the store books.
   */
  private async priceWithStoreTaxes(details: ShopperDetails) {
    const quote = await this.session.recordShopperDetails(this.token, details);
    if (!patched(STORE_TAXES)) return quote;
    return this.storeQuote.quoteStoreTaxes(this.token).catch((err: unknown) => {
      // The store answered but will not price the order as we would charge it: trying again will not help.
      if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type?.endsWith('.rejected')) {
        log.warn('the store refused to price the order', { token: this.token, reason: err.cause.message });
        throw refusal('UPSTREAM_ERROR', 'The shop could not confirm the total of this order: please contact the shop');
      }
      return asAnswer(err, 'The store', 'STORE_TIMEOUT');
    });
  }
}
