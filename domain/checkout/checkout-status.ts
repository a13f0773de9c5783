// The checkout session status machine: the spec's processor-event table (States and transitions, Events),
// plus the statuses and endpoint-driven transitions the spec leaves out. The session's workflow is the
// only caller that changes a status; webhooks with an invalid signature never reach it.

/**
 * - OPEN: created, the shopper is filling in (initial).
 * - PAYMENT_PENDING: a payment was initiated at the processor; awaiting its result.
 * - COD_CONFIRMED: the shopper confirmed cash on delivery; the store holds the order in pending payment.
 *   A status of its own, not COMPLETED: a COD order is not paid, must never be refunded through the
 *   processor and must not count as paid revenue.
 * - COMPLETED: the processor confirmed payment (or there was nothing to pay: a total of 0 completes at
 *   init-payment without the processor); the order exists on the store.
 * - FAILED: the last payment attempt failed; the shopper may try again.
 * - ON_HOLD: the processor reported a payment that must not become a store order as it stands: refunded or
 *   disputed before the order, or another amount or currency than the checkout's total (domain/checkout/payment-check.ts).
 *   No store order; the merchant is told why and may refund it. Not revenue.
 * - REFUNDED: refunded in full (the processor shows every unit of the payment returned); partial refunds keep
 *   the session COMPLETED with its refunded amount.
 * - ABANDONED: no progress for the configured time; no longer an open session.
 */
export const CHECKOUT_STATUSES = ['OPEN', 'PAYMENT_PENDING', 'COD_CONFIRMED', 'COMPLETED', 'ON_HOLD', 'FAILED', 'REFUNDED', 'ABANDONED'] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];

export const INITIAL_STATUS: CheckoutStatus = 'OPEN';

export function isCheckoutStatus(value: unknown): value is CheckoutStatus {
  return typeof value === 'string' && (CHECKOUT_STATUSES as readonly string[]).includes(value);
}

export const SUCCESS_EVENTS = ['invoice_paid', 'payment_succeeded', 'membership_activated', 'membership_went_valid'] as const;
export const FAILURE_EVENTS = ['payment.failed', 'payment_failed', 'invoice_payment_failed'] as const;
export const REFUND_EVENTS = ['payment.refunded', 'payment_refunded', 'invoice_refunded'] as const;
export const PROCESSOR_EVENTS = [...SUCCESS_EVENTS, ...FAILURE_EVENTS, ...REFUND_EVENTS] as const;
export type ProcessorEvent = (typeof PROCESSOR_EVENTS)[number];

/** Where this machine knowingly departs from the spec's table, and why. */
export const DEVIATIONS: readonly string[] = [
  'A failure event (payment.failed, payment_failed, invoice_payment_failed) leaves REFUNDED, COD_CONFIRMED and ' +
    'ON_HOLD unchanged, where the spec protects only COMPLETED. A late failure of an earlier attempt must not ' +
    'overwrite a refund the merchant made (the money is back with the shopper; FAILED would hide it from refunds ' +
    'and statistics), a confirmed COD order that exists on the store, nor a payment held for the merchant.',
  'A success event does not complete a session on its word alone: the workflow reads the payment at the processor ' +
    'first (domain/checkout/payment-check.ts). Paid as expected: COMPLETED, as the spec says. Refunded, disputed, or another ' +
    'amount or currency than the checkout total: ON_HOLD, a status the spec does not have, and no store order. No paid ' +
    'payment behind it (a membership event without one): unchanged. A REFUNDED session stays REFUNDED: a success ' +
    'never moves a session back, where the spec\'s "any" would make a refunded order paid again.',
  'A refund event makes the session REFUNDED only when the processor shows the payment refunded in full; a partial ' +
    'refund keeps it COMPLETED with the refunded amount (the spec knows full refunds only). ON_HOLD can be refunded too.',
];

/** Why a paid session is held (ON_HOLD) instead of becoming an order (domain/checkout/payment-check.ts judges it). */
export const HOLD_REASONS = ['payment_refunded', 'payment_disputed', 'amount_mismatch', 'currency_mismatch'] as const;
export type HoldReason = (typeof HOLD_REASONS)[number];
export const isHoldReason = (value: unknown): value is HoldReason => typeof value === 'string' && (HOLD_REASONS as readonly string[]).includes(value);

/**
 * What the processor shows behind an event, as the workflow found it before applying it. Without facts an event is
 * taken at its word (the spec's table): a success is a good payment, a refund a full one.
 */
export interface EventFacts {
  /** A success event: the payment is good (paid), held for a reason, or there is no paid payment behind it. */
  payment?: 'paid' | HoldReason | 'unpaid';
  /** A refund event: whether the payment is refunded in full. */
  fullyRefunded?: boolean;
}

export interface EventOutcome {
  next: CheckoutStatus;
  changed: boolean;
  /**
   * create_order whenever the session becomes COMPLETED (every COMPLETED session has exactly one order on
   * the store; the workflow creates it with an idempotency key derived from the session token, so a
   * repeated create_order, e.g. after REFUNDED → COMPLETED or from COD_CONFIRMED, finds the same order).
   */
  effect: 'create_order' | 'hold' | 'none';
}

