// The onboarding wizard (spec "Onboarding wizard"): its state read from what the merchant has set up
// (PostgreSQL only), the saved resume step, checkout activation, and setup verification, which runs as a
// workflow (setup-verification-<merchantId>) because it calls the store. The rules themselves are pure,
// in domain/merchant/onboarding.ts; see docs/onboarding.md.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type RouteDeps } from '../../route-deps.js';
import { AppError } from '../../../domain/errors.js';
import { checkoutActivation as activationOf, continueCheck, paymentCheck, wizardState, type OnboardingFacts, type StepNumber } from '../../../domain/merchant/onboarding.js';
import { readOnboardingFacts } from '../../../model/merchant/onboarding.js';
import type { checkStorefrontAScriptTagWorkflow } from '../../../workflows/storefront-a/storefront-a-app-embed.js';
import type { setupVerificationWorkflow } from '../../../workflows/merchant/setup-verification.js';
import { errorResponse } from '../../schemas/common.js';
import { checkoutActivation, onboardingPatch, onboardingState, setupVerificationResult } from '../../schemas/onboarding.js';
import { toAppError } from '../../plugins/errors.js';
import { WORKFLOWS } from '../../../domain/temporal/workflow-names.js';

const auth = { security: [{ bearerAuth: [] }] };
const tags = ['onboarding'];
const PLATFORM = { STOREFRONT_A: 'storefront-a', STOREFRONT_B: 'storefront-b' } as const;
/** Far longer than the verification's few store calls take; a stuck run never blocks the next click. */
const VERIFICATION_TIMEOUT = '2 minutes';

const emailNotVerified = () => new AppError('EMAIL_NOT_VERIFIED', 'Verify your email address first: the wizard starts after the verification screen');

function toOnboardingState(f: OnboardingFacts) {
  const state = wizardState(f);
  return {
    ...state,
    onboardingCompletedAt: f.onboardingCompletedAt,
    savedStep: state.steps.some((s) => s.number === f.savedStep) ? f.savedStep : null,
    platform: f.storePlatform ? PLATFORM[f.storePlatform] : null,
    payments: { processorReady: f.processorReady, codEnabled: f.codEnabled, canContinue: paymentCheck(f).ok },
    preview: { openedAt: f.previewOpenedAt },
  };
}

