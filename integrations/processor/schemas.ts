// The processor's resources as its REST API answers them (v1). The client parses every answer with these,
// so a malformed answer surfaces as IntegrationError kind 'invalid_response' instead of a wrong type deep
// inside the service; the sandbox types its answers with the same types. Added fields are tolerated
// (z.object drops unknown keys). Money is integer minor units with an upper-case ISO 4217 currency.
import { z } from 'zod';
import { PROCESSOR_EVENTS } from './webhook.js';

const id = (prefix: string) => z.string().startsWith(prefix);
const timestamp = z.string(); // ISO 8601
const money = { amount: z.number().int().nonnegative(), currency: z.string().length(3) };
const metadata = z.record(z.string(), z.string());

export const businessSchema = z.object({
  id: id('biz_'),
  object: z.literal('business'),
  name: z.string(),
  created_at: timestamp,
});

export const productSchema = z.object({
  id: id('prod_'),
  object: z.literal('product'),
  business_id: id('biz_'),
  name: z.string(),
  description: z.string().nullable(),
  created_at: timestamp,
});

export const webhookEndpointSchema = z.object({
  id: id('whk_'),
  object: z.literal('webhook_endpoint'),
  url: z.string(),
  events: z.array(z.enum(PROCESSOR_EVENTS)),
  created_at: timestamp,
});

/** Only the answer to the registration carries the signing secret; store it then. */
export const createdWebhookEndpointSchema = webhookEndpointSchema.extend({ secret: z.string().min(16) });

export const PAYMENT_STATUSES = ['requires_payment', 'requires_action', 'succeeded', 'failed', 'refunded'] as const;

export const paymentSchema = z.object({
  id: id('pay_'),
  object: z.literal('payment'),
  business_id: id('biz_'),
  status: z.enum(PAYMENT_STATUSES),
  ...money,
  metadata,
  product_id: z.string().nullable(),
  membership_id: z.string().nullable(),
  description: z.string().nullable(),
  return_url: z.string().nullable(),
  /** The hosted page where the customer pays. */
  payment_url: z.string(),
  card_last4: z.string().nullable(),
  failure_reason: z.string().nullable(),
  refund_id: z.string().nullable(),
  created_at: timestamp,
  paid_at: timestamp.nullable(),
  refunded_at: timestamp.nullable(),
});

export const refundSchema = z.object({
  id: id('re_'),
  object: z.literal('refund'),
  payment_id: id('pay_'),
  ...money,
  status: z.literal('succeeded'),
  created_at: timestamp,
});

export const WALLET_DOMAIN_STATUSES = ['registered', 'pending', 'needs_action'] as const;

export const walletDomainSchema = z.object({
  id: id('wd_'),
  object: z.literal('wallet_domain'),
  domain: z.string(),
  status: z.enum(WALLET_DOMAIN_STATUSES),
  /** Why a domain is not registered yet, e.g. what to do in the processor's dashboard. */
  status_message: z.string().nullable(),
  created_at: timestamp,
});

export const PLAN_INTERVALS = ['month', 'year'] as const;

export const planSchema = z.object({
  id: id('plan_'),
  object: z.literal('plan'),
  business_id: id('biz_'),
  name: z.string(),
  ...money,
  interval: z.enum(PLAN_INTERVALS),
  created_at: timestamp,
});

export const MEMBERSHIP_STATUSES = ['pending', 'active', 'past_due', 'canceled'] as const;

export const membershipSchema = z.object({
  id: id('mem_'),
  object: z.literal('membership'),
  business_id: id('biz_'),
  plan_id: id('plan_'),
  status: z.enum(MEMBERSHIP_STATUSES),
  /** Whether the membership currently grants access (active). */
  valid: z.boolean(),
  ...money,
  metadata,
  return_url: z.string().nullable(),
  /** The hosted page of the first payment. */
  payment_url: z.string(),
  latest_payment_id: id('pay_'),
  current_period_end: timestamp.nullable(),
  canceled_at: timestamp.nullable(),
  created_at: timestamp,
});

export const listSchema = <T extends z.ZodType>(item: T) => z.object({ object: z.literal('list'), data: z.array(item) });

export const deletedSchema = z.object({ id: z.string(), deleted: z.literal(true) });

export type Business = z.infer<typeof businessSchema>;
export type Product = z.infer<typeof productSchema>;
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;
export type CreatedWebhookEndpoint = z.infer<typeof createdWebhookEndpointSchema>;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export type Payment = z.infer<typeof paymentSchema>;
export type Refund = z.infer<typeof refundSchema>;
export type WalletDomainStatus = (typeof WALLET_DOMAIN_STATUSES)[number];
export type WalletDomain = z.infer<typeof walletDomainSchema>;
export type PlanInterval = (typeof PLAN_INTERVALS)[number];
export type Plan = z.infer<typeof planSchema>;
export type MembershipStatus = (typeof MEMBERSHIP_STATUSES)[number];
export type Membership = z.infer<typeof membershipSchema>;
export type Deleted = z.infer<typeof deletedSchema>;
