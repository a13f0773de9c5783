import { describe, expect, it } from 'vitest';
import { DEFAULT_GRACE, FREE_PLAN_ID, PLANS, findPlan, isPaidPlan, isPaidStatus, periodEndFrom, renewalAttemptAt } from './plans.js';

const at = (iso: string) => Date.parse(iso);

describe('plan catalog', () => {
  it('has Demo (FREE) at 0 and paid plans with positive integer EUR cents, each id once', () => {
    expect(findPlan(FREE_PLAN_ID)).toMatchObject({ name: 'Demo', monthlyPriceCents: 0, checkoutEnabled: false });
    const paid = PLANS.filter((p) => p.id !== FREE_PLAN_ID);
    expect(paid.length).toBeGreaterThan(0);
    for (const p of paid) {
      expect(Number.isInteger(p.monthlyPriceCents) && p.monthlyPriceCents > 0).toBe(true);
      expect(p.checkoutEnabled).toBe(true);
      expect(isPaidPlan(p.id)).toBe(true);
    }
    expect(new Set(PLANS.map((p) => p.id)).size).toBe(PLANS.length);
    expect(isPaidPlan(FREE_PLAN_ID)).toBe(false);
    expect(isPaidPlan('NOPE')).toBe(false);
  });

  it('counts a paid plan as paid only while ACTIVE or PAST_DUE (the grace period)', () => {
    expect(isPaidStatus('STARTER', 'ACTIVE')).toBe(true);
    expect(isPaidStatus('STARTER', 'PAST_DUE')).toBe(true);
    expect(isPaidStatus('STARTER', 'PENDING')).toBe(false);
    expect(isPaidStatus('STARTER', 'DEMO')).toBe(false);
    expect(isPaidStatus(FREE_PLAN_ID, 'ACTIVE')).toBe(false);
  });
});

describe('billing periods', () => {
  it('given a start / the period ends one calendar month later, the day clamped to the month end', () => {
    expect(periodEndFrom(at('2026-01-15T10:00:00Z'))).toBe(at('2026-02-15T10:00:00Z'));
    expect(periodEndFrom(at('2026-01-31T10:00:00Z'))).toBe(at('2026-02-28T10:00:00Z'));
    expect(periodEndFrom(at('2028-01-31T00:00:00Z'))).toBe(at('2028-02-29T00:00:00Z'));
    expect(periodEndFrom(at('2026-12-31T23:59:59Z'))).toBe(at('2027-01-31T23:59:59Z'));
    expect(periodEndFrom(1_000, 500)).toBe(1_500);
  });

  it('given a failed renewal / 3 attempts over 7 days run on day 0, 3.5 and 7', () => {
    const end = at('2026-03-01T00:00:00Z');
    const day = 24 * 60 * 60 * 1000;
    expect([0, 1, 2].map((n) => (renewalAttemptAt(end, n, DEFAULT_GRACE) - end) / day)).toEqual([0, 3.5, 7]);
    expect(renewalAttemptAt(end, 0, { attempts: 1, graceMs: day })).toBe(end);
  });
});
