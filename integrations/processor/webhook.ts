// Webhooks from the processor as our endpoints receive them. Three signature schemes, one secret, the same key bytes
// (the UTF-8 bytes of Whop's `ws_…` secret string, as Whop shows it):
// - Standard Webhooks (Whop's dashboard-created endpoints, docs/processor.md): webhook-id, webhook-timestamp,
//   webhook-signature `v1,<base64>` (several during a secret rotation), verified with the `standardwebhooks` library:
//   5-minute tolerance, any one signature may match, constant-time comparison. The library base64-decodes its key,
//   so it gets the secret base64-encoded, as Whop's guide does.
// - Whop's `x-whop-signature: t=<unix>,v1=<hex>` (what endpoints created through `POST /webhooks` send; Whop's
//   whop-sandbox notes, "verified live"): hex HMAC-SHA256 of "<t>.<raw body>" keyed with the raw secret string,
//   the same 5-minute window, compared in constant time. Nothing but the body is signed: its `id` is the dedup key.
// - The spec's: X-Processor-Signature, the hex HMAC-SHA256 of the raw body, compared in constant time.
// Event names arrive in Whop's dotted spelling or the legacy/spec underscore one; both map onto the spec's table.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { currencyExponent, isKnownCurrency } from '../../domain/money.js';
import { Webhook } from 'standardwebhooks';
import { z } from 'zod';

export const SPEC_SIGNATURE_HEADER = 'x-processor-signature';
export const STANDARD_WEBHOOK_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;
export const WHOP_SIGNATURE_HEADER = 'x-whop-signature';
/** Seconds a signed timestamp may be away from now: Standard Webhooks' fixed 5 minutes, which Whop's own x-whop-signature check also uses. */
export const SIGNATURE_TOLERANCE_S = 5 * 60;

/**
 * The events we ask Whop to send (checkout payments, refunds, disputes, plan billing cues): names of the SDK's
 * WebhookEvent enum (@whop/sdk 0.0.42 src/resources/webhooks.ts:199-240) that POST /webhooks accepts. Not
 * membership.activated / membership.deactivated: Whop's API refuses them although the enum lists them (Whop's
 * whop-sandbox notes, "verified live, 2026-08-10"); plan billing reads the membership on the payment events of its
 * renewals and at each period end instead (docs/processor.md, "Plan billing events").
 */
export const SUBSCRIBED_EVENTS = [
  'payment.succeeded', 'payment.failed', 'payment.pending', 'refund.created', 'refund.updated', 'dispute.created', 'dispute.updated',
  'membership.cancel_at_period_end_changed', 'invoice.paid', 'invoice.past_due',
] as const;

type Headers = Record<string, string | string[] | undefined>;
const header = (headers: Headers, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const HEX_SHA256 = /^[0-9a-f]{64}$/i;

/** The spec's signature of a body (lowercase hex HMAC-SHA256). */
export function signSpecWebhook(secret: string, rawBody: Buffer | string): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

function specSignatureValid(secret: string, rawBody: Buffer, given: string | undefined): boolean {
  if (!secret || given === undefined || !HEX_SHA256.test(given.trim())) return false;
  const expected = Buffer.from(signSpecWebhook(secret, rawBody), 'hex');
  return timingSafeEqual(Buffer.from(given.trim(), 'hex'), expected);
}

function standardSignatureValid(secret: string, rawBody: Buffer, headers: Headers): boolean {
  if (!secret) return false;
  try {
    new Webhook(Buffer.from(secret, 'utf8').toString('base64')).verify(rawBody.toString('utf8'), {
      'webhook-id': header(headers, 'webhook-id') ?? '',
      'webhook-timestamp': header(headers, 'webhook-timestamp') ?? '',
      'webhook-signature': header(headers, 'webhook-signature') ?? '',
    });
    return true;
  } catch {
    return false; // wrong signature, stale or future timestamp, missing headers
  }
}

/** Whop's x-whop-signature header for a body: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, keyed with the secret's UTF-8 bytes. */
export function signWhopWebhook(secret: string, timestamp: number, rawBody: Buffer | string): string {
  return `t=${timestamp},v1=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`).update(rawBody).digest('hex')}`;
}

const UNIX_SECONDS = /^\d{1,12}$/;

/**
 * x-whop-signature: exactly one `t`, within the tolerance of `nowS`, and one or more `v1` (any one may match: a
 * rotation may sign twice). Malformed, stale or future: false.
 */
function whopSignatureValid(secret: string, rawBody: Buffer, given: string | undefined, nowS: number): boolean {
  if (!secret || given === undefined) return false;
  const parts = given.split(',').map((part) => part.trim().split('='));
  const stamps = parts.filter(([k]) => k === 't').map(([, v]) => v ?? '');
  const signatures = parts.filter(([k, v]) => k === 'v1' && v !== undefined && HEX_SHA256.test(v)).map(([, v]) => Buffer.from(v!, 'hex'));
  if (stamps.length !== 1 || !UNIX_SECONDS.test(stamps[0]!) || signatures.length === 0) return false;
  const timestamp = Number(stamps[0]);
  if (Math.abs(nowS - timestamp) > SIGNATURE_TOLERANCE_S) return false;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${stamps[0]}.`).update(rawBody).digest();
  return signatures.map((signature) => timingSafeEqual(signature, expected)).includes(true);
}

