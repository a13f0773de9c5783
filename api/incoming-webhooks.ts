// What the processor's two signed webhooks (checkout payments, api/routes/webhooks/processor.ts; the
// platform's own billing, api/routes/billing/webhook.ts) do alike: the signature (Whop's Standard Webhooks
// headers, Whop's x-whop-signature, or the spec's X-Processor-Signature) is checked over the raw bytes, in constant time, before the
// body is trusted; every delivery is stored for audit (valid
// or not, with why it was not applied); a valid event is signalled with signal-with-start once per event
// id. Each route keeps its own table, secrets, workflow and answers.
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Connection } from '@temporalio/client';
import type { AppError } from '../domain/errors.js';
import type { Db, Prisma } from '../prisma/client.js';
import { readEvent, SPEC_SIGNATURE_HEADER, verifyDelivery, WHOP_SIGNATURE_HEADER, type ProcessorEvent, type SignatureScheme } from '../integrations/processor/webhook.js';
import { findUnstorableText, storableText } from '../domain/text.js';

/** Unverified bodies are kept for audit up to this size; a verified one (≤ the 1 MB body limit) whole. */
const MAX_STORED_UNVERIFIED = 64 * 1024;
/** Long enough for a healthy Temporal; past it the route answers 503 and the processor retries. */
const SIGNAL_DEADLINE_MS = 5_000;
/** Above the signal deadline, and enough for the deliveries of one event queued on its lock. */
const TRANSACTION = { maxWait: 10_000, timeout: 20_000 };
const CLAIM_MAX = 255;

/** PostgreSQL text cannot hold NUL (domain/text.ts): kept as U+FFFD; an unverified body is also capped. */
export function storableBody(text: string, verified: boolean): string {
  return storableText(verified ? text : text.slice(0, MAX_STORED_UNVERIFIED));
}

/** A string an unverified body claims, fit for an audit column (capped, NUL and lone surrogates as U+FFFD); anything else is null. */
export const claimedString = (value: unknown): string | null => (typeof value === 'string' && value ? storableText(value.slice(0, CLAIM_MAX)) : null);

/**
 * A verified body as a processor event, or undefined when it is not one: wrong shape, or text no column can
 * hold (its event id, name and ids are stored and signalled as they are). The Standard Webhooks id header is the
 * event's id when that scheme verified the delivery (it is signed there); under x-whop-signature only the body is
 * signed, so a header there could name another event's id and make it look like a duplicate: the body's id counts.
 */
export function processorEventOf(json: unknown, request: FastifyRequest, scheme: SignatureScheme): ProcessorEvent | undefined {
  const id = scheme === 'standard-webhooks' ? request.headers['webhook-id'] : undefined;
  const event = readEvent(json, typeof id === 'string' && id ? id.slice(0, 255) : undefined);
  return event && !findUnstorableText(event) ? event : undefined;
}

/** The name an unverified body claims (Whop's `type`, the spec's `event`), for the audit column only. */
export function claimedEvent(json: unknown): string | null {
  const body = json !== null && typeof json === 'object' ? (json as Record<string, unknown>) : {};
  return claimedString(body.type) ?? claimedString(body.event) ?? claimedString(body.action);
}

/** The request headers a signed delivery may carry, for the OpenAPI document. */
export const signedDeliveryHeaders = {
  'webhook-id': 'Standard Webhooks (Whop): the delivery id, also its dedup key',
  'webhook-timestamp': 'Standard Webhooks (Whop): unix seconds; more than 5 minutes away from now is refused',
  'webhook-signature': 'Standard Webhooks (Whop): space-separated `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`; any one may match (secret rotation)',
  [WHOP_SIGNATURE_HEADER]: 'Whop (endpoints created through its API): `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`, t within 5 minutes of now (used when no webhook-signature is sent)',
  [SPEC_SIGNATURE_HEADER]: 'The spec\'s scheme: the lowercase hex HMAC-SHA256 of the raw body (used when neither of the above is sent)',
} as const;

/** The body parsed as JSON, undefined when it is not JSON. */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The scheme the delivery is signed in with one of the secrets (integrations/processor/webhook.ts), or null.
 * Every candidate is checked (no early exit), each in constant time.
 */
