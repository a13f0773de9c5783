// The checkout workflow's contract as data: its input, what the shopper, the merchant, the store and the processor
// send it and what it answers, and its processor-event signal as callers outside workflow code spell it (the API, the
// processor sweep). Here, below every layer, so the API, the model, the activities and the workflow share one
// definition without importing each other; workflows/checkout/checkout.messages.ts defines the Temporal messages
// with these types. Its type name and id: domain/temporal/workflow-names.ts.
import type { CheckoutStatus } from './checkout-status.js';
import type { ShippingAddress } from '../address.js';

/** The signal a processor event (a webhook, a status sync, the sweep's cue) reaches the session's workflow by. */
export const PROCESSOR_EVENT_SIGNAL = 'processorEvent';

export interface CheckoutWorkflowInput {
  token: string;
  merchantId: string;
  platform: 'STOREFRONT_A' | 'STOREFRONT_B';
  /** No progress for this long → ABANDONED (default 24 hours). */
  abandonAfterMs?: number;
  /** After a payment starts, how long to wait for a webhook before asking the processor (default 5 minutes). */
  reconcileAfterMs?: number;
  /** First wait before the store order is retried, doubling up to 30 minutes (default 5 seconds; tests shorten it). */
  storeRetryInitialMs?: number;
  /**
   * After a refund was requested, how long the workflow keeps waiting for the processor to confirm it (webhook or
   * its own polls) before it ends (default 14 days; a later webhook or backfill-status still applies it).
   */
  refundWaitMs?: number;
}

export interface ShopperDetails {
  email: string;
  address: ShippingAddress;
  /** The billing address, only when the shopper said it differs from the shipping address (the store bills the shipping address otherwise). */
  billingAddress?: ShippingAddress;
  shippingRateId: string;
  /** A discount code the shopper entered: validated again and applied to the total (model/checkout/pricing.ts). */
  discountCode?: string;
  /** Ids of the merchant's order bumps the shopper ticked: priced from the merchant's records, never the browser. */
  orderBumpIds?: string[];
  /** The shopper's language (canonical BCP 47), stored with the details: the emails name countries in it. */
  locale?: string;
}

export interface InitPaymentResult {
  /** The processor's payment attempt; null when the total is 0 and nothing is charged. */
  paymentId: string | null;
  /** Where the shopper goes next: the processor's payment page, or (nothing to pay) the checkout page, confirmed. */
  paymentUrl: string;
  totalMinor: number;
  currency: string;
  /** PAYMENT_PENDING, or COMPLETED when there was nothing to pay. */
  status: 'PAYMENT_PENDING' | 'COMPLETED';
}

export interface StatusResult {
  status: CheckoutStatus;
}

/** A processor event, as signalled by the webhook route (after signature check and dedupe) or a status sync. */
export interface ProcessorEventMessage {
  /** The processor's event id, or `sync:<paymentId>:<status>` for events derived from a status lookup. */
  eventId: string;
  event: string;
  paymentId: string;
  /** The event is about an accepted upsell's charge (its payment's metadata checkout_upsell_id), not the checkout's payment. */
  upsellId?: string;
}

/** The shopper accepts a post-purchase upsell on the paid checkout's page (one click: the saved card is charged). */
export interface AcceptUpsellInput {
  upsellId: string;
}

/** A refund to make: the merchant's (dashboard, API) or one the merchant made in the store's admin. */
export interface RefundInput {
  /** Minor units of the session's currency; absent: all that is left. */
  amountMinor?: number;
  reason?: string | null;
  /** Put the given-back lines back in stock on the store. */
  restock?: boolean;
  /** The order lines given back (index in the order's lines) and how many. */
  lines?: Array<{ line: number; quantity: number }>;
}

/** A refund as the workflow asks for it: the input plus the id the workflow gave it (the refund row's id and idempotency key). */
export interface RefundRequest extends RefundInput {
  refundId: string;
  origin?: 'merchant' | 'store';
  /** A refund made in the store: its id there (so it is neither refunded twice at the processor nor sent back to the store). */
  storeRefundId?: string;
}

/** A session's refunds as they stand (activities/checkout/checkout-payment.ts syncProcessorRefunds). */
export interface RefundsState {
  totalMinor: number;
  /** Confirmed by the processor. */
  refundedMinor: number;
  /** Asked of the processor, not settled yet. */
  pendingMinor: number;
  /** Refund ids the processor confirmed: the shopper hears of each once. */
  succeeded: string[];
  /** Of those, the ones still to be made on the store order. */
  toStore: string[];
}

/** A refund the merchant asked for: the processor accepted it; the money is back once its refund succeeds. */
export interface RefundResult {
  status: CheckoutStatus;
  refund: { state: 'requested'; refundId: string; id?: string; amountMinor?: number; currency?: string };
}

/** A refund the merchant made in the store's admin (storefront A's refunds/create; storefront B's plugin). */
export interface StoreRefundMessage {
  storeRefundId: string;
  amountMinor: number;
  reason?: string | null;
}

/** What a forced status sync found: the processor's payment status and, for COD, whether the store has it paid. */
export interface BackfillResult {
  status: CheckoutStatus;
  /** The processor's status of the session's payment; null when the session has none (COD, never paid). */
  processorStatus: string | null;
  /** COD: when the store reported the order paid (ISO time); null while unpaid or not COD. */
  codPaidAt: string | null;
}
