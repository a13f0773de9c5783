// The checkout session's statuses: what each means, the transitions the endpoints and timers cause (the spec leaves
// them out), and every grouping of statuses the code uses. The processor's events and what each does to a status (the
// spec's table) are in processor-events.ts; what may be refunded, in refunds.ts. The session's workflow is the only
// caller that changes a status; webhooks with an invalid signature never reach it.

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

/** Not an order (yet): where a checkout whose payment started and was never paid stands (the orders list's checkouts view). */
export const UNPAID_STARTED_STATUSES = statusesIn('PAYMENT_PENDING', 'FAILED', 'ABANDONED');

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

/** Counts as paid revenue: only a processor-confirmed payment that was not refunded nor held (COD is not paid yet). (Was `isPaid`: ON_HOLD is paid too, and is not revenue.) */
export function countsAsRevenue(status: CheckoutStatus): boolean {
  return status === 'COMPLETED';
}
