// Webhooks from the processor as our endpoints receive them. Two signature schemes, one secret:
// - Whop's (Standard Webhooks, docs/processor.md): webhook-id, webhook-timestamp, webhook-signature `v1,<base64>`
//   (several during a secret rotation), verified with the `standardwebhooks` library: 5-minute tolerance, any
//   one signature may match, constant-time comparison. Whop's key is the UTF-8 bytes of its `ws_…` secret, so
//   the library (which base64-decodes its key) gets the secret base64-encoded, as Whop's guide does.
// - The spec's: X-Processor-Signature, the hex HMAC-SHA256 of the raw body, compared in constant time.
// Event names arrive in Whop's dotted spelling or the legacy/spec underscore one; both map onto the spec's table.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { currencyExponent, isKnownCurrency } from '../../domain/money.js';
import { Webhook } from 'standardwebhooks';
import { z } from 'zod';

export const SPEC_SIGNATURE_HEADER = 'x-processor-signature';
export const STANDARD_WEBHOOK_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/** The events we ask Whop to send (checkout payments, refunds, disputes, plan memberships). */
export const SUBSCRIBED_EVENTS = [
  'payment.succeeded', 'payment.failed', 'payment.pending', 'refund.created', 'refund.updated', 'dispute.created', 'dispute.updated',
  'membership.activated', 'membership.deactivated', 'membership.cancel_at_period_end_changed', 'invoice.paid', 'invoice.past_due',
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

export type SignatureScheme = 'standard-webhooks' | 'x-processor-signature';

/**
 * Which scheme a delivery is validly signed with by one of `secrets` (every secret is tried: no early exit that
 * would tell which one matched by its timing), or null. A delivery carrying Standard Webhooks headers is judged
 * by them only.
 */
export function verifyDelivery(secrets: readonly string[], rawBody: Buffer, headers: Headers): SignatureScheme | null {
  if (header(headers, 'webhook-signature') !== undefined) {
    return secrets.map((s) => standardSignatureValid(s, rawBody, headers)).includes(true) ? 'standard-webhooks' : null;
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

/** The Whop company an unverified dispute event names (envelope company_id, else data.company.id): whose secret verifies it. */
export function claimedDisputeCompany(json: unknown): string | null {
  const body = json !== null && typeof json === 'object' ? (json as Record<string, unknown>) : {};
  const data = body.data !== null && typeof body.data === 'object' ? (body.data as Record<string, unknown>) : {};
  const company = data.company !== null && typeof data.company === 'object' ? (data.company as Record<string, unknown>).id : undefined;
  const id = typeof body.company_id === 'string' && body.company_id ? body.company_id : company;
  return typeof id === 'string' && id ? id.slice(0, 255) : null;
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