const includes = <T extends string>(list: readonly T[], value: string): value is T => (list as readonly string[]).includes(value);

function nextOnEvent(status: CheckoutStatus, event: string, facts: EventFacts): CheckoutStatus {
  if (includes(SUCCESS_EVENTS, event)) {
    // Success from any state, as the spec says, once the processor shows the payment good; never back from a refund,
    // and a held payment does not become COMPLETED by a second success that the processor still shows held.
    const payment = facts.payment ?? 'paid';
    if (status === 'REFUNDED' || status === 'COMPLETED' || payment === 'unpaid') return status;
    if (payment !== 'paid') return status === 'COD_CONFIRMED' ? status : 'ON_HOLD';
    return 'COMPLETED';
  }
  if (includes(FAILURE_EVENTS, event)) {
    return status === 'COMPLETED' || status === 'REFUNDED' || status === 'COD_CONFIRMED' || status === 'ON_HOLD' ? status : 'FAILED';
  }
  if (includes(REFUND_EVENTS, event)) return (status === 'COMPLETED' || status === 'ON_HOLD') && (facts.fullyRefunded ?? true) ? 'REFUNDED' : status;
  return status; // unknown events are stored by the webhook route but change nothing
}

/** What a (validly signed) processor event does to a session in `status`, given what the processor shows behind it. */
export function applyProcessorEvent(status: CheckoutStatus, event: string, facts: EventFacts = {}): EventOutcome {
  const next = nextOnEvent(status, event, facts);
  const changed = next !== status;
  return { next, changed, effect: !changed ? 'none' : next === 'COMPLETED' ? 'create_order' : next === 'ON_HOLD' ? 'hold' : 'none' };
}

export const isSuccessEvent = (event: string) => includes(SUCCESS_EVENTS, event);
export const isRefundEvent = (event: string) => includes(REFUND_EVENTS, event);

/**
 * Transitions the endpoints and timers cause (the spec leaves them out). refresh-status and
 * backfill-status ask the processor and feed its answer through `applyProcessorEvent`, and pay's result
 * arrives the same way, so they add no transitions here. A repeated init-payment while PAYMENT_PENDING
 * replaces the attempt without a status change. COD is not offered while a processor payment is pending,
 * so one session can never be both paid by card and owed in cash. The refund endpoint asks the processor
 * and leaves the session COMPLETED: REFUNDED follows the processor's refund event (or a sync that sees it).
 */
export const ENDPOINT_TRANSITIONS: Readonly<Record<CheckoutStatus, readonly CheckoutStatus[]>> = {
  // init-payment (COMPLETED when the total is 0: nothing to pay), complete-cod, abandonment timer
  OPEN: ['PAYMENT_PENDING', 'COMPLETED', 'COD_CONFIRMED', 'ABANDONED'],
  PAYMENT_PENDING: ['ABANDONED'],
  FAILED: ['PAYMENT_PENDING', 'COMPLETED', 'COD_CONFIRMED', 'ABANDONED'], // retry with a new payment, fall back to COD
  COMPLETED: ['REFUNDED'], // the merchant's refund, once the processor confirms it
  ON_HOLD: ['REFUNDED'], // the merchant refunds a held payment (the processor confirms it)
  COD_CONFIRMED: [], // paid in cash to the merchant, outside the processor (codPaidAt records it)
  REFUNDED: [],
  ABANDONED: [],
};

export function canTransition(from: CheckoutStatus, to: CheckoutStatus): boolean {
  return ENDPOINT_TRANSITIONS[from].includes(to);
}

// Status groupings, each defined once here, named for what they hold (the API, the workflows, the activities, the
// model and the pages use these, never a list of their own).
const statusesIn = <const T extends readonly CheckoutStatus[]>(...list: T) => list;
const member = (list: readonly CheckoutStatus[]) => (status: string): boolean => (list as readonly string[]).includes(status);

/**
 * Out of the shopper's hands: nothing more for the shopper to do on the session (not an open session). Not final:
 * processor events still apply (a late payment success completes even an abandoned session, a COMPLETED one can
 * still become REFUNDED), so its workflow must still accept them. (Was `isTerminal`, a name it did not live up to.)
 */
export const CLOSED_TO_SHOPPER_STATUSES = statusesIn('COD_CONFIRMED', 'COMPLETED', 'ON_HOLD', 'REFUNDED', 'ABANDONED');
export const isClosedToShopper = member(CLOSED_TO_SHOPPER_STATUSES);

/** Still in the shopper's hands: OPEN, PAYMENT_PENDING, or FAILED (which can be retried). A discount reserved by such a session still holds the code. */
export const OPEN_STATUSES = statusesIn('OPEN', 'PAYMENT_PENDING', 'FAILED');
export const isOpen = member(OPEN_STATUSES);

