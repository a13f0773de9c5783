// Webhooks from storefront A: app/uninstalled and the three mandatory privacy topics (docs/privacy.md).
// The HMAC (X-Storefront-Hmac-Sha256) is checked on the exact raw bytes, with the app secret of the
// merchant that owns the shop, before anything is parsed or trusted. Every delivery is recorded in
// storefront_a_webhooks (valid or not); an invalid one answers 401 and has no effect. A valid one is
// applied by processStorefrontAWebhookWorkflow, once per event, after we have answered 200: Shopify retries an
// event with the same X-Shopify-Event-Id and a new X-Shopify-Webhook-Id, so the event id is the duplicate key
// (with the shop and topic); a delivery without one falls back to its webhook id.
//
// The topic comes from X-Shopify-Topic. The platform posts every topic to the app's one webhook
// address (/webhooks/storefront-a or /webhooks/storefront-a/events); a path naming a topic
// (/webhooks/storefront-a/customers/redact or …/customers-redact) must name the header's topic.
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { type RouteDeps } from '../../route-deps.js';
import { errorResponse } from '../../schemas/common.js';
import { acceptRawBodies, rawBodyOf } from '../../plugins/raw-body.js';
import { releaseUnlessFailed, UNVERIFIED_DELIVERY } from '../../plugins/rate-limits.js';
import { parseJsonOrUndefined } from '../../incoming-webhooks.js';
import { AppError } from '../../../domain/errors.js';
import { findUnstorableText, storableJson, storableText, TEXT_PROBLEM_MESSAGES } from '../../../domain/text.js';
import { Prisma } from '../../../prisma/client.js';
import { isValidShopHost } from '../../../integrations/storefront-a/oauth.js';
import { isWebhookTopic, validateWebhook, WEBHOOK_HEADERS, webhookPayloadSchemas, type WebhookTopic } from '../../../integrations/storefront-a/webhooks.js';
import { storefrontAAad } from '../../../model/connections.js';
import type { processStorefrontAWebhookWorkflow } from '../../../workflows/storefront-a/storefront-a-webhook.js';
import { storeRefundSignal } from '../../../workflows/checkout/checkout.messages.js';
import { REFUND_MARK } from '../../../integrations/storefront-common/order.js';
import { decimalToMinor } from '../../../integrations/storefront-common/money.js';
import { signalCheckoutWith } from '../../checkout-workflow.js';
import { WORKFLOWS } from '../../../domain/temporal/workflow-names.js';

const GENERIC_PATHS = new Set(['', 'events']);
const MAX_STORED_RAW = 64 * 1024;

