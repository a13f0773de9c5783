// The checkout page's commercial extras: the merchant's order bumps and upsell offers priced in the session's
// currency (with its FX snapshot, like shipping), its tracking pixels, and the discount-code check that tells
// the page the new totals. All reads from PostgreSQL: validate-discount holds nothing (init-payment validates
// the code again and reserves its use, see model/checkout/pricing.ts).
import { z } from 'zod';
import { acceptUpsellUpdate } from '../../../workflows/checkout/checkout.messages.js';
import { updateCheckout } from '../../checkout-workflow.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type RouteDeps } from '../../route-deps.js';
import { AppError } from '../../../domain/errors.js';
import { isClosedToShopper } from '../../../domain/checkout/checkout-status.js';
import { convertFromEur } from '../../../domain/money.js';
import { purchaseEventId, type PixelEvent, type PixelPlatform } from '../../../domain/checkout/pixels.js';
import { isPreviewToken, isSessionToken } from '../../../domain/tokens.js';
import { sessionFxRates } from '../../../model/checkout/checkout-session.js';
import { priceCheckout, upsellPrices } from '../../../model/checkout/pricing.js';
import { limit } from '../../plugins/rate-limits.js';
import { errorResponse } from '../../schemas/common.js';
import { tokenParams } from '../../schemas/checkout.js';
import { oneClickUpsellAvailable } from '../../../domain/checkout/upsell-purchase.js';
import { list, orderBumpOffer, pixelsResponse, upsellOffers, validateDiscountBody, validateDiscountResponse } from '../../schemas/commerce.js';

const tags = ['checkout'];
/** Settled sessions take no new discount: nothing can be charged on them any more. */

/** An accepted upsell's charge as the shopper's page reads it. */
const upsellChargeResponse = z.object({
  upsellId: z.string(),
  state: z.enum(['pending', 'paid', 'failed', 'refunded']),
  amountMinor: z.number().int(),
  currency: z.string(),
  amount: z.object({ amount: z.number().int(), currency: z.string() }),
  paymentId: z.string().nullable().describe("The processor's payment of the offer (Whop pay_…), once charged"),
  failureReason: z.string().nullable().describe('Why the charge was declined, in the processor\'s words'),
});

