// The platform's plan catalog and the subscription states. Pure data: the API serves the catalog, the
// subscription workflow charges its prices, checkout create reads whether a plan is paid. Demo (id FREE)
// is what an account without an active paid plan is on; while on it, checkouts pass through to the store.

export const FREE_PLAN_ID = 'FREE';

export interface Plan {
  id: string;
  name: string;
  /** Monthly price in EUR cents; 0 for Demo. */
  monthlyPriceCents: number;
  currency: 'EUR';
  description: string;
  /** What the plan includes, one line each, for the pricing page (the plan-limited ones are domain/merchant/plan-features.ts's table in words). */
  includes: readonly string[];
  /** Hosted checkout sessions are created (otherwise shoppers stay in the store's own checkout). */
  checkoutEnabled: boolean;
}

export const PLANS: readonly Plan[] = [
  {
    id: FREE_PLAN_ID,
    name: 'Demo',
    monthlyPriceCents: 0,
    currency: 'EUR',
    description: 'Set up and preview your checkout; shoppers keep using the store’s own checkout.',
    includes: ['Onboarding wizard and checkout preview', 'Branding and shipping rates', 'Every feature to set up and preview, cash on delivery included', 'No live checkouts (passthrough)'],
    checkoutEnabled: false,
  },
  {
    id: 'STARTER',
    name: 'Starter',
    monthlyPriceCents: 2_900,
    currency: 'EUR',
    description: 'The hosted checkout for one store.',
    includes: ['Live hosted checkout on your subdomain', 'Card payments through your processor', 'Order and shopper emails', 'Custom checkout domain'],
    checkoutEnabled: true,
  },
  {
    id: 'GROWTH',
    name: 'Growth',
    monthlyPriceCents: 7_900,
    currency: 'EUR',
    description: 'Everything in Starter, for stores that sell every day.',
    includes: ['Everything in Starter', 'Cash on delivery', 'Wallet payments (Apple Pay, Google Pay)', 'Priority support'],
    checkoutEnabled: true,
  },
];

export function findPlan(id: string): Plan | undefined {
  return PLANS.find((p) => p.id === id);
}

export function isPaidPlan(id: string): boolean {
  const plan = findPlan(id);
  return plan !== undefined && plan.monthlyPriceCents > 0;
}

/**
 * DEMO: on the free plan (also after a cancel or an expired grace period).
 * PENDING: a first payment for a paid plan was started; still on Demo until the processor confirms it.
 * ACTIVE: a paid plan is in force for the current period.
 * PAST_DUE: the renewal failed; the plan stays in force while retries run, until the grace period ends.
 */
export const SUBSCRIPTION_STATUSES = ['DEMO', 'PENDING', 'ACTIVE', 'PAST_DUE'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/**
 * Why an account last returned to Demo (platform_subscriptions.ended_reason): the merchant cancelled; the grace
 * period of a failed renewal ran out; the processor ended the membership (canceled, expired: a refund, a dispute,
 * a cancel in the processor's own pages); the first payment failed or was not made in time.
 */
export const ENDED_REASONS = ['cancelled', 'grace_expired', 'membership_ended', 'payment_failed', 'payment_expired'] as const;
export type EndedReason = (typeof ENDED_REASONS)[number];
/** The reasons a paid plan returns to Demo. */
export type DowngradeReason = Extract<EndedReason, 'cancelled' | 'grace_expired' | 'membership_ended'>;

/** Whether a plan in this state lets shoppers into the hosted checkout (the grace period counts). */
export function isPaidStatus(planId: string, status: string): boolean {
  return isPaidPlan(planId) && (status === 'ACTIVE' || status === 'PAST_DUE');
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The end of a billing period that starts at `startMs`: one calendar month later in UTC, the day clamped to
 * the month's last (Jan 31 → Feb 28/29), or exactly `periodMs` later when given (tests shorten periods).
 */
export function periodEndFrom(startMs: number, periodMs?: number): number {
  if (periodMs !== undefined) return startMs + periodMs;
  const d = new Date(startMs);
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + 1);
  const lastDay = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, lastDay));
  return d.getTime();
}

/** How a failed renewal is retried: `attempts` charges in all, spread evenly from the period end to its end. */
export interface GracePolicy {
  attempts: number;
  graceMs: number;
}

export const DEFAULT_GRACE: GracePolicy = { attempts: 3, graceMs: 7 * DAY_MS };

/**
 * When renewal charge `n` (0-based) runs: the first at the period end, the last when the grace period ends
 * (3 attempts over 7 days: day 0, 3.5 and 7). After the last one fails the account returns to Demo.
 */
export function renewalAttemptAt(periodEndMs: number, n: number, policy: GracePolicy): number {
  if (policy.attempts <= 1) return periodEndMs;
  return periodEndMs + Math.round((policy.graceMs * n) / (policy.attempts - 1));
}

/** Metadata key on the platform's memberships and payments: billing events find their merchant by it. */
export const PLATFORM_BILLING_METADATA_KEY = 'platform_billing_merchant_id';

/** Where the processor posts the platform account's events (registered by the service, or by hand). */
export const PLATFORM_BILLING_WEBHOOK_PATH = '/webhooks/processor/platform-billing';
