// The onboarding wizard's rules (spec "States and transitions" → Onboarding wizard), as pure functions of
// what is stored about a merchant: which of the six steps are filled and unlocked, where the wizard
// resumes, the final check's five prerequisites, checkout activation, and the gates of setup verification.
// Shared by the API (wizard state, checkout activation) and the setup verification workflow, so both
// answer the same question with the same rule. Timestamps are ISO strings: these facts cross Temporal.

export const ONBOARDING_STEPS = [
  { number: 1, key: 'platform', title: 'Platform' },
  { number: 2, key: 'brand', title: 'Brand' },
  { number: 3, key: 'shipping', title: 'Shipping' },
  { number: 4, key: 'payments', title: 'Payments' },
  { number: 5, key: 'preview', title: 'Preview' },
  { number: 6, key: 'final-check', title: 'Final check' },
] as const;

export type StepNumber = (typeof ONBOARDING_STEPS)[number]['number'];
export type StepKey = (typeof ONBOARDING_STEPS)[number]['key'];
export const FIRST_STEP: StepNumber = 1;
export const LAST_STEP: StepNumber = 6;

export function isStepNumber(value: unknown): value is StepNumber {
  return typeof value === 'number' && Number.isInteger(value) && value >= FIRST_STEP && value <= LAST_STEP;
}

/**
 * Why a step, a prerequisite, checkout activation or setup verification is not satisfied. These are
 * reasons shown to the merchant inside a 200 answer, not error codes (domain/errors.ts has those).
 */
export const ONBOARDING_REASON_CODES = [
  'EMAIL_NOT_VERIFIED',
  'STORE_NOT_CHOSEN',
  'STORE_NOT_CONNECTED',
  'STORE_DOMAIN_MISSING',
  'BRAND_INCOMPLETE',
  'NO_SHIPPING_RATE',
  'PAYMENT_METHOD_NOT_READY',
  'PREVIEW_NOT_OPENED',
  'NO_REAL_CHECKOUT',
  'PLAN_REQUIRED',
  'SCRIPT_TAG_MISSING',
  'SCRIPT_TAG_NOT_INSTALLED',
  'PLUGIN_NOT_INTERCEPTED',
  'SETUP_NOT_VERIFIED',
] as const;
export type OnboardingReasonCode = (typeof ONBOARDING_REASON_CODES)[number];

export type Platform = 'STOREFRONT_A' | 'STOREFRONT_B';

/** Everything the rules look at, read from the database in one place (activities/merchant/setup-verification.ts). */
export interface OnboardingFacts {
  emailVerified: boolean;
  onboardingCompletedAt: string | null;
  /** The step saved by the wizard (PATCH /api/merchant/onboarding), if any. */
  savedStep: number | null;
  /** The platform chosen in step 1. */
  storePlatform: Platform | null;
  /** The store host the merchant record carries (storefront A shop host or storefront B store host). */
  shopDomain: string | null;
  storefrontA: { shop: string; connected: boolean; hasAccessToken: boolean } | null;
  storefrontB: { storeUrl: string; connectedAt: string | null; pluginInterceptedAt: string | null } | null;
  branding: { logoUrl: string | null; primaryColor: string | null; accentColor: string | null };
  shippingRateCount: number;
  /** domain/processor.ts isProcessorReady of the merchant's connection. */
  processorReady: boolean;
  codEnabled: boolean;
  previewOpenedAt: string | null;
  /** The first non-preview session created from a cart of the chosen platform (a real checkout button click). */
  firstRealCheckoutAt: string | null;
}

export interface Check {
  ok: boolean;
  code: OnboardingReasonCode | null;
  reason: string | null;
}

const pass: Check = { ok: true, code: null, reason: null };
const fail = (code: OnboardingReasonCode, reason: string): Check => ({ ok: false, code, reason });

/**
 * Store readiness (spec): storefront A needs a completed OAuth install and a domain (the shop host);
 * storefront B needs the REST connection and a store URL.
 */
export function storeReadiness(f: OnboardingFacts): Check {
  if (f.storePlatform === 'STOREFRONT_A') {
    const a = f.storefrontA;
    if (!a) return fail('STORE_NOT_CONNECTED', 'Enter your Shopify shop address and your app\'s client ID and client secret, then install the app');
    if (!a.connected || !a.hasAccessToken) return fail('STORE_NOT_CONNECTED', 'The app install on your Shopify shop is not completed, or the app was uninstalled: install it again');
    if (!a.shop || f.shopDomain !== a.shop) return fail('STORE_DOMAIN_MISSING', 'Your Shopify shop address is missing: enter it again and reinstall');
    return pass;
  }
  if (f.storePlatform === 'STOREFRONT_B') {
    const b = f.storefrontB;
    if (!b || !b.connectedAt) return fail('STORE_NOT_CONNECTED', 'Connect your WooCommerce store with its URL, consumer key and consumer secret');
    if (!b.storeUrl) return fail('STORE_DOMAIN_MISSING', 'Your WooCommerce store URL is missing: connect the store again');
    return pass;
  }
  return fail('STORE_NOT_CHOSEN', 'Choose Shopify or WooCommerce and connect your store');
}

