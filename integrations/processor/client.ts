// Client of the processor's REST API (v1): bearer API key, JSON bodies, Idempotency-Key on money
// movements. The same code talks to the sandbox (sandbox/processor) or the real platform by base URL and key.
// Every answer is parsed with its schema; every failure is an IntegrationError of system 'processor'
// (a rejected key is kind 'unauthorized', a slow answer kind 'timeout').
import type { z } from 'zod';
import { createHttpClient, type RequestOptions } from '../http.js';
import { IntegrationError } from '../errors.js';
import {
  businessSchema,
  createdWebhookEndpointSchema,
  deletedSchema,
  listSchema,
  membershipSchema,
  paymentSchema,
  planSchema,
  productSchema,
  refundSchema,
  walletDomainSchema,
  webhookEndpointSchema,
  type Business,
  type CreatedWebhookEndpoint,
  type Deleted,
  type Membership,
  type Payment,
  type Plan,
  type PlanInterval,
  type Product,
  type Refund,
  type WalletDomain,
  type WebhookEndpoint,
} from './schemas.js';
import type { ProcessorEventName } from './webhook.js';

export const PROCESSOR_SYSTEM = 'processor';

export interface ProcessorClientOptions {
  apiKey: string;
  baseUrl: string;
  /** Per-call time-out in ms (default 10 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface CreatePaymentInput {
  /** Integer minor units. */
  amount: number;
  /** ISO 4217 code. */
  currency: string;
  product_id?: string;
  /** Links the payment to a checkout session; the processor echoes it in every webhook. */
  metadata: { checkout_session_token: string } & Record<string, string>;
  /** Where the hosted page sends the customer after paying (with ?payment_id=). */
  return_url?: string;
  description?: string;
}

export interface CreatePlanInput {
  name: string;
  amount: number;
  currency: string;
  interval: PlanInterval;
}

export interface CreateMembershipInput {
  plan_id: string;
  metadata?: Record<string, string>;
  return_url?: string;
}

export interface ProcessorClient {
  /** Checks the API key by fetching the business it belongs to. */
  validateKey(): Promise<Business>;
  getBusiness(businessId: string): Promise<Business>;
  createProduct(input: { name: string; description?: string }, idempotencyKey?: string): Promise<Product>;
  registerWebhook(input: { url: string; events?: ProcessorEventName[] }, idempotencyKey?: string): Promise<CreatedWebhookEndpoint>;
  listWebhooks(): Promise<WebhookEndpoint[]>;
  deleteWebhook(webhookId: string): Promise<Deleted>;
  /** The idempotency key makes a retry return the first payment instead of creating a second one. */
  createPayment(input: CreatePaymentInput, idempotencyKey: string): Promise<Payment>;
  getPayment(paymentId: string): Promise<Payment>;
  /** Newest first; optionally only those carrying this checkout session token. */
  listPayments(filter?: { checkoutSessionToken?: string }): Promise<Payment[]>;
  /** Full refund. Refunding again returns the same refund. */
  refundPayment(paymentId: string, idempotencyKey: string): Promise<Refund>;
  registerWalletDomain(domain: string): Promise<WalletDomain>;
  listWalletDomains(): Promise<WalletDomain[]>;
  createPlan(input: CreatePlanInput, idempotencyKey?: string): Promise<Plan>;
  createMembership(input: CreateMembershipInput, idempotencyKey?: string): Promise<Membership>;
  getMembership(membershipId: string): Promise<Membership>;
  cancelMembership(membershipId: string): Promise<Membership>;
  /** Charges the membership's next period on its card on file; answers that payment (succeeded or failed). */
  renewMembership(membershipId: string, idempotencyKey: string): Promise<Payment>;
}

export function createProcessorClient(options: ProcessorClientOptions): ProcessorClient {
  const http = createHttpClient({
    system: PROCESSOR_SYSTEM,
    baseUrl: options.baseUrl,
    headers: { authorization: `Bearer ${options.apiKey}` },
    timeoutMs: options.timeoutMs,
    fetch: options.fetch,
  });

  async function call<S extends z.ZodType>(schema: S, method: string, path: string, opts?: RequestOptions): Promise<z.output<S>> {
    const body = await http.request<unknown>(method, path, opts);
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
      throw new IntegrationError(PROCESSOR_SYSTEM, 'invalid_response', `${PROCESSOR_SYSTEM}: ${method} ${path} answered an unexpected shape (${issues})`, {
        remote: body,
      });
    }
    return parsed.data;
  }
  const seg = encodeURIComponent;

  return {
    validateKey: () => call(businessSchema, 'GET', '/v1/me'),
    getBusiness: (businessId) => call(businessSchema, 'GET', `/v1/businesses/${seg(businessId)}`),
    createProduct: (input, idempotencyKey) => call(productSchema, 'POST', '/v1/products', { body: input, idempotencyKey }),
    registerWebhook: (input, idempotencyKey) => call(createdWebhookEndpointSchema, 'POST', '/v1/webhooks', { body: input, idempotencyKey }),
    listWebhooks: async () => (await call(listSchema(webhookEndpointSchema), 'GET', '/v1/webhooks')).data,
    deleteWebhook: (webhookId) => call(deletedSchema, 'DELETE', `/v1/webhooks/${seg(webhookId)}`),
    createPayment: (input, idempotencyKey) => call(paymentSchema, 'POST', '/v1/payments', { body: input, idempotencyKey }),
    getPayment: (paymentId) => call(paymentSchema, 'GET', `/v1/payments/${seg(paymentId)}`),
    listPayments: async (filter = {}) =>
      (await call(listSchema(paymentSchema), 'GET', '/v1/payments', { query: { checkout_session_token: filter.checkoutSessionToken } })).data,
    refundPayment: (paymentId, idempotencyKey) => call(refundSchema, 'POST', `/v1/payments/${seg(paymentId)}/refund`, { body: {}, idempotencyKey }),
    registerWalletDomain: (domain) => call(walletDomainSchema, 'POST', '/v1/wallet_domains', { body: { domain } }),
    listWalletDomains: async () => (await call(listSchema(walletDomainSchema), 'GET', '/v1/wallet_domains')).data,
    createPlan: (input, idempotencyKey) => call(planSchema, 'POST', '/v1/plans', { body: input, idempotencyKey }),
    createMembership: (input, idempotencyKey) => call(membershipSchema, 'POST', '/v1/memberships', { body: input, idempotencyKey }),
    getMembership: (membershipId) => call(membershipSchema, 'GET', `/v1/memberships/${seg(membershipId)}`),
    cancelMembership: (membershipId) => call(membershipSchema, 'POST', `/v1/memberships/${seg(membershipId)}/cancel`, { body: {} }),
    renewMembership: (membershipId, idempotencyKey) => call(paymentSchema, 'POST', `/v1/memberships/${seg(membershipId)}/renew`, { body: {}, idempotencyKey }),
  };
}
