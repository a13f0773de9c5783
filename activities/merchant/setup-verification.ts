// Setup verification's reads (the wizard facts of model/merchant/onboarding.ts and the billing status) and the one write
// it makes: onboardingCompletedAt.
import type { Db } from '../../prisma/client.js';
import type { OnboardingFacts } from '../../domain/merchant/onboarding.js';
import { readOnboardingFacts } from '../../model/merchant/onboarding.js';
import { readBillingStatus } from '../../model/merchant/billing-status.js';
import { classifyFailures } from '../failures.js';

/** Step 1's reading: the wizard facts plus the billing status (model/merchant/billing-status.ts). */
export interface SetupVerificationFacts extends OnboardingFacts {
  billing: { planId: string; paid: boolean; status: string };
}

export function createSetupVerificationActivities({ db }: { db: Db }) {
  return classifyFailures({
    /** Setup verification step 1: the merchant, its processor and its billing status. */
    async readSetupVerificationFacts(merchantId: string): Promise<SetupVerificationFacts> {
      const [facts, billing] = await Promise.all([readOnboardingFacts(db, merchantId), readBillingStatus(db, merchantId)]);
      return { ...facts, billing: { planId: billing.planId, paid: billing.paid, status: billing.status } };
    },

    /** Step 6: onboardingCompletedAt, set once (a re-run keeps the first instant); answers the stored value. */
    async completeOnboarding(merchantId: string): Promise<{ onboardingCompletedAt: string }> {
      await db.merchant.updateMany({ where: { id: merchantId, onboardingCompletedAt: null }, data: { onboardingCompletedAt: new Date() } });
      const { onboardingCompletedAt } = await db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { onboardingCompletedAt: true } });
      return { onboardingCompletedAt: onboardingCompletedAt!.toISOString() };
    },
  });
}

export type SetupVerificationActivities = ReturnType<typeof createSetupVerificationActivities>;
