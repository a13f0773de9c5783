// Id, input and result of the setup verification workflow, shared by the workflow and the API that runs
// it (POST /api/merchant/setup-verification). Deterministic: domain/ only.
import type { OnboardingReasonCode } from '../../domain/merchant/onboarding.js';

export interface SetupVerificationInput {
  merchantId: string;
}

export type SetupStepOutcome = 'passed' | 'blocked' | 'not_reached' | 'not_applicable';

export interface SetupStepReport {
  step: 1 | 2 | 3 | 4 | 5 | 6 | 7;
  name: string;
  outcome: SetupStepOutcome;
  detail: string | null;
}

export type BlockingStep = 1 | 2 | 3 | 4 | 5;

export type SetupVerificationResult =
  | {
    verified: true;
    blockedAt: null;
    code: null;
    reason: null;
    redirect: 'dashboard';
    onboardingCompletedAt: string;
    steps: SetupStepReport[];
  }
  | {
    verified: false;
    /** The step that blocked: 1 brand or shipping rate missing, 2 payment method, 3 plan, 4 checkout activation, 5 script tag. */
    blockedAt: BlockingStep;
    code: OnboardingReasonCode;
    reason: string;
    /** 'billing' when the page must send the merchant to choose a plan (step 3). */
    redirect: 'billing' | null;
    onboardingCompletedAt: null;
    steps: SetupStepReport[];
  };
