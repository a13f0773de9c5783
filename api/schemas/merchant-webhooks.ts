// The merchant's outgoing webhooks as the API shows them: endpoints (the secret only in the create and rotate
// answers), deliveries with their attempt log, events. One source for validation, serialization and the document;
// the event payloads themselves are domain/merchant-webhooks/merchant-webhooks.ts (the document's `webhooks` section).
import { z } from 'zod';
import { DELIVERY_STATUSES, DISABLED_REASONS, MERCHANT_EVENT_TYPES, SUBSCRIBABLE_EVENT_TYPES } from '../../domain/merchant-webhooks/merchant-webhooks.js';
import { merchantEventSchemas } from '../../domain/merchant-webhooks/merchant-event-payloads.js';
import { fetchedUrl, text } from './text.js';
import { pageQuery } from './pagination.js';

export const endpointIdParams = z.object({ id: z.uuid('must be an endpoint id') });
export const deliveryIdParams = z.object({ id: z.string().regex(/^msg_[A-Za-z0-9]{24}$/, 'must be a delivery id (msg_…)') });
export const eventIdParams = z.object({ id: z.string().regex(/^evt_[A-Za-z0-9]{24}$/, 'must be an event id (evt_…)') });

const iso = z.string().describe('ISO 8601 time');
const eventTypes = z.array(z.enum(SUBSCRIBABLE_EVENT_TYPES))
  .max(20)
  // A type named twice is the same filter: kept once.
  .transform((list) => [...new Set(list)])
  .describe('The event types delivered to this endpoint; empty (the default): all of them (a type named twice counts once). webhook.test is sent on demand, whatever the filter');

/** The endpoint URL: https on a public address (checked when saved, and again, resolved, before every delivery), or a sandbox origin in local runs. */
export const endpointUrlFor = (allowedOrigins: readonly string[]) => fetchedUrl(2048, allowedOrigins)
  .describe('Where events are POSTed: an https URL whose host resolves to public addresses only (checked when saved and again before every delivery; redirects are not followed)');

export const endpointCreateFor = (allowedOrigins: readonly string[]) => z.strictObject({
  url: endpointUrlFor(allowedOrigins),
  description: text(200).optional().describe('A note for the merchant'),
  eventTypes: eventTypes.optional(),
  enabled: z.boolean().optional().describe('Default true'),
});

export const endpointPatchFor = (allowedOrigins: readonly string[]) => z.strictObject({
  url: endpointUrlFor(allowedOrigins).optional(),
  description: text(200).optional(),
  eventTypes: eventTypes.optional(),
  enabled: z.boolean().optional().describe('false: disabled by the merchant. true: enabled again, whatever disabled it; its failing streak starts afresh'),
});

export const endpointView = z.object({
  id: z.uuid(),
  url: z.string(),
  description: z.string(),
  eventTypes: z.array(z.enum(SUBSCRIBABLE_EVENT_TYPES)).describe('Empty: every event type'),
  enabled: z.boolean(),
  disabledReason: z.enum(DISABLED_REASONS).nullable().describe('merchant (by hand), gone (it answered 410 Gone), failing (every delivery failed for 5 days)'),
  disabledAt: iso.nullable(),
  failingSince: iso.nullable().describe('The first failed attempt since the last success; the endpoint is disabled 5 days after it (warning emails on day 1 and day 3)'),
  previousSecretExpiresAt: iso.nullable().describe('After a rotation, deliveries carry a signature with the previous secret too until this time'),
  createdAt: iso,
  updatedAt: iso,
}).meta({ id: 'WebhookEndpoint' });

const secret = z.string().regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/).describe('The signing secret (Standard Webhooks whsec_…). Shown in this answer only: store it now');

export const endpointCreated = endpointView.extend({ secret }).meta({ id: 'WebhookEndpointWithSecret' });
export const secretRotated = z.object({
  endpoint: endpointView,
  secret,
  previousSecretExpiresAt: iso.describe('Until then every delivery is signed with the new and the previous secret'),
});

export const endpointList = z.object({ items: z.array(endpointView) });
export const endpointDeleted = z.object({ deleted: z.literal(true), id: z.string() });

export const testSent = z.object({ eventId: z.string(), deliveryId: z.string().describe('msg_…: the webhook-id the endpoint receives') });
export const replaySinceBody = z.strictObject({
  since: z.iso.datetime({ offset: true }).describe('Every dead delivery (dead-letter list) of this endpoint for an event since this time is delivered again'),
});
export const replayStarted = z.object({ deliveryId: z.string(), run: z.number().int().describe('The replay\'s run number: its workflow is merchant-webhook-<deliveryId>-replay-<run>') });
export const replaysStarted = z.object({
  replayed: z.number().int(),
  deliveryIds: z.array(z.string()),
  more: z.boolean().describe('More dead deliveries match than one call replays (1000): call again'),
});


