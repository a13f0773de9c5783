// The one read of a merchant's billing status, shared by checkout create, the setup verification and the
// billing API. A merchant without a subscription row has never paid: Demo.
import type { Db } from '../../prisma/client.js';
import { FREE_PLAN_ID, isPaidStatus } from '../../domain/merchant/plans.js';

export interface BillingStatus {
  planId: string;
  /** True only while a paid plan is in force: ACTIVE, or PAST_DUE within the renewal grace period. */
  paid: boolean;
  /** domain/merchant/plans.ts SubscriptionStatus: DEMO, PENDING, ACTIVE, PAST_DUE. */
  status: string;
  currentPeriodEnd: Date | null;
}

/** The billing status of a subscription row (or of none), for callers that already loaded it. */
export function billingStatusOf(row: { planId: string; status: string; currentPeriodEnd: Date | null } | null): BillingStatus {
  if (!row) return { planId: FREE_PLAN_ID, paid: false, status: 'DEMO', currentPeriodEnd: null };
  return { planId: row.planId, paid: isPaidStatus(row.planId, row.status), status: row.status, currentPeriodEnd: row.currentPeriodEnd };
}

export async function readBillingStatus(db: Db, merchantId: string): Promise<BillingStatus> {
  const row = await db.platformSubscription.findUnique({
    where: { merchantId },
    select: { planId: true, status: true, currentPeriodEnd: true },
  });
  return billingStatusOf(row);
}
