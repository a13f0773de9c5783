// Outgoing webhooks to merchants (docs/webhooks.md): the event types, the delivery schedule and what an answer
// means, endpoint health, the workflow ids. Pure and free of zod (the workflow bundle and the dashboard import it);
// the payload schemas are in ./merchant-event-payloads.ts.

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

/** Dispute statuses after which nothing more happens (Whop's DisputeStatuses, @whop/sdk src/resources/disputes.ts:565). */
export const FINAL_DISPUTE_STATUSES: ReadonlySet<string> = new Set(['won', 'lost', 'closed', 'warning_closed']);

/** What makes an event happen once: `<type>:<business key>` (a session token, a dispute id). */
export const factKeyOf = (type: MerchantEventType, key: string) => `${type}:${key}`;

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

/** Signal to an endpoint's health workflow: its failing streak changed (began, or ended by a success). A cue only: the workflow reads the database. */
export const ENDPOINT_HEALTH_CUE = 'endpointHealthCue';
