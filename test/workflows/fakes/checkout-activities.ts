// The checkout workflow's activities as plain functions over memory, for the fast tier of workflow tests
// (test/workflows/checkout-decisions.test.ts): the workflow's decisions — statuses, exactly-once order and
// emails, refusals, reconciliation — without a database, a processor or a store. The faithful tier
// (checkout-timers, checkout-aftercare, test/e2e) runs the real activities against PostgreSQL and the sandbox.
//
// The activity names and signatures are the workflow's contract (they are recorded in histories); the
// `satisfies` clauses below make the compiler check them against the real activity groups.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { CheckoutSessionActivities, LoadedSession, PaymentQuote } from '../../../activities/checkout/checkout-session.js';
import type { CheckoutPaymentActivities } from '../../../activities/checkout/checkout-payment.js';
import type { FulfilmentActivities } from '../../../activities/checkout/checkout-fulfilment.js';
import { type CheckoutStatus } from '../../../domain/checkout/checkout-status.js';
import { refundRefusal } from '../../../domain/checkout/refunds.js';
import { type HoldReason } from '../../../domain/checkout/processor-events.js';
import type { RefundRequest, RefundsState, ShopperDetails } from '../../../domain/checkout/checkout-workflow.js';
import type { EmailSendResult } from '../../../activities/email/email-outbox.js';
import type { EmitMerchantEventInput, MerchantWebhookActivities } from '../../../activities/merchant-webhooks/merchant-webhooks.js';
import { nextUpsellState, type UpsellCharge, type UpsellChargeOutcome, type UpsellPurchaseState } from '../../../domain/checkout/upsell-purchase.js';

type Fn<T> = T extends (...args: infer A) => infer R ? (...args: A) => R : never;
const upsellCharge = (upsellId: string, state: UpsellChargeOutcome): UpsellCharge => ({ upsellId, state, amountMinor: 900, currency: 'EUR', paymentId: `pay_upsell_${upsellId}`, failureReason: state === 'failed' ? 'declined' : null });

type Plain<T> = { [K in keyof T]: Fn<T[K]> };

export interface FakeSession {
  status: CheckoutStatus;
  /** How long before the workflow starts the shopper last made progress (the test server's clock jumps, so this is relative). */
  idleForMs: number;
  paymentAttempt: number;
  refundRequested: boolean;
  /** Epoch ms in the test server's time; set when the workflow starts (see withCheckout). */
  lastActivityAt: number;
  storeOrderId: string | null;
  storeOrderError: string | null;
  details?: ShopperDetails;
  /** The total of the last details recorded. */
  totalMinor?: number;
  /** 'free' once a total of 0 completed without the processor. */
  paymentMethod?: 'free';
  /** Why the session was held (ON_HOLD), as recordPaymentHold stored it. */
  holdReason?: HoldReason;
  codConfirmed: boolean;
  /** Every status write, in order (what recordSessionStatus stored). */
  statusWrites: Array<{ to: CheckoutStatus; cause: string }>;
}

/** A refund as the fake processor and store hold it. */
export interface FakeRefund {
  id: string;
  amountMinor: number;
  state: 'requested' | 'succeeded' | 'failed';
  storeState: 'pending' | 'created' | 'failed' | 'none';
  origin: 'merchant' | 'store' | 'processor';
  storeRefundId?: string;
}

