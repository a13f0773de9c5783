// What a merchant does to one of its orders: the full refund and the forced status sync. Both are updates of
// the session's workflow, sent with update-with-start (api/checkout-workflow.ts): a session whose run has ended (a paid or COD session's
// run ends once its order and emails are done) gets a new run that resumes from the database and handles the
// update. The checks here (ownership, status, amount) answer clear errors before anything changes; the
// workflow checks its own state again, so two clicks at once still make one refund.
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type RouteDeps } from '../../route-deps.js';
import { AppError } from '../../../domain/errors.js';
import { CHECKOUT_STATUSES, isCheckoutStatus, refundRefusal } from '../../../domain/checkout-status.js';
import { isCheckoutToken } from '../../../domain/tokens.js';
import { backfillStatusUpdate, refundUpdate } from '../../../workflows/checkout.messages.js';
import { updateCheckout } from '../../checkout-workflow.js';
import { errorResponse } from '../../schemas/common.js';
import { tokenParams } from '../../schemas/checkout.js';

const auth = { security: [{ bearerAuth: [] }] };
const tags = ['orders'];

const refundBody = z
  .strictObject({
    amountMinor: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("Optional: the order's full total in minor units. Partial refunds are not offered: any other amount is refused"),
  })
  // Fastify hands a request without a body over as null: the body may be left out entirely.
  .nullish()
  .describe('May be left out (no body), or {}: the full refund')
  .meta({ id: 'RefundRequest' });
const status = z.enum(CHECKOUT_STATUSES);
const refundResponse = z
  .object({
    status: status.describe('Still COMPLETED: the session becomes REFUNDED when the processor confirms the refund'),
    refund: z.object({
      state: z.literal('requested'),
      refundId: z.string().describe("The processor's refund id"),
    }),
  })
  .meta({ id: 'RefundRequested' });
const backfillResponse = z
  .object({
    status,
    processorStatus: z.string().nullable().describe("The processor's status of the session's payment (null: no payment, e.g. cash on delivery)"),
    codPaidAt: z.string().nullable().describe('Cash on delivery: when the store reported the order paid; null while unpaid or not COD'),
  })
  .meta({ id: 'StatusSync' });

export const orderActionRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { db } = deps;

  /** The caller's own order (never a preview); another merchant's token is as unknown as a made-up one. */
  async function ownOrder(merchantId: string, token: string) {
    const session = isCheckoutToken(token)
      ? await db.checkoutSession.findFirst({
        where: { token, merchantId, source: { not: 'preview' } },
        select: { token: true, merchantId: true, platform: true, status: true, paymentMethod: true, totalMinor: true, currency: true, refundRequestedAt: true },
      })
      : null;
    if (!session) throw new AppError('NOT_FOUND', 'No such order');
    return session;
  }

  app.post('/api/checkout/merchant/orders/:token/refund', {
    onRequest: app.authenticate,
    schema: {
      tags,
      summary: 'Refund an order in full through the processor (partial refunds are not offered)',
      description:
        'Only a COMPLETED card payment can be refunded. 202: the processor accepted the refund (idempotency key derived from the ' +
        'token, so a retry never refunds twice); the session becomes REFUNDED when the processor\'s refund event arrives (or a ' +
        'backfill-status sees it), and the shopper then gets one refund email. Errors: PARTIAL_REFUND_NOT_SUPPORTED (an amount other ' +
        'than the total), REFUND_ALREADY_REQUESTED (asked before, or already refunded: the processor is not called again), ' +
        'NOT_REFUNDABLE (cash on delivery, or not a completed payment), NOT_FOUND (not an order of yours), UPSTREAM_ERROR / ' +
        'PROCESSOR_TIMEOUT (the processor refused or did not answer; nothing was recorded).',
      ...auth,
      params: tokenParams,
      body: refundBody,
      response: { 202: refundResponse, 400: errorResponse, 401: errorResponse, 404: errorResponse, 409: errorResponse, 422: errorResponse, 502: errorResponse, 504: errorResponse },
    },
  }, async (request, reply) => {
    const session = await ownOrder(request.merchant.merchantId, request.params.token);
    const refused = isCheckoutStatus(session.status)
      ? refundRefusal({ status: session.status, refundRequested: session.refundRequestedAt !== null, paymentMethod: session.paymentMethod })
      : { code: 'NOT_REFUNDABLE' as const, message: 'This checkout cannot be refunded' };
    if (refused) throw new AppError(refused.code, refused.message);
    const amount = request.body?.amountMinor;
    if (amount !== undefined && amount !== session.totalMinor) {
      throw new AppError('PARTIAL_REFUND_NOT_SUPPORTED', `Only full refunds are offered: omit amountMinor or send the order total (${session.totalMinor} ${session.currency} minor units)`);
    }
    const result = await updateCheckout(deps, session, refundUpdate);
    return reply.code(202).send(result);
  });

  app.post('/api/checkout/merchant/orders/:token/backfill-status', {
    onRequest: app.authenticate,
    schema: {
      tags,
      summary: "Force a status sync: ask the processor for the payment's status (and the store whether a COD order was marked paid)",
      description:
        'The processor\'s answer is applied exactly as its webhook would be (paid → COMPLETED with the order on the store, refunded → ' +
        'REFUNDED with the refund email, failed → FAILED unless paid or refunded). For a cash-on-delivery order the store is asked ' +
        'whether the merchant marked the order paid; the first time it says so, `codPaidAt` is recorded. Errors: NOT_FOUND (not an ' +
        'order of yours), CONFLICT (the processor, or for a COD order the store, is not connected or refuses its credentials: reconnect it), ' +
        'UPSTREAM_ERROR / PROCESSOR_TIMEOUT / STORE_TIMEOUT (the processor or the store could not be asked).',
      ...auth,
      params: tokenParams,
      response: { 200: backfillResponse, 401: errorResponse, 404: errorResponse, 409: errorResponse, 502: errorResponse, 504: errorResponse },
    },
  }, async (request) => {
    const session = await ownOrder(request.merchant.merchantId, request.params.token);
    return updateCheckout(deps, session, backfillStatusUpdate);
  });
};