export const checkoutExtrasRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, db } = deps;

  /** The session behind a token (404 for a malformed or unknown one, before or after one primary-key read). */
  async function sessionOf(token: string) {
    const session = isSessionToken(token)
      ? await db.checkoutSession.findUnique({ where: { token }, select: { token: true, merchantId: true, platform: true, status: true, currency: true, fxRates: true, items: true, paymentMethod: true } })
      : null;
    if (!session) throw new AppError('NOT_FOUND', 'No such checkout session');
    return session;
  }

  app.get('/api/checkout/:token/order-bumps', {
    schema: {
      tags,
      summary: 'The order bumps offered at this checkout, priced in its currency',
      description: 'The merchant\'s active bumps in their order; prices are the merchant\'s EUR prices converted with the session\'s FX snapshot. Accept one by sending its id in init-payment `orderBumpIds`.',
      params: tokenParams,
      response: { 200: list(orderBumpOffer), 404: errorResponse },
    },
  }, async (request) => {
    const session = await sessionOf(request.params.token);
    const fx = sessionFxRates(session.fxRates);
    const rows = await db.orderBump.findMany({ where: { merchantId: session.merchantId, active: true }, orderBy: [{ position: 'asc' }, { id: 'asc' }] });
    return {
      items: rows.map((b) => ({
        id: b.id,
        productId: b.productId,
        variantId: b.variantId,
        title: b.title,
        description: b.description,
        imageUrl: b.imageUrl,
        price: convertFromEur(b.priceCents, session.currency, fx),
        compareAtPrice: b.compareAtCents === null ? null : convertFromEur(b.compareAtCents, session.currency, fx),
      })),
    };
  });

  app.get('/api/checkout/:token/upsells', {
    schema: {
      tags,
      summary: 'The upsell offers of this checkout (before confirming and after payment), priced in its currency',
      description: 'A post_purchase offer can be added with one click (POST /api/checkout/:token/upsells/:upsellId/accept) only where `oneClick` is true: ' +
        'the checkout is paid by card and the processor keeps that card for off-session charges (docs/commerce-extras.md). pre_confirm offers are shown before paying.',
      params: tokenParams,
      response: { 200: upsellOffers, 404: errorResponse },
    },
  }, async (request) => {
    const session = await sessionOf(request.params.token);
    const fx = sessionFxRates(session.fxRates);
    const rows = await db.upsell.findMany({ where: { merchantId: session.merchantId, active: true }, orderBy: [{ position: 'asc' }, { id: 'asc' }] });
    return {
      items: rows.map((u) => {
        const { price, offerPrice } = upsellPrices(u, session.currency, fx);
        return {
          id: u.id,
          placement: u.placement as 'pre_confirm' | 'post_purchase',
          headline: u.headline,
          description: u.description,
          productId: u.productId,
          variantId: u.variantId,
          title: u.title,
          imageUrl: u.imageUrl,
          price,
          discountPercent: u.discountPercent,
          offerPrice,
        };
      }),
      oneClick: !isPreviewToken(session.token) && oneClickUpsellAvailable(session),
    };
  });

  app.post('/api/checkout/:token/upsells/:upsellId/accept', {
    config: limit(config, 'initPayment'),
    schema: {
      tags,
      summary: 'Add a post-purchase offer to the paid order with one click: the card the checkout was paid with is charged the offer price',
      description:
        'Only on a COMPLETED checkout paid by card, for an active post_purchase offer of its merchant. The offer price (in the checkout currency) is charged ' +
        'once on the saved payment method of the checkout\'s payment (Whop POST /payments, off session, idempotency key upsell-<token>-<upsellId>); ' +
        'accepting again answers the same purchase. state: paid (its own order is created on the store and the shopper gets one email), pending (the ' +
        'processor has not settled it yet: the webhook or a poll completes it), failed (declined: failureReason; nothing else happens). ' +
        'UPSELL_NOT_AVAILABLE (409): the checkout is not paid by card, the offer is gone or not post-purchase, or the payment method cannot be charged again. ' +
        'The processor unreachable: UPSTREAM_ERROR (502) or PROCESSOR_TIMEOUT (504), nothing charged twice when retried.',
      params: z.object({ token: tokenParams.shape.token, upsellId: z.uuid().describe('The offer\'s id (GET /api/checkout/:token/upsells)') }),
      response: { 200: upsellChargeResponse, 404: errorResponse, 409: errorResponse, 429: errorResponse, 502: errorResponse, 504: errorResponse },
    },
  }, async (request) => {
    if (isPreviewToken(request.params.token)) throw new AppError('PREVIEW_SESSION', 'This is a preview: nothing can be bought');
    const session = await sessionOf(request.params.token);
    const charge = await updateCheckout(deps, session, acceptUpsellUpdate, { upsellId: request.params.upsellId });
    return { ...charge, amount: { amount: charge.amountMinor, currency: charge.currency } };
  });

  app.get('/api/checkout/:token/pixels', {
    schema: {
      tags,
      summary: 'The tracking pixels this checkout loads, and the event id of its purchase event',
      description: 'The merchant\'s active pixels (none on a preview). Fire `purchase` with `purchaseEventId` (the session token): the platforms de-duplicate on it, so a reloaded confirmation page never counts a second sale.',
      params: tokenParams,
      response: { 200: pixelsResponse, 404: errorResponse },
    },
  }, async (request) => {
    const session = await sessionOf(request.params.token);
    const rows = isPreviewToken(session.token)
      ? []
      : await db.trackingPixel.findMany({ where: { merchantId: session.merchantId, active: true }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    return {
      items: rows.map((p) => ({ platform: p.platform as PixelPlatform, trackingId: p.trackingId, events: p.events as PixelEvent[] })),
      purchaseEventId: purchaseEventId(session.token),
    };
  });

  app.post('/api/checkout/:token/validate-discount', {
    config: limit(config, 'discount'),
    schema: {
      tags,
      summary: 'Check a discount code against this checkout and answer the new totals',
      description:
        'The code comes off the merchandise (items + ticked order bumps), never off shipping, and never below zero; fixed amounts ' +
        'and minimums are the merchant\'s EUR values converted with the session\'s FX snapshot. Refusals, one code per reason (422): ' +
        'DISCOUNT_UNKNOWN (no such code, or paused), DISCOUNT_EXPIRED, DISCOUNT_USED_UP, DISCOUNT_MINIMUM_NOT_MET (details.minimumSubtotal), ' +
        'DISCOUNT_ALREADY_USED (a once-per-email code and this email). Nothing is stored: init-payment validates the code again. ' +
        'Dedicated rate limiter (RATE_LIMIT_DISCOUNT) against guessing codes.',
      params: tokenParams,
      body: validateDiscountBody,
      response: { 200: validateDiscountResponse, 400: errorResponse, 404: errorResponse, 409: errorResponse, 422: errorResponse, 429: errorResponse },
    },
  }, async (request) => {
    const session = await sessionOf(request.params.token);
    if (isClosedToShopper(session.status)) throw new AppError('CONFLICT', `This checkout is ${session.status.toLowerCase().replace('_', ' ')}: no discount can be applied`);
    const { code, email, shippingRateId, orderBumpIds } = request.body;
    const rates = shippingRateId === undefined ? [] : await db.shippingRate.findMany({ where: { merchantId: session.merchantId }, orderBy: [{ position: 'asc' }, { id: 'asc' }] });
    const priced = await priceCheckout(db, session, rates, { discountCode: code, email, shippingRateId, orderBumpIds });
    const { totals } = priced;
    return {
      code: priced.discount!.code,
      type: priced.discount!.type,
      subtotal: totals.merchandise,
      discount: totals.discount,
      shipping: priced.shipping ? totals.shipping : null,
      total: totals.total,
    };
  });
};
