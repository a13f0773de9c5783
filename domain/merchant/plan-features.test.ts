import { describe, expect, it } from 'vitest';
import { canSetUp, featureAvailability, isOffered, PLAN_FEATURE_LABELS, PLAN_FEATURES, planFor, planInForce, planRefusal } from './plan-features.js';
import { FREE_PLAN_ID, PLANS } from './plans.js';

describe('plan features', () => {
  it('given Starter / cash on delivery and wallets can be neither switched on nor offered; the custom domain is live', () => {
    expect(canSetUp('STARTER', 'cod')).toBe(false);
    expect(isOffered('STARTER', 'cod', { preview: false })).toBe(false);
    expect(isOffered('STARTER', 'cod', { preview: true })).toBe(false);
    expect(canSetUp('STARTER', 'wallets')).toBe(false);
    expect(isOffered('STARTER', 'customDomain', { preview: false })).toBe(true);
  });

  it('given Growth / every feature is live', () => {
    for (const f of PLAN_FEATURES) expect(isOffered('GROWTH', f, { preview: false })).toBe(true);
  });

  it('given Demo / everything can be set up and previewed, nothing is live', () => {
    for (const f of PLAN_FEATURES) {
      expect(canSetUp(FREE_PLAN_ID, f)).toBe(true);
      expect(isOffered(FREE_PLAN_ID, f, { preview: true })).toBe(true);
      expect(isOffered(FREE_PLAN_ID, f, { preview: false })).toBe(false);
    }
  });

  it('given an unknown plan / it has nothing', () => {
    expect(featureAvailability('PLATINUM', 'cod')).toBe('none');
  });

  it('names the cheapest plan a refused feature comes with', () => {
    expect(planFor('cod')).toEqual({ id: 'GROWTH', name: 'Growth' });
    expect(planFor('customDomain')).toEqual({ id: 'STARTER', name: 'Starter' });
    expect(planRefusal('STARTER', 'cod')).toEqual({
      message: 'Cash on delivery is not included in the Starter plan: it comes with Growth (Billing)',
      details: { feature: 'cod', currentPlan: 'STARTER', requiredPlan: 'GROWTH' },
    });
    expect(planRefusal('GROWTH', 'cod')).toBeUndefined();
  });

  it('applies a paid plan only while it is in force', () => {
    expect(planInForce(null)).toBe(FREE_PLAN_ID);
    expect(planInForce({ planId: 'GROWTH', status: 'ACTIVE' })).toBe('GROWTH');
    expect(planInForce({ planId: 'GROWTH', status: 'PAST_DUE' })).toBe('GROWTH');
    expect(planInForce({ planId: 'FREE', status: 'PENDING' })).toBe(FREE_PLAN_ID);
    expect(planInForce({ planId: 'GROWTH', status: 'DEMO' })).toBe(FREE_PLAN_ID);
  });

  it('says in each paid plan\'s includes exactly the features live on it (directly or through "Everything in Starter")', () => {
    const lines = (id: string): string[] => {
      const plan = PLANS.find((p) => p.id === id)!;
      return plan.includes.flatMap((l) => (l === 'Everything in Starter' ? lines('STARTER') : [l]));
    };
    for (const plan of PLANS.filter((p) => p.monthlyPriceCents > 0)) {
      for (const f of PLAN_FEATURES) {
        const said = lines(plan.id).some((l) => l.toLowerCase().startsWith(PLAN_FEATURE_LABELS[f].toLowerCase()));
        expect(said, `${plan.id} ${f}`).toBe(featureAvailability(plan.id, f) === 'live');
      }
    }
  });
});