export function brandCheck(f: OnboardingFacts): Check {
  const missing = [
    ['logo URL', f.branding.logoUrl],
    ['primary color', f.branding.primaryColor],
    ['accent color', f.branding.accentColor],
  ].filter(([, v]) => !v).map(([name]) => name);
  return missing.length === 0 ? pass : fail('BRAND_INCOMPLETE', `Set the ${missing.join(', ')}`);
}

export function shippingCheck(f: OnboardingFacts): Check {
  return f.shippingRateCount > 0 ? pass : fail('NO_SHIPPING_RATE', 'Define at least one shipping rate');
}

/** Step 4: at least one usable method: the processor ready (Business ID, Product ID, webhook secret), or COD (a COD-only launch is allowed). */
export function paymentCheck(f: OnboardingFacts): Check {
  return f.processorReady || f.codEnabled
    ? pass
    : fail('PAYMENT_METHOD_NOT_READY', 'Connect Whop with an API key (we read your Business ID, create the checkout product and register our webhook with its secret) or enable cash on delivery');
}

export function previewCheck(f: OnboardingFacts): Check {
  return f.previewOpenedAt ? pass : fail('PREVIEW_NOT_OPENED', 'Open the checkout preview at least once');
}

export function realCheckoutCheck(f: OnboardingFacts): Check {
  return f.firstRealCheckoutAt
    ? pass
    : fail('NO_REAL_CHECKOUT', "No real checkout yet: add a product to your store's cart and click its checkout button once (previews do not count)");
}

export type PrerequisiteKey = 'store' | 'brand' | 'shipping' | 'payment' | 'realCheckout';

/** Step 6's five prerequisites, in the spec's order. */
export function finalCheckPrerequisites(f: OnboardingFacts): Array<{ key: PrerequisiteKey; label: string } & Check> {
  return [
    { key: 'store', label: 'Store connected', ...storeReadiness(f) },
    { key: 'brand', label: 'Brand and colors set', ...brandCheck(f) },
    { key: 'shipping', label: 'At least one shipping rate', ...shippingCheck(f) },
    { key: 'payment', label: 'Payment method ready', ...paymentCheck(f) },
    { key: 'realCheckout', label: 'A checkout created from a real store cart click', ...realCheckoutCheck(f) },
  ];
}

/** Whether each step's own inputs are complete (its "filled" state). Step 6 is filled once setup is verified. */
export function stepChecks(f: OnboardingFacts): Record<StepNumber, Check> {
  return {
    1: storeReadiness(f),
    2: brandCheck(f),
    3: shippingCheck(f),
    4: paymentCheck(f),
    5: previewCheck(f),
    6: f.onboardingCompletedAt ? pass : fail('SETUP_NOT_VERIFIED', 'Meet the five prerequisites, then run setup verification ("Mark setup verified")'),
  };
}

/**
 * What the Continue button of a step needs (the spec gates 4 and 5; a merchant walking the wizard alone needs the
 * others too, or Continue leads on with nothing chosen): 1 a platform chosen (connecting it may wait on the
 * merchant's Shopify app, and the final check requires the connection), 2 the logo and both colors, 3 a shipping
 * rate, 4 a usable payment method, 5 the preview opened. The stepper still goes anywhere (the spec's skip).
 */
export function continueCheck(f: OnboardingFacts, step: StepNumber): Check {
  if (step === 1) return f.storePlatform ? pass : fail('STORE_NOT_CHOSEN', 'Choose Shopify or WooCommerce first');
  return stepChecks(f)[step];
}

export interface WizardStep {
  number: StepNumber;
  key: StepKey;
  title: string;
  filled: boolean;
  /** Informational: the previous step is filled. Going back or skipping ahead is always possible (spec). */
  unlocked: boolean;
  /**
   * Whether the step's Continue button is enabled: the step has what it needs (continueCheck). Going back or
   * skipping through the stepper stays possible (spec); on 6 it says whether every prerequisite is met.
   */
  canContinue: boolean;
  code: OnboardingReasonCode | null;
  reason: string | null;
}

