// The processor's (Whop's) payment webhooks. The signature is checked with the merchant's webhook secret before
// anything in the body is trusted: Whop's Standard Webhooks headers (webhook-id/-timestamp/-signature, 5-minute
// tolerance, several signatures during a rotation) or the spec's X-Processor-Signature (hex HMAC-SHA256 of the
// raw body). The body is read once, leniently, only to find which secret to check with: the checkout session
// token in data.metadata (a payment: Whop copies the checkout's metadata onto it) or data.payment.metadata (a
// refund) leads to the session, its merchant and that merchant's sealed webhook secret. Event names in Whop's
// spelling (payment.succeeded) and the spec's (payment_succeeded) count as the spec's event; any other valid
// event is stored and acknowledged, and changes nothing.
//
// Every delivery is stored in processor_webhook_deliveries, valid or not, with why it was not applied.
// A valid one is signalled to the session's workflow with signal-with-start (so an event arriving before,
// after or without a running workflow is never lost), once per event id: deliveries of one event queue
// on a transaction-scoped advisory lock, the first signals, the rest are answered 200 as duplicates.
// Only a signalled event counts: if Temporal cannot be reached we answer 503, the processor retries, and
// the retry signals. The workflow deduplicates by event id again, so a second signal is harmless.
// Verifying, storing and signalling once are shared with the billing webhook: api/incoming-webhooks.ts.
//
// Disputes (dispute.created, dispute.updated) carry no metadata of ours: the company they were filed against names
// the merchant (verified with that merchant's secret), and a valid one starts the workflow that records the
// merchant's dispute.created (and, at a final status, dispute.resolved) event, once per dispute and fact, instead
// of signalling a checkout: it changes no session.
//
// Whop's webhook covers the merchant's whole company: its other sales, invoices and memberships arrive here too,
// without a token of ours (or with one no session has). Such a delivery is verified the way a dispute is, with the
// secret of the merchant connected to the company the envelope names, then stored as not_ours and answered 200
// (a refusal would only make Whop retry it, and may get the endpoint disabled); a bad signature stays 401.
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import { type RouteDeps } from '../../route-deps.js';
import { errorResponse } from '../../schemas/common.js';
import { acceptRawBodies, rawBodyOf, rawJsonBody } from '../../plugins/raw-body.js';
import { releaseUnlessFailed, UNVERIFIED_DELIVERY } from '../../plugins/rate-limits.js';
import {
  claimedEvent, claimedString, eventIdOf, parseJsonOrUndefined, processorEventOf, signedByAny, signedDeliveryHeaders, storableBody, webhookDeliveries, type DeliveryAudit,
} from '../../incoming-webhooks.js';
import { AppError } from '../../../domain/errors.js';
import { isSessionToken } from '../../../domain/tokens.js';
import { claimedCompany, DISPUTE_EVENTS, readDispute, type ProcessorEvent, type SignatureScheme } from '../../../integrations/processor/webhook.js';
import { cueCheckout, cueDispute, type CheckoutRef } from '../../../model/checkout/processor-cues.js';
import { PROCESSOR_WEBHOOK_PATH } from '../../../model/connections.js';
import { processorAad } from '../../../model/connections.js';

export type DeliveryRejection = 'bad_signature' | 'unknown_session' | 'unknown_company' | 'malformed' | 'duplicate' | 'no_secret' | 'not_ours';

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

const field = (value: unknown, key: string): unknown => (value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined);

/** What an unverified body claims: only used to pick the secret and to label the audit row. */
export function readClaims(text: string): Claims {
  const json = parseJsonOrUndefined(text);
  if (json === undefined) return { json: undefined, token: null, event: null };
  const data = field(json, 'data');
  const token = claimedString(field(field(data, 'metadata'), 'checkout_session_token')) ?? claimedString(field(field(field(data, 'payment'), 'metadata'), 'checkout_session_token'));
  return { json, token, event: claimedEvent(json) };
}

interface Audit extends DeliveryAudit {
  sessionToken: string | null;
}