export const onboardingRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, db, temporal } = deps;

  app.get('/onboarding', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'onboarding:read' },
    schema: {
      tags,
      summary: 'The onboarding wizard: six steps (filled, unlocked, can continue), the resume step and the final check',
      description:
        'Computed from what the merchant has set up, so it is the same on every device. Before the email address is verified the answer ' +
        'says `locked: true` and `redirect: "verify-email"`; once setup verification passed, `redirect: "dashboard"`.',
      ...auth,
      response: { 200: onboardingState, 401: errorResponse },
    },
  }, async (request) => toOnboardingState(await readOnboardingFacts(db, request.merchant.merchantId)));

  app.patch('/onboarding', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'onboarding:write' },
    schema: {
      tags,
      summary: 'Save the step the merchant is on, so the wizard resumes there',
      description:
        'Any step 1-6: going back or skipping (the stepper) is always allowed. `continueFrom` marks the Continue button of that step: ' +
        'without what the step needs (1 a platform chosen, 2 logo and colors, 3 a shipping rate, 4 a usable payment method, 5 the preview ' +
        'opened) it answers 409 STEP_INCOMPLETE with the reason and saves nothing. EMAIL_NOT_VERIFIED (403) before the email address is verified.',
      ...auth,
      body: onboardingPatch,
      response: { 200: onboardingState, 400: errorResponse, 401: errorResponse, 403: errorResponse, 409: errorResponse },
    },
  }, async (request) => {
    const { merchantId } = request.merchant;
    const { continueFrom } = request.body;
    if (continueFrom !== undefined) {
      const facts = await readOnboardingFacts(db, merchantId);
      if (!facts.emailVerified) throw emailNotVerified();
      const step = continueFrom as StepNumber;
      const check = step === 6 ? { ok: wizardState(facts).finalCheck.ready, reason: 'Meet the five prerequisites first' } : continueCheck(facts, step);
      if (!check.ok) throw new AppError('STEP_INCOMPLETE', `Step ${step} is not done: ${check.reason ?? 'complete it first'}`);
    }
    const { count } = await request.merchantData.merchant.updateIf({ where: { emailVerifiedAt: { not: null } }, data: { onboardingStep: request.body.currentStep } });
    if (count === 0) throw emailNotVerified();
    return toOnboardingState(await readOnboardingFacts(db, merchantId));
  });

  app.get('/checkout-activation', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'onboarding:read' },
    schema: {
      tags,
      summary: 'Whether the hosted checkout is live: a real non-preview checkout from a store cart, plus the app embed (A) or the plugin (B)',
      description:
        'Storefront A: whether our app embed is on in the published theme is read at the store, live (the same check as GET /api/merchant/script-tag/status), ' +
        'with the theme editor link that turns it on; when the store cannot be asked, `scriptTagInstalled` is null with `checkError`. ' +
        'Storefront B: the official plugin has sent us a checkout at least once.',
      ...auth,
      response: { 200: checkoutActivation, 401: errorResponse },
    },
  }, async (request) => {
    const { merchantId } = request.merchant;
    const facts = await readOnboardingFacts(db, merchantId);
    let storefrontA = null;
    if (facts.storePlatform === 'STOREFRONT_A') {
      storefrontA = { scriptTagInstalled: null as boolean | null, scriptTagId: null as string | null, activationUrl: null as string | null, themeName: null as string | null, checkedAt: null as string | null, checkError: null as string | null };
      if (facts.storefrontA?.connected && facts.storefrontA.hasAccessToken) {
        try {
          const seen = await temporal.client.workflow.execute<typeof checkStorefrontAScriptTagWorkflow>(WORKFLOWS.storefrontAAppEmbedCheck.type, {
            taskQueue: config.temporal.taskQueue,
            workflowId: WORKFLOWS.storefrontAAppEmbedCheck.id(merchantId),
            workflowIdConflictPolicy: 'USE_EXISTING',
            args: [merchantId],
          });
          storefrontA = { scriptTagInstalled: seen.installed, scriptTagId: seen.scriptTagId, activationUrl: seen.activationUrl, themeName: seen.themeName, checkedAt: seen.checkedAt, checkError: null };
        } catch (err) {
          const failure = toAppError(err);
          request.log.warn({ err, merchantId }, 'app embed check failed');
          storefrontA.checkError = failure.status >= 500 && failure.code === 'INTERNAL_ERROR' ? 'The store could not be asked: try again in a minute' : failure.message;
        }
      } else {
        storefrontA.checkError = 'Your Shopify shop is not connected';
      }
    }
    const activation = activationOf(facts, { scriptTagInstalled: storefrontA?.scriptTagInstalled ?? null });
    return {
      active: activation.active,
      platform: facts.storePlatform ? PLATFORM[facts.storePlatform] : null,
      realCheckoutExists: activation.realCheckoutExists,
      firstRealCheckoutAt: facts.firstRealCheckoutAt,
      storefrontA,
      storefrontB: facts.storePlatform === 'STOREFRONT_B'
        ? { pluginIntercepted: facts.storefrontB?.pluginInterceptedAt != null, pluginInterceptedAt: facts.storefrontB?.pluginInterceptedAt ?? null }
        : null,
      code: activation.code,
      reason: activation.reason,
    };
  });

  app.post('/setup-verification', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'onboarding:write' },
    schema: {
      tags,
      summary: '"Mark setup verified": runs setup verification and answers its result',
      description:
        'The spec\'s seven steps in order, as the workflow setup-verification-<merchantId>: 1 read merchant, processor and billing status ' +
        '(and block without the logo and colors or a shipping rate: the final check\'s prerequisites no later step covers); ' +
        '2 block when the processor is not ready and COD is disabled; 3 no active paid plan: `redirect: "billing"`; 4 block without a real ' +
        'non-preview checkout from a store cart (storefront B: the plugin must have intercepted once); 5 storefront A: install or reinstall our ' +
        'script tag and check it again; 6 set onboardingCompletedAt; 7 `redirect: "dashboard"`. A blocked run answers 200 with `verified: false`, ' +
        'the step (`blockedAt`) and the reason (`code`, `reason`). A second click while one runs joins it. EMAIL_NOT_VERIFIED (403) before the ' +
        'email address is verified.',
      ...auth,
      response: { 200: setupVerificationResult, 401: errorResponse, 403: errorResponse },
    },
  }, async (request) => {
    const { merchantId } = request.merchant;
    const merchant = await request.merchantData.merchant.get({ select: { emailVerifiedAt: true } });
    if (!merchant.emailVerifiedAt) throw emailNotVerified();
    return temporal.client.workflow.execute<typeof setupVerificationWorkflow>(WORKFLOWS.setupVerification.type, {
      taskQueue: config.temporal.taskQueue,
      workflowId: WORKFLOWS.setupVerification.id(merchantId),
      // A double click joins the running verification; a finished one never blocks the next.
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      workflowExecutionTimeout: VERIFICATION_TIMEOUT,
      args: [{ merchantId }],
    });
  });
};
