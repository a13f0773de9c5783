// The processor's payment webhooks. X-Processor-Signature (lowercase hex HMAC-SHA256 of the exact raw body,
// keyed with the merchant's webhook secret) is checked before anything in the body is trusted. The body
// is read once, leniently, only to find which secret to check with: the checkout session token in
// data.metadata leads to the session, its merchant and that merchant's sealed webhook secret.
//
// Every delivery is stored in processor_webhook_deliveries, valid or not, with why it was not applied.
// A valid one is signalled to the session's workflow with signal-with-start (so an event arriving before,
// after or without a running workflow is never lost), once per event id: deliveries of one event queue
// on a transaction-scoped advisory lock, the first signals, the rest are answered 200 as duplicates.
// Only a signalled event counts: if Temporal cannot be reached we answer 503, the processor retries, and
// the retry signals. The workflow deduplicates by event id again, so a second signal is harmless.
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyBaseLogger } from 'fastify';
import type { RouteDeps } from '../../app.js';
import { errorResponse } from '../../schemas/common.js';
import { acceptRawBodies, rawBodyOf } from '../../plugins/raw-body.js';
import { AppError } from '../../../domain/errors.js';
import { isSessionToken } from '../../../domain/tokens.js';
import { SIGNATURE_HEADER, verifyWebhookSignature } from '../../../integrations/processor/signature.js';
import { webhookPayloadSchema, type ProcessorWebhookPayload } from '../../../integrations/processor/webhook.js';
import { PROCESSOR_WEBHOOK_PATH } from '../../../activities/processor.js';
import { processorAad } from '../../../workflows/processor-connection.messages.js';
import {
  checkoutWorkflowId, processorEventSignal, type CheckoutWorkflowInput, type ProcessorEventMessage,
} from '../../../workflows/checkout.messages.js';

export type DeliveryRejection = 'bad_signature' | 'unknown_session' | 'malformed' | 'duplicate' | 'no_secret';

/** Unverified bodies are kept for audit up to this size; a verified one (≤ the 1 MB body limit) whole. */
const MAX_STORED_UNVERIFIED = 64 * 1024;
/** Long enough for a healthy Temporal; past it we answer 503 and the processor retries. */
const SIGNAL_DEADLINE_MS = 5_000;
/** Above the signal deadline, and enough for the deliveries of one event queued on its lock. */
const TRANSACTION = { maxWait: 10_000, timeout: 20_000 };
const CLAIM_MAX = 255;

const received = z.object({
  received: z.literal(true),
  duplicate: z.boolean().describe('This event was already received and signalled: it is acted on once'),
});

interface Claims {
  /** The parsed body, undefined when it is not JSON. */
  json: unknown;
  token: string | null;
  event: string | null;
}

const claimedString = (value: unknown): string | null => (typeof value === 'string' && value ? value.slice(0, CLAIM_MAX) : null);
const field = (value: unknown, key: string): unknown => (value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined);

/** What an unverified body claims: only used to pick the secret and to label the audit row. */
export function readClaims(text: string): Claims {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { json: undefined, token: null, event: null };
  }
  return { json, token: claimedString(field(field(field(json, 'data'), 'metadata'), 'checkout_session_token')), event: claimedString(field(json, 'event')) };
}

/** The event id deliveries are deduplicated by; a payload without one is keyed by what it says happened. */
export function eventIdOf(payload: ProcessorWebhookPayload): string {
  return payload.id ?? `${payload.event}:${payload.data.id}`;
}

/** PostgreSQL text cannot hold NUL; an unverified body is also capped. */
function storable(text: string, verified: boolean): string {
  return (verified ? text : text.slice(0, MAX_STORED_UNVERIFIED)).replaceAll('\u0000', '\uFFFD');
}

