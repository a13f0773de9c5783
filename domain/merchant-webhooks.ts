// Outgoing webhooks to merchants (docs/webhooks.md): the events and their payloads (zod: the payload is built
// through these schemas and the OpenAPI document describes them from the same source), the delivery schedule and
// what an answer means, the workflow ids. Pure: shared by api/, model/, activities/, workflows/ and web/.
import { z } from 'zod';

// ---- events ------------------------------------------------------------------------------------------

/** What a merchant can subscribe an endpoint to; `webhook.test` goes only to the endpoint whose test button sent it. */
export const MERCHANT_EVENT_TYPES = ['session.completed', 'session.refunded', 'session.abandoned', 'dispute.created', 'dispute.resolved', 'webhook.test'] as const;
export type MerchantEventType = (typeof MERCHANT_EVENT_TYPES)[number];
/** The types an endpoint's filter may name (the test event is not subscribed to: it is sent on demand). */
export const SUBSCRIBABLE_EVENT_TYPES = MERCHANT_EVENT_TYPES.filter((t): t is Exclude<MerchantEventType, 'webhook.test'> => t !== 'webhook.test');
export type SessionEventType = 'session.completed' | 'session.refunded' | 'session.abandoned';
export type DisputeEventType = 'dispute.created' | 'dispute.resolved';

export const isMerchantEventType = (value: unknown): value is MerchantEventType => (MERCHANT_EVENT_TYPES as readonly unknown[]).includes(value);

/** The session status each session event reports (the fact is the session reaching it). */
export const SESSION_EVENT_OF_STATUS: Readonly<Record<string, SessionEventType | undefined>> = {
  COMPLETED: 'session.completed',
  REFUNDED: 'session.refunded',
  ABANDONED: 'session.abandoned',
};

/** What makes an event happen once: `<type>:<business key>` (a session token, a dispute id). */
export const factKeyOf = (type: MerchantEventType, key: string) => `${type}:${key}`;

const iso = z.iso.datetime({ offset: true }).describe('ISO 8601 time');
const minor = z.number().int().describe('Integer minor units of `currency` (cents)');
const currency = z.string().regex(/^[A-Z]{3}$/).describe('ISO 4217 code, upper case');

export const sessionEventData = z.object({
  token: z.string().describe('The checkout session token (cs_…)'),
  status: z.enum(['COMPLETED', 'REFUNDED', 'ABANDONED']).describe('The status the session reached: the fact this event reports'),
  currency,
  subtotal_minor: minor.describe('Cart items + accepted order bumps, in minor units'),
  shipping_minor: minor.nullable().describe('Null until the shopper chose a shipping rate'),
  discount_minor: minor,
  total_minor: minor.nullable().describe('What the shopper pays; null until the shopper entered their details'),
  payment_method: z.enum(['card', 'cod', 'free']).nullable().describe('card (the processor), cod (cash on delivery), free (nothing to pay); null before a payment started'),
  customer_email: z.string().nullable(),
  store_order_id: z.string().nullable().describe('The order on the store, when it exists at the time of the event (it is created right after COMPLETED: often null in session.completed)'),
  processor_payment_id: z.string().nullable().describe('The processor\'s payment (Whop pay_… / checkout ch_…)'),
  created_at: iso.describe('When the session was created'),
  completed_at: iso.nullable(),
  refunded_at: iso.nullable(),
}).describe('A checkout session, as the merchant sees it in the orders API');

/** Dispute statuses after which nothing more happens (Whop's DisputeStatuses, @whop/sdk src/resources/disputes.ts:565). */
export const FINAL_DISPUTE_STATUSES: ReadonlySet<string> = new Set(['won', 'lost', 'closed', 'warning_closed']);

export const disputeEventData = z.object({
  dispute_id: z.string().describe('The processor\'s dispute id (Whop dspt_…)'),
  status: z.string().describe('The processor\'s dispute status (Whop: warning_needs_response, warning_under_review, warning_closed, needs_response, under_review, won, lost, closed, other); dispute.resolved carries a final one: won, lost, closed or warning_closed'),
  amount_minor: minor.describe('The disputed amount in minor units'),
  currency,
  reason: z.string().nullable(),
  session_token: z.string().describe('The checkout session whose payment is disputed'),
  processor_payment_id: z.string().describe('The disputed payment'),
}).describe('A dispute (chargeback) on the payment of one of the merchant\'s checkout sessions');

export const testEventData = z.object({
  endpoint_id: z.string().describe('The endpoint whose "send test event" sent it'),
  message: z.string(),
}).describe('Sent by the dashboard\'s (or the API\'s) "send test event": to that endpoint only');

const envelope = <T extends MerchantEventType, D extends z.ZodType>(type: T, data: D, description: string) =>
  z.object({
    id: z.string().regex(/^evt_[A-Za-z0-9]+$/).describe('The event id (evt_…). The webhook-id header (msg_…) is the id of its delivery to one endpoint: dedupe on that'),
    type: z.literal(type),
    created_at: iso.describe('When the fact happened (recorded)'),
    data,
  }).describe(description);

