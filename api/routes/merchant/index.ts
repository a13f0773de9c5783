// Merchant account and configuration. Every JWT route reads and writes the caller's own merchant only, through
// request.merchantData (model/merchant/merchant-scope.ts): the id comes from the token, never from the URL or body.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Prisma } from '../../../prisma/client.js';
import { type RouteDeps } from '../../route-deps.js';
import type { MerchantScope } from '../../../model/merchant/merchant-scope.js';
import { AppError } from '../../../domain/errors.js';
import { slugFromName, slugProblem, withSuffix } from '../../../domain/merchant/slug.js';
import { hashPassword, verifyPassword } from '../../../security/passwords.js';
import { checkPasswordPolicy } from '../../../domain/merchant/password-policy.js';
import { checkImageUrl, LOGO_TYPES } from '../../image-url.js';
import { errorResponse } from '../../schemas/common.js';
import { accountPatch, configPatchFor, merchantView, publicConfig, sessionResponse, shopPatch, slugInput } from '../../schemas/merchant.js';
import { chars } from '../../schemas/text.js';
import { checkoutOrigin, merchantViewInclude, PLATFORM_ENUM, toMerchantView, toPublicConfig } from './view.js';
import { queueAccountEmail } from '../auth/account-emails.js';
import { ROLE_SCOPES } from '../../../domain/merchant/route-rights.js';
import { twoFactorEnabled } from '../../../model/merchant/two-factor.js';
import { merchantForCheckoutHost } from '../../checkout-host.js';
import { assertPlanAllows } from '../../../model/merchant/plan-features.js';
import { deliveryDaysColumns, rateCountryColumns } from '../../../model/merchant/shipping-rates.js';

const auth = { security: [{ bearerAuth: [] }] };
const tags = ['merchant'];


const jsonObject = (value: unknown): Record<string, unknown> => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {});

/** Stored texts with a change on top: a key set to "" goes back to the default (it is dropped). */
function mergeTexts(stored: unknown, change: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries({ ...jsonObject(stored), ...change }).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== ''));
}

