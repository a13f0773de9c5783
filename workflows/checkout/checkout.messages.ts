// The checkout session workflow's contract: its id, input, updates, signals and query, shared by the
// workflow, the API routes that drive it and the activities it calls. Deterministic (types and
// @temporalio/workflow definitions only).
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { CheckoutStatus } from '../../domain/checkout/checkout-status.js';
import type { ShippingAddress } from '../../domain/address.js';
import type { UpsellCharge } from '../../domain/checkout/upsell-purchase.js';

import { PROCESSOR_EVENT_SIGNAL } from '../../domain/checkout/checkout-workflow.js';

/** One workflow per session; the id is derived from the token so any event finds it. */

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

export type { ShippingAddress };

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

export type { UpsellCharge };

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

export const initPaymentUpdate = defineUpdate<InitPaymentResult, [ShopperDetails]>('initPayment');
/** Cash on delivery: the shopper confirms; the order goes to the store in a pending-payment state. */
export const completeCodUpdate = defineUpdate<StatusResult, [ShopperDetails]>('completeCod');
/** The merchant's refund of a paid card payment, in full or in part (histories recorded before partial refunds carry no input: the legacy full refund). */
export const refundUpdate = defineUpdate<RefundResult, [RefundInput]>('refund');
/** A refund made in the store's admin: the money goes back through the processor too, once. */
export const storeRefundSignal = defineSignal<[StoreRefundMessage]>('storeRefund');
/** The same refund, asked by a caller that waits for the answer (storefront B's plugin, from wp-admin): a refusal reaches it. */
export const storeRefundUpdate = defineUpdate<RefundResult, [StoreRefundMessage]>('storeRefundUpdate');
/** The merchant's forced sync: the processor's payment status, and the store's payment state of a COD order. */
export const backfillStatusUpdate = defineUpdate<BackfillResult, []>('backfillStatus');
/** The payment page's step is done: confirm with the processor and apply what it says. */
export const payUpdate = defineUpdate<StatusResult, []>('pay');
/** A post-purchase upsell accepted: charged once, its order and email once it is paid. */
export const acceptUpsellUpdate = defineUpdate<UpsellCharge, [AcceptUpsellInput]>('acceptUpsell');
/** Re-fetch the processor's status and apply it. */
export const refreshStatusUpdate = defineUpdate<StatusResult, []>('refreshStatus');
export const processorEventSignal = defineSignal<[ProcessorEventMessage]>(PROCESSOR_EVENT_SIGNAL);
export const statusQuery = defineQuery<StatusResult>('status');

/** Processor payment statuses (integrations/processor) mapped onto the events the status machine knows. */
export const PAYMENT_STATUS_EVENTS: Readonly<Record<string, string | undefined>> = {
  succeeded: 'payment_succeeded',
  failed: 'payment_failed',
  refunded: 'payment_refunded',
};
