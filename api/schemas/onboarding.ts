// Onboarding shapes: the wizard's state, checkout activation and setup verification. One source for
// validation, serialization and the OpenAPI document.
import { z } from 'zod';
import { ONBOARDING_REASON_CODES, ONBOARDING_STEPS, SETUP_VERIFICATION_STEPS } from '../../domain/merchant/onboarding.js';
import { storePlatform } from './merchant.js';

const stepNumber = z.number().int().min(1).max(ONBOARDING_STEPS.length);
const reasonCode = z.enum(ONBOARDING_REASON_CODES).describe('Why it is not satisfied (a reason, not an error: the answer is 200)');

const check = {
  ok: z.boolean(),
  code: reasonCode.nullable(),
  reason: z.string().nullable().describe('A sentence the page can show'),
};

export const wizardStep = z.object({
  number: stepNumber,
  key: z.enum(ONBOARDING_STEPS.map((s) => s.key) as [string, ...string[]]),
  title: z.string(),
  filled: z.boolean().describe("The step's inputs are complete (step 6: setup verified)"),
  unlocked: z.boolean().describe('Informational: the previous step is filled. Going back or skipping ahead is always allowed'),
  canContinue: z.boolean().describe('Whether Continue is allowed: 1 a platform chosen, 2 logo and colors, 3 a shipping rate, 4 a usable payment method, 5 preview opened; on step 6, every prerequisite met'),
  code: reasonCode.nullable(),
  reason: z.string().nullable().describe('What is missing, while not filled'),
});

export const onboardingState = z
  .object({
    emailVerified: z.boolean(),
    locked: z.boolean().describe('True until the email address is verified: the wizard stays behind the verification screen'),
    completed: z.boolean().describe('Setup verification passed (onboardingCompletedAt is set)'),
    onboardingCompletedAt: z.string().nullable(),
    redirect: z.enum(['verify-email', 'wizard', 'dashboard']).describe('Where the web app sends the merchant after login'),
    currentStep: stepNumber.describe('The step to resume at: the saved one, else the first step not filled'),
    savedStep: stepNumber.nullable().describe('The step saved with PATCH /api/merchant/onboarding'),
    firstIncompleteStep: stepNumber.nullable(),
    steps: z.array(wizardStep).length(ONBOARDING_STEPS.length),
    platform: storePlatform.nullable().describe('Step 1: the chosen store platform'),
    payments: z.object({
      processorReady: z.boolean().describe('Business ID, Product ID and webhook secret all present'),
      codEnabled: z.boolean(),
      canContinue: z.boolean().describe('Step 4 continues only with one usable method (COD-only launch allowed)'),
    }),
    preview: z.object({ openedAt: z.string().nullable().describe('Last POST /api/merchant/preview; step 5 needs one') }),
    finalCheck: z.object({
      ready: z.boolean().describe('All five prerequisites are met: "Mark setup verified" can run'),
      prerequisites: z.array(z.object({ key: z.enum(['store', 'brand', 'shipping', 'payment', 'realCheckout']), label: z.string(), ...check })).length(5),
    }),
  })
  .meta({ id: 'OnboardingState' });

export const onboardingPatch = z
  .object({
    currentStep: stepNumber.describe('The step the merchant is on now (any step: going back or skipping is allowed)'),
    continueFrom: stepNumber
      .optional()
      .describe("The wizard's Continue button on this step: refused with 409 STEP_INCOMPLETE (and nothing saved) unless the step has what it needs (its `canContinue`)"),
  })
  .strict();

export const checkoutActivation = z
  .object({
    active: z.boolean().describe('The hosted checkout takes over the store\'s checkout button'),
    platform: storePlatform.nullable(),
    realCheckoutExists: z.boolean().describe('At least one non-preview checkout was created from a real cart of the connected store'),
    firstRealCheckoutAt: z.string().nullable(),
    storefrontA: z
      .object({
        scriptTagInstalled: z.boolean().nullable().describe('Our app embed is on in the published theme (checked live; the spec\'s name kept); null when the store could not be asked'),
        scriptTagId: z.string().nullable().describe('A legacy script tag of ours still in the shop'),
        activationUrl: z.string().nullable().describe('Theme editor link that turns the app embed on (the merchant saves there)'),
        themeName: z.string().nullable().describe('The published theme'),
        checkedAt: z.string().nullable(),
        checkError: z.string().nullable().describe('Why the live check failed'),
      })
      .nullable(),
    storefrontB: z.object({ pluginIntercepted: z.boolean(), pluginInterceptedAt: z.string().nullable() }).nullable(),
    code: reasonCode.nullable(),
    reason: z.string().nullable(),
  })
  .meta({ id: 'CheckoutActivation' });

const stepReport = z.object({
  step: z.number().int().min(1).max(SETUP_VERIFICATION_STEPS.length),
  name: z.string(),
  outcome: z.enum(['passed', 'blocked', 'not_reached', 'not_applicable']),
  detail: z.string().nullable(),
});

export const setupVerificationResult = z
  .discriminatedUnion('verified', [
    z.object({
      verified: z.literal(true),
      blockedAt: z.null(),
      code: z.null(),
      reason: z.null(),
      redirect: z.literal('dashboard'),
      onboardingCompletedAt: z.string(),
      steps: z.array(stepReport),
    }),
    z.object({
      verified: z.literal(false),
      blockedAt: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4), z.literal(5)]).describe('1 brand or shipping rate missing, 2 payment method, 3 plan, 4 checkout activation, 5 script tag'),
      code: reasonCode,
      reason: z.string(),
      redirect: z.literal('billing').nullable().describe("'billing': send the merchant to choose a plan"),
      onboardingCompletedAt: z.null(),
      steps: z.array(stepReport),
    }),
  ])
  .meta({ id: 'SetupVerificationResult' });
