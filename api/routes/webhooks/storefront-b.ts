// Refunds the merchant makes in wp-admin on an order of ours, told by our WooCommerce plugin (its gateway's
// process_refund, store-extensions/woocommerce/hosted-checkout-connector/includes/class-hosted-checkout-gateway.php). The plugin
// signs the raw body as it signs a checkout handoff (integrations/storefront-b/handoff.ts: the connected REST key's
// secret, a timestamp window, constant-time comparisons). WooCommerce has already created its refund and waits for our
// answer: 2xx keeps it, anything else makes WooCommerce delete it and show our error. So the refund goes to the session's
// workflow as an update (the same store-refund path as storefront A's refunds/create), once per WooCommerce refund id;
// the store order is not refunded again (the refund is the store's own).
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { type RouteDeps } from '../../route-deps.js';
import { errorResponse } from '../../schemas/common.js';
import { acceptRawBodies, rawBodyOf, rawJsonBody } from '../../plugins/raw-body.js';
import { releaseUnlessFailed, UNVERIFIED_DELIVERY } from '../../plugins/rate-limits.js';
import { AppError } from '../../../domain/errors.js';
import { refundRefusal } from '../../../domain/checkout/refunds.js';
import { refundBalanceOf } from '../../../model/checkout/refunds.js';
import { normalizeStoreUrl, verifyStorefrontBHandoff } from '../../../model/connections.js';
import { HANDOFF_HEADERS } from '../../../integrations/storefront-b/handoff.js';
import { decimalToMinor } from '../../../integrations/storefront-common/money.js';
import { storeRefundUpdate } from '../../../workflows/checkout/checkout.messages.js';
import { updateCheckout } from '../../checkout-workflow.js';

/** What the plugin sends (Hosted_Checkout_Gateway::process_refund). */
export const storefrontBRefundBody = z.strictObject({
  storeUrl: z.string().min(1).max(2048).describe('The store\'s home URL, as the plugin sends it with a handoff'),
  orderId: z.number().int().positive().describe('The WooCommerce order id (our session\'s store order)'),
  refundId: z.number().int().positive().describe('The WooCommerce refund id: a repeat of it is acted on once'),
  amount: z.string().regex(/^\d{1,12}(\.\d{1,8})?$/).describe('The refund amount as WooCommerce has it, a decimal string in the order\'s currency'),
  reason: z.string().max(500).nullable().optional(),
});

const acceptedResponse = z.object({
  accepted: z.literal(true),
  token: z.string().describe('Our checkout session of the order'),
  refundId: z.string().describe('Our refund (or the processor\'s refund id once it has one)'),
  amountMinor: z.number().int(),
  currency: z.string(),
  duplicate: z.boolean().describe('This WooCommerce refund id was received before: acted on once'),
});

const header = (request: FastifyRequest, name: string): string => {
  const v = request.headers[name];
  return typeof v === 'string' ? v : '';
};