export type SignatureScheme = 'standard-webhooks' | 'x-whop-signature' | 'x-processor-signature';

/**
 * Which scheme a delivery is validly signed with by one of `secrets` (every secret is tried: no early exit that
 * would tell which one matched by its timing), or null. A delivery carrying Standard Webhooks headers is judged
 * by them only; else one carrying x-whop-signature by that only; else the spec's header.
 */
export function verifyDelivery(secrets: readonly string[], rawBody: Buffer, headers: Headers, nowMs = Date.now()): SignatureScheme | null {
  if (header(headers, 'webhook-signature') !== undefined) {
    return secrets.map((s) => standardSignatureValid(s, rawBody, headers)).includes(true) ? 'standard-webhooks' : null;
  }
  const whop = header(headers, WHOP_SIGNATURE_HEADER);
  if (whop !== undefined) {
    const nowS = Math.floor(nowMs / 1000);
    return secrets.map((s) => whopSignatureValid(s, rawBody, whop, nowS)).includes(true) ? 'x-whop-signature' : null;
  }
  const given = header(headers, SPEC_SIGNATURE_HEADER);
  return secrets.map((s) => specSignatureValid(s, rawBody, given)).includes(true) ? 'x-processor-signature' : null;
}

/** Received names → the spec's event names (States and transitions); explicit, no blanket `_`↔`.` rewriting. */
const SPEC_EVENT: Readonly<Record<string, string>> = {
  'payment.succeeded': 'payment_succeeded', payment_succeeded: 'payment_succeeded',
  'invoice.paid': 'invoice_paid', invoice_paid: 'invoice_paid',
  'membership.activated': 'membership_activated', membership_activated: 'membership_activated',
  'membership.went_valid': 'membership_went_valid', membership_went_valid: 'membership_went_valid',
  'payment.failed': 'payment_failed', payment_failed: 'payment_failed',
  'invoice.payment_failed': 'invoice_payment_failed', invoice_payment_failed: 'invoice_payment_failed',
  'payment.refunded': 'payment_refunded', payment_refunded: 'payment_refunded',
  'invoice.refunded': 'invoice_refunded', invoice_refunded: 'invoice_refunded',
  'membership.deactivated': 'membership_deactivated', membership_deactivated: 'membership_deactivated',
  'membership.went_invalid': 'membership_went_invalid', membership_went_invalid: 'membership_went_invalid',
};

const metadata = z.record(z.string(), z.unknown());
const eventSchema = z.looseObject({
  id: z.string().min(1).max(255).optional(),
  /** Whop: `type`; the spec's format and Whop's legacy v5: `event` / `action`. */
  type: z.string().min(1).max(255).optional(),
  event: z.string().min(1).max(255).optional(),
  action: z.string().min(1).max(255).optional(),
  data: z.looseObject({
    id: z.string().min(1).max(255),
    status: z.string().nullish(),
    metadata: metadata.nullish(),
    /** Refund events: the refunded payment, with the checkout's metadata. */
    payment: z.looseObject({ id: z.string().min(1).max(255), metadata: metadata.nullish() }).nullish(),
  }),
});

