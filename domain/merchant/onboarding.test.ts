import { describe, expect, it } from 'vitest';
import { activationGate, checkoutActivation, finalCheckPrerequisites, planCheck, storeReadiness, wizardState, type OnboardingFacts } from './onboarding.js';

const T = '2026-11-22T10:00:00.000Z';

/** A new merchant whose email is verified and who has set nothing up yet. */
const fresh: OnboardingFacts = {
  emailVerified: true,
  onboardingCompletedAt: null,
  savedStep: null,
  storePlatform: null,
  shopDomain: null,
  storefrontA: null,
  storefrontB: null,
  branding: { logoUrl: null, primaryColor: null, accentColor: null },
  shippingRateCount: 0,
  processorReady: false,
  codEnabled: false,
  previewOpenedAt: null,
  firstRealCheckoutAt: null,
};

/** Everything of the six steps done on storefront A, not yet verified. */
const readyA: OnboardingFacts = {
  ...fresh,
  storePlatform: 'STOREFRONT_A',
  shopDomain: 'fine.myshopify.com',
  storefrontA: { shop: 'fine.myshopify.com', connected: true, hasAccessToken: true },
  branding: { logoUrl: 'https://cdn.test/logo.svg', primaryColor: '#112233', accentColor: '#001122' },
  shippingRateCount: 1,
  processorReady: true,
  previewOpenedAt: T,
  firstRealCheckoutAt: T,
};

const readyB: OnboardingFacts = {
  ...readyA,
  storePlatform: 'STOREFRONT_B',
  shopDomain: 'shop.example.com',
  storefrontA: null,
  storefrontB: { storeUrl: 'https://shop.example.com', connectedAt: T, pluginInterceptedAt: T },
};

describe('wizard state', () => {
  it('given an unverified email / the wizard is locked behind the verification screen, no step unlocked or continuable', () => {
    const state = wizardState({ ...fresh, emailVerified: false });
    expect(state).toMatchObject({ locked: true, redirect: 'verify-email', completed: false });
    expect(state.steps.map((s) => s.unlocked)).toEqual([false, false, false, false, false, false]);
    expect(state.steps.some((s) => s.canContinue)).toBe(false);
  });

  it('given a new merchant / step 1 is the only unlocked step and the wizard starts there', () => {
    const state = wizardState(fresh);
    expect(state).toMatchObject({ locked: false, redirect: 'wizard', currentStep: 1, firstIncompleteStep: 1 });
    expect(state.steps.map((s) => [s.key, s.filled, s.unlocked])).toEqual([
      ['platform', false, true],
      ['brand', false, false],
      ['shipping', false, false],
      ['payments', false, false],
      ['preview', false, false],
      ['final-check', false, false],
    ]);
  });

  it('given steps 1 and 2 filled / step 3 unlocks, step 4 stays locked, and the wizard resumes at step 3', () => {
    const state = wizardState({ ...readyA, shippingRateCount: 0, processorReady: false, previewOpenedAt: null, firstRealCheckoutAt: null });
    expect(state.steps.map((s) => s.unlocked)).toEqual([true, true, true, false, false, false]);
    expect(state.currentStep).toBe(3);
  });

  it('given a saved step / the wizard resumes at it, also behind unfilled steps (skipping is allowed)', () => {
    expect(wizardState({ ...fresh, savedStep: 5 }).currentStep).toBe(5);
    expect(wizardState({ ...readyA, savedStep: 2 }).currentStep).toBe(2);
    expect(wizardState({ ...fresh, savedStep: 9 }).currentStep).toBe(1);
  });

  it('given no usable payment method / step 4 cannot continue; with COD only (no processor) it can', () => {
    const none = wizardState({ ...readyA, processorReady: false });
    expect(none.steps[3]).toMatchObject({ filled: false, canContinue: false, code: 'PAYMENT_METHOD_NOT_READY' });
    const codOnly = wizardState({ ...readyA, processorReady: false, codEnabled: true });
    expect(codOnly.steps[3]).toMatchObject({ filled: true, canContinue: true, code: null });
  });

  it('given the preview never opened / step 5 cannot continue to the final check', () => {
    expect(wizardState({ ...readyA, previewOpenedAt: null }).steps[4]).toMatchObject({ filled: false, canContinue: false, code: 'PREVIEW_NOT_OPENED' });
    expect(wizardState(readyA).steps[4]).toMatchObject({ filled: true, canContinue: true });
  });

  it('given every prerequisite / the final check is ready but step 6 is filled only once setup is verified', () => {
    const before = wizardState(readyA);
    expect(before.finalCheck.ready).toBe(true);
    expect(before.steps[5]).toMatchObject({ filled: false, canContinue: true, code: 'SETUP_NOT_VERIFIED' });
    const after = wizardState({ ...readyA, onboardingCompletedAt: T });
    expect(after).toMatchObject({ completed: true, redirect: 'dashboard', firstIncompleteStep: null, currentStep: 6 });
    expect(after.steps.every((s) => s.filled)).toBe(true);
  });
});