export const storefrontBWebhookRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { db } = deps;
  acceptRawBodies(app);
  releaseUnlessFailed(app, UNVERIFIED_DELIVERY);

  app.post('/webhooks/storefront-b/refunds', {
    schema: {
      tags: ['webhooks'],
      summary: 'A refund the merchant made in WooCommerce\'s admin on an order of ours (sent by our plugin)',
      description:
        'Body (JSON): { storeUrl, orderId (WooCommerce order id), refundId (WooCommerce refund id), amount (decimal string in the order\'s currency), reason (string or null) }. ' +
        'Signed by our WooCommerce plugin as a checkout handoff is (x-hosted-checkout-key, x-hosted-checkout-timestamp, ' +
        'x-hosted-checkout-signature: v1=HMAC-SHA256 of "<timestamp>.<raw body>" with the connected REST key\'s secret, within 5 minutes). ' +
        'The amount goes back to the shopper through the processor, once per WooCommerce refund id (a repeat answers duplicate: true); ' +
        'the store order is not refunded again. 202 once the processor accepted the refund. Errors: UNAUTHORIZED (unsigned, a body that is not a refund naming a store, or not signed by the ' +
        'connected store), NOT_FOUND (no connected store at storeUrl, or the order is not one of ours), REFUND_EXCEEDS_BALANCE / ' +
        'REFUND_ALREADY_REQUESTED / NOT_REFUNDABLE (more than is left, nothing left, not a card payment), UPSTREAM_ERROR / PROCESSOR_TIMEOUT.',
      headers: z.looseObject({ [HANDOFF_HEADERS.key]: z.string().optional(), [HANDOFF_HEADERS.timestamp]: z.string().optional(), [HANDOFF_HEADERS.signature]: z.string().optional() }),
      body: rawJsonBody,
      response: { 202: acceptedResponse, 400: errorResponse, 401: errorResponse, 404: errorResponse, 409: errorResponse, 422: errorResponse, 429: errorResponse, 502: errorResponse, 504: errorResponse },
    },
  }, async (request, reply) => {
    const raw = rawBodyOf(request);
    // The signing store is named inside the body, so a request that is unsigned, or whose body names no store, cannot
    // be verified at all: refused as unauthenticated before anything else (never an INVALID_INPUT that would tell an
    // unsigned caller about our body's shape).
    const unverifiable = (why: string) => new AppError('UNAUTHORIZED', `Not a signed refund from a connected store: ${why}`);
    if (!header(request, HANDOFF_HEADERS.key) || !header(request, HANDOFF_HEADERS.timestamp) || !header(request, HANDOFF_HEADERS.signature)) throw unverifiable('the signature headers are missing');
    let json: unknown;
    try {
      json = JSON.parse(raw.toString('utf8'));
    } catch {
      throw unverifiable('the body is not JSON');
    }
    const parsed = storefrontBRefundBody.safeParse(json);
    if (!parsed.success) throw unverifiable(`the body is not a refund (${`${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}`.trim()})`);
    const body = parsed.data;
    let storeUrl: string;
    try {
      storeUrl = normalizeStoreUrl(new URL(body.storeUrl));
    } catch {
      throw unverifiable('storeUrl is not a URL');
    }
    // Counted apart per store it names (api/plugins/rate-limits.ts), before any lookup.
    await app.failures.attempt('webhook', request, reply, storeUrl);
    const connection = await db.storefrontBConnection.findUnique({ where: { storeUrl } });
    if (!connection) throw new AppError('NOT_FOUND', 'No connected store matches this refund');
    verifyStorefrontBHandoff(deps, connection.merchantId, connection, {
      key: header(request, HANDOFF_HEADERS.key), timestamp: header(request, HANDOFF_HEADERS.timestamp), signature: header(request, HANDOFF_HEADERS.signature), rawBody: raw,
    });
    const session = await db.checkoutSession.findFirst({ where: { merchantId: connection.merchantId, platform: 'STOREFRONT_B', storeOrderId: String(body.orderId) } });
    if (!session) throw new AppError('NOT_FOUND', `Order ${body.orderId} is not an order of the hosted checkout`);
    let amountMinor: number;
    try {
      amountMinor = decimalToMinor(body.amount, session.currency);
    } catch {
      throw new AppError('INVALID_INPUT', `amount: ${body.amount} is not an amount in ${session.currency}`);
    }
    if (amountMinor <= 0) throw new AppError('INVALID_INPUT', 'amount: a refund gives some money back');
    const storeRefundId = String(body.refundId);
    const seen = await db.refund.findFirst({ where: { token: session.token, storeRefundId } });
    if (!seen) {
      // Clear answers before the workflow is asked; the workflow's activity checks again under the session's lock.
      const balance = refundBalanceOf(session, await db.refund.findMany({ where: { token: session.token, state: 'requested' }, select: { state: true, amountMinor: true } }));
      const refused = refundRefusal(balance, balance.status === 'ON_HOLD' ? undefined : amountMinor);
      if (refused) throw new AppError(refused.code, refused.message, refused.refundableMinor === undefined ? undefined : { refundableMinor: refused.refundableMinor });
    }
    const result = await updateCheckout(deps, session, storeRefundUpdate, { storeRefundId, amountMinor, reason: body.reason ?? null });
    return reply.code(202).send({
      accepted: true as const,
      token: session.token,
      refundId: result.refund.refundId,
      amountMinor: result.refund.amountMinor ?? amountMinor,
      currency: result.refund.currency ?? session.currency,
      duplicate: seen !== null,
    });
  });
};
