// The platform processor account's webhooks (billing: merchants paying for their plan). A separate endpoint
// from the checkout one, because its events are signed with the PLATFORM's secret, not a merchant's: the
// operator's PLATFORM_PROCESSOR_WEBHOOK_SECRET, or the secret of the endpoint the service registered itself
// (platform_billing_webhooks, sealed). The signature (Standard Webhooks, x-whop-signature or X-Processor-Signature)
// is checked on the raw bytes, in constant time, before the body is trusted.
//
// Every delivery is stored in platform_billing_webhook_deliveries, valid or not. A valid event naming a
// merchant (data.metadata.platform_billing_merchant_id, put on every membership we create), or about the
// membership a merchant's plan is paid by (a membership event's data.id, a payment's data.membership.id), is
// signalled to that merchant's subscription workflow with signal-with-start, once per event id, while the plan is
// paid or being bought; the workflow takes it as a cue and asks the processor what happened (the first payment,
// or the membership: renewed, past due, ended), so a forged, stale or reordered payload can never change a plan.
// Verifying, storing and signalling once are shared with the checkout webhook: api/incoming-webhooks.ts.
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyBaseLogger } from 'fastify';
import { type RouteDeps } from '../../route-deps.js';
import { errorResponse } from '../../schemas/common.js';
import { acceptRawBodies, rawBodyOf, rawJsonBody } from '../../plugins/raw-body.js';
import { releaseUnlessFailed, UNVERIFIED_DELIVERY } from '../../plugins/rate-limits.js';
import {
  claimedEvent, claimedString, eventIdOf, parseJsonOrUndefined, processorEventOf, signedByAny, signedDeliveryHeaders, storableBody, webhookDeliveries, type DeliveryAudit,
} from '../../incoming-webhooks.js';
import { AppError } from '../../../domain/errors.js';
import { isPaidStatus } from '../../../domain/merchant/plans.js';
import type { ProcessorEvent } from '../../../integrations/processor/webhook.js';
import { platformBillingWebhookAad } from '../../../model/connections.js';
import { PLATFORM_BILLING_METADATA_KEY, PLATFORM_BILLING_WEBHOOK_PATH } from '../../../domain/merchant/plans.js';
import { billingEventSignal, type BillingEventMessage, type PlatformSubscriptionInput } from '../../../workflows/billing/platform-subscription.messages.js';
import { WORKFLOWS } from '../../../domain/temporal/workflow-names.js';

export type BillingDeliveryRejection = 'bad_signature' | 'no_secret' | 'malformed' | 'not_billing' | 'stale' | 'duplicate';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const received = z
  .object({
    received: z.literal(true),
    duplicate: z.boolean().describe('This event was already received and signalled: it is acted on once'),
    ignored: z.boolean().describe('A valid event about no plan being paid or bought (or no merchant): stored, nothing to do'),
  })
  .meta({ id: 'PlatformBillingWebhookReceived' });

/** The Whop membership (`mem_…`) a verified event is about: a membership event's own id, or a payment's data.membership (an object, or a legacy id string). */
function membershipOf(json: unknown, event: ProcessorEvent): string | null {
  if (event.objectId.startsWith('mem_')) return event.objectId;
  const ref = (json as { data?: { membership?: unknown } }).data?.membership;
  const id = typeof ref === 'string' ? ref : ref && typeof ref === 'object' ? (ref as { id?: unknown }).id : undefined;
  return typeof id === 'string' && id.startsWith('mem_') && id.length <= 255 ? id : null;
}

