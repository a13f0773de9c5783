// What the onboarding wizard and setup verification know about a merchant, read in one place: the API's wizard
// state and checkout activation, and setup verification's first step (activities/merchant/setup-verification.ts).
import type { Db } from '../../prisma/client.js';
import { isProcessorReady } from '../../domain/processor.js';
import type { OnboardingFacts } from '../../domain/merchant/onboarding.js';
import { canSetUp, planInForce } from '../../domain/merchant/plan-features.js';

const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;

/** The wizard's facts for one merchant: two queries (the merchant with its connections, the first real checkout). */
export async function readOnboardingFacts(db: Db, merchantId: string): Promise<OnboardingFacts> {
  const m = await db.merchant.findUniqueOrThrow({
    where: { id: merchantId },
    select: {
      emailVerifiedAt: true,
      onboardingCompletedAt: true,
      onboardingStep: true,
      storePlatform: true,
      shopDomain: true,
      codEnabled: true,
      platformSubscription: { select: { planId: true, status: true } },
      previewOpenedAt: true,
      logoUrl: true,
      primaryColor: true,
      accentColor: true,
      storefrontA: { select: { shop: true, connected: true, accessTokenEnc: true } },
      storefrontB: { select: { storeUrl: true, connectedAt: true, pluginInterceptedAt: true } },
      processorConnection: { select: { status: true, businessId: true, productId: true, webhookSecretEnc: true } },
      _count: { select: { shippingRates: true } },
    },
  });
  // A real checkout is a shopper's click on the chosen store's checkout button: previews never count, nor a
  // session from a platform the merchant has since switched away from. Uses the (merchant_id, created_at) index.
  const firstReal = m.storePlatform
    ? await db.checkoutSession.findFirst({
      where: { merchantId, source: 'store_cart', platform: m.storePlatform },
      orderBy: { createdAt: 'asc' },
      select: { createdAt: true },
    })
    : null;
  return {
    emailVerified: m.emailVerifiedAt !== null,
    onboardingCompletedAt: iso(m.onboardingCompletedAt),
    savedStep: m.onboardingStep,
    storePlatform: m.storePlatform,
    shopDomain: m.shopDomain,
    storefrontA: m.storefrontA ? { shop: m.storefrontA.shop, connected: m.storefrontA.connected, hasAccessToken: m.storefrontA.accessTokenEnc !== null } : null,
    storefrontB: m.storefrontB ? { storeUrl: m.storefrontB.storeUrl, connectedAt: iso(m.storefrontB.connectedAt), pluginInterceptedAt: iso(m.storefrontB.pluginInterceptedAt) } : null,
    branding: { logoUrl: m.logoUrl, primaryColor: m.primaryColor, accentColor: m.accentColor },
    shippingRateCount: m._count.shippingRates,
    processorReady: isProcessorReady(m.processorConnection),
    // Cash on delivery counts as a way to pay only where the plan lets it be used: set up on Demo, live on Growth, not on Starter.
    codEnabled: m.codEnabled && canSetUp(planInForce(m.platformSubscription), 'cod'),
    previewOpenedAt: iso(m.previewOpenedAt),
    firstRealCheckoutAt: iso(firstReal?.createdAt),
  };
}
