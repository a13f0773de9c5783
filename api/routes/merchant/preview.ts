// The checkout preview (wizard step 5 and the dashboard): a session the merchant opens to see their checkout
// as shoppers will, with two placeholder products, the merchant's own shipping rates and branding, and
// payment disabled (init-payment, pay and complete-cod answer PREVIEW_SESSION).
//
// A preview has no workflow: nothing can happen to it (no payment, no order, no status change), so there is
// nothing to own or to time out. It is a row with source 'preview' and a prev_ token, which statistics,
// order lists and checkout activation leave out. Instead of an expiry timer, each new preview removes the
// merchant's previews older than a day and keeps at most the newest few, so they never pile up.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type RouteDeps } from '../../route-deps.js';
import type { Prisma } from '../../../prisma/client.js';
import { INITIAL_STATUS } from '../../../domain/checkout/checkout-status.js';
import { BASE_CURRENCY } from '../../../domain/money.js';
import { PREVIEW_TOKEN_PREFIX } from '../../../domain/tokens.js';
import { type SessionLine } from '../../../model/checkout/checkout-session.js';
import { checkoutUrlOf } from '../../checkout-host.js';
import { errorResponse } from '../../schemas/common.js';
import { snapshotFxRates, subtotalOf } from '../../cart-sources.js';

const auth = { security: [{ bearerAuth: [] }] };
const PREVIEW_TTL_MS = 24 * 60 * 60 * 1000;
/** Previews a merchant keeps at most (the newest); older ones are removed when a new one is made. */
const PREVIEWS_KEPT = 10;

/** Two placeholder products: enough to show lines, quantities, a variant and the totals. */
export const PREVIEW_ITEMS: readonly SessionLine[] = [
  { productId: 'preview-1', variantId: 'preview-1-m', title: 'Sample product', variantTitle: 'Size M', quantity: 1, unitPrice: 2900, imageUrl: null },
  { productId: 'preview-2', variantId: null, title: 'Another sample product', variantTitle: null, quantity: 2, unitPrice: 1450, imageUrl: null },
];

const previewResponse = z
  .object({
    token: z.string().describe('The preview session token (prev_…)'),
    previewUrl: z.string().describe("The preview on the merchant's checkout origin (custom domain once verified, else the subdomain)"),
  })
  .meta({ id: 'CheckoutPreview' });

export const newPreviewToken = () => PREVIEW_TOKEN_PREFIX + randomBytes(24).toString('base64url');

export const previewRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, db } = deps;

  app.post('/preview', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'onboarding:write' },
    schema: {
      tags: ['merchant'],
      summary: 'Open a checkout preview: two placeholder products, your shipping rates and branding, payment disabled',
      description:
        'Creates a preview session (token prev_…) and answers its URL. Payment is disabled on it: init-payment, pay and complete-cod ' +
        'answer PREVIEW_SESSION. Previews never count in statistics, orders or checkout activation. Records the time on the merchant ' +
        '(previewOpenedAt, which unlocks the wizard\'s final check). Previews older than a day are removed as new ones are made.',
      ...auth,
      response: { 201: previewResponse, 401: errorResponse },
    },
  }, async (request, reply) => {
    const data = request.merchantData;
    const merchant = await data.merchant.get({ select: { id: true, slug: true, storePlatform: true } });
    const fx = await snapshotFxRates(db);
    const token = newPreviewToken();
    const platform = merchant.storePlatform ?? 'STOREFRONT_A';
    const subtotalMinor = subtotalOf(PREVIEW_ITEMS, BASE_CURRENCY).amount;
    const now = new Date();
    // Removed: previews older than a day, and those older than the newest PREVIEWS_KEPT - 1 (by time, so a preview
    // another request is creating right now is newer than the cut and stays).
    const [oldestKept] = await data.checkoutSessions.findMany({
      where: { source: 'preview' },
      orderBy: { createdAt: 'desc' },
      skip: PREVIEWS_KEPT - 2,
      take: 1,
      select: { createdAt: true },
    });
    const expired = new Date(now.getTime() - PREVIEW_TTL_MS);
    const cutoff = oldestKept && oldestKept.createdAt > expired ? oldestKept.createdAt : expired;
    await data.batch([
      data.checkoutSessions.deleteMany({ where: { source: 'preview', createdAt: { lt: cutoff } } }),
      data.checkoutSessions.create({
        data: {
          token,
          platform,
          status: INITIAL_STATUS,
          source: 'preview',
          currency: BASE_CURRENCY,
          fxRates: fx as unknown as Prisma.InputJsonValue,
          items: PREVIEW_ITEMS as unknown as Prisma.InputJsonValue,
          subtotalMinor,
          events: { create: { type: 'created', data: { platform, preview: true, lines: PREVIEW_ITEMS.length, currency: BASE_CURRENCY, subtotalMinor } } },
        },
      }),
      data.merchant.update({ data: { previewOpenedAt: now } }),
    ]);
    return reply.code(201).send({ token, previewUrl: await checkoutUrlOf(db, config, merchant, token) });
  });
};