export const deliveriesQuery = z.strictObject({
  endpointId: z.uuid('must be an endpoint id').optional(),
  status: z.enum(DELIVERY_STATUSES).optional().describe('pending (attempting or waiting for the next attempt), succeeded, dead (the dead-letter list)'),
  eventType: z.enum(MERCHANT_EVENT_TYPES).optional(),
  ...pageQuery,
});

export const deliveryView = z.object({
  id: z.string().describe('msg_…: the webhook-id header, the same on every attempt and replay'),
  endpointId: z.uuid(),
  eventId: z.string(),
  eventType: z.enum(MERCHANT_EVENT_TYPES),
  status: z.enum(DELIVERY_STATUSES),
  run: z.number().int().describe('0 for the first run, n after the n-th replay'),
  attempts: z.number().int(),
  nextAttemptAt: iso.nullable(),
  lastAttemptAt: iso.nullable(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  succeededAt: iso.nullable(),
  deadAt: iso.nullable(),
  createdAt: iso,
}).meta({ id: 'WebhookDelivery' });

export const attemptView = z.object({
  number: z.number().int(),
  run: z.number().int(),
  at: iso,
  statusCode: z.number().int().nullable().describe('null: no answer (time-out, no connection, refused by the SSRF guard)'),
  durationMs: z.number().int(),
  responseBody: z.string().nullable().describe('The first 1 KB of the answer'),
  error: z.string().nullable(),
});

const payload = z.record(z.string(), z.unknown()).describe('The event as delivered: { id, type, created_at, data } (the document\'s webhooks section describes each type)');

export const deliveryDetail = deliveryView.extend({
  endpointUrl: z.string(),
  payload,
  attemptLog: z.array(attemptView).describe('Every attempt of every run, oldest first'),
});

export const deliveriesPage = z.object({ items: z.array(deliveryView), nextCursor: z.string().nullable() });

export const eventsQuery = z.strictObject({ type: z.enum(MERCHANT_EVENT_TYPES).optional(), ...pageQuery });
export const eventView = z.object({ id: z.string(), type: z.enum(MERCHANT_EVENT_TYPES), createdAt: iso, payload });
export const eventsPage = z.object({ items: z.array(eventView), nextCursor: z.string().nullable() });
export const eventDetail = eventView.extend({ deliveries: z.array(deliveryView) });

// ---- the document's `webhooks` section (OpenAPI 3.1): what each event's delivery POSTs to a merchant endpoint ----

const schemaName = (type: string) => `WebhookEvent_${type.replace(/\./g, '_')}`;

const DELIVERY_HEADERS = [
  ['webhook-id', 'msg_…: the delivery\'s id, the same on every attempt and replay of it: dedupe on it'],
  ['webhook-timestamp', 'Unix seconds of this attempt; refuse one more than 5 minutes away from your clock'],
  ['webhook-signature', 'Space-separated `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` under the endpoint\'s whsec_ secret; two during the 24 hours after a rotation (any one may match)'],
] as const;

/** Each event type's payload schema (components.schemas) and its delivery as an OpenAPI 3.1 webhook. */
export function webhooksDocument(): { schemas: Record<string, unknown>; webhooks: Record<string, unknown> } {
  const schemas: Record<string, unknown> = {};
  const webhooks: Record<string, unknown> = {};
  for (const type of MERCHANT_EVENT_TYPES) {
    const schema = merchantEventSchemas[type];
    const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'output' }) as Record<string, unknown>;
    schemas[schemaName(type)] = json;
    webhooks[type] = {
      post: {
        summary: type,
        description: `${schema.description ?? ''} POSTed as application/json to every enabled endpoint subscribed to ${type}, signed per Standard Webhooks (docs/webhooks.md). Answer 2xx within 15 s; anything else is retried on the schedule (0 s, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, ±10 %), 410 disables the endpoint, Retry-After is honoured on 429/502/504.`,
        tags: ['merchant webhooks'],
        parameters: DELIVERY_HEADERS.map(([name, description]) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } })),
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schemaName(type)}` } } } },
        responses: { '2XX': { description: 'Received: the delivery succeeded' }, '410': { description: 'Gone: the endpoint is disabled and gets nothing more until the merchant enables it' } },
      },
    };
  }
  return { schemas, webhooks };
}
