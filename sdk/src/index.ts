// @checkout-service/sdk — the Checkout service's merchant API for TypeScript (README.md).
export { createCheckoutClient, SDK_VERSION } from './client.js';
export type {
  CheckoutClient, CheckoutClientOptions, WriteOptions, DiscountCode, DiscountCodeCreate, DiscountCodeUpdate, OrderDetail, OrderSummary, OrdersPage, OrdersQuery, RefundRequest,
  WebhookEndpoint, WebhookEndpointWithSecret, WebhookEndpointCreate, WebhookEndpointUpdate, WebhookDelivery, WebhookDeliveriesQuery, MerchantEventsQuery,
} from './client.js';
export { CheckoutApiError, CheckoutConnectionError, type ErrorCode } from './errors.js';
export { verifyWebhook, WebhookVerificationError, type WebhookEvent, type WebhookEventType } from './webhooks.js';
export { IDEMPOTENCY_HEADER, retryAfterMs } from './transport.js';
export type { components, paths } from './schema.js';