export interface FakeWorld {
  session: FakeSession;
  /** The processor's view of the session's payment (what getProcessorPaymentStatus answers). */
  processor: {
    paymentId: string | null; status: string | null; created: number; refunds: number; lookups: number;
    /** What the processor shows of the payment behind a success event (checkSessionPayment): paid as asked by default. */
    verdict: 'paid' | 'unpaid' | HoldReason;
    /** Refunds settle at once (the processor's sandbox), or stay requested until a test settles them. */
    settleRefunds: boolean;
  };
  /** Every refund of the session, as our rows and the processor's list agree on them. */
  refundRows: FakeRefund[];
  /** Refunds booked on the store order, by refund id. */
  storeRefunds: string[];
  /** The store's tax on top of the checkout's total (quoteStoreTaxes), in minor units. */
  storeTax: number;
  /** The total the store would book on the order; undefined: what was charged. */
  storeBooks?: number;
  /** Orders the store holds for this session (an accepted upsell's order is `upsell-<id>`). */
  storeOrders: string[];
  /** Accepted upsells: the processor's state of each charge (what chargeUpsell answers first), and the charges made. */
  upsells: Map<string, { state: UpsellChargeOutcome; charges: number }>;
  /** What the processor answers when an upsell is charged (default paid). */
  upsellChargeAnswer: UpsellChargeOutcome;
  /** Emails sent, by kind. */
  emails: string[];
  /** The merchant's "Refund" notification setting (off by default, as for a new merchant). */
  notifyRefund?: boolean;
  /** Merchant webhook events reported (session.completed, ...), in order. */
  merchantEvents: string[];
  /** Faults to inject: each entry is consumed by one call of that activity. */
  faults: Partial<Record<ActivityName, Array<'retryable' | 'permanent'>>>;
  /** Calls of each activity, in order. */
  calls: ActivityName[];
  /** An email activity waits for its kind's promise here before it sends (keeps a run open while a test works on it). */
  holds: Partial<Record<ActivityName, Promise<void>>>;
}

type AllActivities = Plain<CheckoutSessionActivities> & Plain<CheckoutPaymentActivities> & Plain<FulfilmentActivities> & Plain<Pick<MerchantWebhookActivities, 'emitMerchantEvent'>>;
export type ActivityName = keyof AllActivities;

export function newWorld(overrides: Partial<FakeSession> = {}): FakeWorld {
  return {
    session: {
      status: 'OPEN',
      idleForMs: 0,
      paymentAttempt: 0,
      refundRequested: false,
      lastActivityAt: 0,
      storeOrderId: null,
      storeOrderError: null,
      codConfirmed: false,
      statusWrites: [],
      ...overrides,
    },
    processor: { paymentId: null, status: null, created: 0, refunds: 0, lookups: 0, verdict: 'paid', settleRefunds: true },
    refundRows: [],
    storeRefunds: [],
    storeTax: 0,
    storeOrders: [],
    upsells: new Map(),
    upsellChargeAnswer: 'paid',
    emails: [],
    merchantEvents: [],
    faults: {},
    calls: [],
    holds: {},
  };
}

/** The quote every fake checkout gets: 25.00 EUR of goods and 4.90 shipping. */
export const FAKE_QUOTE: PaymentQuote = { currency: 'EUR', subtotalMinor: 2500, shippingMinor: 490, discountMinor: 0, totalMinor: 2990 };