/** Every event payload, by type: the body of each delivery (`webhooks` of the OpenAPI document). */
export const merchantEventSchemas = {
  'session.completed': envelope('session.completed', sessionEventData, 'The processor confirmed the payment of a checkout session (or nothing was to be paid). Once per session.'),
  'session.refunded': envelope('session.refunded', sessionEventData, 'The processor confirmed the full refund of a completed session. Once per session.'),
  'session.abandoned': envelope('session.abandoned', sessionEventData, 'The session had no progress for the abandonment delay (24 hours by default), or its payment never got a result. Once per session.'),
  'dispute.created': envelope('dispute.created', disputeEventData, 'The shopper\'s bank opened a dispute on a session\'s payment. Once per dispute.'),
  'dispute.resolved': envelope('dispute.resolved', disputeEventData, 'A dispute reached a final status (won, lost, closed, warning_closed). Once per dispute.'),
  'webhook.test': envelope('webhook.test', testEventData, 'A test event, sent on demand to one endpoint.'),
} as const satisfies Record<MerchantEventType, z.ZodType>;

export type MerchantEventPayload<T extends MerchantEventType = MerchantEventType> = z.output<(typeof merchantEventSchemas)[T]>;
export type SessionEventData = z.output<typeof sessionEventData>;
export type DisputeEventData = z.output<typeof disputeEventData>;

// ---- delivery ----------------------------------------------------------------------------------------

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * The wait before each attempt (Svix's schedule): 8 attempts over 27 h 35 min. Each wait after the first is
 * jittered by ±JITTER, so the whole schedule never falls under 24 hours (0.9 × 27.6 h = 24.8 h).
 */
export const DELIVERY_SCHEDULE_MS: readonly number[] = [0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
export const DELIVERY_JITTER = 0.1;
/** One attempt: connect, send, answer (headers and the first KB of the body). */
export const DELIVERY_TIMEOUT_MS = 15 * SECOND;
/** A Retry-After longer than this is read as this (a receiver cannot park a delivery for a week). */
export const RETRY_AFTER_CAP_MS = 24 * HOUR;
/** Statuses whose Retry-After is honoured (rate limited, a proxy in front of a receiver that is down). */
export const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 502, 504]);
/** The answer's body kept in the attempt log. */
export const RESPONSE_BODY_LOG_BYTES = 1024;

/** `ms` jittered by ±DELIVERY_JITTER with `random` in [0, 1) (the workflow's deterministic Math.random). */
export const jittered = (ms: number, random: number) => Math.round(ms * (1 - DELIVERY_JITTER + 2 * DELIVERY_JITTER * random));

/**
 * The wait before the next attempt: the schedule's (jittered) wait, or longer when the receiver asked for it
 * with Retry-After on a 429/502/504 (capped). A shorter Retry-After does not hurry the schedule: it says when
 * we may come back, and coming back later keeps the schedule's 24 hours of resilience.
 */
export function nextWaitMs(scheduledMs: number, retryAfterMs: number | null): number {
  return retryAfterMs === null ? scheduledMs : Math.max(scheduledMs, Math.min(retryAfterMs, RETRY_AFTER_CAP_MS));
}

/** Retry-After as milliseconds (delta-seconds or an HTTP date), null when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | null {
  if (!value) return null;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * SECOND;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * What an answer means for a delivery: 2xx is success; 410 Gone disables the endpoint; anything else (3xx
 * included: redirects are not followed) is a failure the schedule retries.
 */
export type AnswerKind = 'success' | 'gone' | 'failure';
export function answerKind(status: number | null): AnswerKind {
  if (status !== null && status >= 200 && status < 300) return 'success';
  return status === 410 ? 'gone' : 'failure';
}

/** Why an endpoint is disabled. */
export const DISABLED_REASONS = ['merchant', 'gone', 'failing'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

/** Delivery statuses: dead is the dead-letter list. */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'dead'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

// ---- endpoint health ---------------------------------------------------------------------------------

const DAY = 24 * HOUR;
/** Days of continuous failure (no success since failingSince) at which the merchant is warned, then the endpoint disabled. */
export const ENDPOINT_HEALTH_STEPS = [
  { at: 1 * DAY, step: 'warning_day_1' },
  { at: 3 * DAY, step: 'warning_day_3' },
  { at: 5 * DAY, step: 'disable' },
] as const;
export type EndpointHealthStep = (typeof ENDPOINT_HEALTH_STEPS)[number]['step'];

/** Endpoints per merchant. */
export const MAX_WEBHOOK_ENDPOINTS = 10;
/** How long the previous secret keeps signing after a rotation. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * HOUR;

// ---- workflow ids ------------------------------------------------------------------------------------

/** The first run of a delivery; a replay (run n ≥ 1) has an id of its own, so no two runs ever share one. */
export const deliveryWorkflowId = (deliveryId: string, run = 0) => (run === 0 ? `merchant-webhook-${deliveryId}` : `merchant-webhook-${deliveryId}-replay-${run}`);
export const endpointHealthWorkflowId = (endpointId: string) => `webhook-endpoint-health-${endpointId}`;
/** The workflow that records an event the API learnt of (a dispute): one per fact. */
export const merchantEventWorkflowId = (factKey: string) => `merchant-event-${factKey}`;
/** Type names the API and activities start workflows by (they never import workflow code). */
export const ENDPOINT_HEALTH_WORKFLOW = 'webhookEndpointHealthWorkflow';
export const MERCHANT_EVENT_WORKFLOW = 'recordMerchantEventWorkflow';
/** Signal to an endpoint's health workflow: its failing streak changed (began, or ended by a success). A cue only: the workflow reads the database. */
export const ENDPOINT_HEALTH_CUE = 'endpointHealthCue';