/** Does the path suffix name this topic (either spelling), or no topic at all? */
export function pathAllowsTopic(pathTopic: string, topic: string): boolean {
  const suffix = pathTopic.replace(/^\/+|\/+$/g, '').toLowerCase();
  if (GENERIC_PATHS.has(suffix)) return true;
  return suffix.replace(/\//g, '-') === topic.replace(/\//g, '-');
}

const headers = z.looseObject({
  [WEBHOOK_HEADERS.topic]: z.string().optional(),
  [WEBHOOK_HEADERS.shopDomain]: z.string().optional(),
  [WEBHOOK_HEADERS.hmac]: z.string().optional(),
  [WEBHOOK_HEADERS.webhookId]: z.string().optional(),
  [WEBHOOK_HEADERS.eventId]: z.string().optional(),
});

const receivedResponse = z.object({
  received: z.literal(true),
  id: z.string().describe('Our record of the delivery'),
  duplicate: z.boolean().describe('This event (X-Shopify-Event-Id, else this delivery id) was received before: it is acted on once'),
});

const header = (request: FastifyRequest, name: string): string => {
  const v = request.headers[name];
  return (Array.isArray(v) ? v[0] : v)?.trim() ?? '';
};

export const storefrontAWebhookRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, db, secrets, temporal } = deps;

  // Raw bytes for the HMAC, in this plugin only (the rest of the API keeps the JSON parser).
  acceptRawBodies(app);
  // Deliveries that do not verify are limited per address and claim (api/plugins/rate-limits.ts): app.failures.attempt below.
  releaseUnlessFailed(app, UNVERIFIED_DELIVERY);

  async function startProcessing(row: { id: string; deliveryId: string | null }): Promise<void> {
    try {
      await temporal.client.workflow.start<typeof processStorefrontAWebhookWorkflow>(WORKFLOWS.storefrontAWebhook.type, {
        taskQueue: config.temporal.taskQueue,
        workflowId: WORKFLOWS.storefrontAWebhook.id(row.deliveryId ?? row.id),
        // A redelivery joins a running run, re-runs a failed one, and leaves a completed one alone.
        workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
        workflowIdConflictPolicy: 'USE_EXISTING',
        args: [row.id],
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  }

  async function receive(request: FastifyRequest, reply: FastifyReply, pathTopic: string) {
    const body = rawBodyOf(request);
    const topic = header(request, WEBHOOK_HEADERS.topic).slice(0, 100);
    const shop = header(request, WEBHOOK_HEADERS.shopDomain).toLowerCase().slice(0, 255);
    const deliveryId = header(request, WEBHOOK_HEADERS.webhookId).slice(0, 255) || null;
    const eventId = header(request, WEBHOOK_HEADERS.eventId).slice(0, 255) || null;
    const text = body.toString('utf8');
    const json = parseJsonOrUndefined(text);
    // Counted apart per shop it names (api/plugins/rate-limits.ts), before any lookup or write.
    await app.failures.attempt('webhook', request, reply, shop);

    const connection = isValidShopHost(shop, config.storefrontA.shopSuffix) ? await db.storefrontAConnection.findUnique({ where: { shop } }) : null;
    const secret = connection ? secrets.decrypt(connection.clientSecretEnc, storefrontAAad.clientSecret(connection.merchantId)) : '';
    // Shopify's own validation (HMAC over the raw body, required X-Shopify-* headers), by the official library.
    const hmacValid = connection !== null && (await validateWebhook({ clientId: connection.clientId, clientSecret: secret }, text, request.raw, reply.raw)).valid;

    if (!hmacValid) {
      // Kept for audit only. The claimed delivery and event ids stay out of the unique columns, so a forgery can
      // never make the real delivery look like a duplicate.
      await db.storefrontAWebhook.create({
        data: {
          shop,
          topic,
          deliveryId: null,
          eventId: null,
          hmacValid: false,
          merchantId: connection?.merchantId ?? null,
          // As text: anyone can send anything here, and text is stored whatever it holds (NUL and lone surrogates as U+FFFD).
          payload: { unverified: true, deliveryId, eventId, body: storableText(text.slice(0, MAX_STORED_RAW)) },
        },
      });
      throw new AppError('INVALID_SIGNATURE', connection ? 'Webhook signature is not valid' : 'Unknown shop: no app secret to verify this webhook with');
    }

    const unstorable = findUnstorableText(json);
    let problem: string | null = null;
    if (!isWebhookTopic(topic)) problem = `Unsupported topic ${JSON.stringify(topic)}`;
    else if (!pathAllowsTopic(pathTopic, topic)) problem = `The path names another topic than X-Shopify-Topic (${topic})`;
    else if (unstorable) problem = `The payload's text ${TEXT_PROBLEM_MESSAGES[unstorable.problem]}`;
    else if (!webhookPayloadSchemas[topic as WebhookTopic].safeParse(json).success) problem = `The payload is not a ${topic} payload`;

    let row;
    let duplicate = false;
    try {
      row = await db.storefrontAWebhook.create({
        data: {
          shop,
          topic,
          deliveryId,
          eventId,
          hmacValid: true,
          merchantId: connection.merchantId,
          // A payload with text no column can hold is kept with U+FFFD in its place (and refused below).
          payload: json == null ? { raw: storableText(text.slice(0, MAX_STORED_RAW)) } : (storableJson(json) as Prisma.InputJsonValue),
          // A signed delivery we cannot act on is recorded as handled, with the reason.
          ...(problem ? { result: { error: problem }, processedAt: new Date() } : {}),
        },
      });
    } catch (err) {
      if (!((eventId || deliveryId) && err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002')) throw err;
      // A retry of an event we have (its event id), or the very same delivery again (its webhook id).
      row = await db.storefrontAWebhook.findFirstOrThrow({ where: { OR: [...(eventId ? [{ shop, topic, eventId }] : []), ...(deliveryId ? [{ deliveryId }] : [])] } });
      duplicate = true;
    }
    if (problem) throw new AppError('INVALID_INPUT', problem);
    if (!row.processedAt && topic === 'refunds/create') await applyStoreRefund(row, connection.merchantId);
    else if (!row.processedAt) await startProcessing(row);
    return { received: true as const, id: row.id, duplicate };
  }

  /**
   * A refund made on a store order of ours: the merchant refunded in the store's admin, so the money must go back
   * through the processor too — the session's workflow does it, once per store refund. A refund we made ourselves
   * (its note carries our mark) was booked by us already and is left alone; so is one of an order we do not know.
   */
  async function applyStoreRefund(row: { id: string; payload: Prisma.JsonValue }, merchantId: string): Promise<void> {
    const refund = webhookPayloadSchemas['refunds/create'].parse(row.payload);
    const done = (result: Record<string, unknown>) => db.storefrontAWebhook.update({ where: { id: row.id }, data: { result: result as Prisma.InputJsonValue, processedAt: new Date() } });
    if (refund.note && REFUND_MARK.test(refund.note)) return void (await done({ skipped: 'a refund the checkout service made' }));
    const session = await db.checkoutSession.findFirst({ where: { merchantId, platform: 'STOREFRONT_A', storeOrderId: String(refund.order_id) }, select: { token: true, merchantId: true, platform: true, currency: true } });
    if (!session) return void (await done({ skipped: `order ${refund.order_id} is not an order of the checkout service` }));
    let amountMinor = 0;
    for (const t of refund.transactions.filter((x) => x.kind === 'refund' && x.status === 'success')) amountMinor += decimalToMinor(t.amount, t.currency ?? session.currency);
    if (amountMinor === 0) return void (await done({ skipped: 'the refund gave no money back (items only)' }));
    await signalCheckoutWith(deps, session, storeRefundSignal, { storeRefundId: String(refund.id), amountMinor, reason: refund.note ?? null });
    await done({ signalled: { token: session.token, storeRefundId: String(refund.id), amountMinor } });
  }

  const schema = (summary: string) => ({
    tags: ['webhooks'],
    summary,
    description:
      'Signed by storefront A: X-Storefront-Hmac-Sha256 is the base64 HMAC-SHA256 of the raw body with the app\'s client secret. ' +
      'Topics: app/uninstalled, customers/data_request, customers/redact, shop/redact, shop/update, domains/*, themes/publish, refunds/create (a refund ' +
        'the merchant made in the store is refunded at the processor too, once) (X-Shopify-Topic; HMAC in X-Shopify-Hmac-Sha256). An invalid signature answers 401 and changes nothing. ' +
      'A retry of an event (same X-Shopify-Event-Id, or without one the same X-Shopify-Webhook-Id) answers 200 with duplicate: true and is acted on once.',
    headers,
    response: { 200: receivedResponse, 400: errorResponse, 401: errorResponse, 429: errorResponse },
  });

  app.post('/webhooks/storefront-a', { schema: schema('Storefront A webhook (topic from X-Shopify-Topic)') }, async (request, reply) => receive(request, reply, ''));
  app.post('/webhooks/storefront-a/*', {
    schema: { ...schema('Storefront A webhook (path may name the topic)'), params: z.object({ '*': z.string() }) },
  }, async (request, reply) => receive(request, reply, request.params['*']));
};
