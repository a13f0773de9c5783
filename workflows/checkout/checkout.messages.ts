// The checkout session workflow's messages: its updates, signals and query, shared by the workflow and the API
// routes that drive it; the data they carry is defined in domain/checkout/checkout-workflow.ts. Deterministic
// (@temporalio/workflow definitions only).
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { UpsellCharge } from '../../domain/checkout/upsell-purchase.js';
import { PROCESSOR_EVENT_SIGNAL, type ShopperDetails, type InitPaymentResult, type StatusResult, type ProcessorEventMessage, type AcceptUpsellInput, type RefundInput, type RefundResult, type StoreRefundMessage, type BackfillResult } from '../../domain/checkout/checkout-workflow.js';

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