export interface WizardState {
  emailVerified: boolean;
  /** Until the email address is verified, the wizard stays behind the verification screen. */
  locked: boolean;
  completed: boolean;
  /** Where the web app sends the merchant: the verification screen, the wizard, or (once verified) the dashboard. */
  redirect: 'verify-email' | 'wizard' | 'dashboard';
  /** The step to resume at: the saved one, else the first step not filled. */
  currentStep: StepNumber;
  firstIncompleteStep: StepNumber | null;
  steps: WizardStep[];
  finalCheck: { ready: boolean; prerequisites: Array<{ key: PrerequisiteKey; label: string } & Check> };
}

export function wizardState(f: OnboardingFacts): WizardState {
  const checks = stepChecks(f);
  const prerequisites = finalCheckPrerequisites(f);
  const ready = prerequisites.every((p) => p.ok);
  const locked = !f.emailVerified;
  const steps = ONBOARDING_STEPS.map((s): WizardStep => {
    const check = checks[s.number];
    const previousFilled = s.number === FIRST_STEP || checks[(s.number - 1) as StepNumber].ok;
    const canContinue = s.number === 6 ? ready : continueCheck(f, s.number).ok;
    return { number: s.number, key: s.key, title: s.title, filled: check.ok, unlocked: !locked && previousFilled, canContinue: !locked && canContinue, code: check.code, reason: check.reason };
  });
  const firstIncomplete = steps.find((s) => !s.filled)?.number ?? null;
  const currentStep: StepNumber = isStepNumber(f.savedStep) ? f.savedStep : firstIncomplete ?? LAST_STEP;
  const completed = f.onboardingCompletedAt !== null;
  return {
    emailVerified: f.emailVerified,
    locked,
    completed,
    redirect: locked ? 'verify-email' : completed ? 'dashboard' : 'wizard',
    currentStep,
    firstIncompleteStep: firstIncomplete,
    steps,
    finalCheck: { ready, prerequisites },
  };
}

// ---------------------------------------------------------------------------------------------------
// Checkout activation: the hosted checkout really takes over the store's checkout button.

export interface ActivationInput {
  /** Storefront A only: whether the store showed our app embed on in its published theme; null when it could not be asked. */
  scriptTagInstalled: boolean | null;
}

export interface CheckoutActivation extends Check {
  active: boolean;
  realCheckoutExists: boolean;
}

/**
 * A real non-preview checkout from a store cart must exist; storefront A also needs our app embed on in the
 * published theme, storefront B the official plugin to have intercepted a checkout at least once.
 */
export function checkoutActivation(f: OnboardingFacts, input: ActivationInput): CheckoutActivation {
  const realCheckoutExists = f.firstRealCheckoutAt !== null;
  const result = (check: Check): CheckoutActivation => ({ ...check, active: check.ok, realCheckoutExists });
  const gate = activationGate(f);
  if (!gate.ok) return result(gate);
  if (f.storePlatform === 'STOREFRONT_A' && input.scriptTagInstalled !== true) {
    return result(fail('SCRIPT_TAG_MISSING', input.scriptTagInstalled === null
      ? 'Our app embed could not be checked at the store: try again in a minute'
      : 'Our app embed is not on in your Shopify shop\'s published theme: turn it on in the theme editor and save'));
  }
  return result(pass);
}

/**
 * Setup verification step 4: what blocks there. Storefront A's app embed is not judged here: step 5
 * removes legacy script tags and checks the embed again, so an embed that is off blocks there.
 */
export function activationGate(f: OnboardingFacts): Check {
  const store = storeReadiness(f);
  if (!store.ok) return store;
  const real = realCheckoutCheck(f);
  if (!real.ok) return real;
  if (f.storePlatform === 'STOREFRONT_B' && !f.storefrontB?.pluginInterceptedAt) {
    return fail('PLUGIN_NOT_INTERCEPTED', 'Our WooCommerce plugin has not sent us a checkout yet: install and activate it, then click checkout in your store once');
  }
  return pass;
}

// ---------------------------------------------------------------------------------------------------
// Setup verification ("Mark setup verified"): the spec's seven steps, in order.

export const SETUP_VERIFICATION_STEPS = [
  'Fetch merchant, processor and billing status (brand and at least one shipping rate set)',
  'A payment method is usable (processor ready or COD enabled)',
  'An active paid plan',
  'Checkout activation: a real checkout from a store cart',
  'App embed on (Shopify) / our plugin intercepts (WooCommerce)',
  'Record onboardingCompletedAt',
  'Go to the dashboard',
] as const;

/** Step 3: a paid plan must be active; otherwise the page goes to billing. */
export function planCheck(billing: { paid: boolean; planId: string }): Check {
  return billing.paid ? pass : fail('PLAN_REQUIRED', `Your account is on the ${billing.planId === 'FREE' ? 'Demo' : billing.planId} plan without an active payment: choose a paid plan to go live`);
}