export function fakeCheckoutActivities(world: FakeWorld) {
  const s = world.session;
  /** Records the call and throws the next injected fault of this activity, if any. */
  const enter = (name: ActivityName) => {
    world.calls.push(name);
    const fault = world.faults[name]?.shift();
    if (fault === 'permanent') throw ApplicationFailure.nonRetryable(`${name}: refused for good`, 'store.rejected');
    if (fault === 'retryable') throw ApplicationFailure.retryable(`${name}: unavailable`, 'processor.unavailable');
  };
  const email = (kind: string) => async (_token: string): Promise<EmailSendResult> => {
    const name: ActivityName = kind.startsWith('upsell_confirmation') ? 'sendUpsellConfirmation' : kind === 'order_confirmation' ? 'sendOrderConfirmation' : kind === 'merchant_order_notification' ? 'sendMerchantOrderNotification'
      : kind === 'store_order_problem' ? 'sendStoreOrderProblemEmail' : kind === 'payment_held' ? 'sendPaymentHeldEmail' : kind.startsWith('store_refund_problem') ? 'sendStoreRefundProblemEmail'
      : kind.startsWith('merchant_refund_notification') ? 'sendMerchantRefundNotification' : 'sendRefundConfirmation';
    enter(name);
    await world.holds[name];
    // Idempotent per kind, as the real activity is (an idempotency key per session and kind).
    if (world.emails.includes(kind)) return { status: 'ALREADY_SENT', messageId: null };
    world.emails.push(kind);
    return { status: 'SENT', messageId: `msg-${kind}` };
  };

  const session = {
    async loadSessionStatus(_token: string): Promise<LoadedSession> {
      enter('loadSessionStatus');
      return { status: s.status, hasOrder: s.storeOrderId !== null || s.storeOrderError !== null, paymentAttempt: s.paymentAttempt, refundRequested: s.refundRequested, lastActivityAt: s.lastActivityAt };
    },
    async listIdleSessionsWithoutWorkflow() {
      enter('listIdleSessionsWithoutWorkflow');
      return [];
    },
    async recordShopperDetails(_token: string, details: ShopperDetails): Promise<PaymentQuote> {
      enter('recordShopperDetails');
      if (details.shippingRateId === 'unknown-rate') throw ApplicationFailure.nonRetryable('Choose one of the shipping options offered', 'INVALID_INPUT');
      const quote = details.discountCode === 'FREE100' ? { ...FAKE_QUOTE, discountMinor: 2500, shippingMinor: 0, totalMinor: 0 } : FAKE_QUOTE;
      s.details = details;
      s.totalMinor = quote.totalMinor;
      return quote;
    },
    async recordSessionStatus(_token: string, status: CheckoutStatus, cause: string): Promise<void> {
      enter('recordSessionStatus');
      s.status = status;
      s.statusWrites.push({ to: status, cause });
    },
    async confirmCashOnDelivery(_token: string): Promise<void> {
      enter('confirmCashOnDelivery');
      s.codConfirmed = true;
    },
  } satisfies Plain<CheckoutSessionActivities>;

  const payment = {
    async confirmNothingToPay(token: string) {
      enter('confirmNothingToPay');
      if (s.totalMinor !== 0) throw ApplicationFailure.nonRetryable('The total is not 0', 'CONFLICT');
      s.paymentMethod = 'free';
      return { returnUrl: `https://shop.test/checkout/${token}` };
    },
    async createProcessorPayment(token: string, attempt: number) {
      enter('createProcessorPayment');
      world.processor.created += 1;
      world.processor.paymentId = `pay_${attempt}`;
      world.processor.status = 'pending';
      s.paymentAttempt = attempt;
      return { paymentId: world.processor.paymentId, paymentUrl: `https://processor.test/pay/${token}/${attempt}` };
    },
    async getProcessorPaymentStatus(_token: string) {
      enter('getProcessorPaymentStatus');
      world.processor.lookups += 1;
      return world.processor.paymentId && world.processor.status ? { paymentId: world.processor.paymentId, status: world.processor.status } : null;
    },
    async chargeUpsell(_token: string, upsellId: string): Promise<UpsellCharge> {
      enter('chargeUpsell');
      // One charge per upsell, as the purchase row and the idempotency key make it.
      let u = world.upsells.get(upsellId);
      if (!u) world.upsells.set(upsellId, (u = { state: world.upsellChargeAnswer, charges: 1 }));
      return upsellCharge(upsellId, u.state);
    },
    async recordUpsellPayment(_token: string, upsellId: string, outcome: { state: UpsellChargeOutcome; paymentId: string | null }): Promise<UpsellCharge> {
      enter('recordUpsellPayment');
      const u = world.upsells.get(upsellId);
      if (!u) throw ApplicationFailure.nonRetryable(`No upsell ${upsellId}`, 'NOT_FOUND');
      u.state = nextUpsellState(u.state.toUpperCase() as UpsellPurchaseState, outcome.state).toLowerCase() as UpsellChargeOutcome;
      return upsellCharge(upsellId, u.state);
    },
    async getUpsellPaymentStatus(_token: string, upsellId: string): Promise<UpsellCharge> {
      enter('getUpsellPaymentStatus');
      return upsellCharge(upsellId, world.upsells.get(upsellId)?.state ?? 'pending');
    },
    async refundProcessorPayment(_token: string, request?: RefundRequest) {
      enter('refundProcessorPayment');
      if (!request) {
        world.processor.refunds += 1;
        s.refundRequested = true;
        return { refundId: `re_${world.processor.refunds}`, paymentId: world.processor.paymentId ?? 'pay_none' };
      }
      // As the real activity: the row once per id, checked against what is left; a store refund once per store id.
      const again = world.refundRows.find((r) => r.id === request.refundId || (request.storeRefundId && r.storeRefundId === request.storeRefundId));
      if (!again) {
        const total = s.totalMinor ?? FAKE_QUOTE.totalMinor;
        const refunded = world.refundRows.filter((r) => r.state === 'succeeded').reduce((n, r) => n + r.amountMinor, 0);
        const pending = world.refundRows.filter((r) => r.state === 'requested').reduce((n, r) => n + r.amountMinor, 0);
        const refused = refundRefusal({ status: s.status, paymentMethod: 'card', totalMinor: total, refundedMinor: refunded, pendingMinor: pending }, request.amountMinor);
        if (refused) throw ApplicationFailure.nonRetryable(refused.message, refused.code);
        world.processor.refunds += 1;
        world.refundRows.push({
          id: request.refundId, amountMinor: request.amountMinor ?? total - refunded - pending, state: world.processor.settleRefunds ? 'succeeded' : 'requested',
          storeState: request.storeRefundId ? 'created' : 'pending', origin: request.origin ?? 'merchant', ...(request.storeRefundId ? { storeRefundId: request.storeRefundId } : {}),
        });
      }
      const row = world.refundRows.find((r) => r.id === request.refundId) ?? again!;
      return { id: row.id, refundId: `rf_${row.id.slice(0, 8)}`, paymentId: world.processor.paymentId ?? 'pay_none', amountMinor: row.amountMinor, currency: 'EUR' };
    },
    async checkSessionPayment(_token: string, paymentId: string) {
      enter('checkSessionPayment');
      const v = world.processor.verdict;
      if (v === 'paid' || v === 'unpaid') return { verdict: v, paymentId };
      return { verdict: 'held' as const, reason: v, message: `held: ${v}`, paymentId };
    },
    async recordPaymentHold(_token: string, hold: { reason: HoldReason; message: string; paymentId: string | null }) {
      enter('recordPaymentHold');
      s.holdReason = hold.reason;
    },
    async syncProcessorRefunds(_token: string): Promise<RefundsState> {
      enter('syncProcessorRefunds');
      const succeeded = world.refundRows.filter((r) => r.state === 'succeeded');
      return {
        totalMinor: s.totalMinor ?? FAKE_QUOTE.totalMinor,
        refundedMinor: succeeded.reduce((n, r) => n + r.amountMinor, 0),
        pendingMinor: world.refundRows.filter((r) => r.state === 'requested').reduce((n, r) => n + r.amountMinor, 0),
        succeeded: succeeded.map((r) => r.id),
        toStore: succeeded.filter((r) => r.storeState === 'pending').map((r) => r.id),
      };
    },
  } satisfies Plain<CheckoutPaymentActivities>;

  const fulfilment = {
    async createStoreOrder(token: string) {
      enter('createStoreOrder');
      // The store would book another total than was charged (its tax): never a paid order for more, a refusal for good.
      if (world.storeBooks !== undefined && world.storeBooks !== s.totalMinor) {
        throw ApplicationFailure.nonRetryable(`the store would book ${world.storeBooks}, the shopper was charged ${s.totalMinor}: the draft order was left open`, 'storefront-a.rejected');
      }
      // Exactly once on the store's side too: found by the session token before it is created.
      if (s.storeOrderId) return { storeOrderId: s.storeOrderId, created: false };
      const id = `order-${token.slice(-6)}-${world.storeOrders.length + 1}`;
      world.storeOrders.push(id);
      s.storeOrderId = id;
      return { storeOrderId: id, created: true };
    },
    async createUpsellStoreOrder(_token: string, upsellId: string) {
      enter('createUpsellStoreOrder');
      const id = `upsell-${upsellId}`;
      if (world.storeOrders.includes(id)) return { storeOrderId: id, created: false };
      world.storeOrders.push(id);
      return { storeOrderId: id, created: true };
    },
    async recordUpsellStoreOrderFailure(_token: string, _upsellId: string, message: string) {
      enter('recordUpsellStoreOrderFailure');
      s.storeOrderError = message;
    },
    sendUpsellConfirmation: (_token: string, upsellId: string) => email(`upsell_confirmation:${upsellId}`)(_token),
    async recordStoreOrderFailure(_token: string, message: string) {
      enter('recordStoreOrderFailure');
      s.storeOrderError = message;
    },
    sendOrderConfirmation: email('order_confirmation'),
    sendMerchantOrderNotification: email('merchant_order_notification'),
    sendStoreOrderProblemEmail: email('store_order_problem'),
    sendRefundConfirmation: (token: string, refundId?: string) => email(refundId ? `refund_confirmation:${refundId}` : 'refund_confirmation')(token),
    sendStoreRefundProblemEmail: (token: string, refundId: string) => email(`store_refund_problem:${refundId}`)(token),
    // As the real activity: sent only when the merchant's setting is on.
    sendMerchantRefundNotification: async (token: string, refundId: string): Promise<EmailSendResult> =>
      (world.notifyRefund ? email(`merchant_refund_notification:${refundId}`)(token) : (enter('sendMerchantRefundNotification'), { status: 'SWITCHED_OFF', messageId: null })),
    sendPaymentHeldEmail: email('payment_held'),
    async createStoreRefund(_token: string, refundId: string) {
      enter('createStoreRefund');
      const row = world.refundRows.find((r) => r.id === refundId);
      if (!row) throw ApplicationFailure.nonRetryable(`No refund ${refundId}`, 'NOT_FOUND');
      if (row.storeState === 'pending') {
        if (!s.storeOrderId) row.storeState = 'none';
        else {
          row.storeState = 'created';
          world.storeRefunds.push(refundId);
        }
      }
      return { state: row.storeState as 'created' | 'failed' | 'none', storeRefundId: row.storeState === 'created' ? `store-${refundId.slice(0, 8)}` : null };
    },
    async quoteStoreTaxes(_token: string) {
      enter('quoteStoreTaxes');
      // The store adds world.storeTax on top (prices without tax), as the real activity writes it to the session.
      const pre = s.totalMinor ?? FAKE_QUOTE.totalMinor;
      const taxMinor = pre > 0 ? world.storeTax : 0;
      s.totalMinor = pre + taxMinor;
      return { ...FAKE_QUOTE, totalMinor: s.totalMinor, taxMinor, taxesIncluded: false };
    },
    async emptyStoreCart(_token: string) {
      enter('emptyStoreCart');
      return { removed: 1, emptiedBy: 'service' as const };
    },
    async syncStoreOrderPayment(_token: string) {
      enter('syncStoreOrderPayment');
      return { paid: false, codPaidAt: null };
    },
  } satisfies Plain<FulfilmentActivities>;

  const merchantEvents = {
    // Idempotent per fact, as the real one is (the event's unique fact key): the calls show what the workflow asked.
    async emitMerchantEvent(input: EmitMerchantEventInput) {
      enter('emitMerchantEvent');
      if (!world.merchantEvents.includes(input.type)) world.merchantEvents.push(input.type);
      return { eventId: `evt_${input.type}`, deliveries: 0 };
    },
  } satisfies Plain<Pick<MerchantWebhookActivities, 'emitMerchantEvent'>>;

  return { ...session, ...payment, ...fulfilment, ...merchantEvents };
}

