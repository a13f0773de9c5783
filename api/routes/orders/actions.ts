// What a merchant does to one of its orders: a refund (full or partial) and the forced status sync. Both are updates of
// the session's workflow, sent with update-with-start (api/checkout-workflow.ts): a session whose run has ended (a paid or COD session's
// run ends once its order and emails are done) gets a new run that resumes from the database and handles the
// update. The checks here (ownership, status, amount) answer clear errors before anything changes; the
// workflow checks its own state again, so two clicks at once still make one refund.
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type RouteDeps } from '../../route-deps.js';
import type { MerchantScope } from '../../../model/merchant/merchant-scope.js';
import { AppError } from '../../../domain/errors.js';
import { CHECKOUT_STATUSES } from '../../../domain/checkout/checkout-status.js';
import { refundableMinor, refundRefusal } from '../../../domain/checkout/refunds.js';
import { refundBalanceOf } from '../../../model/checkout/refunds.js';
import { sessionBumpLines, sessionLines } from '../../../model/checkout/checkout-session.js';
import { isCheckoutToken } from '../../../domain/tokens.js';
import { backfillStatusUpdate, refundUpdate } from '../../../workflows/checkout/checkout.messages.js';
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
      .max(1_000_000_000)
      .optional()
      .describe('Minor units of the order\'s currency, at most what is left to refund; left out: the lines\' value when `lines` are given, else everything left'),
    reason: z.string().trim().min(1).max(500).optional().describe('Why (shown on the store\'s refund and in the shopper\'s email)'),
    restock: z.boolean().optional().describe('Put the given-back lines back in stock on the store (default false)'),
    lines: z
      .array(z.strictObject({
        line: z.number().int().min(0).max(999).describe('Index of the line in the order detail\'s `lines` (order bumps follow the cart lines)'),
        quantity: z.number().int().min(1).max(100_000),
      }))
      .max(250)
      .optional()
      .describe('The lines given back, and how many of each: what `restock` puts back, and the default amount'),
  })
  // Fastify hands a request without a body over as null: the body may be left out entirely.
  .nullish()
  .describe('May be left out (no body), or {}: everything left is refunded')
  .meta({ id: 'RefundRequest' });
const status = z.enum(CHECKOUT_STATUSES);
const refundResponse = z
  .object({
    status: status.describe('Unchanged by the request: the session becomes REFUNDED once the processor confirms every unit refunded'),
    refund: z.object({
      state: z.literal('requested'),
      id: z.string().optional().describe('Our id of this refund (see the order detail\'s `refunds`)'),
      refundId: z.string().describe("The processor's refund id (our id while the processor's is not known yet)"),
      amountMinor: z.number().int().optional(),
      currency: z.string().optional(),
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
  /** The caller's own order (never a preview); another merchant's token is as unknown as a made-up one. */
  async function ownOrder(data: MerchantScope, token: string) {
    const session = isCheckoutToken(token)
      ? await data.checkoutSessions.findFirst({
        where: { token, source: { not: 'preview' } },
        select: { token: true, merchantId: true, platform: true, status: true, paymentMethod: true, totalMinor: true, currency: true, refundedMinor: true, discountMinor: true, items: true, orderBumps: true },
      })
      : null;
    if (!session) throw new AppError('NOT_FOUND', 'No such order');
    return session;
  }

  app.post('/orders/:token/refund', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'orders:write' },
    schema: {
      tags,
      summary: 'Refund an order, in full or in part, through the processor and on the store',
      description:
        'A card payment the processor confirmed (COMPLETED, or ON_HOLD) can be refunded, in several parts, up to its total. 202: the ' +
        'processor accepted the refund (its idempotency key is the refund\'s own id, so a retry never refunds twice). Once the ' +
        'processor confirms it, the refund is booked on the store order (Shopify refundCreate, WooCommerce order refunds; `restock` ' +
        'puts the `lines` back in stock) and the shopper gets one email for it; the session becomes REFUNDED when every unit is ' +
        'refunded. Errors: REFUND_EXCEEDS_BALANCE (more than is left: details.refundableMinor), REFUND_ALREADY_REQUESTED (nothing ' +
        'left, or the rest is on its way back), NOT_REFUNDABLE (cash on delivery, nothing paid, or not a confirmed payment), ' +
        'INVALID_INPUT (a line the order does not have, more of it than it holds), NOT_FOUND (not an order of yours), UPSTREAM_ERROR / ' +
        'PROCESSOR_TIMEOUT (the processor refused or did not answer).',
      ...auth,
      params: tokenParams,
      body: refundBody,
      response: { 202: refundResponse, 400: errorResponse, 401: errorResponse, 404: errorResponse, 409: errorResponse, 422: errorResponse, 502: errorResponse, 504: errorResponse },
    },
  }, async (request, reply) => {
    const data = request.merchantData;
    const session = await ownOrder(data, request.params.token);
    const body = request.body ?? {};
    // The order's lines as the store got them (cart lines, then order bumps): what `lines` points into.
    const orderLines = [...sessionLines(session.items), ...sessionBumpLines(session.orderBumps)];
    const fields: Record<string, string> = {};
    (body.lines ?? []).forEach((l, i) => {
      const line = orderLines[l.line];
      if (!line) fields[`body.lines.${i}.line`] = `the order has no line ${l.line} (it has ${orderLines.length})`;
      else if (l.quantity > line.quantity) fields[`body.lines.${i}.quantity`] = `line ${l.line} holds ${line.quantity}`;
    });
    const seen = new Set<number>();
    (body.lines ?? []).forEach((l, i) => (seen.has(l.line) ? (fields[`body.lines.${i}.line`] = `line ${l.line} is listed twice`) : seen.add(l.line)));
    if (Object.keys(fields).length) throw new AppError('INVALID_INPUT', Object.values(fields)[0]!, { fields });
    const balance = refundBalanceOf(session, await data.refunds.findMany({ where: { token: session.token, state: 'requested' }, select: { state: true, amountMinor: true } }));
    // The lines' value as the shopper paid it: their price less their share of the discount (spread in proportion).
    const merchandise = orderLines.reduce((n, l) => n + l.unitPrice * l.quantity, 0);
    const paidShare = merchandise > 0 ? Math.max(0, merchandise - session.discountMinor) / merchandise : 1;
    const linesValue = Math.round((body.lines ?? []).reduce((n, l) => n + orderLines[l.line]!.unitPrice * l.quantity, 0) * paidShare);
    // Lines without an amount: their value, but never more than is left (a discount may have taken some of it).
    const amountMinor = body.amountMinor ?? (body.lines?.length ? Math.min(linesValue, refundableMinor(balance)) : undefined);
    // A held payment may be another amount than the checkout's total: the workflow checks it against the processor's.
    const refused = refundRefusal(balance, balance.status === 'ON_HOLD' ? undefined : amountMinor);
    if (refused) throw new AppError(refused.code, refused.message, refused.refundableMinor === undefined ? undefined : { refundableMinor: refused.refundableMinor });
    const result = await updateCheckout(deps, session, refundUpdate, { amountMinor, reason: body.reason ?? null, restock: body.restock ?? false, lines: body.lines ?? [] });
    return reply.code(202).send(result);
  });

  app.post('/orders/:token/backfill-status', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'orders:write' },
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
    const session = await ownOrder(request.merchantData, request.params.token);
    return updateCheckout(deps, session, backfillStatusUpdate);
  });
};
