// The merchant's commercial extras: discount codes, order bumps, upsells and tracking pixels, each with list,
// read, create, update (PATCH, merged then validated whole) and delete. Every query carries the caller's
// merchant id from the token, so another merchant's record is simply not found (404), never changed.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Prisma } from '../../../prisma/client.js';
import type { DiscountCode, OrderBump, TrackingPixel, Upsell } from '../../../generated/prisma/client.js';
import type { RouteDeps } from '../../app.js';
import { AppError } from '../../../domain/errors.js';
import { pixelIdProblem, type PixelPlatform } from '../../../domain/pixels.js';
import { errorResponse } from '../../schemas/common.js';
import {
  deletedResponse, discountAmountProblem, discountCreate, discountPatch, discountView, idParams, list, orderBumpCreate, orderBumpPatch, orderBumpView,
  pixelCreate, pixelPatch, pixelView, upsellCreate, upsellPatch, upsellView,
} from '../../schemas/commerce.js';

const auth = { security: [{ bearerAuth: [] }] };
const tags = ['merchant commerce'];
/** Per merchant and kind: plenty for a checkout page, and a bound on what every checkout reads. */
const MAX_RECORDS = { discount: 500, orderBump: 20, upsell: 20, pixel: 20 } as const;

const notFound = (what: string) => new AppError('NOT_FOUND', `No such ${what}`);
const invalid = (fields: Record<string, string>) => new AppError('INVALID_INPUT', Object.entries(fields).map(([k, m]) => `${k}: ${m}`).join('; '), { fields });
const iso = (d: Date | null) => (d ? d.toISOString() : null);
const stamps = (r: { createdAt: Date; updatedAt: Date }) => ({ createdAt: r.createdAt.toISOString(), updatedAt: r.updatedAt.toISOString() });
const isUniqueViolation = (err: unknown) => err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002';

type DiscountRow = DiscountCode & { _count: { redemptions: number } };

function toDiscountView(d: DiscountRow) {
  const percentage = d.type === 'PERCENTAGE';
  return {
    id: d.id,
    code: d.code,
    type: percentage ? ('percentage' as const) : ('fixed_amount' as const),
    percentOff: percentage ? d.value : null,
    amountOffCents: percentage ? null : d.value,
    minimumSubtotalCents: d.minSubtotalCents,
    usageLimit: d.usageLimit,
    oncePerEmail: d.oncePerEmail,
    expiresAt: iso(d.expiresAt),
    active: d.active,
    timesUsed: d._count.redemptions,
    ...stamps(d),
  };
}

const toOrderBumpView = (b: OrderBump) => ({
  id: b.id, productId: b.productId, variantId: b.variantId, title: b.title, description: b.description, imageUrl: b.imageUrl,
  priceCents: b.priceCents, compareAtCents: b.compareAtCents, active: b.active, position: b.position, ...stamps(b),
});

const toUpsellView = (u: Upsell) => ({
  id: u.id, placement: u.placement as 'pre_confirm' | 'post_purchase', headline: u.headline, description: u.description, productId: u.productId,
  variantId: u.variantId, title: u.title, imageUrl: u.imageUrl, priceCents: u.priceCents, discountPercent: u.discountPercent, active: u.active,
  position: u.position, ...stamps(u),
});

const toPixelView = (p: TrackingPixel) => ({ id: p.id, platform: p.platform as PixelPlatform, trackingId: p.trackingId, events: p.events, active: p.active, ...stamps(p) });

/** Only counted uses show as used (a checkout paying right now holds one, but has not used it yet). */
const usedCount = { _count: { select: { redemptions: { where: { redeemedAt: { not: null } } } } } } as const;

function checkCompareAt(b: { priceCents: number; compareAtCents?: number | null }) {
  if (b.compareAtCents != null && b.compareAtCents <= b.priceCents) throw invalid({ 'body.compareAtCents': 'must be above priceCents (it is shown struck through)' });
}

function checkPixelId(platform: PixelPlatform, trackingId: string) {
  const problem = pixelIdProblem(platform, trackingId);
  if (problem) throw invalid({ 'body.trackingId': problem });
}

