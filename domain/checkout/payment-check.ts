// Whether a payment the processor reports can become what it pays for. A success event (or a status sync) only
// says that money moved once; before any store order — a checkout's, an upsell's — and before a plan is activated,
// the payment is read at the processor and judged here against what was asked: still paid (not refunded, not
// disputed), and exactly the amount and currency of the checkout's total. Pure.
import type { HoldReason } from './processor-events.js';
import { formatMoney } from '../money.js';

/** What the processor shows of a payment (integrations/processor's Payment fits). */
export interface ObservedPayment {
  /** paid, failed, refunded (in full) or pending. */
  state: 'paid' | 'failed' | 'refunded' | 'pending';
  amountMinor: number;
  /** ISO 4217, upper case. */
  currency: string;
  /** Refunded so far (partial refunds keep the payment paid). */
  refundedMinor: number;
  /** A dispute or chargeback is open or was lost (or the bank warned of one). */
  disputed: boolean;
}

export interface ExpectedCharge {
  amountMinor: number;
  currency: string;
}

export type PaymentVerdict =
  | { verdict: 'paid' }
  | { verdict: 'unpaid' }
  | { verdict: 'held'; reason: HoldReason; message: string };

const fmt = (minor: number, currency: string) => formatMoney({ amount: minor, currency: currency.toUpperCase() }, 'en');

/** The verdict on `payment` for a charge of `expected`: paid as asked, held (and why), or not paid at all. */
export function judgePayment(payment: ObservedPayment | null, expected: ExpectedCharge): PaymentVerdict {
  if (!payment || payment.state === 'pending' || payment.state === 'failed') return { verdict: 'unpaid' };
  if (payment.state === 'refunded' || payment.refundedMinor > 0) {
    return {
      verdict: 'held', reason: 'payment_refunded',
      message: `The processor shows ${fmt(payment.refundedMinor || payment.amountMinor, payment.currency)} of this payment refunded before the order was made: no order was created`,
    };
  }
  if (payment.disputed) return { verdict: 'held', reason: 'payment_disputed', message: 'The shopper\'s bank disputes this payment: no order was created while the dispute is open' };
  if (payment.currency.toUpperCase() !== expected.currency.toUpperCase()) {
    return { verdict: 'held', reason: 'currency_mismatch', message: `The payment is in ${payment.currency}, the checkout's total in ${expected.currency}: no order was created` };
  }
  if (payment.amountMinor !== expected.amountMinor) {
    return {
      verdict: 'held', reason: 'amount_mismatch',
      message: `The shopper paid ${fmt(payment.amountMinor, payment.currency)}, the checkout's total is ${fmt(expected.amountMinor, expected.currency)}: no order was created`,
    };
  }
  return { verdict: 'paid' };
}

/** The facts a success event is applied with (domain/checkout/checkout-status.ts EventFacts.payment). */
export const paymentFact = (v: PaymentVerdict): 'paid' | 'unpaid' | HoldReason => (v.verdict === 'held' ? v.reason : v.verdict);
