import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { SetupVerificationActivities } from '../../activities/merchant/setup-verification.js';
import type { StorefrontAActivities } from '../../activities/storefront-a/storefront-a.js';
import { activationGate, brandCheck, paymentCheck, planCheck, SETUP_VERIFICATION_STEPS, shippingCheck, type OnboardingReasonCode } from '../../domain/merchant/onboarding.js';
import { toStorefrontAFailure } from '../storefront-a/storefront-a.messages.js';
import type { BlockingStep, SetupStepReport, SetupVerificationInput, SetupVerificationResult } from './setup-verification.messages.js';
import { PROFILES } from '../activity-profiles.js';

// The merchant waits on "Mark setup verified": our own reads/writes retry a little, store calls are the
// same quick attempts as the manual script-tag reinstall.
const records = proxyActivities<SetupVerificationActivities>(PROFILES.setupRecord);
const store = proxyActivities<StorefrontAActivities>(PROFILES.storefrontACall);
const { recordStorefrontAScriptTag } = proxyActivities<StorefrontAActivities>(PROFILES.setupRecord);

/** Verifies a merchant's setup in the spec's seven steps and, when every one passes, completes onboarding. */
export async function setupVerificationWorkflow({ merchantId }: SetupVerificationInput): Promise<SetupVerificationResult> {
  const steps: SetupStepReport[] = SETUP_VERIFICATION_STEPS.map((name, i) => ({ step: (i + 1) as SetupStepReport['step'], name, outcome: 'not_reached', detail: null }));
  const mark = (step: number, outcome: SetupStepReport['outcome'], detail: string | null = null) => {
    steps[step - 1] = { ...steps[step - 1]!, outcome, detail };
  };
  const blocked = (step: BlockingStep, code: OnboardingReasonCode, reason: string): SetupVerificationResult => {
    mark(step, 'blocked', reason);
    return { verified: false, blockedAt: step, code, reason, redirect: step === 3 ? 'billing' : null, onboardingCompletedAt: null, steps };
  };

  // 1. Merchant, processor and billing status. The final check's brand and shipping prerequisites are held
  // here, since no later step covers them (spec, shipping rates: at least one rate to pass onboarding).
  const facts = await records.readSetupVerificationFacts(merchantId);
  const incomplete = [brandCheck(facts), shippingCheck(facts)].find((check) => !check.ok);
  if (incomplete) return blocked(1, incomplete.code!, incomplete.reason!);
  mark(1, 'passed');

  // 2. No usable payment method: block.
  const payment = paymentCheck(facts);
  if (!payment.ok) return blocked(2, payment.code!, payment.reason!);
  mark(2, 'passed', facts.processorReady ? 'processor ready' : 'cash on delivery enabled');

  // 3. No active paid plan: send the merchant to billing.
  const plan = planCheck(facts.billing);
  if (!plan.ok) return blocked(3, plan.code!, plan.reason!);
  mark(3, 'passed', `plan ${facts.billing.planId}`);

  // 4. Checkout activation: a real non-preview checkout from a store cart (storefront B: the plugin intercepted).
  const activation = activationGate(facts);
  if (!activation.ok) return blocked(4, activation.code!, activation.reason!);
  mark(4, 'passed');

  // 5. Storefront A: install or reinstall our script tag, then look again. Storefront B: the plugin stays the interception point.
  if (facts.storePlatform === 'STOREFRONT_A') {
    try {
      const tag = await store.ensureStorefrontAScriptTag({ merchantId });
      await recordStorefrontAScriptTag({ merchantId, scriptTagId: tag.scriptTagId, embedActive: tag.installed });
      const seen = await store.checkStorefrontAScriptTag({ merchantId });
      await recordStorefrontAScriptTag({ merchantId, scriptTagId: seen.scriptTagId, embedActive: seen.installed });
      // Only the merchant can turn an app embed on (theme editor, Save): we can link there, not do it.
      if (!seen.installed) return blocked(5, 'SCRIPT_TAG_NOT_INSTALLED', `Our app embed is not on in the published theme: open ${seen.activationUrl}, save in the theme editor, then verify again`);
      mark(5, 'passed', `app embed on in ${seen.themeName ?? 'the published theme'}`);
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      const failure = toStorefrontAFailure(err);
      const why = failure instanceof ApplicationFailure ? failure.message : 'the store could not be reached';
      return blocked(5, 'SCRIPT_TAG_NOT_INSTALLED', `Our app embed is not on in your Shopify shop: ${why}`);
    }
  } else {
    mark(5, 'not_applicable', 'our WooCommerce plugin intercepts the checkout');
  }

  // 6. Record onboardingCompletedAt (kept when it was already set).
  const { onboardingCompletedAt } = await records.completeOnboarding(merchantId);
  mark(6, 'passed');

  // 7. To the dashboard; later logins go there directly (the web app routes by onboardingCompletedAt).
  mark(7, 'passed');
  return { verified: true, blockedAt: null, code: null, reason: null, redirect: 'dashboard', onboardingCompletedAt, steps };
}
