// What each plan lets a merchant use: the one table of plan-limited settings. The API refuses to switch on a setting
// the merchant's plan does not have (PLAN_FEATURE_REQUIRED, naming the plan that has it, nothing changed), the
// checkout never offers one (also after a downgrade: the setting stays as the merchant left it, and comes back with
// the plan), and the dashboard says why a box is off. domain/merchant/plans.ts is the catalog; its `includes` lines are
// the same facts in words (plan-features.test.ts keeps them in step).
//
// Per plan and feature:
//   live   shoppers get it;
//   setup  it can be set up and previewed, nothing is live: Demo, on which a merchant prepares everything (the
//          wizard's cash-on-delivery-only launch included) before paying, and on which checkouts pass through;
//   none   it can be neither switched on nor offered.
import { FREE_PLAN_ID, findPlan, isPaidStatus, PLANS } from './plans.js';

export const PLAN_FEATURES = ['cod', 'customDomain', 'wallets'] as const;
export type PlanFeature = (typeof PLAN_FEATURES)[number];

export type FeatureAvailability = 'live' | 'setup' | 'none';

export const PLAN_FEATURE_LABELS: Record<PlanFeature, string> = {
  cod: 'Cash on delivery',
  customDomain: 'Custom checkout domain',
  wallets: 'Wallet payments (Apple Pay, Google Pay)',
};

/** The table. A plan missing here (none is) would have every feature `none`. */
const TABLE: Record<string, Record<PlanFeature, FeatureAvailability>> = {
  [FREE_PLAN_ID]: { cod: 'setup', customDomain: 'setup', wallets: 'setup' },
  STARTER: { cod: 'none', customDomain: 'live', wallets: 'none' },
  GROWTH: { cod: 'live', customDomain: 'live', wallets: 'live' },
};

export function featureAvailability(planId: string, feature: PlanFeature): FeatureAvailability {
  return TABLE[planId]?.[feature] ?? 'none';
}

/** The plan whose features apply now: the paid plan while it is in force (ACTIVE, or PAST_DUE in grace), else Demo. */
export function planInForce(subscription: { planId: string; status: string } | null | undefined): string {
  return subscription && isPaidStatus(subscription.planId, subscription.status) ? subscription.planId : FREE_PLAN_ID;
}

/** Whether the merchant may switch the feature on (or keep changing it): live or setup on its plan. */
export function canSetUp(planId: string, feature: PlanFeature): boolean {
  return featureAvailability(planId, feature) !== 'none';
}

/** Whether a checkout offers the feature the merchant switched on: live on its plan; a preview shows what is set up too. */
export function isOffered(planId: string, feature: PlanFeature, opts: { preview: boolean }): boolean {
  const availability = featureAvailability(planId, feature);
  return availability === 'live' || (opts.preview && availability === 'setup');
}

/** The cheapest paid plan on which the feature is live: what the merchant is told to choose. */
export function planFor(feature: PlanFeature): { id: string; name: string } {
  const plan = [...PLANS].filter((p) => p.monthlyPriceCents > 0 && featureAvailability(p.id, feature) === 'live').sort((a, b) => a.monthlyPriceCents - b.monthlyPriceCents)[0];
  if (!plan) throw new Error(`No plan offers ${feature}`);
  return { id: plan.id, name: plan.name };
}

/** Why a feature cannot be switched on for a merchant on `planId`, with the plan that has it; undefined when it can. */
export function planRefusal(planId: string, feature: PlanFeature): { message: string; details: { feature: PlanFeature; currentPlan: string; requiredPlan: string } } | undefined {
  if (canSetUp(planId, feature)) return undefined;
  const required = planFor(feature);
  const current = findPlan(planId)?.name ?? planId;
  return {
    message: `${PLAN_FEATURE_LABELS[feature]} is not included in the ${current} plan: it comes with ${required.name} (Billing)`,
    details: { feature, currentPlan: planId, requiredPlan: required.id },
  };
}

/** Every feature's availability on a plan, with the plan to choose for it: what the dashboard shows beside each setting. */
export function planFeatureView(planId: string): Record<PlanFeature, { availability: FeatureAvailability; requiredPlan: string; requiredPlanName: string }> {
  return Object.fromEntries(
    PLAN_FEATURES.map((f) => {
      const required = planFor(f);
      return [f, { availability: featureAvailability(planId, f), requiredPlan: required.id, requiredPlanName: required.name }];
    }),
  ) as Record<PlanFeature, { availability: FeatureAvailability; requiredPlan: string; requiredPlanName: string }>;
}

export const FEATURE_AVAILABILITY = ['live', 'setup', 'none'] as const satisfies readonly FeatureAvailability[];
