// Webhook signatures of the processor: header X-Processor-Signature carries the lowercase hex
// HMAC-SHA256 of the exact raw request body, keyed with the webhook endpoint's secret. The sandbox signs
// with signWebhook and the service verifies with verifyWebhookSignature, so both sides share one
// implementation of the format.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-processor-signature';

const HEX_SHA256 = /^[0-9a-f]{64}$/i;

export function signWebhook(secret: string, rawBody: Buffer | string): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/**
 * True only when `header` is the HMAC of exactly these bytes. Checked on the raw body before any parsing:
 * re-serialised JSON would not match. Malformed or missing headers and an empty secret never verify.
 */
export function verifyWebhookSignature(secret: string, rawBody: Buffer | string, header: string | undefined): boolean {
  if (!secret || header === undefined) return false;
  const candidate = header.trim();
  // Buffer.from(hex) silently stops at the first non-hex character, so the shape is checked first.
  if (!HEX_SHA256.test(candidate)) return false;
  const expected = Buffer.from(signWebhook(secret, rawBody), 'hex');
  const given = Buffer.from(candidate, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
