// The spec's processor-event table (States and transitions, Events): which processor event moves a checkout session
// from which status to which, given what the processor shows behind the event, and where we knowingly depart from
// the spec. The statuses themselves and the transitions endpoints cause: checkout-status.ts.
import type { CheckoutStatus } from './checkout-status.js';

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
