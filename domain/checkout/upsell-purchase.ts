// A post-purchase upsell the shopper accepted: its charge on the saved payment method of the checkout's payment,
// and the order that follows a paid one. The processor's word on the charge moves it on like a session's payment:
// success wins from any state but REFUNDED (a late success after a decline still means the money was taken), a
// failure never undoes a success, a refund applies only to a paid charge.

import { FAILURE_EVENTS, REFUND_EVENTS, SUCCESS_EVENTS } from './processor-events.js';

export const UPSELL_PURCHASE_STATES = ['PENDING', 'PAID', 'FAILED', 'REFUNDED'] as const;
export type UpsellPurchaseState = (typeof UPSELL_PURCHASE_STATES)[number];

/** What the processor says of the charge (Whop's payment as our client reads it). */
export type UpsellChargeOutcome = 'pending' | 'paid' | 'failed' | 'refunded';

/** An accepted upsell as the shopper's page and the checkout workflow see it. */
export interface UpsellCharge {
  upsellId: string;
  state: UpsellChargeOutcome;
  amountMinor: number;
  currency: string;
  /** The processor's payment (Whop pay_…), once the charge was made. */
  paymentId: string | null;
  /** Why the charge failed, in the processor's words. */
  failureReason: string | null;
}

/**
 * Whether a checkout's card payment leaves the card with the processor for charges without the shopper. Whop keeps a
 * card only when it was set up (a checkout configuration in mode "setup") or paid through its embedded checkout with
 * setupFutureUsage: "off_session" (docs/processor.md, Whop's guide "Save payment methods"); every card checkout here is
 * paid on Whop's hosted page in payment mode, which keeps nothing. The embedded checkout (the shopper-page issue) is
 * to record per session that it saved the card; until then no checkout's card can be charged again.
 */
export const CARD_CHECKOUT_SAVES_CARD: boolean = false;

/**
 * Whether the shopper may be offered to add a post-purchase offer with one click: the checkout is paid by card and that
 * card can be charged again. Otherwise the page promises nothing (the offer is not shown); the accept route, which asks
 * the processor for the member's saved methods itself, refuses with UPSELL_NOT_AVAILABLE.
 */
export function oneClickUpsellAvailable(session: { status: string; paymentMethod: string | null }): boolean {
  return CARD_CHECKOUT_SAVES_CARD && session.status === 'COMPLETED' && session.paymentMethod === 'card';
}

export function isUpsellPurchaseState(value: unknown): value is UpsellPurchaseState {
  return typeof value === 'string' && (UPSELL_PURCHASE_STATES as readonly string[]).includes(value);
}

export function nextUpsellState(current: UpsellPurchaseState, outcome: UpsellChargeOutcome): UpsellPurchaseState {
  switch (outcome) {
    case 'paid':
      return current === 'REFUNDED' ? current : 'PAID';
    case 'failed':
      return current === 'PENDING' ? 'FAILED' : current;
    case 'refunded':
      return current === 'PAID' ? 'REFUNDED' : current;
    case 'pending':
      return current;
  }
}

/** What a processor event about an upsell's charge says of it (the spec's event names, as for a checkout's payment); undefined for others. */
export function upsellOutcomeOfEvent(event: string): UpsellChargeOutcome | undefined {
  const among = (list: readonly string[]) => list.includes(event);
  if (among(SUCCESS_EVENTS)) return 'paid';
  if (among(FAILURE_EVENTS)) return 'failed';
  if (among(REFUND_EVENTS)) return 'refunded';
  return undefined;
}

/** The state as the shopper's page and the workflow name it. */
export const upsellOutcomeOf = (state: UpsellPurchaseState): UpsellChargeOutcome => state.toLowerCase() as UpsellChargeOutcome;

/**
 * The key the upsell's order is found by on the store (the session attribute / order meta a checkout's order
 * carries its token in), distinct from the checkout's own order: `<token>-upsell-<upsellId>`.
 */
export const upsellOrderKey = (token: string, upsellId: string) => `${token}-upsell-${upsellId}`;