export const merchantRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, db, urlGuard } = deps;

  const load = (data: MerchantScope) => data.merchant.get({ include: merchantViewInclude });

  /** Claims a slug for this merchant; INVALID_SLUG or SLUG_COLLISION otherwise. */
  async function setSlug(data: MerchantScope, slug: string) {
    const problem = slugProblem(slug);
    if (problem) throw new AppError('INVALID_SLUG', problem);
    try {
      return await data.merchant.update({ data: { slug }, include: merchantViewInclude });
    } catch (err) {
      if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') throw new AppError('SLUG_COLLISION', `The slug "${slug}" is taken`);
      throw err;
    }
  }

  app.get('/me', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'account:read' },
    schema: { tags, summary: 'The current merchant', ...auth, response: { 200: merchantView, 401: errorResponse } },
  }, async (request) => {
    const { merchantId, memberId, role } = request.merchant;
    const data = request.merchantData;
    const [merchant, member] = await Promise.all([load(data), memberId ? data.members.findFirst({ where: { id: memberId }, select: { email: true } }) : null]);
    // A key acts as the account (its own scopes decide); a session as its person, with its role's scopes.
    const scopes = request.apiKey ? request.apiKey.scopes : [...ROLE_SCOPES[role]];
    const twoFactorOn = request.apiKey ? false : await twoFactorEnabled(db, { merchantId, memberId });
    return { ...toMerchantView(merchant, config), viewer: { memberId, email: member?.email ?? merchant.email, role, scopes, twoFactorEnabled: twoFactorOn } };
  });

  app.get('/config/:identifier', {
    schema: {
      tags,
      summary: 'Public checkout configuration by slug or by checkout host ({slug}.{service domain}, or a verified checkout.<domain>)',
      // At most 100 characters: Fastify's router answers 414 for a longer path parameter.
      params: z.object({ identifier: chars(100).regex(/^[A-Za-z0-9.-]+(?::[0-9]{1,5})?$/, 'a slug or a checkout host').toLowerCase() }),
      response: { 200: publicConfig, 404: errorResponse },
    },
  }, async (request) => {
    const id = request.params.identifier;
    // A slug has no dot; a host (port allowed) is a subdomain or a verified custom domain.
    const slug = id.includes('.') ? (await merchantForCheckoutHost(db, config, id))?.slug : id;
    // eslint-disable-next-line no-restricted-syntax -- public: no caller, the merchant is the one the slug names
    const merchant = slug ? await db.merchant.findUnique({ where: { slug }, include: { shippingRates: true, platformSubscription: { select: { planId: true, status: true } } } }) : null;
    if (!merchant) throw new AppError('NOT_FOUND', `No checkout is configured for "${id}"`);
    return toPublicConfig(merchant);
  });

  app.patch('/config', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'settings:write' },
    schema: {
      tags,
      summary: 'Update branding, checkout texts, COD, shipping rates (whole list, each with the countries it ships to) and onboardingCompletedAt',
      description:
        'onboardingCompletedAt is set by setup verification (POST /api/merchant/setup-verification) only: a timestamp here keeps the ' +
        'instant verification recorded, and before verification passed it answers SETUP_NOT_VERIFIED (409) and changes nothing; null ' +
        're-opens the wizard (the next verification sets it again). codEnabled true on a plan without cash on delivery (Starter) answers ' +
        'PLAN_FEATURE_REQUIRED (403, details.requiredPlan) and changes nothing. Each shipping rate ships to `countries`: "store" (every ' +
        'country the store ships to, the default) or a list of ISO codes; checkouts offer only countries some rate ships to.',
      ...auth,
      body: configPatchFor(urlGuard.allowedOrigins),
      response: { 200: merchantView, 400: errorResponse, 401: errorResponse, 403: errorResponse, 409: errorResponse },
    },
  }, async (request) => {
    const merchantData = request.merchantData;
    const body = request.body;
    // A merchant cannot declare itself onboarded: only a passed setup verification sets the instant.
    if (body.onboardingCompletedAt) {
      const { onboardingCompletedAt } = await merchantData.merchant.get({ select: { onboardingCompletedAt: true } });
      if (!onboardingCompletedAt) throw new AppError('SETUP_NOT_VERIFIED', 'onboardingCompletedAt is set by setup verification: run POST /api/merchant/setup-verification');
    }
    // Plan-limited settings (domain/merchant/plan-features.ts): refused before anything is written.
    if (body.codEnabled === true) {
      const { platformSubscription } = await merchantData.merchant.get({ select: { platformSubscription: { select: { planId: true, status: true } } } });
      assertPlanAllows(platformSubscription, 'cod');
    }
    if (body.branding?.logoUrl) await checkImageUrl(urlGuard, body.branding.logoUrl, { field: 'body.branding.logoUrl', types: LOGO_TYPES });
    const data: Prisma.MerchantUpdateInput = {};
    if (body.branding) {
      if (body.branding.logoUrl !== undefined) data.logoUrl = body.branding.logoUrl;
      if (body.branding.primaryColor !== undefined) data.primaryColor = body.branding.primaryColor;
      if (body.branding.accentColor !== undefined) data.accentColor = body.branding.accentColor;
    }
    if (body.codEnabled !== undefined) data.codEnabled = body.codEnabled;
    if (body.paymentPage !== undefined) data.paymentPage = body.paymentPage === 'hosted' ? 'HOSTED' : 'EMBEDDED';
    if (body.onboardingCompletedAt === null) data.onboardingCompletedAt = null;
    if (body.checkoutTexts || body.checkoutTextTranslations) {
      const current = await merchantData.merchant.get({ select: { checkoutTexts: true, checkoutTextTranslations: true } });
      if (body.checkoutTexts) data.checkoutTexts = mergeTexts(current.checkoutTexts, body.checkoutTexts);
      if (body.checkoutTextTranslations) {
        const stored = jsonObject(current.checkoutTextTranslations);
        const merged: Record<string, Record<string, string>> = {};
        for (const language of new Set([...Object.keys(stored), ...Object.keys(body.checkoutTextTranslations)])) {
          const texts = mergeTexts(stored[language], body.checkoutTextTranslations[language as keyof typeof body.checkoutTextTranslations] ?? {});
          if (Object.keys(texts).length) merged[language] = texts;
        }
        data.checkoutTextTranslations = merged;
      }
    }
    await merchantData.transaction(async (tx) => {
      await tx.merchant.update({ data });
      if (body.shippingRates) {
        await tx.shippingRates.deleteMany();
        await tx.shippingRates.createMany({
          data: body.shippingRates.map((r, position) => ({
            position, name: r.name, free: r.free, basePriceCents: r.basePriceCents, freeThresholdCents: r.freeThresholdCents ?? null, ...rateCountryColumns(r.countries), ...deliveryDaysColumns(r.deliveryDays),
          })),
        });
      }
    });
    return toMerchantView(await load(merchantData), config);
  });

  app.patch('/account', {
    onRequest: app.authenticate,
    config: { sessionOnly: ['owner'] },
    schema: {
      tags,
      summary: 'Change email, phone or password (email and password need currentPassword); a password change ends other sessions',
      ...auth,
      body: accountPatch,
      response: { 200: sessionResponse, 400: errorResponse, 401: errorResponse, 403: errorResponse, 409: errorResponse },
    },
  }, async (request, reply) => {
    const { merchantId } = request.merchant;
    const body = request.body;
    // The account holder's own email and password: a member (even an owner) has its own, and is not signed in as it.
    if (request.merchant.memberId && (body.email !== undefined || body.newPassword !== undefined)) {
      throw new AppError('FORBIDDEN', 'The email and password here are the account holder\'s: sign in as the account holder to change them', { role: request.merchant.role });
    }
    const merchant = await load(request.merchantData);
    const emailChanges = body.email !== undefined && body.email !== merchant.email;
    if (emailChanges || body.newPassword !== undefined) {
      if (!body.currentPassword || !(await verifyPassword(body.currentPassword, merchant.passwordHash))) {
        throw new AppError('INVALID_CREDENTIALS', 'currentPassword is missing or wrong');
      }
    }
    const data: Prisma.MerchantUpdateInput = {};
    if (body.phone !== undefined) data.phone = body.phone;
    if (emailChanges) {
      // One email signs in to one account: a team member's email is taken too.
      // eslint-disable-next-line no-restricted-syntax -- across merchants: is the email any account's or member's?
      if ((await db.merchant.findUnique({ where: { email: body.email! }, select: { id: true } })) || (await db.merchantMember.findUnique({ where: { email: body.email! }, select: { id: true } }))) {
        throw new AppError('EMAIL_EXISTS', 'An account with this email already exists');
      }
      data.email = body.email!;
      data.emailVerifiedAt = null;
    }
    if (body.newPassword !== undefined) {
      const problem = checkPasswordPolicy(body.newPassword, { email: body.email ?? merchant.email });
      if (problem) throw new AppError('INVALID_INPUT', `newPassword: ${problem}`, { fields: { 'body.newPassword': problem } });
      data.passwordHash = await hashPassword(body.newPassword);
      data.passwordChangedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
    }
    let updated;
    try {
      updated = await request.merchantData.merchant.update({ data, include: merchantViewInclude });
    } catch (err) {
      if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') throw new AppError('EMAIL_EXISTS', 'An account with this email already exists');
      throw err;
    }
    if (emailChanges) await queueAccountEmail(deps, request.log, updated, 'email_verification');
    // A new password ends every session, at once (passwordChangedAt also refuses older tokens); this one gets a new token.
    if (body.newPassword !== undefined) await app.endAllSessions(merchantId, null);
    const token = await app.startSession(reply, { merchantId, shopDomain: updated.shopDomain ?? '' });
    return { token, merchant: toMerchantView(updated, config) };
  });

  app.patch('/shop', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'settings:write' },
    schema: { tags, summary: 'Shop name and the store platform chosen in wizard step 1', ...auth, body: shopPatch, response: { 200: merchantView, 400: errorResponse, 401: errorResponse } },
  }, async (request) => {
    const data: Prisma.MerchantUpdateInput = {};
    if (request.body.shopName !== undefined) data.shopName = request.body.shopName;
    if (request.body.storePlatform !== undefined) data.storePlatform = request.body.storePlatform ? PLATFORM_ENUM[request.body.storePlatform] : null;
    await request.merchantData.merchant.update({ data });
    return toMerchantView(await load(request.merchantData), config);
  });

  app.patch('/slug', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'settings:write' },
    schema: {
      tags,
      summary: 'Change the checkout subdomain slug (INVALID_SLUG, SLUG_COLLISION)',
      ...auth,
      body: z.object({ slug: slugInput }).strict(),
      response: { 200: merchantView, 400: errorResponse, 401: errorResponse, 409: errorResponse },
    },
  }, async (request) => toMerchantView(await setSlug(request.merchantData, request.body.slug.toLowerCase()), config));

  app.post('/slug/regenerate', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'settings:write' },
    schema: { tags, summary: 'A new slug from the shop name with a random suffix', ...auth, response: { 200: merchantView, 401: errorResponse } },
  }, async (request) => {
    const merchant = await load(request.merchantData);
    const base = slugFromName(merchant.shopName) ?? 'shop';
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        return toMerchantView(await setSlug(request.merchantData, withSuffix(base, randomBytes(3).toString('hex'))), config);
      } catch (err) {
        if (!(err instanceof AppError && err.code === 'SLUG_COLLISION')) throw err;
      }
    }
    throw new AppError('INTERNAL_ERROR', 'Could not find a free slug');
  });

  app.get('/subdomain', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'settings:read' },
    schema: {
      tags,
      summary: 'The checkout subdomain and the URL checkouts are served at',
      ...auth,
      response: { 200: z.object({ slug: z.string(), subdomain: z.string(), checkoutOrigin: z.string(), exampleCheckoutUrl: z.string() }), 401: errorResponse },
    },
  }, async (request) => {
    const { slug } = await request.merchantData.merchant.get({ select: { slug: true } });
    const origin = checkoutOrigin(slug, config);
    return { slug, subdomain: `${slug}.${config.serviceDomain}`, checkoutOrigin: origin, exampleCheckoutUrl: `${origin}/checkout/<token>` };
  });
};
