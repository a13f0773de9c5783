// Shopify's webhooks to an installed app (docs/storefront-a.md): X-Shopify-Hmac-Sha256 carries the base64
// HMAC-SHA256 of the exact raw body keyed with the app's client secret; X-Shopify-Topic, -Shop-Domain,
// -API-Version and -Webhook-Id are required. The official library validates them (webhooks.validate), on the
// raw bytes before parsing; parseWebhookPayload then reads the payload. X-Shopify-Event-Id names the event: it
// is the same on every retry of it (each retry has a new -Webhook-Id), so duplicates are keyed on it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { parseResponse } from '../storefront-common/parse.js';
import { shopifyFor } from './library.js';

export const WEBHOOK_HEADERS = {
  topic: 'x-shopify-topic',
  shopDomain: 'x-shopify-shop-domain',
  hmac: 'x-shopify-hmac-sha256',
  webhookId: 'x-shopify-webhook-id',
  eventId: 'x-shopify-event-id',
  apiVersion: 'x-shopify-api-version',
  triggeredAt: 'x-shopify-triggered-at',
} as const;

/** Topics whose effect is ours to apply; shop/update and domains/* only re-read the shop (CORS origins). */
export const WEBHOOK_TOPICS = ['app/uninstalled', 'customers/data_request', 'customers/redact', 'shop/redact', 'shop/update', 'domains/create', 'domains/update', 'domains/destroy', 'themes/publish', 'refunds/create'] as const;
export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number];
/** Topics we subscribe through the Admin API at install (the compliance topics live in the app's configuration). */
export const SUBSCRIBED_TOPICS = ['APP_UNINSTALLED', 'SHOP_UPDATE', 'DOMAINS_CREATE', 'DOMAINS_UPDATE', 'DOMAINS_DESTROY', 'THEMES_PUBLISH', 'REFUNDS_CREATE'] as const;

export type WebhookValidation = { valid: true; topic: string; domain: string; webhookId: string; eventId: string | null; apiVersion: string } | { valid: false; reason: string };

/** Validates one delivery exactly as @shopify/shopify-api does (HMAC over rawBody, required headers). */
export async function validateWebhook(app: { clientId: string; clientSecret: string }, rawBody: string, rawRequest: IncomingMessage, rawResponse: ServerResponse): Promise<WebhookValidation> {
  if (!app.clientSecret) return { valid: false, reason: 'no_secret' };
  const result = await shopifyFor(app).webhooks.validate({ rawBody, rawRequest, rawResponse });
  if (!result.valid) return { valid: false, reason: result.reason };
  if (result.webhookType !== 'webhooks') return { valid: false, reason: 'not_a_webhook' };
  return { valid: true, topic: String(result.topic), domain: result.domain, webhookId: result.webhookId, eventId: result.eventId ?? null, apiVersion: result.apiVersion };
}

const customer = z.object({ id: z.number(), email: z.string().nullable(), phone: z.string().nullable() });

export const webhookPayloadSchemas = {
  'app/uninstalled': z.object({ id: z.number(), name: z.string(), email: z.string(), domain: z.string(), myshopify_domain: z.string() }),
  'customers/data_request': z.object({
    shop_id: z.number(),
    shop_domain: z.string(),
    orders_requested: z.array(z.number()),
    customer,
    data_request: z.object({ id: z.number() }),
  }),
  'customers/redact': z.object({ shop_id: z.number(), shop_domain: z.string(), customer, orders_to_redact: z.array(z.number()) }),
  'shop/redact': z.object({ shop_id: z.number(), shop_domain: z.string() }),
  // Re-read through the Admin API instead of trusting these shapes (docs/storefront-a.md, "could not be verified").
  'shop/update': z.looseObject({}),
  'domains/create': z.looseObject({}),
  'domains/update': z.looseObject({}),
  'domains/destroy': z.looseObject({}),
  'themes/publish': z.looseObject({}),
  // The REST Refund resource (admin-rest 2026-10): money as decimal strings; transactions of kind "refund" are the money back.
  'refunds/create': z.looseObject({
    id: z.number(),
    order_id: z.number(),
    note: z.string().nullish(),
    transactions: z.array(z.looseObject({ kind: z.string(), status: z.string(), amount: z.string(), currency: z.string().nullish() })),
  }),
} satisfies Record<WebhookTopic, z.ZodType>;

export type WebhookPayload<T extends WebhookTopic> = z.output<(typeof webhookPayloadSchemas)[T]>;

export function isWebhookTopic(topic: string | undefined): topic is WebhookTopic {
  return (WEBHOOK_TOPICS as readonly string[]).includes(topic ?? '');
}

/** Parses a verified body; a payload not in the topic's shape raises IntegrationError 'invalid_response'. */
export function parseWebhookPayload<T extends WebhookTopic>(topic: T, rawBody: Buffer | string): WebhookPayload<T> {
  let json: unknown;
  try {
    json = JSON.parse(rawBody.toString());
  } catch {
    json = undefined;
  }
  return parseResponse('storefront-a', webhookPayloadSchemas[topic], json, `${topic} webhook payload`) as WebhookPayload<T>;
}