/**
 * The same activities for one worker that serves a whole test file: each call acts on the world of the workflow
 * that scheduled it (by its workflow id), so one worker (one bundle load) serves every test while each test still
 * acts on its own world alone. A workflow without a world (an earlier test's, once that test forgot it) is refused
 * for good rather than given another test's world.
 */
export function fakeCheckoutActivitiesByWorkflow(worlds: ReadonlyMap<string, FakeWorld>): ReturnType<typeof fakeCheckoutActivities> {
  const built = new WeakMap<FakeWorld, ReturnType<typeof fakeCheckoutActivities>>();
  const ofCaller = () => {
    const workflowId = Context.current().info.workflowExecution?.workflowId ?? '(none)';
    const world = worlds.get(workflowId);
    if (!world) throw ApplicationFailure.nonRetryable(`no fake world for workflow ${workflowId}`, 'test.no_world');
    let activities = built.get(world);
    if (!activities) built.set(world, (activities = fakeCheckoutActivities(world)));
    return activities;
  };
  type Activities = ReturnType<typeof fakeCheckoutActivities>;
  const names = Object.keys(fakeCheckoutActivities(newWorld())) as Array<keyof Activities>;
  return Object.fromEntries(
    names.map((name) => [name, (...args: unknown[]) => (ofCaller()[name] as (...a: unknown[]) => unknown)(...args)]),
  ) as Activities;
}
