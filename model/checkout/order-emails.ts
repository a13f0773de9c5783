// The order emails of a checkout session and the key each is recorded under (email_messages.idempotency_key): the
// fulfilment sends each once by it, the merchant's order detail finds them by it.

export type OrderEmailKind =
  | 'order_confirmation' | 'merchant_order_notification' | 'store_order_problem' | 'refund_confirmation' | 'upsell_confirmation'
  | 'payment_held' | 'store_refund_problem' | 'merchant_refund_notification';

export const orderEmailIdempotencyKey = (kind: OrderEmailKind, token: string) => `${kind}:${token}`;

/** The shopper's confirmation of one accepted upsell: once per upsell of the session. */
export const upsellEmailIdempotencyKey = (token: string, upsellId: string) => `upsell_confirmation:${token}:${upsellId}`;

/** The emails sent once per refund. */
export type RefundEmailKind = 'refund_confirmation' | 'store_refund_problem' | 'merchant_refund_notification';

/** One email per refund (a session may be refunded in several parts): the shopper's confirmation, the merchant's store problem. */
export const refundEmailIdempotencyKey = (kind: RefundEmailKind, token: string, refundId: string) => `${kind}:${token}:${refundId}`;
