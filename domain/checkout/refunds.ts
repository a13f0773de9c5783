// What a checkout session may still have refunded, and why a refund is refused: the rules every refund path shares
// (the dashboard and API, the store's own refunds, the workflow's update validator).
import { isPaidNotRefunded, type CheckoutStatus } from './checkout-status.js';

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
