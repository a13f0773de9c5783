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
 * - REFUNDED: fully refunded (partial refunds are not offered).
 * - ABANDONED: no progress for the configured time; no longer an open session.
 */
export const CHECKOUT_STATUSES = ['OPEN', 'PAYMENT_PENDING', 'COD_CONFIRMED', 'COMPLETED', 'FAILED', 'REFUNDED', 'ABANDONED'] as const;
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
  'A failure event (payment.failed, payment_failed, invoice_payment_failed) leaves REFUNDED and COD_CONFIRMED ' +
    'unchanged, where the spec protects only COMPLETED. A late failure of an earlier attempt must not overwrite ' +
    'a refund the merchant made (the money is back with the shopper; FAILED would hide it from refunds and ' +
    'statistics), nor a confirmed COD order that exists on the store.',
];

export interface EventOutcome {
  next: CheckoutStatus;
  changed: boolean;
  /**
   * create_order whenever the session becomes COMPLETED (every COMPLETED session has exactly one order on
   * the store; the workflow creates it with an idempotency key derived from the session token, so a
   * repeated create_order, e.g. after REFUNDED → COMPLETED or from COD_CONFIRMED, finds the same order).
   */
  effect: 'create_order' | 'none';
}

const includes = <T extends string>(list: readonly T[], value: string): value is T => (list as readonly string[]).includes(value);

function nextOnEvent(status: CheckoutStatus, event: string): CheckoutStatus {
  // Success from any state, as the spec says. Note this includes REFUNDED: a late or duplicate success
  // after a refund makes the session COMPLETED again. Literal on purpose (the processor's word on money
  // wins), flagged here because the merchant may see a refunded order reappear as paid.
  if (includes(SUCCESS_EVENTS, event)) return 'COMPLETED';
  if (includes(FAILURE_EVENTS, event)) {
    return status === 'COMPLETED' || status === 'REFUNDED' || status === 'COD_CONFIRMED' ? status : 'FAILED';
  }
  if (includes(REFUND_EVENTS, event)) return status === 'COMPLETED' ? 'REFUNDED' : status;
  return status; // unknown events are stored by the webhook route but change nothing
}

/** What a (validly signed) processor event does to a session in `status`. */
export function applyProcessorEvent(status: CheckoutStatus, event: string): EventOutcome {
  const next = nextOnEvent(status, event);
  const changed = next !== status;
  return { next, changed, effect: changed && next === 'COMPLETED' ? 'create_order' : 'none' };
}

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
  COD_CONFIRMED: [], // paid in cash to the merchant, outside the processor (codPaidAt records it)
  REFUNDED: [],
  ABANDONED: [],
};

export function canTransition(from: CheckoutStatus, to: CheckoutStatus): boolean {
  return ENDPOINT_TRANSITIONS[from].includes(to);
}

/**
 * The shopper can do nothing more on the session (it is not an open session). Processor events still
 * apply to it (a late payment success completes even an abandoned session), so its workflow must still
 * accept them.
 */
export function isTerminal(status: CheckoutStatus): boolean {
  return status === 'COMPLETED' || status === 'REFUNDED' || status === 'COD_CONFIRMED' || status === 'ABANDONED';
}

/** Still in the shopper's hands: OPEN, PAYMENT_PENDING, or FAILED (which can be retried). */
export function isOpen(status: CheckoutStatus): boolean {
  return !isTerminal(status);
}

/**
 * Why a refund cannot be asked for, or null when it can: only a COMPLETED card payment, only once (a refund
 * already requested or done is never asked for again). Partial refunds are not offered at all.
 */
export function refundRefusal(session: { status: CheckoutStatus; refundRequested: boolean; paymentMethod?: string | null }):
  | { code: 'REFUND_ALREADY_REQUESTED' | 'NOT_REFUNDABLE'; message: string }
  | null {
  if (session.status === 'REFUNDED') return { code: 'REFUND_ALREADY_REQUESTED', message: 'This order is already refunded' };
  if (session.refundRequested) return { code: 'REFUND_ALREADY_REQUESTED', message: 'A refund for this order was already requested' };
  if (session.status === 'COD_CONFIRMED' || session.paymentMethod === 'cod') {
    return { code: 'NOT_REFUNDABLE', message: 'A cash-on-delivery order was not paid through the processor: refund the shopper directly' };
  }
  if (session.paymentMethod === 'free') return { code: 'NOT_REFUNDABLE', message: 'Nothing was paid for this order (its total was 0): there is nothing to refund' };
  if (session.status !== 'COMPLETED') {
    return { code: 'NOT_REFUNDABLE', message: `Only a completed card payment can be refunded: this checkout is ${session.status.toLowerCase().replace('_', ' ')}` };
  }
  return null;
}

/** Counts as paid revenue: only a processor-confirmed payment that was not refunded (COD is not paid yet). */
export function isPaid(status: CheckoutStatus): boolean {
  return status === 'COMPLETED';
}