export interface ProcessorEvent {
  /** The event id to deduplicate by (the webhook-id header or the body's id), or undefined. */
  id: string | undefined;
  /** The name as received. */
  name: string;
  /** The spec's name it counts as (a succeeded refund counts as payment_refunded), else the received name. */
  specEvent: string;
  /** The object the event is about (a payment, membership, refund or invoice id). */
  objectId: string;
  /** The payment it concerns: data.id, or a refund's data.payment.id. */
  paymentId: string;
  /** Our metadata on it: data.metadata, else the refunded payment's. */
  metadata: Record<string, string>;
}

const strings = (value: Record<string, unknown> | null | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(value ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'));

/** A verified body as an event; undefined when it is not one. `webhookId` is the Standard Webhooks id header. */
export function readEvent(json: unknown, webhookId?: string): ProcessorEvent | undefined {
  const parsed = eventSchema.safeParse(json);
  if (!parsed.success) return undefined;
  const { data } = parsed.data;
  const name = parsed.data.type ?? parsed.data.event ?? parsed.data.action;
  if (!name) return undefined;
  const refund = name === 'refund.updated' || name === 'refund_updated';
  const specEvent = refund && data.status === 'succeeded' ? 'payment_refunded' : (SPEC_EVENT[name] ?? name);
  const own = strings(data.metadata);
  return {
    id: webhookId ?? parsed.data.id,
    name,
    specEvent,
    objectId: data.id,
    paymentId: data.payment?.id ?? data.id,
    metadata: Object.keys(own).length ? own : strings(data.payment?.metadata),
  };
}

// ---- disputes ----------------------------------------------------------------------------------------
// Whop's dispute.created and dispute.updated (@whop/sdk 0.0.42 src/resources/webhooks.ts:507-570, DisputeCreatedWebhookEvent
// and DisputeUpdatedWebhookEvent) carry a Dispute as data (src/resources/disputes.ts:98-251): id, amount (decimal major
// units), currency (lowercase ISO), reason, status (DisputeStatuses, disputes.ts:565), payment { id, … } without our
// metadata, and company { id, title }: the company the dispute was filed against, which names the merchant.

export const DISPUTE_EVENTS: ReadonlySet<string> = new Set(['dispute.created', 'dispute.updated']);

export interface ProcessorDispute {
  /** dispute.created or dispute.updated. */
  name: string;
  id: string;
  status: string;
  amountMinor: number;
  /** ISO 4217, upper case. */
  currency: string;
  reason: string | null;
  paymentId: string;
}

const disputeSchema = z.looseObject({
  type: z.enum(['dispute.created', 'dispute.updated']),
  company_id: z.string().min(1).max(255).nullish(),
  data: z.looseObject({
    id: z.string().min(1).max(255),
    amount: z.number().nonnegative(),
    currency: z.string().min(3).max(3),
    reason: z.string().max(1000).nullish(),
    status: z.string().min(1).max(100),
    payment: z.looseObject({ id: z.string().min(1).max(255) }),
    company: z.looseObject({ id: z.string().min(1).max(255) }).nullish(),
  }),
});

/**
 * The Whop company an unverified event names, whose merchant's secret verifies it: the envelope's `company_id` (or
 * `account_id`, its name in webhooks pinned to later API versions, docs.whop.com webhooks guide), else the object's
 * own `data.company.id` (a Dispute, a Payment).
 */
export function claimedCompany(json: unknown): string | null {
  const body = json !== null && typeof json === 'object' ? (json as Record<string, unknown>) : {};
  const data = body.data !== null && typeof body.data === 'object' ? (body.data as Record<string, unknown>) : {};
  const company = data.company !== null && typeof data.company === 'object' ? (data.company as Record<string, unknown>).id : undefined;
  const id = [body.company_id, body.account_id, company].find((v): v is string => typeof v === 'string' && v !== '');
  return id ? id.slice(0, 255) : null;
}

/** A verified dispute event; undefined when the body is not one (or its currency is not an ISO code we know). */
export function readDispute(json: unknown): ProcessorDispute | undefined {
  const parsed = disputeSchema.safeParse(json);
  if (!parsed.success) return undefined;
  const { data } = parsed.data;
  const currency = data.currency.toUpperCase();
  if (!isKnownCurrency(currency)) return undefined;
  return {
    name: parsed.data.type,
    id: data.id,
    status: data.status,
    amountMinor: Math.round(data.amount * 10 ** currencyExponent(currency)),
    currency,
    reason: data.reason ?? null,
    paymentId: data.payment.id,
  };
}
