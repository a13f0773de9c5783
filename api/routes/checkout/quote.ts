// The checkout page's live quote: the total the shopper will pay for the details entered so far, with the store's own tax
// (model/checkout/store-taxes.ts: Shopify's draftOrderCalculate, WooCommerce's rates), before anything is stored or charged.
// init-payment and complete-cod price and tax the same way again, so the page's total is the total charged.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type RouteDeps } from '../../route-deps.js';
import { AppError } from '../../../domain/errors.js';
import { isOpen, isCheckoutStatus } from '../../../domain/checkout/checkout-status.js';
import { isPreviewToken, isSessionToken } from '../../../domain/tokens.js';
import { priceCheckout } from '../../../model/checkout/pricing.js';
import { quoteStoreTaxes } from '../../../model/checkout/store-taxes.js';
import type { Prisma } from '../../../prisma/client.js';
import { limit } from '../../plugins/rate-limits.js';
import { errorResponse } from '../../schemas/common.js';
import { tokenParams } from '../../schemas/checkout.js';
import { quoteDetails, quoteResponse } from '../../schemas/shopper.js';

export const checkoutQuoteRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, db } = deps;

  app.post('/api/checkout/:token/quote', {
    config: limit(config, 'checkoutQuote'),
    schema: {
      tags: ['checkout'],
      summary: "What the shopper will pay for these details, with the store's own tax, before paying",
      description:
        'The same pricing as init-payment (items + order bumps + shipping − discount; the code validated, DISCOUNT_* on a refusal) and ' +
        "the store's tax on it as the store computes it for the address: added to the total when the store's prices exclude tax, inside " +
        'it otherwise (by the billing address when one is sent and the store bases tax on it). Nothing is stored. A preview answers its totals without tax. 502/504 when the store cannot be asked. Dedicated rate limiter (RATE_LIMIT_CHECKOUT_QUOTE).',
      params: tokenParams,
      body: quoteDetails,
      response: { 200: quoteResponse, 400: errorResponse, 404: errorResponse, 409: errorResponse, 422: errorResponse, 429: errorResponse, 502: errorResponse, 504: errorResponse },
    },
  }, async (request) => {
    const { token } = request.params;
    const session = isSessionToken(token) ? await db.checkoutSession.findUnique({ where: { token } }) : null;
    if (!session || !isCheckoutStatus(session.status)) throw new AppError('NOT_FOUND', 'No such checkout');
    if (!isOpen(session.status)) throw new AppError('CONFLICT', `This checkout is ${session.status.toLowerCase().replace('_', ' ')}: its total is final`);
    const { address, billingAddress, shippingRateId, discountCode, orderBumpIds, email } = request.body;
    const rates = await db.shippingRate.findMany({ where: { merchantId: session.merchantId }, orderBy: [{ position: 'asc' }, { id: 'asc' }] });
    const priced = await priceCheckout(db, session, rates, { shippingRateId, discountCode, orderBumpIds, email: email?.toLowerCase() });
    const { totals } = priced;
    const untaxed = {
      currency: session.currency, subtotalMinor: totals.merchandise.amount, shippingMinor: totals.shipping.amount, discountMinor: totals.discount.amount,
      taxMinor: 0, taxesIncluded: false, totalMinor: totals.total.amount,
    };
    if (isPreviewToken(token)) return untaxed;
    const taxed = await quoteStoreTaxes(deps, session.merchantId, {
      ...session,
      // The order as it would be made of these details (never stored here): the address, shipping, discount, bumps.
      email: email ?? 'quote@checkout.invalid',
      shippingAddress: address as unknown as Prisma.JsonValue,
      // A store taxing by the billing address (WooCommerce's tax_based_on billing) taxes this one.
      billingAddress: (billingAddress ?? null) as unknown as Prisma.JsonValue,
      shippingName: priced.shipping?.name ?? null,
      shippingMinor: totals.shipping.amount,
      discountCode: priced.discount?.code ?? null,
      discountMinor: totals.discount.amount,
      orderBumps: priced.bumps as unknown as Prisma.JsonValue,
      totalMinor: totals.total.amount,
    });
    return { ...untaxed, ...taxed };
  });
};
