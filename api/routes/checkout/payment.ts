// The shopper's payment steps. Each goes through the session's workflow (an update-with-start: the first
// one starts it, api/checkout-workflow.ts), never around it: the workflow owns the status, and its update
// handlers serialize double clicks into one payment.
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type RouteDeps } from '../../route-deps.js';
import { AppError } from '../../../domain/errors.js';
import { isPreviewToken, isSessionToken } from '../../../domain/tokens.js';
import { initPaymentUpdate, payUpdate, refreshStatusUpdate } from '../../../workflows/checkout/checkout.messages.js';
import { updateCheckout } from '../../checkout-workflow.js';
import { errorResponse } from '../../schemas/common.js';
import { tokenParams } from '../../schemas/checkout.js';
import { shopperDetailsWithLanguage, withShopperLanguage } from '../../schemas/shopper-language.js';
import { limit } from '../../plugins/rate-limits.js';
import { assertShipsTo, takesDetails } from '../../../model/merchant/shipping-rates.js';

const initPaymentResponse = z.object({
  paymentId: z.string().nullable().describe("The processor's payment attempt (a Whop checkout configuration, ch_…); null when the total is 0 and nothing is charged"),
  paymentUrl: z.string().describe("Where the shopper goes next: the processor's hosted payment page, or, when there is nothing to pay, this checkout's page, already confirmed"),
  totalMinor: z.number().int(),
  currency: z.string(),
  status: z.enum(['PAYMENT_PENDING', 'COMPLETED']).describe('PAYMENT_PENDING while the processor takes the payment; COMPLETED when the total was 0: the order is placed without the processor'),
});
const statusResponse = z.object({ status: z.string() });

export const checkoutPaymentRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { db, config } = deps;
  const tags = ['checkout'];

  /** The session must exist; previews are never paid. */
  async function payableSession(token: string) {
    if (isPreviewToken(token)) throw new AppError('PREVIEW_SESSION', 'This is a preview: payment is disabled');
    const found = isSessionToken(token) ? await db.checkoutSession.findUnique({ where: { token }, select: { token: true, merchantId: true, platform: true } }) : null;
    if (!found) throw new AppError('NOT_FOUND', 'No such checkout');
    return found;
  }

  /** As payableSession, with what the shipping zones need of the merchant (its rates' countries, the store's). */
  async function payableSessionWithZones(token: string) {
    if (isPreviewToken(token)) throw new AppError('PREVIEW_SESSION', 'This is a preview: payment is disabled');
    const zones = { checkoutParts: true, storeCountries: true, storeCountriesReadAt: true } as const;
    const found = isSessionToken(token) ? await db.checkoutSession.findUnique({ where: { token }, select: { token: true, merchantId: true, platform: true, status: true, merchant: { select: zones } } }) : null;
    if (!found) throw new AppError('NOT_FOUND', 'No such checkout');
    return found;
  }

  app.post('/api/checkout/:token/init-payment', {
    config: limit(config, 'initPayment'),
    schema: {
      tags,
      summary: "Start the payment: stores the shopper's details, computes the total (items + order bumps + shipping − discount) and creates the processor payment; answers the hosted payment page. Calling it twice never creates two payments.",
      description: 'The address must be in a country one of the merchant\'s rates ships to (else INVALID_INPUT on address.country), and the chosen rate must ship there (else INVALID_INPUT on shippingRateId); nothing is stored or started then. A discount code is validated again (it may have expired or been used up since validate-discount): DISCOUNT_UNKNOWN, DISCOUNT_EXPIRED, DISCOUNT_USED_UP, DISCOUNT_MINIMUM_NOT_MET or DISCOUNT_ALREADY_USED (422), nothing stored. An unknown order bump or shipping rate: INVALID_INPUT. A total of 0 (a 100 % code with free shipping) needs no payment: the checkout is COMPLETED at once without the processor (status COMPLETED, paymentId null, paymentUrl the checkout page), its order is created on the store and the emails sent, as after a paid checkout. The processor refusing or unreachable: UPSTREAM_ERROR (502) or PROCESSOR_TIMEOUT (504); the details stay entered and the checkout OPEN, so the shopper can try again. locale (else the Accept-Language header): the shopper\'s language, stored with the details; the order emails name countries in it.',
      params: tokenParams,
      body: shopperDetailsWithLanguage,
      response: { 200: initPaymentResponse, 400: errorResponse, 404: errorResponse, 409: errorResponse, 422: errorResponse, 429: errorResponse, 502: errorResponse, 504: errorResponse },
    },
  }, async (request) => {
    const session = await payableSessionWithZones(request.params.token);
    // Shipping zones are checked here, before the workflow is asked: an address no rate ships to changes nothing. A session
    // that takes no details any more is the workflow's to answer (CONFLICT, or the same answer to a double click).
    if (takesDetails(session.status)) assertShipsTo(session.merchant, request.body.address.country, request.body.shippingRateId);
    return updateCheckout(deps, session, initPaymentUpdate, withShopperLanguage(request.body, request.headers['accept-language']));
  });

  app.post('/api/checkout/:token/pay', {
    schema: { tags, summary: "The payment page's step is done: confirm with the processor and answer the session status", params: tokenParams, response: { 200: statusResponse, 404: errorResponse, 409: errorResponse } },
  }, async (request) => updateCheckout(deps, await payableSession(request.params.token), payUpdate));

  app.post('/api/checkout/:token/refresh-status', {
    schema: { tags, summary: "Re-fetch the processor's status of the payment and answer the session status", params: tokenParams, response: { 200: statusResponse, 404: errorResponse, 409: errorResponse } },
  }, async (request) => updateCheckout(deps, await payableSession(request.params.token), refreshStatusUpdate));
};
