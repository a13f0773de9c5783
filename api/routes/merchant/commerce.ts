// The merchant's commercial extras: discount codes, order bumps, upsells and tracking pixels, each with list,
// read, create, update (PATCH, merged then validated whole) and delete, registered by one factory (crud).
// Every query goes through the caller's merchant scope (request.merchantData, model/merchant/merchant-scope.ts), so
// another merchant's record is simply not found (404), never changed.
import type { z } from 'zod';
import type { FastifyRequest, FastifyTypeProviderDefault } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Prisma } from '../../../prisma/client.js';
import type { DiscountCode, OrderBump, TrackingPixel, Upsell } from '../../../generated/prisma/client.js';
import { type RouteDeps } from '../../route-deps.js';
import type { MerchantScope } from '../../../model/merchant/merchant-scope.js';
import { AppError } from '../../../domain/errors.js';
import { pixelIdProblem, type PixelPlatform } from '../../../domain/checkout/pixels.js';
import { errorResponse } from '../../schemas/common.js';
import { checkImageUrl, PRODUCT_IMAGE_TYPES } from '../../image-url.js';
import {
  deletedResponse, discountAmountProblem, discountCreate, discountPatch, discountView, idParams, list, orderBumpInputsFor, orderBumpView,
  pixelCreate, pixelPatch, pixelView, upsellInputsFor, upsellView,
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

/** The caller's data and the id in the URL: another merchant's record is not found. */
type Owned = { data: MerchantScope; id: string };
type Doc = { summary: string; description?: string };

/** One merchant-owned resource: its schemas, its docs, and how it is stored. The routes around it are alike. */
interface Resource<View, Create, Patch> {
  path: string;
  /** In "No such …" answers. */
  noun: string;
  kind: keyof typeof MAX_RECORDS;
  schemas: { view: z.ZodType<View>; create: z.ZodType<Create>; patch: z.ZodType<Patch> };
  docs: { list: string; get: string; create: Doc; patch: Doc; delete: Doc };
  /** PATCH can collide with a unique field (409). */
  patchConflicts?: boolean;
  list(data: MerchantScope): Promise<View[]>;
  find(record: Owned): Promise<View | null>;
  count(data: MerchantScope): Promise<number>;
  /** Checks a create body beyond its schema, before the per-shop limit is counted. */
  check?(body: Create): void;
  /** Its `imageUrl`, when a create or PATCH sends one, must pass the image check (the logo's: api/image-url.ts). */
  hasImage?: boolean;
  insert(data: MerchantScope, body: Create): Promise<View>;
  /** How many records it changed: 0 when there is no such record of this merchant. */
  update(record: Owned, body: Patch): Promise<number>;
  remove(record: Owned): Promise<number>;
}

export const merchantCommerceRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { urlGuard } = deps;
  const common = ({ summary, description }: Doc) => ({ tags, summary, ...(description ? { description } : {}), ...auth });
  const errors = { 400: errorResponse, 401: errorResponse, 404: errorResponse };

  /** GET list, GET one, POST, PATCH and DELETE for one resource, each with its zod schemas (the OpenAPI document). */
  function crud<View, Create, Patch>(r: Resource<View, Create, Patch>) {
    const { view, create, patch } = r.schemas;
    // The zod type provider cannot resolve request and reply types from schemas that are type parameters. The
    // app's zod validator and serializer still run on every route (they are the app's, not the provider's),
    // so the body is the schema's output, as Resource types it.
    const routes = app.withTypeProvider<FastifyTypeProviderDefault>();
    const owned = (request: FastifyRequest): Owned => ({ data: request.merchantData, id: (request.params as z.output<typeof idParams>).id });
    const checkImage = async (body: unknown) => {
      const url = (body as { imageUrl?: string | null }).imageUrl;
      if (r.hasImage && url) await checkImageUrl(urlGuard, url, { field: 'body.imageUrl', types: PRODUCT_IMAGE_TYPES });
    };

    routes.get(r.path, {
      onRequest: app.authenticate,
      config: { apiKeyScope: 'commerce:read' },
      schema: { ...common({ summary: r.docs.list }), response: { 200: list(view), 401: errorResponse } },
    }, async (request) => ({ items: await r.list(request.merchantData) }));

    routes.get(`${r.path}/:id`, {
      onRequest: app.authenticate,
      config: { apiKeyScope: 'commerce:read' },
      schema: { ...common({ summary: r.docs.get }), params: idParams, response: { 200: view, ...errors } },
    }, async (request) => {
      const found = await r.find(owned(request));
      if (!found) throw notFound(r.noun);
      return found;
    });

    routes.post(r.path, {
      onRequest: app.authenticate,
      config: { apiKeyScope: 'commerce:write' },
      schema: { ...common(r.docs.create), body: create, response: { 201: view, ...errors, 409: errorResponse } },
    }, async (request, reply) => {
      const data = request.merchantData;
      const body = request.body as Create;
      r.check?.(body);
      await checkImage(body);
      if ((await r.count(data)) >= MAX_RECORDS[r.kind]) {
        throw new AppError('CONFLICT', `At most ${MAX_RECORDS[r.kind]} records of this kind per shop: delete one first`);
      }
      return reply.code(201).send(await r.insert(data, body));
    });

    routes.patch(`${r.path}/:id`, {
      onRequest: app.authenticate,
      config: { apiKeyScope: 'commerce:write' },
      schema: {
        ...common(r.docs.patch), params: idParams, body: patch,
        response: { 200: view, ...errors, ...(r.patchConflicts ? { 409: errorResponse } : {}) },
      },
    }, async (request) => {
      const record = owned(request);
      await checkImage(request.body);
      if ((await r.update(record, request.body as Patch)) === 0) throw notFound(r.noun);
      const found = await r.find(record);
      if (!found) throw notFound(r.noun);
      return found;
    });

    routes.delete(`${r.path}/:id`, {
      onRequest: app.authenticate,
      config: { apiKeyScope: 'commerce:write' },
      schema: { ...common(r.docs.delete), params: idParams, response: { 200: deletedResponse, 401: errorResponse, 404: errorResponse } },
    }, async (request) => {
      const record = owned(request);
      if ((await r.remove(record)) === 0) throw notFound(r.noun);
      return { deleted: true as const, id: record.id };
    });
  }

  // -------------------------------------------------------------------------------------------------
  // Discount codes

  const codeTaken = (code: string) => new AppError('DISCOUNT_CODE_EXISTS', `The discount code ${code} exists already`);
  /** Checked by discountAmountProblem first: the type's own amount field is set. */
  const discountData = (b: { type: 'percentage' | 'fixed_amount'; percentOff?: number | null; amountOffCents?: number | null }) =>
    ({ type: b.type === 'percentage' ? ('PERCENTAGE' as const) : ('FIXED_AMOUNT' as const), value: (b.type === 'percentage' ? b.percentOff : b.amountOffCents)! });

  crud({
    path: '/discounts',
    noun: 'discount code',
    kind: 'discount',
    schemas: { view: discountView, create: discountCreate, patch: discountPatch },
    docs: {
      list: 'The shop\'s discount codes, newest first',
      get: 'One discount code',
      create: {
        summary: 'Create a discount code',
        description: 'percentage (percentOff 1-100) or fixed_amount (amountOffCents, EUR cents converted into each checkout\'s currency). It comes off the merchandise (items + order bumps), never shipping, never below zero. Codes are case-insensitive and unique per shop (DISCOUNT_CODE_EXISTS).',
      },
      patch: {
        summary: 'Change a discount code',
        description: 'Fields not sent keep their value; changing type needs the new type\'s amount field. Checkouts that already started paying keep the amount they were quoted.',
      },
      delete: {
        summary: 'Delete a discount code',
        description: 'Checkouts that already applied it keep their discount (their order says so); new checkouts get DISCOUNT_UNKNOWN. To pause a code instead, PATCH active: false.',
      },
    },
    patchConflicts: true,
    list: async (data) =>
      (await data.discountCodes.findMany({ include: usedCount, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }] })).map(toDiscountView),
    find: async ({ data, id }) => {
      const row = await data.discountCodes.findFirst({ where: { id }, include: usedCount });
      return row && toDiscountView(row);
    },
    count: (data) => data.discountCodes.count(),
    insert: async (data, b) => {
      try {
        const row = await data.discountCodes.create({
          data: {
            code: b.code, ...discountData(b), minSubtotalCents: b.minimumSubtotalCents ?? null, usageLimit: b.usageLimit ?? null,
            oncePerEmail: b.oncePerEmail ?? false, expiresAt: b.expiresAt ? new Date(b.expiresAt) : null, active: b.active ?? true,
          },
          include: usedCount,
        });
        return toDiscountView(row);
      } catch (err) {
        if (isUniqueViolation(err)) throw codeTaken(b.code);
        throw err;
      }
    },
    update: async ({ data, id }, b) => {
      const current = await data.discountCodes.findFirst({ where: { id } });
      if (!current) return 0;
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
        const { count } = await data.discountCodes.updateMany({
          where: { id },
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
        return count;
      } catch (err) {
        if (isUniqueViolation(err)) throw codeTaken(b.code ?? current.code);
        throw err;
      }
    },
    remove: async ({ data, id }) => (await data.discountCodes.deleteMany({ where: { id } })).count,
  });

  // -------------------------------------------------------------------------------------------------
  // Order bumps

  crud({
    path: '/order-bumps',
    noun: 'order bump',
    kind: 'orderBump',
    schemas: { view: orderBumpView, ...orderBumpInputsFor(urlGuard.allowedOrigins) },
    hasImage: true,
    docs: {
      list: 'The shop\'s order bumps, in checkout order',
      get: 'One order bump',
      create: {
        summary: 'Create an order bump',
        description: 'An extra store product offered on the checkout page with one click. Its price (EUR cents) is converted into each checkout\'s currency; an accepted bump is added to the total and becomes a line of the store order (with these product/variant ids: they must exist in the store, or the store refuses the order).',
      },
      patch: { summary: 'Change an order bump (fields not sent keep their value)' },
      delete: { summary: 'Delete an order bump (checkouts that accepted it keep it)' },
    },
    list: async (data) => (await data.orderBumps.findMany({ orderBy: [{ position: 'asc' }, { id: 'asc' }] })).map(toOrderBumpView),
    find: async ({ data, id }) => {
      const row = await data.orderBumps.findFirst({ where: { id } });
      return row && toOrderBumpView(row);
    },
    count: (data) => data.orderBumps.count(),
    check: (b) => checkCompareAt(b),
    insert: async (data, b) => toOrderBumpView(await data.orderBumps.create({
      data: {
        productId: b.productId, variantId: b.variantId ?? null, title: b.title, description: b.description ?? null, imageUrl: b.imageUrl ?? null,
        priceCents: b.priceCents, compareAtCents: b.compareAtCents ?? null, active: b.active ?? true, position: b.position ?? 0,
      },
    })),
    update: async ({ data, id }, b) => {
      const current = await data.orderBumps.findFirst({ where: { id } });
      if (!current) return 0;
      checkCompareAt({ priceCents: b.priceCents ?? current.priceCents, compareAtCents: b.compareAtCents !== undefined ? b.compareAtCents : current.compareAtCents });
      return (await data.orderBumps.updateMany({ where: { id }, data: b })).count;
    },
    remove: async ({ data, id }) => (await data.orderBumps.deleteMany({ where: { id } })).count,
  });

  // -------------------------------------------------------------------------------------------------
  // Upsells

  crud({
    path: '/upsells',
    noun: 'upsell',
    kind: 'upsell',
    schemas: { view: upsellView, ...upsellInputsFor(urlGuard.allowedOrigins) },
    hasImage: true,
    docs: {
      list: 'The shop\'s upsell offers, in checkout order',
      get: 'One upsell offer',
      create: {
        summary: 'Create an upsell offer',
        description: 'A one-click offer of a store product at discountPercent off, shown before confirming (pre_confirm) or on the confirmation page (post_purchase). Served to checkouts by GET /api/checkout/:token/upsells; a post_purchase offer is added to a card-paid order with one click (POST /api/checkout/:token/upsells/:upsellId/accept, docs/commerce-extras.md).',
      },
      patch: { summary: 'Change an upsell offer (fields not sent keep their value)' },
      delete: { summary: 'Delete an upsell offer' },
    },
    list: async (data) => (await data.upsells.findMany({ orderBy: [{ position: 'asc' }, { id: 'asc' }] })).map(toUpsellView),
    find: async ({ data, id }) => {
      const row = await data.upsells.findFirst({ where: { id } });
      return row && toUpsellView(row);
    },
    count: (data) => data.upsells.count(),
    insert: async (data, b) => toUpsellView(await data.upsells.create({
      data: {
        placement: b.placement, headline: b.headline, description: b.description ?? null, productId: b.productId, variantId: b.variantId ?? null,
        title: b.title, imageUrl: b.imageUrl ?? null, priceCents: b.priceCents, discountPercent: b.discountPercent ?? 0, active: b.active ?? true, position: b.position ?? 0,
      },
    })),
    update: async ({ data, id }, b) => (await data.upsells.updateMany({ where: { id }, data: b })).count,
    remove: async ({ data, id }) => (await data.upsells.deleteMany({ where: { id } })).count,
  });

  // -------------------------------------------------------------------------------------------------
  // Tracking pixels

  const pixelTaken = () => new AppError('CONFLICT', 'This pixel is configured already');

  crud({
    path: '/pixels',
    noun: 'pixel',
    kind: 'pixel',
    schemas: { view: pixelView, create: pixelCreate, patch: pixelPatch },
    docs: {
      list: 'The shop\'s tracking pixels',
      get: 'One tracking pixel',
      create: {
        summary: 'Add a tracking pixel',
        description: 'platform meta (15-16 digit pixel id), ga4 (G-XXXXXXX), google_ads (AW-123456789, optionally /label), tiktok (20-character pixel code), pinterest (13-digit tag id) or snapchat (UUID), with the checkout events it fires. The checkout fires `purchase` with the session token as event id, so a sale counts once.',
      },
      patch: { summary: 'Change a tracking pixel\'s id, events or active flag' },
      delete: { summary: 'Remove a tracking pixel' },
    },
    patchConflicts: true,
    list: async (data) => (await data.trackingPixels.findMany({ orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })).map(toPixelView),
    find: async ({ data, id }) => {
      const row = await data.trackingPixels.findFirst({ where: { id } });
      return row && toPixelView(row);
    },
    count: (data) => data.trackingPixels.count(),
    insert: async (data, b) => {
      try {
        return toPixelView(await data.trackingPixels.create({ data: { platform: b.platform, trackingId: b.trackingId, events: b.events, active: b.active ?? true } }));
      } catch (err) {
        if (isUniqueViolation(err)) throw pixelTaken();
        throw err;
      }
    },
    update: async ({ data, id }, b) => {
      const current = await data.trackingPixels.findFirst({ where: { id } });
      if (!current) return 0;
      if (b.trackingId !== undefined) checkPixelId(current.platform as PixelPlatform, b.trackingId);
      try {
        return (await data.trackingPixels.updateMany({ where: { id }, data: b })).count;
      } catch (err) {
        if (isUniqueViolation(err)) throw pixelTaken();
        throw err;
      }
    },
    remove: async ({ data, id }) => (await data.trackingPixels.deleteMany({ where: { id } })).count,
  });
};
