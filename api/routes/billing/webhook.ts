// The platform processor account's webhooks (billing: merchants paying for their plan). A separate endpoint
// from the checkout one, because its events are signed with the PLATFORM's secret, not a merchant's: the
// operator's PLATFORM_PROCESSOR_WEBHOOK_SECRET, or the secret of the endpoint the service registered itself
// (platform_billing_webhooks, sealed). X-Processor-Signature is checked on the raw bytes, in constant time,
// before the body is trusted.
//
// Every delivery is stored in platform_billing_webhook_deliveries, valid or not. A valid event naming a
// merchant (data.metadata.platform_billing_merchant_id, put on every membership we create) is signalled to
// that merchant's subscription workflow with signal-with-start, once per event id; the workflow takes it
// as a cue and asks the processor what happened, so a forged or stale payload can never activate a plan.
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyBaseLogger } from 'fastify';
import type { RouteDeps } from '../../app.js';
import { errorResponse } from '../../schemas/common.js';
import { acceptRawBodies, rawBodyOf } from '../../plugins/raw-body.js';
import { AppError } from '../../../domain/errors.js';
import { isPaidStatus } from '../../../domain/plans.js';
import { SIGNATURE_HEADER, verifyWebhookSignature } from '../../../integrations/processor/signature.js';
import { webhookPayloadSchema, type ProcessorWebhookPayload } from '../../../integrations/processor/webhook.js';
import { platformBillingWebhookAad } from '../../../activities/platform-billing.js';
import {
  billingEventSignal, PLATFORM_BILLING_METADATA_KEY, PLATFORM_BILLING_WEBHOOK_PATH, platformSubscriptionWorkflowId,
  type BillingEventMessage, type PlatformSubscriptionInput,
} from '../../../workflows/platform-subscription.messages.js';

export type BillingDeliveryRejection = 'bad_signature' | 'no_secret' | 'malformed' | 'not_billing' | 'stale' | 'duplicate';

const MAX_STORED_UNVERIFIED = 64 * 1024;
const SIGNAL_DEADLINE_MS = 5_000;
const TRANSACTION = { maxWait: 10_000, timeout: 20_000 };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const received = z
  .object({
    received: z.literal(true),
    duplicate: z.boolean().describe('This event was already received and signalled: it is acted on once'),
    ignored: z.boolean().describe('A valid event about no plan being paid or bought (or no merchant): stored, nothing to do'),
  })
  .meta({ id: 'PlatformBillingWebhookReceived' });

const storable = (text: string, verified: boolean) => (verified ? text : text.slice(0, MAX_STORED_UNVERIFIED)).replaceAll('\u0000', '\uFFFD');
const claimed = (value: unknown): string | null => (typeof value === 'string' && value ? value.slice(0, 255) : null);