export const processorWebhookRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { db, secrets, temporal } = deps;

  // Raw bytes for the signature, in this plugin only (the rest of the API keeps the JSON parser).
  acceptRawBodies(app);
  // Deliveries that do not verify are limited per address and claim (api/plugins/rate-limits.ts): app.failures.attempt below.
  releaseUnlessFailed(app, UNVERIFIED_DELIVERY);

  const deliveries = webhookDeliveries<Audit, DeliveryRejection>({
    db,
    connection: temporal.connection,
    table: (client) => client.processorWebhookDelivery,
    lockPrefix: 'processor-event',
    signalFailure: 'processor webhook: could not signal the checkout workflow',
  });

  /** A secret that cannot be opened (key rotated, row tampered with) verifies nothing; logged, never shown. */
  function openSecret(sealed: string, merchantId: string, log: FastifyBaseLogger): string {
    try {
      return secrets.decrypt(sealed, processorAad.webhookSecret(merchantId));
    } catch (err) {
      log.error({ err, merchantId }, 'processor webhook: the webhook secret cannot be opened');
      return '';
    }
  }

  /** Signals the session's workflow once per event id (model/checkout/processor-cues.ts); its first delivery also goes on the session's timeline. */
  function apply(audit: Audit, session: CheckoutRef, event: ProcessorEvent, log: FastifyBaseLogger) {
    const eventId = eventIdOf(event);
    return deliveries.applyOnce(audit, eventId, () => cueCheckout(deps, session, eventId, event), log, (tx) =>
      tx.sessionEvent.create({ data: { token: session.token, type: 'webhook_received', data: { eventId, event: event.name, verified: true } } }));
  }

  /**
   * Verifies a delivery without a session of ours with the secret of the merchant connected to the Whop company it
   * names (claimedCompany); refuses it (401) when no merchant is, or no secret of theirs signed it.
   */
  async function verifiedForCompany(request: FastifyRequest, raw: Buffer, claims: Claims, audit: Audit, unknown: { rejection: DeliveryRejection; error: AppError }): Promise<{ merchantId: string; scheme: SignatureScheme }> {
    const companyId = claimedCompany(claims.json);
    const connections = companyId ? await db.processorConnection.findMany({ where: { businessId: companyId }, select: { merchantId: true, webhookSecretEnc: true } }) : [];
    if (connections.length === 0) return deliveries.refuse(audit, unknown.rejection, unknown.error);
    // Each candidate's secret is tried (one company is one merchant's in practice).
    let signed: { merchantId: string; scheme: SignatureScheme } | undefined;
    for (const c of connections) {
      const secret = c.webhookSecretEnc ? openSecret(c.webhookSecretEnc, c.merchantId, request.log) : '';
      const scheme = secret !== '' ? signedByAny(request, raw, [secret]) : null;
      if (scheme && !signed) signed = { merchantId: c.merchantId, scheme };
    }
    if (!signed) {
      audit.merchantId = connections.length === 1 ? connections[0]!.merchantId : null;
      return deliveries.refuse(audit, 'bad_signature', new AppError('INVALID_SIGNATURE', 'Webhook signature is not valid'));
    }
    audit.merchantId = signed.merchantId;
    audit.rawBody = storableBody(raw.toString('utf8'), true);
    return signed;
  }

  /** A dispute event: verified with the secret of the merchant whose Whop company it names. */
  async function disputeDelivery(request: FastifyRequest, raw: Buffer, claims: Claims, audit: Audit) {
    const { merchantId, scheme } = await verifiedForCompany(request, raw, claims, audit, {
      rejection: 'unknown_company', error: new AppError('INVALID_SIGNATURE', 'No merchant is connected to the company this dispute names: the signature cannot be verified'),
    });
    const event = processorEventOf(claims.json, request, scheme);
    const dispute = readDispute(claims.json);
    if (!event || !dispute) return deliveries.refuse(audit, 'malformed', new AppError('INVALID_INPUT', 'The body is not a dispute event (type, data.id, amount, currency, status, payment.id)'), true);
    // The merchant's dispute events, once per dispute and fact (model/checkout/processor-cues.ts; the processor sweep takes the same path).
    const outcome = await deliveries.applyOnce(audit, eventIdOf(event), () => cueDispute(deps, merchantId, dispute), request.log);
    if (outcome === 'unavailable') throw new AppError('NOT_READY', 'The event is stored but could not be applied yet: retry later');
    return { received: true as const, duplicate: outcome === 'duplicate' };
  }

  /** An event about no session of ours (the company's other sales, its invoices): verified, stored as not_ours, acknowledged. */
  async function foreignDelivery(request: FastifyRequest, raw: Buffer, claims: Claims, audit: Audit) {
    const { scheme } = await verifiedForCompany(request, raw, claims, audit, {
      rejection: 'unknown_session',
      error: new AppError('INVALID_SIGNATURE', 'No checkout session matches data.metadata.checkout_session_token and no merchant is connected to the company the event names: the signature cannot be verified'),
    });
    if (!processorEventOf(claims.json, request, scheme)) return deliveries.refuse(audit, 'malformed', new AppError('INVALID_INPUT', 'The body is not a processor event (type or event, data.id; text without U+0000 or lone surrogates)'), true);
    await deliveries.ignore(audit, 'not_ours');
    return { received: true as const, duplicate: false };
  }

  app.post(PROCESSOR_WEBHOOK_PATH, {
    schema: {
      tags: ['webhooks'],
      summary: 'Processor payment event (signed)',
      description:
        'Signed with the webhook secret of the merchant whose checkout session data.metadata.checkout_session_token (or, for a refund, ' +
        'data.payment.metadata.checkout_session_token) names: Whop\'s Standard Webhooks headers (webhook-id, webhook-timestamp within 5 minutes, ' +
        'webhook-signature v1,<base64>, any of several), Whop\'s x-whop-signature (t=<unix> within 5 minutes, v1=<hex HMAC-SHA256 of "t.body">) ' +
        'or X-Processor-Signature, the lowercase hex HMAC-SHA256 of the raw body. ' +
        'An event about no session of ours (the company\'s other sales, its invoices) is verified with the secret of the merchant connected to the ' +
        'company it names (company_id, or data.company.id), stored as not ours and answered 200. ' +
        'Events in Whop\'s spelling (type: payment.succeeded) or the spec\'s (event: payment_succeeded) count as the spec\'s. ' +
        'Whop\'s dispute.created and dispute.updated are verified with the secret of the merchant connected to the company they name ' +
        '(company_id, or data.company.id) and become the merchant\'s dispute.created / dispute.resolved webhook events (once per dispute); other events are stored and ' +
        'acknowledged. Every delivery is stored for audit. An invalid signature, or a delivery naming neither a session nor a connected company, ' +
        'answers 401 INVALID_SIGNATURE and changes nothing; a body that is not an event answers 400 INVALID_INPUT. A valid event is applied to the ' +
        'session once per event id (a redelivery answers 200 with duplicate: true); 503 NOT_READY asks the processor to retry later.',
      headers: z.looseObject(Object.fromEntries(Object.entries(signedDeliveryHeaders).map(([name, text]) => [name, z.string().optional().describe(text)]))),
      // Read as raw bytes (the signature covers them): the document states that a JSON body is required.
      body: rawJsonBody.describe('The processor\'s event as JSON: Whop\'s { id, type, data: Payment | Refund } or the spec\'s { event, data: { id, metadata: { checkout_session_token } } }, verified over its raw bytes'),
      response: { 200: received, 400: errorResponse, 401: errorResponse, 429: errorResponse, 503: errorResponse },
    },
  }, async (request, reply) => {
    const raw = rawBodyOf(request);
    const text = raw.toString('utf8');
    const claims = readClaims(text);
    // Counted apart per what the delivery claims to be about (api/plugins/rate-limits.ts), before any lookup or write.
    await app.failures.attempt('webhook', request, reply, claims.token ?? claimedCompany(claims.json) ?? '-');
    const audit: Audit = { rawBody: storableBody(text, false), event: claims.event, sessionToken: claims.token, merchantId: null };
    if (claims.json === undefined) return deliveries.refuse(audit, 'malformed', new AppError('INVALID_INPUT', 'The body is not JSON'));
    if (claims.event && DISPUTE_EVENTS.has(claims.event)) return disputeDelivery(request, raw, claims, audit);

    const session = claims.token && isSessionToken(claims.token)
      ? await db.checkoutSession.findUnique({
        where: { token: claims.token },
        select: { token: true, merchantId: true, platform: true, merchant: { select: { processorConnection: { select: { webhookSecretEnc: true } } } } },
      })
      : null;
    if (!session) return foreignDelivery(request, raw, claims, audit);
    audit.merchantId = session.merchantId;
    const sealed = session.merchant.processorConnection?.webhookSecretEnc;
    const secret = sealed ? openSecret(sealed, session.merchantId, request.log) : '';
    if (!secret) return deliveries.refuse(audit, 'no_secret', new AppError('INVALID_SIGNATURE', 'The merchant has no processor webhook secret: the signature cannot be verified'));
    const scheme = signedByAny(request, raw, [secret]);
    if (!scheme) return deliveries.refuse(audit, 'bad_signature', new AppError('INVALID_SIGNATURE', 'Webhook signature is not valid'));

    // Verified: from here on the body is the processor's word.
    audit.rawBody = storableBody(text, true);
    const event = processorEventOf(claims.json, request, scheme);
    if (!event) return deliveries.refuse(audit, 'malformed', new AppError('INVALID_INPUT', 'The body is not a processor event (type or event, data.id; text without U+0000 or lone surrogates)'), true);

    const outcome = await apply(audit, { token: session.token, merchantId: session.merchantId, platform: session.platform }, event, request.log);
    if (outcome === 'unavailable') throw new AppError('NOT_READY', 'The event is stored but could not be applied yet: retry later');
    return { received: true as const, duplicate: outcome === 'duplicate' };
  });
};