describe('final check prerequisites', () => {
  it('given a new merchant / all five fail, each with its reason code, in the spec order', () => {
    expect(finalCheckPrerequisites(fresh).map((p) => [p.key, p.ok, p.code])).toEqual([
      ['store', false, 'STORE_NOT_CHOSEN'],
      ['brand', false, 'BRAND_INCOMPLETE'],
      ['shipping', false, 'NO_SHIPPING_RATE'],
      ['payment', false, 'PAYMENT_METHOD_NOT_READY'],
      ['realCheckout', false, 'NO_REAL_CHECKOUT'],
    ]);
  });

  it('given a brand without its accent color / the brand prerequisite names what is missing', () => {
    const brand = finalCheckPrerequisites({ ...readyA, branding: { ...readyA.branding, accentColor: null } })[1]!;
    expect(brand).toMatchObject({ ok: false, code: 'BRAND_INCOMPLETE' });
    expect(brand.reason).toContain('accent color');
    expect(brand.reason).not.toContain('logo');
  });

  it('given the preview never opened / the final check does not list it (the spec lists five prerequisites)', () => {
    expect(finalCheckPrerequisites({ ...readyA, previewOpenedAt: null }).every((p) => p.ok)).toBe(true);
  });
});

describe('store readiness', () => {
  it('given storefront A inputs saved but OAuth not completed, or the app uninstalled / not connected', () => {
    expect(storeReadiness({ ...readyA, storefrontA: { ...readyA.storefrontA!, connected: false, hasAccessToken: false } }).code).toBe('STORE_NOT_CONNECTED');
    expect(storeReadiness({ ...readyA, storefrontA: { ...readyA.storefrontA!, hasAccessToken: false } }).code).toBe('STORE_NOT_CONNECTED');
  });

  it('given storefront A installed but the merchant record lost the shop domain / domain missing', () => {
    expect(storeReadiness({ ...readyA, shopDomain: null }).code).toBe('STORE_DOMAIN_MISSING');
  });

  it('given storefront B connected over REST with its store URL / ready; chosen but not connected / not', () => {
    expect(storeReadiness(readyB).ok).toBe(true);
    expect(storeReadiness({ ...readyB, storefrontB: null }).code).toBe('STORE_NOT_CONNECTED');
  });
});

describe('checkout activation', () => {
  it('given storefront A with a real checkout / active only while our script tag is in place', () => {
    expect(checkoutActivation(readyA, { scriptTagInstalled: true })).toMatchObject({ active: true, realCheckoutExists: true, code: null });
    expect(checkoutActivation(readyA, { scriptTagInstalled: false })).toMatchObject({ active: false, code: 'SCRIPT_TAG_MISSING' });
    expect(checkoutActivation(readyA, { scriptTagInstalled: null })).toMatchObject({ active: false, code: 'SCRIPT_TAG_MISSING' });
  });

  it('given no real checkout (previews never count) / not active, whatever the script tag', () => {
    expect(checkoutActivation({ ...readyA, firstRealCheckoutAt: null }, { scriptTagInstalled: true })).toMatchObject({ active: false, realCheckoutExists: false, code: 'NO_REAL_CHECKOUT' });
  });

  it('given storefront B / active once the plugin intercepted a checkout; the script tag is not asked', () => {
    expect(checkoutActivation(readyB, { scriptTagInstalled: null }).active).toBe(true);
    const never = { ...readyB, storefrontB: { ...readyB.storefrontB!, pluginInterceptedAt: null } };
    expect(checkoutActivation(never, { scriptTagInstalled: null })).toMatchObject({ active: false, code: 'PLUGIN_NOT_INTERCEPTED' });
    expect(activationGate(never).code).toBe('PLUGIN_NOT_INTERCEPTED');
  });

  it('given a missing script tag on storefront A / setup verification step 4 lets it through (step 5 reinstalls it)', () => {
    expect(activationGate(readyA).ok).toBe(true);
    expect(activationGate({ ...readyA, storefrontA: { ...readyA.storefrontA!, connected: false } }).code).toBe('STORE_NOT_CONNECTED');
  });
});

describe('plan check', () => {
  it('given Demo / PLAN_REQUIRED; given a paid plan in force / passes', () => {
    expect(planCheck({ paid: false, planId: 'FREE' })).toMatchObject({ ok: false, code: 'PLAN_REQUIRED' });
    expect(planCheck({ paid: true, planId: 'STARTER' }).ok).toBe(true);
  });
});
