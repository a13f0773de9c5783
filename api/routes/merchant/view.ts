// How a merchant record is shown to its owner and, stripped down, to the public checkout.
import type { Config } from '../../../config/index.js';
import { checkoutOrigin as originOf } from '../../../domain/checkout/checkout-origin.js';
import type { Merchant, ShippingRate } from '../../../generated/prisma/client.js';
import type { z } from 'zod';
import { findPlan } from '../../../domain/merchant/plans.js';
import { planFeatureView, planInForce } from '../../../domain/merchant/plan-features.js';
import { servedCountries } from '../../../domain/shipping.js';
import { codOffered } from '../../../model/merchant/plan-features.js';
import { deliveryDaysOf, rateCountriesOf, storeCountriesOf } from '../../../model/merchant/shipping-rates.js';
import { policiesViewOf } from '../../../model/merchant/store-countries.js';
import type { merchantView, publicConfig } from '../../schemas/merchant.js';

export type MerchantWithRates = Merchant & {
  shippingRates: ShippingRate[];
  customDomain?: { hostname: string; status: string } | null;
  platformSubscription: { planId: string; status: string } | null;
};

/** What toMerchantView reads: the rates, the custom domain (checkoutOrigin is on it once verified) and the plan. */
export const merchantViewInclude = { shippingRates: true, customDomain: { select: { hostname: true, status: true } }, platformSubscription: { select: { planId: true, status: true } } } as const;

const PLATFORM = { STOREFRONT_A: 'storefront-a', STOREFRONT_B: 'storefront-b' } as const;

export function checkoutOrigin(slug: string, config: Config): string {
  return originOf(slug, { production: config.env === 'production', https: config.publicHttps, serviceDomain: config.serviceDomain, port: config.api.port });
}

function rates(merchant: MerchantWithRates) {
  return [...merchant.shippingRates]
    .sort((a, b) => a.position - b.position)
    .map((r) => ({ id: r.id, name: r.name, free: r.free, basePriceCents: r.basePriceCents, freeThresholdCents: r.freeThresholdCents, countries: rateCountriesOf(r), deliveryDays: deliveryDaysOf(r) }));
}

function plan(merchant: MerchantWithRates): z.infer<typeof merchantView>['plan'] {
  const id = planInForce(merchant.platformSubscription);
  return { id, name: findPlan(id)?.name ?? id, features: planFeatureView(id) };
}

/** The texts per page language, as stored (only string texts of object entries). */
function textTranslations(merchant: Merchant): Record<string, Record<string, string>> {
  const value = merchant.checkoutTextTranslations;
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value).flatMap(([language, texts]) =>
      texts && typeof texts === 'object' && !Array.isArray(texts) ? [[language, Object.fromEntries(Object.entries(texts).filter((e): e is [string, string] => typeof e[1] === 'string'))]] : [],
    ),
  );
}

function texts(merchant: Merchant): Record<string, string> {
  const value = merchant.checkoutTexts;
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, string>) : {};
}

export function toMerchantView(merchant: MerchantWithRates, config: Config): z.infer<typeof merchantView> {
  return {
    id: merchant.id,
    email: merchant.email,
    emailVerified: merchant.emailVerifiedAt !== null,
    shopName: merchant.shopName,
    phone: merchant.phone,
    slug: merchant.slug,
    checkoutOrigin: originOf(
      merchant.slug,
      { production: config.env === 'production', https: config.publicHttps, serviceDomain: config.serviceDomain, port: config.api.port },
      merchant.customDomain?.status === 'VERIFIED' ? merchant.customDomain.hostname : null,
    ),
    shopDomain: merchant.shopDomain,
    storePlatform: merchant.storePlatform ? PLATFORM[merchant.storePlatform] : null,
    codEnabled: merchant.codEnabled,
    branding: { logoUrl: merchant.logoUrl, primaryColor: merchant.primaryColor, accentColor: merchant.accentColor },
    checkoutTexts: texts(merchant),
    checkoutTextTranslations: textTranslations(merchant),
    paymentPage: merchant.paymentPage === 'HOSTED' ? 'hosted' : 'embedded',
    shippingRates: rates(merchant),
    storeCountries: { countries: merchant.storeCountries, readAt: merchant.storeCountriesReadAt?.toISOString() ?? null, error: merchant.storeCountriesError },
    storePolicies: policiesViewOf(merchant),
    plan: plan(merchant),
    onboardingCompletedAt: merchant.onboardingCompletedAt?.toISOString() ?? null,
    createdAt: merchant.createdAt.toISOString(),
  };
}

export function toPublicConfig(merchant: MerchantWithRates): z.infer<typeof publicConfig> {
  return {
    slug: merchant.slug,
    shopName: merchant.shopName,
    storePlatform: merchant.storePlatform ? PLATFORM[merchant.storePlatform] : null,
    codEnabled: codOffered(merchant, { preview: false }),
    branding: { logoUrl: merchant.logoUrl, primaryColor: merchant.primaryColor, accentColor: merchant.accentColor },
    checkoutTexts: texts(merchant),
    shippingRates: rates(merchant).map(({ id: _id, countries, ...rest }) => ({ ...rest, countries: servedCountries({ countries }, storeCountriesOf(merchant)) })),
  };
}

export const PLATFORM_ENUM = { 'storefront-a': 'STOREFRONT_A', 'storefront-b': 'STOREFRONT_B' } as const;
