// Answer shapes of the API that the dashboard's components pass around, each named by the route that answers it and
// typed from the SDK's types generated from the API's OpenAPI document (sdk/src/schema.ts, `npm run sdk:generate`):
// a change of a route or of its shape breaks the dashboard's typecheck instead of the page. A call's own answer needs
// no name here: api.get('/api/merchant/security') is typed by its route (./api.ts).
import type { Answer } from './api.js';

export type Merchant = Answer<'/api/merchant/me', 'get'>;

type Team = Answer<'/api/merchant/members', 'get'>;
export type Member = Team['members'][number];
export type Invitation = Team['invitations'][number];

export type OrderSummary = Answer<'/api/checkout/merchant/orders', 'get'>['items'][number];
export type OrderDetail = Answer<'/api/checkout/merchant/orders/{token}', 'get'>;
export type TimelineEntry = OrderDetail['timeline'][number];
export type Stats = Answer<'/api/merchant/stats', 'get'>;
export type Funnel = Answer<'/api/merchant/stats/funnel', 'get'>;

export type CustomerSummary = Answer<'/api/checkout/merchant/customers', 'get'>['items'][number];
export type NotificationSettings = Answer<'/api/merchant/notifications', 'get'>;

export type ApiKey = Answer<'/api/merchant/api-keys/{id}', 'get'>;
export type ApiKeyCreated = Answer<'/api/merchant/api-keys', 'post'>;
export type ApiKeyRolled = Answer<'/api/merchant/api-keys/{id}/roll', 'post'>;

export type ProcessorStatus = Answer<'/api/merchant/processor', 'get'>;
/** Apple Pay and Google Pay (model/merchant/wallets.ts), as registering the checkout host answers them. */
export type WalletStatus = Answer<'/api/merchant/processor/apple-pay-domain', 'post'>;
export type ApplePayDomain = NonNullable<WalletStatus['applePayDomain']>;
export type StorefrontAConnection = Answer<'/api/merchant/storefront-a', 'get'>;

// Outgoing webhooks.
export type WebhookEndpoint = Answer<'/api/merchant/webhooks/endpoints/{id}', 'get'>;
export type WebhookEndpointWithSecret = Answer<'/api/merchant/webhooks/endpoints', 'post'>;
export type WebhookDelivery = Answer<'/api/merchant/webhooks/deliveries', 'get'>['items'][number];
