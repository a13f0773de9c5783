// Orders and their money in words, for lists, filters and the order detail: the status as a merchant reads it
// (a COMPLETED order with money given back is "Partially refunded"), the store order's own word, who made a refund
// and where it stands at the processor and on the store; and the refund dialog's rules (what is sent, what it
// refunds). Pure: no DOM, no requests, so it is tested on its own (refunds.test.ts).
import type { CheckoutStatus } from '../../domain/checkout/checkout-status.js';
import type { HoldReason } from '../../domain/checkout/processor-events.js';
import { formatAmount, inputToCents } from './format.js';
import type { Body } from './api.js';
import type { OrderDetail } from './types.js';

export type OrderRefund = OrderDetail['refunds'][number];
type OrderLine = OrderDetail['items'][number];

/** Every status in the words lists, filters and the detail use. */
export const STATUS_LABELS: Record<CheckoutStatus, string> = {
  OPEN: 'Open',
  PAYMENT_PENDING: 'Payment pending',
  COD_CONFIRMED: 'Cash on delivery',
  COMPLETED: 'Paid',
  ON_HOLD: 'On hold',
  FAILED: 'Payment failed',
  REFUNDED: 'Refunded',
  ABANDONED: 'Abandoned',
};

/** Why a payment is held: the detail's banner says the sentence, the list a few words (reasons: domain/checkout/checkout-status.ts). */
export const HOLD_WORDS: Record<HoldReason, { title: string; short: string }> = {
  payment_refunded: { title: 'the payment was refunded at the processor before the order was made', short: 'refunded before the order' },
  payment_disputed: { title: "the shopper's bank disputes the payment", short: 'payment disputed' },
  amount_mismatch: { title: "the shopper paid another amount than the checkout's total", short: 'another amount paid' },
  currency_mismatch: { title: "the payment is in another currency than the checkout's", short: 'another currency paid' },
};

/** What lists and the detail know of an order's status (the detail and the list items carry all of it). */
export interface StatusFacts {
  status: CheckoutStatus;
  refundedMinor?: number | undefined;
  totals?: { currency: string } | undefined;
  hold?: { reason: HoldReason } | null | undefined;
}

/**
 * The order's status for people: its pill key (ui.tsx colours it), its words, and a note on the money the status
 * alone does not say. A paid order with money given back is "Partially refunded" (note: how much) until everything
 * is (then the session is REFUNDED); a held payment is "On hold" (note: why, in a few words).
 */
export function orderStatus(o: StatusFacts): { key: string; label: string; note: string | null } {
  const back = o.refundedMinor ?? 0;
  if (o.status === 'COMPLETED' && back > 0) {
    return { key: 'PARTIALLY_REFUNDED', label: 'Partially refunded', note: o.totals ? `${formatAmount(back, o.totals.currency)} refunded` : null };
  }
  if (o.status === 'ON_HOLD' && o.hold) return { key: o.status, label: STATUS_LABELS[o.status], note: HOLD_WORDS[o.hold.reason].short };
  return { key: o.status, label: STATUS_LABELS[o.status], note: null };
}

const STORE_WORDS: Record<string, string> = {
  paid: 'Paid',
  partially_refunded: 'Partially refunded',
  refunded: 'Refunded',
  pending: 'Pending payment',
  processing: 'Processing',
  completed: 'Completed',
  'on-hold': 'On hold',
  cancelled: 'Cancelled',
  failed: 'Failed',
};

/** The store's own word on its order ("partially_refunded" → "Partially refunded"; WooCommerce's "processing" → "Processing"). */
export function storeOrderStatusLabel(status: string): string {
  const known = STORE_WORDS[status.toLowerCase()];
  if (known) return known;
  const words = status.replace(/[_-]+/g, ' ').trim().toLowerCase();
  return words ? words[0]!.toUpperCase() + words.slice(1) : status;
}

export const ORIGIN_LABELS: Record<OrderRefund['origin'], string> = {
  merchant: 'Here (dashboard or API)',
  processor: 'At the processor',
  store: 'In the store',
};

/** Where the money is: requested (on its way back), refunded, or failed at the processor. */
export function processorState(r: Pick<OrderRefund, 'state'>): { key: string; label: string } {
  if (r.state === 'requested') return { key: 'PENDING', label: 'Refund requested' };
  if (r.state === 'succeeded') return { key: 'COMPLETED', label: 'Refunded' };
  return { key: 'FAILED', label: 'Failed at the processor' };
}

/** The refund on the store order. A pending one waits for the money to be back (then it is booked). */
export function storeState(r: Pick<OrderRefund, 'state' | 'store'>): { key: string; label: string } {
  switch (r.store.state) {
    case 'created':
      return { key: 'COMPLETED', label: 'Booked on the store order' };
    case 'failed':
      return { key: 'ERROR', label: 'The store refused it' };
    case 'none':
      return { key: 'ABANDONED', label: 'No store order to book it on' };
    default:
      return r.state === 'failed'
        ? { key: 'ABANDONED', label: 'Nothing to book (no money came back)' }
        : { key: 'PENDING', label: r.state === 'succeeded' ? 'Being booked on the store' : 'Booked once the money is back' };
  }
}