/**
 * The shopper paid (or confirmed cash on delivery): the checkout converted, an order of the orders list, the funnel's
 * last step. An order on the store exists or follows for all but ON_HOLD, a payment held before its order: the shopper
 * paid all the same, and what became of the money is the merchant's side (a held payment refunded in full becomes
 * REFUNDED, which counts here too, so a refund never moves a checkout out of the funnel).
 */
export const ORDERED_STATUSES = statusesIn('COMPLETED', 'COD_CONFIRMED', 'REFUNDED', 'ON_HOLD');
export const isOrdered = member(ORDERED_STATUSES);

/** A store order exists or is to be created (REFUNDED was paid first; ON_HOLD never gets one as it stands). */
export const WITH_STORE_ORDER_STATUSES = statusesIn('COMPLETED', 'COD_CONFIRMED', 'REFUNDED');
export const hasStoreOrder = member(WITH_STORE_ORDER_STATUSES);

/** The order is confirmed and stands: paid by card (COMPLETED) or confirmed for cash on delivery. A discount's reserved use becomes a counted one. */
export const CONFIRMED_ORDER_STATUSES = statusesIn('COMPLETED', 'COD_CONFIRMED');
export const isConfirmedOrder = member(CONFIRMED_ORDER_STATUSES);

/** The processor confirmed the payment and it is not refunded in full (COMPLETED, or ON_HOLD: paid but held): what can be refunded. */
export const PAID_NOT_REFUNDED_STATUSES = statusesIn('COMPLETED', 'ON_HOLD');
export const isPaidNotRefunded = member(PAID_NOT_REFUNDED_STATUSES);

/** The processor confirmed a payment, since refunded in full or not: refunds of it are the processor's to tell. */
export const PROCESSOR_PAID_STATUSES = statusesIn('COMPLETED', 'ON_HOLD', 'REFUNDED');
export const isProcessorPaid = member(PROCESSOR_PAID_STATUSES);

/**
 * The checkout page's outcomes: a status it shows as the end of the shopper's checkout (the confirmation, the refund,
 * the expiry). ON_HOLD is not one: the page has no outcome of its own for a held payment.
 */
export const PAGE_OUTCOME_STATUSES = statusesIn('COMPLETED', 'COD_CONFIRMED', 'REFUNDED', 'ABANDONED');
export const isPageOutcome = member(PAGE_OUTCOME_STATUSES);

/** A session's money as refunds see it: what was charged, what came back, what is on its way back. */
export interface RefundBalance {
  status: CheckoutStatus;
  paymentMethod?: string | null;
  totalMinor: number | null;
  /** Refunds the processor confirmed. */
  refundedMinor: number;
  /** Refunds asked of the processor and not settled yet. */
  pendingMinor: number;
}

/** What can still be refunded: the charge less what came back and what is on its way back (never below 0). */
export const refundableMinor = (b: RefundBalance) => Math.max(0, (b.totalMinor ?? 0) - b.refundedMinor - b.pendingMinor);

/**
 * Why a refund of `amountMinor` (undefined: everything still refundable) cannot be asked for, or null when it can:
 * only a card payment the processor confirmed (COMPLETED, or ON_HOLD: paid but held), at most what is left of it.
 * Partial refunds are allowed, several of them, up to the charge.
 */
export function refundRefusal(session: RefundBalance, amountMinor?: number):
  | { code: 'REFUND_ALREADY_REQUESTED' | 'NOT_REFUNDABLE' | 'REFUND_EXCEEDS_BALANCE'; message: string; refundableMinor?: number }
  | null {
  if (session.status === 'REFUNDED') return { code: 'REFUND_ALREADY_REQUESTED', message: 'This order is already refunded in full' };
  if (session.status === 'COD_CONFIRMED' || session.paymentMethod === 'cod') {
    return { code: 'NOT_REFUNDABLE', message: 'A cash-on-delivery order was not paid through the processor: refund the shopper directly' };
  }
  if (session.paymentMethod === 'free') return { code: 'NOT_REFUNDABLE', message: 'Nothing was paid for this order (its total was 0): there is nothing to refund' };
  if (!isPaidNotRefunded(session.status)) {
    return { code: 'NOT_REFUNDABLE', message: `Only a completed card payment can be refunded: this checkout is ${session.status.toLowerCase().replace('_', ' ')}` };
  }
  const left = refundableMinor(session);
  if (left === 0) {
    return { code: 'REFUND_ALREADY_REQUESTED', message: session.pendingMinor > 0 ? 'The rest of this order is already being refunded' : 'This order is already refunded in full' };
  }
  if (amountMinor !== undefined && amountMinor > left) {
    return { code: 'REFUND_EXCEEDS_BALANCE', message: `At most ${left} (minor units) of this order can still be refunded`, refundableMinor: left };
  }
  return null;
}

/** Counts as paid revenue: only a processor-confirmed payment that was not refunded nor held (COD is not paid yet). (Was `isPaid`: ON_HOLD is paid too, and is not revenue.) */
export function countsAsRevenue(status: CheckoutStatus): boolean {
  return status === 'COMPLETED';
}
