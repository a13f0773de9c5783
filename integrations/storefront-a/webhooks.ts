// Storefront A's webhooks to an installed app (uninstall and the three mandatory privacy topics):
// header X-Storefront-Hmac-Sha256 carries the base64 HMAC-SHA256 of the exact raw body, keyed with the
// app's client secret. The sandbox signs with signWebhookBody; the service verifies with
// verifyWebhookHmac on the raw bytes before parsing, then reads the payload with parseWebhookPayload.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { parseResponse } from '../storefront-common/parse.js';

export const WEBHOOK_HEADERS = {
  topic: 'x-storefront-topic',
  shopDomain: 'x-storefront-shop-domain',
  hmac: 'x-storefront-hmac-sha256',
  webhookId: 'x-storefront-webhook-id',
  apiVersion: 'x-storefront-api-version',
  triggeredAt: 'x-storefront-triggered-at',
} as const;

export const WEBHOOK_TOPICS = ['app/uninstalled', 'customers/data_request', 'customers/redact', 'shop/redact'] as const;
export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number];

const BASE64_SHA256 = /^[A-Za-z0-9+/]{43}=$/;

export function signWebhookBody(rawBody: Buffer | string, secret: string): string {
  return createHmac('sha256', secret).update(rawBody).digest('base64');
}

/** True only when `header` is the HMAC of exactly these bytes with this secret (constant-time compare). */
export function verifyWebhookHmac(rawBody: Buffer | string, header: string | undefined, secret: string): boolean {
  if (!secret || header === undefined || !BASE64_SHA256.test(header.trim())) return false;
  const given = Buffer.from(header.trim(), 'base64');
  const expected = Buffer.from(signWebhookBody(rawBody, secret), 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
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