export function signedByAny(request: FastifyRequest, raw: Buffer, secrets: readonly string[]): SignatureScheme | null {
  return verifyDelivery(secrets, raw, request.headers);
}

/** The event id deliveries are deduplicated by; an event without one is keyed by what it says happened. */
export function eventIdOf(event: ProcessorEvent): string {
  return event.id ?? `${event.name}:${event.objectId}`;
}

/** The columns every delivery row has before its outcome is known. */
export interface DeliveryAudit {
  rawBody: string;
  event: string | null;
  merchantId: string | null;
}

interface DeliveryOutcome {
  signatureValid: boolean;
  rejection?: string;
  eventId?: string | null;
  signalledAt?: Date | null;
}

/** The part of a Prisma delivery model this module writes (processorWebhookDelivery, platformBillingWebhookDelivery). */
export interface DeliveryTable<A extends DeliveryAudit> {
  create(args: { data: A & DeliveryOutcome }): PromiseLike<unknown>;
  findUnique(args: { where: { eventId: string }; select: { id: true; signalledAt: true } }): PromiseLike<{ id: string; signalledAt: Date | null } | null>;
  update(args: { where: { id: string }; data: { signalledAt: Date } }): PromiseLike<unknown>;
}

export interface WebhookDeliveryOptions<A extends DeliveryAudit> {
  db: Db;
  connection: Pick<Connection, 'withDeadline'>;
  /** The delivery model, on the client or inside the transaction. */
  table: (client: Db | Prisma.TransactionClient) => DeliveryTable<A>;
  /** Names the advisory lock of an event id (one namespace per webhook). */
  lockPrefix: string;
  /** Logged when the workflow cannot be signalled. */
  signalFailure: string;
}

export type ApplyOutcome = 'signalled' | 'duplicate' | 'unavailable';

export function webhookDeliveries<A extends DeliveryAudit, Rejection extends string>(options: WebhookDeliveryOptions<A>) {
  const { db, connection, table, lockPrefix, signalFailure } = options;

  /** Records a delivery that is not applied and answers why (an invalid signature changes nothing else). */
  async function refuse(audit: A, rejection: Rejection, error: AppError, signatureValid = false): Promise<never> {
    await table(db).create({ data: { ...audit, signatureValid, rejection } });
    throw error;
  }

  /** Records a valid delivery there is nothing to do about. */
  async function ignore(audit: A, rejection: Rejection): Promise<void> {
    await table(db).create({ data: { ...audit, signatureValid: true, rejection } });
  }

  /**
   * Stores a verified delivery and signals its event unless an earlier delivery of it was signalled.
   * Deliveries of one event wait for each other on the lock, so exactly one of them signals. The first
   * delivery of an event holds its id (and runs `onFirst` in the same transaction); a redelivery after a
   * failed signal signals and marks both rows.
   */
  async function applyOnce(
    audit: A,
    eventId: string,
    signal: () => Promise<unknown>,
    log: FastifyBaseLogger,
    onFirst?: (tx: Prisma.TransactionClient) => Promise<unknown>,
  ): Promise<ApplyOutcome> {
    return db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`${lockPrefix}:${eventId}`}, 0))`;
      const rows = table(tx);
      const first = await rows.findUnique({ where: { eventId }, select: { id: true, signalledAt: true } });
      if (first?.signalledAt) {
        await rows.create({ data: { ...audit, signatureValid: true, rejection: 'duplicate' } });
        return 'duplicate' as const;
      }
      let signalledAt: Date | null = null;
      try {
        await connection.withDeadline(Date.now() + SIGNAL_DEADLINE_MS, signal);
        signalledAt = new Date();
      } catch (err) {
        log.error({ err, eventId }, signalFailure);
      }
      await rows.create({ data: { ...audit, signatureValid: true, eventId: first ? null : eventId, signalledAt } });
      if (first && signalledAt) await rows.update({ where: { id: first.id }, data: { signalledAt } });
      if (!first && onFirst) await onFirst(tx);
      return signalledAt ? ('signalled' as const) : ('unavailable' as const);
    }, TRANSACTION);
  }

  return { refuse, ignore, applyOnce };
}