export const merchantCommerceRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { db } = deps;
  const common = (summary: string) => ({ tags, summary, ...auth });
  const errors = { 400: errorResponse, 401: errorResponse, 404: errorResponse };

  async function underLimit(count: Promise<number>, kind: keyof typeof MAX_RECORDS) {
    if ((await count) >= MAX_RECORDS[kind]) throw new AppError('CONFLICT', `At most ${MAX_RECORDS[kind]} records of this kind per shop: delete one first`);
  }

  // -------------------------------------------------------------------------------------------------
  // Discount codes

  const codeTaken = (code: string) => new AppError('DISCOUNT_CODE_EXISTS', `The discount code ${code} exists already`);
  /** Checked by discountAmountProblem first: the type's own amount field is set. */
  const discountData = (b: { type: 'percentage' | 'fixed_amount'; percentOff?: number | null; amountOffCents?: number | null }) =>
    ({ type: b.type === 'percentage' ? ('PERCENTAGE' as const) : ('FIXED_AMOUNT' as const), value: (b.type === 'percentage' ? b.percentOff : b.amountOffCents)! });

  app.get('/api/merchant/discounts', {
    onRequest: app.authenticate,
    schema: { ...common('The shop\'s discount codes, newest first'), response: { 200: list(discountView), 401: errorResponse } },
  }, async (request) => {
    const rows = await db.discountCode.findMany({ where: { merchantId: request.merchant.merchantId }, include: usedCount, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }] });
    return { items: rows.map(toDiscountView) };
  });

  app.get('/api/merchant/discounts/:id', {
    onRequest: app.authenticate,
    schema: { ...common('One discount code'), params: idParams, response: { 200: discountView, ...errors } },
  }, async (request) => {
    const row = await db.discountCode.findFirst({ where: { id: request.params.id, merchantId: request.merchant.merchantId }, include: usedCount });
    if (!row) throw notFound('discount code');
    return toDiscountView(row);
  });

  app.post('/api/merchant/discounts', {
    onRequest: app.authenticate,
    schema: {
      ...common('Create a discount code'),
      description: 'percentage (percentOff 1-100) or fixed_amount (amountOffCents, EUR cents converted into each checkout\'s currency). It comes off the merchandise (items + order bumps), never shipping, never below zero. Codes are case-insensitive and unique per shop (DISCOUNT_CODE_EXISTS).',
      body: discountCreate,
      response: { 201: discountView, ...errors, 409: errorResponse },
    },
  }, async (request, reply) => {
    const { merchantId } = request.merchant;
    const b = request.body;
    const problem = discountAmountProblem(b);
    if (problem) throw invalid(problem);
    await underLimit(db.discountCode.count({ where: { merchantId } }), 'discount');
    try {
      const row = await db.discountCode.create({
        data: {
          merchantId, code: b.code, ...discountData(b), minSubtotalCents: b.minimumSubtotalCents ?? null, usageLimit: b.usageLimit ?? null,
          oncePerEmail: b.oncePerEmail ?? false, expiresAt: b.expiresAt ? new Date(b.expiresAt) : null, active: b.active ?? true,
        },
        include: usedCount,
      });
      return reply.code(201).send(toDiscountView(row));
    } catch (err) {
      if (isUniqueViolation(err)) throw codeTaken(b.code);
      throw err;
    }
  });

  app.patch('/api/merchant/discounts/:id', {
    onRequest: app.authenticate,
    schema: {
      ...common('Change a discount code'),
      description: 'Fields not sent keep their value; changing type needs the new type\'s amount field. Checkouts that already started paying keep the amount they were quoted.',
      params: idParams,
      body: discountPatch,
      response: { 200: discountView, ...errors, 409: errorResponse },
    },
  }, async (request) => {
    const where = { id: request.params.id, merchantId: request.merchant.merchantId };
    const current = await db.discountCode.findFirst({ where });
    if (!current) throw notFound('discount code');
    const b = request.body;
    const type = b.type ?? (current.type === 'PERCENTAGE' ? 'percentage' : 'fixed_amount');
    const keepsType = type === (current.type === 'PERCENTAGE' ? 'percentage' : 'fixed_amount');
    const merged = {
      type,
      percentOff: b.percentOff !== undefined ? b.percentOff : keepsType && type === 'percentage' ? current.value : null,
      amountOffCents: b.amountOffCents !== undefined ? b.amountOffCents : keepsType && type === 'fixed_amount' ? current.value : null,
    };
    const problem = discountAmountProblem(merged);
    if (problem) throw invalid(problem);
    try {
      const { count } = await db.discountCode.updateMany({
        where,
        data: {
          ...discountData(merged),
          ...(b.code !== undefined ? { code: b.code } : {}),
          ...(b.minimumSubtotalCents !== undefined ? { minSubtotalCents: b.minimumSubtotalCents } : {}),
          ...(b.usageLimit !== undefined ? { usageLimit: b.usageLimit } : {}),
          ...(b.oncePerEmail !== undefined ? { oncePerEmail: b.oncePerEmail } : {}),
          ...(b.expiresAt !== undefined ? { expiresAt: b.expiresAt ? new Date(b.expiresAt) : null } : {}),
          ...(b.active !== undefined ? { active: b.active } : {}),
        },
      });
      if (count === 0) throw notFound('discount code');
    } catch (err) {
      if (isUniqueViolation(err)) throw codeTaken(b.code ?? current.code);
      throw err;
    }
    return toDiscountView(await db.discountCode.findFirstOrThrow({ where, include: usedCount }));
  });

  app.delete('/api/merchant/discounts/:id', {
    onRequest: app.authenticate,
    schema: {
      ...common('Delete a discount code'),
      description: 'Checkouts that already applied it keep their discount (their order says so); new checkouts get DISCOUNT_UNKNOWN. To pause a code instead, PATCH active: false.',
      params: idParams,
      response: { 200: deletedResponse, 401: errorResponse, 404: errorResponse },
    },
  }, async (request) => {
    const { count } = await db.discountCode.deleteMany({ where: { id: request.params.id, merchantId: request.merchant.merchantId } });
    if (count === 0) throw notFound('discount code');
    return { deleted: true as const, id: request.params.id };
  });

  // -------------------------------------------------------------------------------------------------
  // Order bumps

  app.get('/api/merchant/order-bumps', {
    onRequest: app.authenticate,
    schema: { ...common('The shop\'s order bumps, in checkout order'), response: { 200: list(orderBumpView), 401: errorResponse } },
  }, async (request) => ({
    items: (await db.orderBump.findMany({ where: { merchantId: request.merchant.merchantId }, orderBy: [{ position: 'asc' }, { id: 'asc' }] })).map(toOrderBumpView),
  }));

  app.get('/api/merchant/order-bumps/:id', {
    onRequest: app.authenticate,
    schema: { ...common('One order bump'), params: idParams, response: { 200: orderBumpView, ...errors } },
  }, async (request) => {
    const row = await db.orderBump.findFirst({ where: { id: request.params.id, merchantId: request.merchant.merchantId } });
    if (!row) throw notFound('order bump');
    return toOrderBumpView(row);
  });

  app.post('/api/merchant/order-bumps', {
    onRequest: app.authenticate,
    schema: {
      ...common('Create an order bump'),
      description: 'An extra store product offered on the checkout page with one click. Its price (EUR cents) is converted into each checkout\'s currency; an accepted bump is added to the total and becomes a line of the store order (with these product/variant ids: they must exist in the store, or the store refuses the order).',
      body: orderBumpCreate,
      response: { 201: orderBumpView, ...errors, 409: errorResponse },
    },
  }, async (request, reply) => {
    const { merchantId } = request.merchant;
    const b = request.body;
    checkCompareAt(b);
    await underLimit(db.orderBump.count({ where: { merchantId } }), 'orderBump');
    const row = await db.orderBump.create({
      data: {
        merchantId, productId: b.productId, variantId: b.variantId ?? null, title: b.title, description: b.description ?? null, imageUrl: b.imageUrl ?? null,
        priceCents: b.priceCents, compareAtCents: b.compareAtCents ?? null, active: b.active ?? true, position: b.position ?? 0,
      },
    });
    return reply.code(201).send(toOrderBumpView(row));
  });

  app.patch('/api/merchant/order-bumps/:id', {
    onRequest: app.authenticate,
    schema: { ...common('Change an order bump (fields not sent keep their value)'), params: idParams, body: orderBumpPatch, response: { 200: orderBumpView, ...errors } },
  }, async (request) => {
    const where = { id: request.params.id, merchantId: request.merchant.merchantId };
    const current = await db.orderBump.findFirst({ where });
    if (!current) throw notFound('order bump');
    const b = request.body;
    checkCompareAt({ priceCents: b.priceCents ?? current.priceCents, compareAtCents: b.compareAtCents !== undefined ? b.compareAtCents : current.compareAtCents });
    const { count } = await db.orderBump.updateMany({ where, data: b });
    if (count === 0) throw notFound('order bump');
    return toOrderBumpView(await db.orderBump.findFirstOrThrow({ where }));
  });

  app.delete('/api/merchant/order-bumps/:id', {
    onRequest: app.authenticate,
    schema: { ...common('Delete an order bump (checkouts that accepted it keep it)'), params: idParams, response: { 200: deletedResponse, 401: errorResponse, 404: errorResponse } },
  }, async (request) => {
    const { count } = await db.orderBump.deleteMany({ where: { id: request.params.id, merchantId: request.merchant.merchantId } });
    if (count === 0) throw notFound('order bump');
    return { deleted: true as const, id: request.params.id };
  });

  // -------------------------------------------------------------------------------------------------
  // Upsells

  app.get('/api/merchant/upsells', {
    onRequest: app.authenticate,
    schema: { ...common('The shop\'s upsell offers, in checkout order'), response: { 200: list(upsellView), 401: errorResponse } },
  }, async (request) => ({
    items: (await db.upsell.findMany({ where: { merchantId: request.merchant.merchantId }, orderBy: [{ position: 'asc' }, { id: 'asc' }] })).map(toUpsellView),
  }));

  app.get('/api/merchant/upsells/:id', {
    onRequest: app.authenticate,
    schema: { ...common('One upsell offer'), params: idParams, response: { 200: upsellView, ...errors } },
  }, async (request) => {
    const row = await db.upsell.findFirst({ where: { id: request.params.id, merchantId: request.merchant.merchantId } });
    if (!row) throw notFound('upsell');
    return toUpsellView(row);
  });

  app.post('/api/merchant/upsells', {
    onRequest: app.authenticate,
    schema: {
      ...common('Create an upsell offer'),
      description: 'A one-click offer of a store product at discountPercent off, shown before confirming (pre_confirm) or on the confirmation page (post_purchase). Served to checkouts by GET /api/checkout/:token/upsells; accepting an offer is not built yet (docs/commerce-extras.md).',
      body: upsellCreate,
      response: { 201: upsellView, ...errors, 409: errorResponse },
    },
  }, async (request, reply) => {
    const { merchantId } = request.merchant;
    const b = request.body;
    await underLimit(db.upsell.count({ where: { merchantId } }), 'upsell');
    const row = await db.upsell.create({
      data: {
        merchantId, placement: b.placement, headline: b.headline, description: b.description ?? null, productId: b.productId, variantId: b.variantId ?? null,
        title: b.title, imageUrl: b.imageUrl ?? null, priceCents: b.priceCents, discountPercent: b.discountPercent ?? 0, active: b.active ?? true, position: b.position ?? 0,
      },
    });
    return reply.code(201).send(toUpsellView(row));
  });

  app.patch('/api/merchant/upsells/:id', {
    onRequest: app.authenticate,
    schema: { ...common('Change an upsell offer (fields not sent keep their value)'), params: idParams, body: upsellPatch, response: { 200: upsellView, ...errors } },
  }, async (request) => {
    const where = { id: request.params.id, merchantId: request.merchant.merchantId };
    const { count } = await db.upsell.updateMany({ where, data: request.body });
    if (count === 0) throw notFound('upsell');
    return toUpsellView(await db.upsell.findFirstOrThrow({ where }));
  });

  app.delete('/api/merchant/upsells/:id', {
    onRequest: app.authenticate,
    schema: { ...common('Delete an upsell offer'), params: idParams, response: { 200: deletedResponse, 401: errorResponse, 404: errorResponse } },
  }, async (request) => {
    const { count } = await db.upsell.deleteMany({ where: { id: request.params.id, merchantId: request.merchant.merchantId } });
    if (count === 0) throw notFound('upsell');
    return { deleted: true as const, id: request.params.id };
  });

  // -------------------------------------------------------------------------------------------------
  // Tracking pixels

  const pixelTaken = () => new AppError('CONFLICT', 'This pixel is configured already');

  app.get('/api/merchant/pixels', {
    onRequest: app.authenticate,
    schema: { ...common('The shop\'s tracking pixels'), response: { 200: list(pixelView), 401: errorResponse } },
  }, async (request) => ({
    items: (await db.trackingPixel.findMany({ where: { merchantId: request.merchant.merchantId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })).map(toPixelView),
  }));

  app.get('/api/merchant/pixels/:id', {
    onRequest: app.authenticate,
    schema: { ...common('One tracking pixel'), params: idParams, response: { 200: pixelView, ...errors } },
  }, async (request) => {
    const row = await db.trackingPixel.findFirst({ where: { id: request.params.id, merchantId: request.merchant.merchantId } });
    if (!row) throw notFound('pixel');
    return toPixelView(row);
  });

  app.post('/api/merchant/pixels', {
    onRequest: app.authenticate,
    schema: {
      ...common('Add a tracking pixel'),
      description: 'platform meta (15-16 digit pixel id), ga4 (G-XXXXXXX), google_ads (AW-123456789, optionally /label), tiktok (20-character pixel code), pinterest (13-digit tag id) or snapchat (UUID), with the checkout events it fires. The checkout fires `purchase` with the session token as event id, so a sale counts once.',
      body: pixelCreate,
      response: { 201: pixelView, ...errors, 409: errorResponse },
    },
  }, async (request, reply) => {
    const { merchantId } = request.merchant;
    const b = request.body;
    checkPixelId(b.platform, b.trackingId);
    await underLimit(db.trackingPixel.count({ where: { merchantId } }), 'pixel');
    try {
      const row = await db.trackingPixel.create({ data: { merchantId, platform: b.platform, trackingId: b.trackingId, events: b.events, active: b.active ?? true } });
      return reply.code(201).send(toPixelView(row));
    } catch (err) {
      if (isUniqueViolation(err)) throw pixelTaken();
      throw err;
    }
  });

  app.patch('/api/merchant/pixels/:id', {
    onRequest: app.authenticate,
    schema: { ...common('Change a tracking pixel\'s id, events or active flag'), params: idParams, body: pixelPatch, response: { 200: pixelView, ...errors, 409: errorResponse } },
  }, async (request) => {
    const where = { id: request.params.id, merchantId: request.merchant.merchantId };
    const current = await db.trackingPixel.findFirst({ where });
    if (!current) throw notFound('pixel');
    if (request.body.trackingId !== undefined) checkPixelId(current.platform as PixelPlatform, request.body.trackingId);
    try {
      const { count } = await db.trackingPixel.updateMany({ where, data: request.body });
      if (count === 0) throw notFound('pixel');
    } catch (err) {
      if (isUniqueViolation(err)) throw pixelTaken();
      throw err;
    }
    return toPixelView(await db.trackingPixel.findFirstOrThrow({ where }));
  });

  app.delete('/api/merchant/pixels/:id', {
    onRequest: app.authenticate,
    schema: { ...common('Remove a tracking pixel'), params: idParams, response: { 200: deletedResponse, 401: errorResponse, 404: errorResponse } },
  }, async (request) => {
    const { count } = await db.trackingPixel.deleteMany({ where: { id: request.params.id, merchantId: request.merchant.merchantId } });
    if (count === 0) throw notFound('pixel');
    return { deleted: true as const, id: request.params.id };
  });
};
