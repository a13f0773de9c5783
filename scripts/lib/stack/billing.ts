// Plans for test merchants. Checkout create passes a Demo merchant through to its store, so every merchant a
// checkout test sells with needs a paid plan: this writes one as the subscription workflow would leave it
// after a first payment (ACTIVE, current period from now), without a processor membership, so no workflow
// ever renews or charges it. No vitest here (the benchmarks use it too; test/harness re-exports it).
import type { Db } from '../../../prisma/client.js';
import { isPaidPlan, periodEndFrom } from '../../../domain/merchant/plans.js';

// Growth: every plan-limited setting (cash on delivery, wallets) is live on it, so a test may use any; tests of plan limits pick
// Starter themselves.
export const TEST_PAID_PLAN = 'GROWTH';

/** The merchant is on `planId` (a paid plan), ACTIVE for the current month. */
export async function givePaidPlan(db: Db, merchantId: string, planId = TEST_PAID_PLAN): Promise<void> {
  if (!isPaidPlan(planId)) throw new Error(`${planId} is not a paid plan`);
  const now = Date.now();
  const data = { planId, status: 'ACTIVE', currentPeriodStart: new Date(now), currentPeriodEnd: new Date(periodEndFrom(now)) };
  await db.platformSubscription.upsert({ where: { merchantId }, create: { merchantId, ...data }, update: data });
}
