// Verifying the service's webhooks on your server: they follow the Standard Webhooks specification
// (webhook-id, webhook-timestamp, webhook-signature `v1,<base64 HMAC-SHA256 of id.timestamp.body>`; secrets
// `whsec_…`), checked here with the specification's own library, `standardwebhooks`: constant-time comparison,
// a 5-minute timestamp tolerance, any of several signatures. Pass the raw body exactly as received.
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { components } from './schema.js';

export { WebhookVerificationError };

type Schemas = components['schemas'];

/**
 * Every event the service sends, as a union on `type` (docs/webhooks.md; the OpenAPI document's `webhooks`):
 * `session.completed`, `session.refunded`, `session.abandoned`, `dispute.created`, `dispute.resolved`, and
 * `webhook.test` from the dashboard's button. Switch on `event.type` and `event.data` is typed. New event types may
 * be added: ignore (and answer 2xx to) a type you do not know.
 */
export type WebhookEvent =
  | Schemas['WebhookEvent_session_completed']
  | Schemas['WebhookEvent_session_refunded']
  | Schemas['WebhookEvent_session_abandoned']
  | Schemas['WebhookEvent_dispute_created']
  | Schemas['WebhookEvent_dispute_resolved']
  | Schemas['WebhookEvent_webhook_test'];

export type WebhookEventType = WebhookEvent['type'];

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function headerRecord(headers: HeaderBag): Record<string, string> {
  const get = (name: string): string | undefined => {
    if (headers instanceof Headers) return headers.get(name) ?? undefined;
    const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
    return Array.isArray(found) ? found.join(' ') : found;
  };
  const out: Record<string, string> = {};
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const value = get(name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/**
 * The delivery's event once its signature checks out with one of `secrets` (during a rotation, give the new and
 * the old secret); throws WebhookVerificationError otherwise. `body` is the raw request body (string or bytes).
 */
export function verifyWebhook(body: string | Uint8Array, headers: HeaderBag, secrets: string | readonly string[]): WebhookEvent {
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  if (list.length === 0) throw new TypeError('verifyWebhook: at least one secret is required');
  const record = headerRecord(headers);
  let last: unknown;
  for (const secret of list) {
    try {
      return new Webhook(secret).verify(text, record) as WebhookEvent;
    } catch (err) {
      last = err;
    }
  }
  throw last instanceof WebhookVerificationError ? last : new WebhookVerificationError(last instanceof Error ? last.message : 'No matching signature found');
}
