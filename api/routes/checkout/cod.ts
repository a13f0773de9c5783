// Cash on delivery: the shopper confirms on the checkout instead of paying. Like init-payment it goes through
// the session's workflow (an update-with-start, api/checkout-workflow.ts), which stores the details and totals, creates the order on the store in a
// pending-payment state and sends both emails, each exactly once; a double click answers the same confirmation.
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type RouteDeps } from '../../route-deps.js';
import { AppError } from '../../../domain/errors.js';
import { isCheckoutStatus } from '../../../domain/checkout/checkout-status.js';
import { isCheckoutToken, isPreviewToken } from '../../../domain/tokens.js';
import { completeCodUpdate } from '../../../workflows/checkout/checkout.messages.js';
import { updateCheckout } from '../../checkout-workflow.js';
import { errorResponse } from '../../schemas/common.js';
import { tokenParams } from '../../schemas/checkout.js';
import { limit } from '../../plugins/rate-limits.js';
import { shopperDetailsWithLanguage, withShopperLanguage } from '../../schemas/shopper-language.js';
import { codOffered } from '../../../model/merchant/plan-features.js';
import { assertShipsTo, takesDetails } from '../../../model/merchant/shipping-rates.js';

const codResponse = z
  .object({
    status: z.literal('COD_CONFIRMED'),
    totalMinor: z.number().int().describe('What the shopper pays on delivery, in minor units of `currency`'),
    currency: z.string().length(3),
  })
  .meta({ id: 'CodConfirmation' });

export const checkoutCodRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { db, config } = deps;

  app.post('/api/checkout/:token/complete-cod', {
    // init-payment's numbers, with a counter of its own: each confirmation can create a store order.
    config: limit(config, 'initPayment'),
    schema: {
      tags: ['checkout'],
      summary: "Confirm a cash-on-delivery order: stores the shopper's details (validated as for init-payment) and the total; the order goes to the store unpaid",
      description:
        'The session becomes COD_CONFIRMED; the order is created on the store in a pending-payment state (storefront A: financial status ' +
        'pending; storefront B: on-hold) and the shopper and the merchant each get one email. Calling it again answers the same confirmation ' +
        'and never creates a second order. The merchant marks the order paid in the store; backfill-status brings that back. Errors: ' +
        'PREVIEW_SESSION (a preview), COD_NOT_ENABLED (the merchant offers no cash on delivery, or its plan does not include it), CONFLICT ' +
        '(a card payment is in progress, or the checkout is completed or abandoned), INVALID_INPUT (details, unknown shipping rate, an address in a ' +
        'country no rate ships to (address.country) or a rate that does not ship there (shippingRateId): nothing stored), NOT_FOUND. locale (else ' +
        'the Accept-Language header): the shopper\'s language, stored with the details; the order emails name countries in it.',
      params: tokenParams,
      body: shopperDetailsWithLanguage,
      response: { 200: codResponse, 400: errorResponse, 404: errorResponse, 409: errorResponse, 422: errorResponse, 429: errorResponse },
    },
  }, async (request) => {
    const { token } = request.params;
    if (isPreviewToken(token)) throw new AppError('PREVIEW_SESSION', 'This is a preview: orders cannot be confirmed');
    const session = isCheckoutToken(token)
      ? await db.checkoutSession.findUnique({
        where: { token },
        select: {
          token: true, merchantId: true, platform: true, status: true,
          merchant: { select: { codEnabled: true, platformSubscription: { select: { planId: true, status: true } }, checkoutParts: true, storeCountries: true, storeCountriesReadAt: true } },
        },
      })
      : null;
    if (!session || !isCheckoutStatus(session.status)) throw new AppError('NOT_FOUND', 'No such checkout');
    // Switched on, and the merchant's plan in force has it (not after a downgrade to Starter).
    if (!codOffered(session.merchant, { preview: false })) throw new AppError('COD_NOT_ENABLED', 'This store does not offer cash on delivery');
    // A session that takes no details any more is the workflow's to answer (the same confirmation to a double click).
    if (takesDetails(session.status)) assertShipsTo(session.merchant, request.body.address.country, request.body.shippingRateId);

    // A late double click, after the confirmation's run ended, starts a run that answers the same confirmation.
    const result = await updateCheckout(deps, session, completeCodUpdate, withShopperLanguage(request.body, request.headers['accept-language']));
    const row = await db.checkoutSession.findUniqueOrThrow({ where: { token }, select: { totalMinor: true, currency: true } });
    if (result.status !== 'COD_CONFIRMED' || row.totalMinor === null) throw new AppError('CONFLICT', 'This checkout could not be confirmed');
    return { status: result.status, totalMinor: row.totalMinor, currency: row.currency };
  });
};