export const billingWebhookRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, db, secrets, temporal } = deps;
  acceptRawBodies(app);
  // Deliveries that do not verify are limited per address and claim (api/plugins/rate-limits.ts): app.failures.attempt below.
  releaseUnlessFailed(app, UNVERIFIED_DELIVERY);

  const deliveries = webhookDeliveries<DeliveryAudit, BillingDeliveryRejection>({
    db,
    connection: temporal.connection,
    table: (client) => client.platformBillingWebhookDelivery,
    lockPrefix: 'platform-billing-event',
    signalFailure: 'platform billing webhook: could not signal the subscription workflow',
  });

  /** Every secret a genuine delivery may be signed with; one that cannot be opened verifies nothing. */
  async function candidateSecrets(log: FastifyBaseLogger): Promise<string[]> {
    const found = config.platformBilling.webhookSecret ? [config.platformBilling.webhookSecret] : [];
    for (const endpoint of await db.platformBillingWebhook.findMany({ select: { id: true, secretEnc: true } })) {
      try {
        found.push(secrets.decrypt(endpoint.secretEnc, platformBillingWebhookAad(endpoint.id)));
      } catch (err) {
        log.error({ err, endpointId: endpoint.id }, 'platform billing webhook: a stored secret cannot be opened');
      }
    }
    return found;
  }

  /** Wakes the merchant's subscription workflow once per event id. */
  function apply(audit: DeliveryAudit, merchantId: string, event: ProcessorEvent, log: FastifyBaseLogger) {
    const eventId = eventIdOf(event);
    const message: BillingEventMessage = { eventId, event: event.name, objectId: event.objectId };
    const signal = () =>
      temporal.client.workflow.signalWithStart<(input: PlatformSubscriptionInput) => Promise<unknown>, [BillingEventMessage]>(WORKFLOWS.platformSubscription.type, {
        workflowId: WORKFLOWS.platformSubscription.id(merchantId),
        taskQueue: config.temporal.taskQueue,
        args: [{ merchantId }],
        signal: billingEventSignal,
        signalArgs: [message],
      });
    return deliveries.applyOnce(audit, eventId, signal, log);
  }

  app.post(PLATFORM_BILLING_WEBHOOK_PATH, {
    schema: {
      tags: ['webhooks'],
      summary: "Processor event of the platform's own account (plan payments, signed)",
      description:
        'Signed with the platform billing webhook secret: Whop\'s Standard Webhooks headers, Whop\'s x-whop-signature (t=<unix>,v1=<hex HMAC-SHA256 of "t.body">, within 5 minutes) ' +
        'or X-Processor-Signature (hex HMAC-SHA256 of the raw body). Every delivery is ' +
        'stored for audit. An invalid signature answers 401 INVALID_SIGNATURE and changes nothing; a body that is not an event answers 400 ' +
        'INVALID_INPUT. A valid event about a merchant\'s paid or pending plan (data.metadata.platform_billing_merchant_id, or the membership ' +
        'the plan is paid by: data.id of a membership event, data.membership.id of a payment) makes that merchant\'s subscription check the ' +
        'processor, once per event id (a redelivery answers duplicate: true); other valid events are stored and ignored. 503 NOT_READY ' +
        'asks the processor to retry later.',
      headers: z.looseObject(Object.fromEntries(Object.entries(signedDeliveryHeaders).map(([name, text]) => [name, z.string().optional().describe(text)]))),
      // Read as raw bytes (the signature covers them): the document states that a JSON body is required.
      body: rawJsonBody.describe('The processor\'s event as JSON, verified over its raw bytes: Whop\'s { id, api_version, type, timestamp, data } (data a Membership or Payment with metadata.platform_billing_merchant_id) or the spec\'s { event, data }'),
      response: { 200: received, 400: errorResponse, 401: errorResponse, 429: errorResponse, 503: errorResponse },
    },
  }, async (request, reply) => {
    // One sender (the platform's own processor account): its failures are counted per address only.
    await app.failures.attempt('webhook', request, reply, 'platform-billing');
    const raw = rawBodyOf(request);
    const text = raw.toString('utf8');
    const json = parseJsonOrUndefined(text);
    const audit: DeliveryAudit = { rawBody: storableBody(text, false), event: claimedEvent(json), merchantId: null };
    if (json === undefined) return deliveries.refuse(audit, 'malformed', new AppError('INVALID_INPUT', 'The body is not JSON'));

    const candidates = await candidateSecrets(request.log);
    if (candidates.length === 0) return deliveries.refuse(audit, 'no_secret', new AppError('INVALID_SIGNATURE', 'No platform billing webhook secret is configured: the signature cannot be verified'));
    const scheme = signedByAny(request, raw, candidates);
    if (!scheme) return deliveries.refuse(audit, 'bad_signature', new AppError('INVALID_SIGNATURE', 'Webhook signature is not valid'));

    // Verified: from here on the body is the processor's word.
    audit.rawBody = storableBody(text, true);
    const event = processorEventOf(json, request, scheme);
    if (!event) return deliveries.refuse(audit, 'malformed', new AppError('INVALID_INPUT', 'The body is not a processor event (event, data.id, data.metadata; text without U+0000 or lone surrogates)'), true);
    const merchantId = claimedString(event.metadata[PLATFORM_BILLING_METADATA_KEY]);
    const membershipId = membershipOf(json, event);
    const select = { id: true, platformSubscription: { select: { planId: true, status: true, pendingMembershipId: true } } } as const;
    // Our metadata names the merchant; an event without it (a renewal payment need not carry the checkout's
    // metadata) is still theirs when it is about the membership their plan is paid by.
    const merchant = merchantId && UUID.test(merchantId)
      ? await db.merchant.findUnique({ where: { id: merchantId }, select })
      : membershipId
        ? await db.merchant.findFirst({ where: { platformSubscription: { processorMembershipId: membershipId } }, select })
        : null;
    if (!merchant) {
      await deliveries.ignore(audit, 'not_billing');
      return { received: true as const, duplicate: false, ignored: true };
    }
    audit.merchantId = merchant.id;
    // Nothing paid or being paid (e.g. the membership's own cancellation event): no workflow to wake.
    const plan = merchant.platformSubscription;
    if (!plan || (!isPaidStatus(plan.planId, plan.status) && !plan.pendingMembershipId)) {
      await deliveries.ignore(audit, 'stale');
      return { received: true as const, duplicate: false, ignored: true };
    }
    const outcome = await apply(audit, merchant.id, event, request.log);
    if (outcome === 'unavailable') throw new AppError('NOT_READY', 'The event is stored but could not be applied yet: retry later');
    return { received: true as const, duplicate: outcome === 'duplicate', ignored: false };
  });
};