export const processorWebhookRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, db, secrets, temporal } = deps;

  // Raw bytes for the signature, in this plugin only (the rest of the API keeps the JSON parser).
  acceptRawBodies(app);

  interface Audit {
    rawBody: string;
    event: string | null;
    sessionToken: string | null;
    merchantId: string | null;
  }

  /** Records a delivery that is not applied and answers why (an invalid signature changes nothing else). */
  async function refuse(audit: Audit, rejection: DeliveryRejection, error: AppError, signatureValid = false): Promise<never> {
    await db.processorWebhookDelivery.create({ data: { ...audit, signatureValid, rejection } });
    throw error;
  }

  /** A secret that cannot be opened (key rotated, row tampered with) verifies nothing; logged, never shown. */
  function openSecret(sealed: string, merchantId: string, log: FastifyBaseLogger): string {
    try {
      return secrets.decrypt(sealed, processorAad.webhookSecret(merchantId));
    } catch (err) {
      log.error({ err, merchantId }, 'processor webhook: the webhook secret cannot be opened');
      return '';
    }
  }

  async function signal(session: CheckoutWorkflowInput, message: ProcessorEventMessage, log: FastifyBaseLogger): Promise<boolean> {
    try {
      await temporal.connection.withDeadline(Date.now() + SIGNAL_DEADLINE_MS, () =>
        temporal.client.workflow.signalWithStart<(input: CheckoutWorkflowInput) => Promise<unknown>, [ProcessorEventMessage]>('checkoutWorkflow', {
          workflowId: checkoutWorkflowId(session.token),
          taskQueue: config.temporal.taskQueue,
          args: [session],
          signal: processorEventSignal,
          signalArgs: [message],
        }),
      );
      return true;
    } catch (err) {
      log.error({ err, eventId: message.eventId }, 'processor webhook: could not signal the checkout workflow');
      return false;
    }
  }

  /**
   * Stores a verified delivery and signals its event unless an earlier delivery of it was signalled.
   * Deliveries of one event wait for each other on the lock, so exactly one of them signals. The first
   * delivery of an event holds its id; a redelivery after a failed signal signals and marks both rows.
   */
  async function apply(audit: Audit, session: CheckoutWorkflowInput, payload: ProcessorWebhookPayload, log: FastifyBaseLogger) {
    const eventId = eventIdOf(payload);
    const message: ProcessorEventMessage = { eventId, event: payload.event, paymentId: payload.data.id };
    return db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`processor-event:${eventId}`}, 0))`;
      const first = await tx.processorWebhookDelivery.findUnique({ where: { eventId }, select: { id: true, signalledAt: true } });
      if (first?.signalledAt) {
        await tx.processorWebhookDelivery.create({ data: { ...audit, signatureValid: true, rejection: 'duplicate' } });
        return 'duplicate' as const;
      }
      const signalledAt = (await signal(session, message, log)) ? new Date() : null;
      await tx.processorWebhookDelivery.create({ data: { ...audit, signatureValid: true, eventId: first ? null : eventId, signalledAt } });
      if (first && signalledAt) await tx.processorWebhookDelivery.update({ where: { id: first.id }, data: { signalledAt } });
      if (!first) await tx.sessionEvent.create({ data: { token: session.token, type: 'webhook_received', data: { eventId, event: payload.event, verified: true } } });
      return signalledAt ? ('signalled' as const) : ('unavailable' as const);
    }, TRANSACTION);
  }

  app.post(PROCESSOR_WEBHOOK_PATH, {
    schema: {
      tags: ['webhooks'],
      summary: 'Processor payment event (signed)',
      description:
        'X-Processor-Signature is the lowercase hex HMAC-SHA256 of the raw body with the webhook secret of the merchant whose checkout session ' +
        'data.metadata.checkout_session_token names. Every delivery is stored for audit. An invalid signature, or a session we cannot verify for, ' +
        'answers 401 INVALID_SIGNATURE and changes nothing; a body that is not an event answers 400 INVALID_INPUT. A valid event is applied to the ' +
        'session once per event id (a redelivery answers 200 with duplicate: true); 503 NOT_READY asks the processor to retry later.',
      headers: z.looseObject({ [SIGNATURE_HEADER]: z.string().optional() }),
      response: { 200: received, 400: errorResponse, 401: errorResponse, 503: errorResponse },
    },
  }, async (request) => {
    const raw = rawBodyOf(request);
    const text = raw.toString('utf8');
    const claims = readClaims(text);
    const audit: Audit = { rawBody: storable(text, false), event: claims.event, sessionToken: claims.token, merchantId: null };
    if (claims.json === undefined) return refuse(audit, 'malformed', new AppError('INVALID_INPUT', 'The body is not JSON'));

    const session = claims.token && isSessionToken(claims.token)
      ? await db.checkoutSession.findUnique({
        where: { token: claims.token },
        select: { token: true, merchantId: true, platform: true, merchant: { select: { processorConnection: { select: { webhookSecretEnc: true } } } } },
      })
      : null;
    if (!session) {
      return refuse(audit, 'unknown_session', new AppError('INVALID_SIGNATURE', 'No checkout session matches data.metadata.checkout_session_token: the signature cannot be verified'));
    }
    audit.merchantId = session.merchantId;
    const sealed = session.merchant.processorConnection?.webhookSecretEnc;
    const secret = sealed ? openSecret(sealed, session.merchantId, request.log) : '';
    if (!secret) return refuse(audit, 'no_secret', new AppError('INVALID_SIGNATURE', 'The merchant has no processor webhook secret: the signature cannot be verified'));
    const header = request.headers[SIGNATURE_HEADER];
    if (!verifyWebhookSignature(secret, raw, Array.isArray(header) ? header[0] : header)) {
      return refuse(audit, 'bad_signature', new AppError('INVALID_SIGNATURE', 'Webhook signature is not valid'));
    }

    // Verified: from here on the body is the processor's word.
    audit.rawBody = storable(text, true);
    const parsed = webhookPayloadSchema.safeParse(claims.json);
    if (!parsed.success) return refuse(audit, 'malformed', new AppError('INVALID_INPUT', 'The body is not a processor event (event, data.id, data.metadata)'), true);

    const outcome = await apply(audit, { token: session.token, merchantId: session.merchantId, platform: session.platform }, parsed.data, request.log);
    if (outcome === 'unavailable') throw new AppError('NOT_READY', 'The event is stored but could not be applied yet: retry later');
    return { received: true as const, duplicate: outcome === 'duplicate' };
  });
};