/** A refund still moving: the processor has not confirmed it, or the store has not booked it yet. */
export const inFlight = (r: Pick<OrderRefund, 'state' | 'store'>) => r.state === 'requested' || (r.state === 'succeeded' && r.store.state === 'pending');

/** What is on its way back: refunds the processor has not confirmed yet. */
export const pendingMinor = (refunds: readonly OrderRefund[]) => refunds.filter((r) => r.state === 'requested').reduce((n, r) => n + r.amount, 0);

/** How many of each order line earlier refunds gave back (a failed refund gave nothing back). */
export function returnedQuantities(refunds: readonly OrderRefund[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const r of refunds) if (r.state !== 'failed') for (const l of r.lines) out.set(l.line, (out.get(l.line) ?? 0) + l.quantity);
  return out;
}

// ---------------------------------------------------------------------------------------------------
// The refund dialog.

export interface RefundDraft {
  /** full: everything left; part: an amount. */
  mode: 'full' | 'part';
  /** The amount as typed (part only), in the order's currency. */
  amount: string;
  /** The merchant typed the amount: it no longer follows the chosen lines. */
  amountEdited: boolean;
  /** Order line index → quantity given back, as typed. */
  quantities: Record<number, string>;
  restock: boolean;
  reason: string;
}

export const emptyDraft = (): RefundDraft => ({ mode: 'full', amount: '', amountEdited: false, quantities: {}, restock: false, reason: '' });

export interface RefundOrder {
  items: readonly OrderLine[];
  refunds: readonly OrderRefund[];
  refundableMinor: number;
  currency: string;
}

/** The dialog's field names: `amount`, `reason`, `restock`, and `line.<index>` for each line's quantity. */
export const lineField = (index: number) => `line.${index}`;

/** The chosen lines (a quantity above 0), each checked against what the line holds and what earlier refunds gave back. */
export function chosenLines(order: RefundOrder, quantities: Record<number, string>): { lines: Array<{ line: number; quantity: number }>; errors: Record<string, string> } {
  const returned = returnedQuantities(order.refunds);
  const lines: Array<{ line: number; quantity: number }> = [];
  const errors: Record<string, string> = {};
  order.items.forEach((item, line) => {
    const text = (quantities[line] ?? '').trim();
    if (text === '' || text === '0') return;
    const left = item.quantity - (returned.get(line) ?? 0);
    if (!/^\d+$/.test(text)) errors[lineField(line)] = 'a whole number of items';
    else if (Number(text) > left) errors[lineField(line)] = left === 0 ? 'every item of this line was given back already' : `at most ${left}${left < item.quantity ? ` (${item.quantity - left} given back already)` : ''}`;
    else lines.push({ line, quantity: Number(text) });
  });
  return { lines, errors };
}

/** The value of the chosen lines at their unit price, capped at what is left (a discount may have taken part of it). */
export function linesAmount(order: RefundOrder, lines: ReadonlyArray<{ line: number; quantity: number }>): number {
  const value = lines.reduce((n, l) => n + (order.items[l.line]?.unitPrice ?? 0) * l.quantity, 0);
  return Math.min(value, order.refundableMinor);
}

/** What the dialog sends to POST /api/checkout/merchant/orders/{token}/refund (the API also takes no body: everything left). */
export type RefundBody = NonNullable<Body<'/api/checkout/merchant/orders/{token}/refund', 'post'>>;

/**
 * The request the dialog sends, and the amount it refunds; or the fields to fix. Full: everything left (an explicit
 * amount only when lines are named, since lines alone refund just their value). Part: the typed amount, which the
 * API checks against what is left (it knows better than a page loaded a minute ago).
 */
export function refundRequest(order: RefundOrder, d: RefundDraft): { ok: true; body: RefundBody; amountMinor: number } | { ok: false; errors: Record<string, string> } {
  const { lines, errors } = chosenLines(order, d.quantities);
  const reason = d.reason.trim();
  if (reason.length > 500) errors.reason = 'at most 500 characters';
  let amountMinor = order.refundableMinor;
  if (d.mode === 'part') {
    const parsed = inputToCents(d.amount, order.currency);
    if (typeof parsed !== 'number') errors.amount = parsed.error;
    else if (parsed === 0) errors.amount = 'must be more than 0';
    else amountMinor = parsed;
  }
  if (Object.keys(errors).length) return { ok: false, errors };
  const body: RefundBody = {};
  if (d.mode === 'part' || lines.length) body.amountMinor = amountMinor;
  if (reason) body.reason = reason;
  if (lines.length) body.lines = lines;
  // Restock needs items (the dialog's box is off without them): a tick left from earlier items is not sent.
  if (lines.length && d.restock) body.restock = true;
  return { ok: true, body, amountMinor };
}

/** The API's field paths (`amountMinor`, `lines.<i>.quantity` where i indexes the *sent* lines) as the dialog's fields. */
export function dialogField(path: string, sent: RefundBody): string | null {
  if (path === 'amountMinor') return 'amount';
  if (path === 'reason' || path === 'restock') return path;
  const m = /^lines\.(\d+)(?:\.|$)/.exec(path);
  const line = m ? sent.lines?.[Number(m[1])]?.line : undefined;
  return line === undefined ? null : lineField(line);
}
