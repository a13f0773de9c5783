// The plan rules (domain/merchant/plan-features.ts) applied to a merchant as stored: its subscription row decides the plan in
// force. The API, the activities and the session bundle ask here, so they all read the same columns the same way.
import { AppError } from '../../domain/errors.js';
import { isOffered, planInForce, planRefusal, type PlanFeature } from '../../domain/merchant/plan-features.js';

export interface MerchantPlanFacts {
  codEnabled: boolean;
  /** The subscription row, if any (none: Demo). */
  platformSubscription: { planId: string; status: string } | null;
}

/** Whether a checkout of this merchant offers cash on delivery: switched on, and its plan has it (a preview on Demo too). */
export function codOffered(merchant: MerchantPlanFacts, opts: { preview: boolean }): boolean {
  return merchant.codEnabled && isOffered(planInForce(merchant.platformSubscription), 'cod', opts);
}

/** Refuses (PLAN_FEATURE_REQUIRED, nothing changed) a setting the merchant's plan in force does not have. */
export function assertPlanAllows(subscription: MerchantPlanFacts['platformSubscription'], feature: PlanFeature): void {
  const refusal = planRefusal(planInForce(subscription), feature);
  if (refusal) throw new AppError('PLAN_FEATURE_REQUIRED', refusal.message, refusal.details);
}

/**
 * Whether a checkout of this merchant offers wallet payments (Apple Pay, Google Pay): its plan has them live (a preview
 * on Demo too). Whop's hosted page offers them by default, so this decides what the checkout configuration tells Whop.
 */
export function walletsOffered(subscription: MerchantPlanFacts['platformSubscription'], opts: { preview: boolean }): boolean {
  return isOffered(planInForce(subscription), 'wallets', opts);
}
