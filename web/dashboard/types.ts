// Answer shapes of the API. Where the API declares them in api/schemas (pure zod), they are taken from
// there (type-only: nothing of zod reaches the bundle), so a change of the API's shape breaks the
// dashboard's typecheck instead of the page. Shapes declared inside route files (which import server code)
// are restated here.
import type { z } from 'zod';
import type { merchantView } from '../../api/schemas/merchant.js';
import type { checkoutActivation, onboardingState, setupVerificationResult } from '../../api/schemas/onboarding.js';
import type { funnelResponse, orderDetail, orderSummary, ordersPage, statsResponse, timelineEntry } from '../../api/schemas/orders.js';
import type { discountView, orderBumpView, pixelView, upsellView } from '../../api/schemas/commerce.js';
import type { apiKeyCreated, apiKeyRolled, apiKeyView } from '../../api/schemas/api-keys.js';
import type { customerDetail, customersPage, customerSummary } from '../../api/schemas/customers.js';
import type { notificationSettings } from '../../api/schemas/notifications.js';
import type { enrolment, invitationLookup, invitationView, loginResponse, memberView, recoveryCodes, securityStatus, teamResponse } from '../../api/schemas/team.js';
import type { deliveriesPage, deliveryDetail, deliveryView, endpointCreated, endpointView, secretRotated } from '../../api/schemas/merchant-webhooks.js';

export type Merchant = z.output<typeof merchantView>;
export type ShippingRate = Merchant['shippingRates'][number];
export type SessionAnswer = { token: string; merchant: Merchant };
export type LoginAnswer = z.output<typeof loginResponse>;

export type Member = z.output<typeof memberView>;
export type Invitation = z.output<typeof invitationView>;
export type Team = z.output<typeof teamResponse>;
export type InvitationLookup = z.output<typeof invitationLookup>;
export type SecurityStatus = z.output<typeof securityStatus>;
export type Enrolment = z.output<typeof enrolment>;
export type RecoveryCodes = z.output<typeof recoveryCodes>;

export type OnboardingState = z.output<typeof onboardingState>;
export type CheckoutActivation = z.output<typeof checkoutActivation>;
export type SetupVerificationResult = z.output<typeof setupVerificationResult>;

export type OrderSummary = z.output<typeof orderSummary>;
export type OrdersPage = z.output<typeof ordersPage>;
export type OrderDetail = z.output<typeof orderDetail>;
export type TimelineEntry = z.output<typeof timelineEntry>;
export type Stats = z.output<typeof statsResponse>;
export type Funnel = z.output<typeof funnelResponse>;

export type CustomerSummary = z.output<typeof customerSummary>;
export type CustomersPage = z.output<typeof customersPage>;
export type CustomerDetail = z.output<typeof customerDetail>;
export type NotificationSettings = z.output<typeof notificationSettings>;

export type Discount = z.output<typeof discountView>;
export type OrderBump = z.output<typeof orderBumpView>;
export type Upsell = z.output<typeof upsellView>;
export type Pixel = z.output<typeof pixelView>;

export type ApiKey = z.output<typeof apiKeyView>;
export type ApiKeyCreated = z.output<typeof apiKeyCreated>;
export type ApiKeyRolled = z.output<typeof apiKeyRolled>;

/** GET /api/merchant/processor (api/routes/merchant/processor.ts). */
export interface ProcessorStatus {
  connected: boolean;
  ready: boolean;
  status: string | null;
  apiKeyLast4: string | null;
  businessId: string | null;
  productId: string | null;
  webhookRegistered: boolean;
  lastError: string | null;
  connectedAt: string | null;
  /** The latest key submitted since the connection was made, being set up or refused (the connection keeps working). */
  attempt: { status: 'CONNECTING' | 'FAILED'; apiKeyLast4: string; error: string | null; startedAt: string } | null;
  wallets?: WalletStatus | null;
}

/**
 * Apple Pay and Google Pay (model/wallets.ts): on Whop's hosted checkout page offered with no domain set-up, so the plan
 * alone decides (hosted); on the embedded payment page Apple Pay needs the checkout host verified with Whop (embedded,
 * applePayDomain); not_on_plan when the plan lacks them.
 */
export interface WalletStatus {
  status: 'hosted' | 'embedded' | 'not_on_plan';
  ready: boolean;
  statusMessage: string;
  applePayDomain?: ApplePayDomain | null;
}

/** The checkout host registered with Whop for Apple Pay (POST /api/merchant/processor/apple-pay-domain). */
export interface ApplePayDomain {
  hostname: string;
  /** Whop's apple_pay.state, or not_registered. */
  status: 'not_registered' | 'pending' | 'ready' | 'action_required' | 'releasing';
  /** What Whop asks for before checking again, as Whop wrote it. */
  issues: Array<{ code: string; message: string; codeBlock: string | null; dnsRecords: Array<{ type: string; name: string; value: string }> }>;
  checkedAt: string | null;
}

/** GET /api/merchant/storefront-a (api/routes/merchant/storefront-a.ts). */
export interface StorefrontAConnection {
  shop: string;
  clientId: string;
  connected: boolean;
  installedAt: string | null;
  uninstalledAt: string | null;
  scopes: string[];
  /** Scopes the checkout asks for that this install did not grant: a reinstall grants them. */
  missingScopes: string[];
  /** Runs the install of the pending inputs if any, else a reinstall of this connection. */
  installUrl: string;
  /** New inputs waiting for their install; the connection above keeps working until it completes. */
  pending: { shop: string; clientId: string; since: string } | null;
}

/** GET /api/merchant/storefront-b (api/routes/merchant/storefront-b.ts). */
export type StorefrontBStatus =
  | { connected: true; storeUrl: string; consumerKeyLast4: string; connectedAt: string; pluginInterceptedAt: string | null; pluginActive?: boolean; currency?: string }
  | { connected: false };

/** GET /api/merchant/script-tag/status (api/routes/merchant/script-tag.ts). */
export interface ScriptTagStatus {
  platform: 'STOREFRONT_A';
  /** Our app embed is on in the published theme. */
  installed: boolean;
  /** A legacy script tag of ours still in the shop. */
  scriptTagId: string | null;
  src: string;
  checkedAt: string;
  /** Theme editor link that turns the app embed on. */
  activationUrl: string;
  themeName: string | null;
}

export interface Subdomain {
  slug: string;
  subdomain: string;
  checkoutOrigin: string;
  exampleCheckoutUrl: string;
}

// Outgoing webhooks (api/schemas/merchant-webhooks.ts).
export type WebhookEndpoint = z.output<typeof endpointView>;
export type WebhookEndpointWithSecret = z.output<typeof endpointCreated>;
export type SecretRotated = z.output<typeof secretRotated>;
export type WebhookDelivery = z.output<typeof deliveryView>;
export type WebhookDeliveryDetail = z.output<typeof deliveryDetail>;
export type WebhookDeliveriesPage = z.output<typeof deliveriesPage>;