export const billingWebhookRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, db, secrets, temporal } = deps;
  acceptRawBodies(app);

  interface Audit {
    rawBody: string;
    event: string | null;
    merchantId: string | null;
  }

  async function refuse(audit: Audit, rejection: BillingDeliveryRejection, error: AppError, signatureValid = false): Promise<never> {
    await db.platformBillingWebhookDelivery.create({ data: { ...audit, signatureValid, rejection } });
    throw error;
  }

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

  async function signal(merchantId: string, message: BillingEventMessage, log: FastifyBaseLogger): Promise<boolean> {
    try {
      await temporal.connection.withDeadline(Date.now() + SIGNAL_DEADLINE_MS, () =>
        temporal.client.workflow.signalWithStart<(input: PlatformSubscriptionInput) => Promise<unknown>, [BillingEventMessage]>('platformSubscriptionWorkflow', {
          workflowId: platformSubscriptionWorkflowId(merchantId),
          taskQueue: config.temporal.taskQueue,
          args: [{ merchantId }],
          signal: billingEventSignal,
          signalArgs: [message],
        }),
      );
      return true;
    } catch (err) {
      log.error({ err, eventId: message.eventId }, 'platform billing webhook: could not signal the subscription workflow');
      return false;
    }
  }

  /** Stored once per event id; deliveries of one event queue on its lock and only the first signals. */
  async function apply(audit: Audit, merchantId: string, payload: ProcessorWebhookPayload, log: FastifyBaseLogger) {
    const eventId = payload.id ?? `${payload.event}:${payload.data.id}`;
    const message: BillingEventMessage = { eventId, event: payload.event, objectId: payload.data.id };
    return db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`platform-billing-event:${eventId}`}, 0))`;
      const first = await tx.platformBillingWebhookDelivery.findUnique({ where: { eventId }, select: { id: true, signalledAt: true } });
      if (first?.signalledAt) {
        await tx.platformBillingWebhookDelivery.create({ data: { ...audit, signatureValid: true, rejection: 'duplicate' } });
        return 'duplicate' as const;
      }
      const signalledAt = (await signal(merchantId, message, log)) ? new Date() : null;
      await tx.platformBillingWebhookDelivery.create({ data: { ...audit, signatureValid: true, eventId: first ? null : eventId, signalledAt } });
      if (first && signalledAt) await tx.platformBillingWebhookDelivery.update({ where: { id: first.id }, data: { signalledAt } });
      return signalledAt ? ('signalled' as const) : ('unavailable' as const);
    }, TRANSACTION);
  }

  app.post(PLATFORM_BILLING_WEBHOOK_PATH, {
    schema: {
      tags: ['webhooks'],
      summary: "Processor event of the platform's own account (plan payments, signed)",
      description:
        'X-Processor-Signature is the lowercase hex HMAC-SHA256 of the raw body with the platform billing webhook secret. Every delivery is ' +
        'stored for audit. An invalid signature answers 401 INVALID_SIGNATURE and changes nothing; a body that is not an event answers 400 ' +
        'INVALID_INPUT. A valid event about a merchant\'s plan (data.metadata.platform_billing_merchant_id) makes that merchant\'s subscription ' +
        'check the processor, once per event id (a redelivery answers duplicate: true); other valid events are stored and ignored. 503 NOT_READY ' +
        'asks the processor to retry later.',
      headers: z.looseObject({ [SIGNATURE_HEADER]: z.string().optional() }),
      response: { 200: received, 400: errorResponse, 401: errorResponse, 503: errorResponse },
    },
  }, async (request) => {
    const raw = rawBodyOf(request);
    const text = raw.toString('utf8');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const audit: Audit = { rawBody: storable(text, false), event: claimed((json as { event?: unknown } | undefined)?.event), merchantId: null };
    if (json === undefined) return refuse(audit, 'malformed', new AppError('INVALID_INPUT', 'The body is not JSON'));

    const candidates = await candidateSecrets(request.log);
    if (candidates.length === 0) return refuse(audit, 'no_secret', new AppError('INVALID_SIGNATURE', 'No platform billing webhook secret is configured: the signature cannot be verified'));
    const header = request.headers[SIGNATURE_HEADER];
    const signature = Array.isArray(header) ? header[0] : header;
    // Every candidate is checked (no early exit), each in constant time.
    const verified = candidates.map((secret) => verifyWebhookSignature(secret, raw, signature)).includes(true);
    if (!verified) return refuse(audit, 'bad_signature', new AppError('INVALID_SIGNATURE', 'Webhook signature is not valid'));

    // Verified: from here on the body is the processor's word.
    audit.rawBody = storable(text, true);
    const parsed = webhookPayloadSchema.safeParse(json);
    if (!parsed.success) return refuse(audit, 'malformed', new AppError('INVALID_INPUT', 'The body is not a processor event (event, data.id, data.metadata)'), true);
    const merchantId = claimed(parsed.data.data.metadata[PLATFORM_BILLING_METADATA_KEY]);
    const merchant = merchantId && UUID.test(merchantId)
      ? await db.merchant.findUnique({ where: { id: merchantId }, select: { id: true, platformSubscription: { select: { planId: true, status: true, pendingMembershipId: true } } } })
      : null;
    if (!merchant) {
      await db.platformBillingWebhookDelivery.create({ data: { ...audit, signatureValid: true, rejection: 'not_billing' } });
      return { received: true as const, duplicate: false, ignored: true };
    }
    audit.merchantId = merchant.id;
    // Nothing paid or being paid (e.g. the membership's own cancellation event): no workflow to wake.
    const plan = merchant.platformSubscription;
    if (!plan || (!isPaidStatus(plan.planId, plan.status) && !plan.pendingMembershipId)) {
      await db.platformBillingWebhookDelivery.create({ data: { ...audit, signatureValid: true, rejection: 'stale' } });
      return { received: true as const, duplicate: false, ignored: true };
    }
    const outcome = await apply(audit, merchant.id, parsed.data, request.log);
    if (outcome === 'unavailable') throw new AppError('NOT_READY', 'The event is stored but could not be applied yet: retry later');
    return { received: true as const, duplicate: outcome === 'duplicate', ignored: false };
  });
};
