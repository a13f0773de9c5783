// The checkout session workflow's contract: its id, input, updates, signals and query, shared by the
// workflow, the API routes that drive it and the activities it calls. Deterministic (types and
// @temporalio/workflow definitions only).
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { CheckoutStatus } from '../domain/checkout-status.js';

/** One workflow per session; the id is derived from the token so any event finds it. */
export const checkoutWorkflowId = (token: string) => `checkout-${token}`;

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
}

export interface ShippingAddress {
  name: string;
  line1: string;
  line2?: string;
  city: string;
  postalCode: string;
  /** ISO 3166-1 alpha-2 */
  country: string;
  region?: string;
  phone?: string;
}

export interface ShopperDetails {
  email: string;
  address: ShippingAddress;
  shippingRateId: string;
}

export interface InitPaymentResult {
  paymentId: string;
  paymentUrl: string;
  totalMinor: number;
  currency: string;
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
}

export const initPaymentUpdate = defineUpdate<InitPaymentResult, [ShopperDetails]>('initPayment');
/** The payment page's step is done: confirm with the processor and apply what it says. */
export const payUpdate = defineUpdate<StatusResult, []>('pay');
/** Re-fetch the processor's status and apply it. */
export const refreshStatusUpdate = defineUpdate<StatusResult, []>('refreshStatus');
export const processorEventSignal = defineSignal<[ProcessorEventMessage]>('processorEvent');
export const statusQuery = defineQuery<StatusResult>('status');

/** Processor payment statuses (integrations/processor) mapped onto the events the status machine knows. */
export const PAYMENT_STATUS_EVENTS: Readonly<Record<string, string | undefined>> = {
  succeeded: 'payment_succeeded',
  failed: 'payment_failed',
  refunded: 'payment_refunded',
};
