import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkDiscount, checkoutTotals, discountAmount, normalizeDiscountCode, DISCOUNT_CODE_PATTERN, type DiscountContext, type DiscountRule } from './discounts.js';
import { eur, money, MoneyError } from '../money.js';

const FX = { USD: '1.1562', JPY: '178.42', KWD: '0.3550', SEK: '11.1235' };
const NOW = new Date('2026-11-22T12:00:00Z');

const rule = (extra: Partial<DiscountRule> = {}): DiscountRule => ({
  code: 'SAVE', type: 'percentage', value: 10, minSubtotalCents: null, usageLimit: null, oncePerEmail: false, expiresAt: null, active: true, ...extra,
});
const context = (merchandise = eur(5000), extra: Partial<DiscountContext> = {}): DiscountContext => ({ merchandise, fxRates: FX, now: NOW, uses: 0, usesByEmail: 0, ...extra });

describe('discount amounts', () => {
  it('given a percentage / it takes that share of the merchandise, rounded half-up to minor units', () => {
    expect(discountAmount({ type: 'percentage', value: 10 }, eur(5000), FX)).toEqual(eur(500));
    // 15 % of 9.99 EUR = 1.4985 → 1.50 EUR; of 9.97 EUR = 1.4955 → 1.50; of 9.93 = 1.4895 → 1.49.
    expect(discountAmount({ type: 'percentage', value: 15 }, eur(999), FX)).toEqual(eur(150));
    expect(discountAmount({ type: 'percentage', value: 15 }, eur(993), FX)).toEqual(eur(149));
    // No minor units in JPY: 15 % of 333 yen = 49.95 → 50 yen.
    expect(discountAmount({ type: 'percentage', value: 15 }, money(333, 'JPY'), FX)).toEqual(money(50, 'JPY'));
    expect(discountAmount({ type: 'percentage', value: 100 }, money(333, 'JPY'), FX)).toEqual(money(333, 'JPY'));
  });

  it('given a fixed EUR amount / it is converted with the session rates like shipping', () => {
    expect(discountAmount({ type: 'fixed_amount', value: 500 }, eur(5000), FX)).toEqual(eur(500));
    // 5.00 EUR × 1.1562 = 5.781 → 5.78 USD; × 178.42 = 892.1 → 892 yen; × 11.1235 = 55.6175 → 55.62 SEK; × 0.355 = 1.775 KWD.
    expect(discountAmount({ type: 'fixed_amount', value: 500 }, money(10_000, 'USD'), FX)).toEqual(money(578, 'USD'));
    expect(discountAmount({ type: 'fixed_amount', value: 500 }, money(10_000, 'JPY'), FX)).toEqual(money(892, 'JPY'));
    expect(discountAmount({ type: 'fixed_amount', value: 500 }, money(10_000, 'SEK'), FX)).toEqual(money(5562, 'SEK'));
    expect(discountAmount({ type: 'fixed_amount', value: 500 }, money(10_000, 'KWD'), FX)).toEqual(money(1775, 'KWD'));
  });

  it('given a fixed amount above the merchandise / it stops at the merchandise', () => {
    expect(discountAmount({ type: 'fixed_amount', value: 5000 }, eur(1999), FX)).toEqual(eur(1999));
    expect(discountAmount({ type: 'fixed_amount', value: 5000 }, money(0, 'JPY'), FX)).toEqual(money(0, 'JPY'));
  });

  it('given a percentage outside 1-100, a negative amount or a currency without a rate / it refuses', () => {
    expect(() => discountAmount({ type: 'percentage', value: 0 }, eur(100), FX)).toThrow(MoneyError);
    expect(() => discountAmount({ type: 'percentage', value: 101 }, eur(100), FX)).toThrow(MoneyError);
    expect(() => discountAmount({ type: 'fixed_amount', value: -1 }, eur(100), FX)).toThrow(MoneyError);
    expect(() => discountAmount({ type: 'fixed_amount', value: 100 }, money(100, 'CHF'), FX)).toThrow(/No exchange rate for CHF/);
  });

  it('never exceeds the merchandise and is never negative (any currency, any code)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('EUR', 'USD', 'JPY', 'KWD', 'SEK'),
        fc.integer({ min: 0, max: 100_000_000 }),
        fc.oneof(
          fc.record({ type: fc.constant('percentage' as const), value: fc.integer({ min: 1, max: 100 }) }),
          fc.record({ type: fc.constant('fixed_amount' as const), value: fc.integer({ min: 1, max: 10_000_000 }) }),
        ),
        fc.option(fc.integer({ min: 0, max: 10_000_000 }), { nil: undefined }),
        (currency, amount, r, shipping) => {
          const merchandise = money(amount, currency);
          const discount = discountAmount(r, merchandise, FX);
          expect(discount.currency).toBe(currency);
          expect(discount.amount).toBeGreaterThanOrEqual(0);
          expect(discount.amount).toBeLessThanOrEqual(amount);
          const totals = checkoutTotals({ items: merchandise, bumps: money(0, currency), shipping: shipping === undefined ? undefined : money(shipping, currency), discount });
          expect(totals.total.amount).toBeGreaterThanOrEqual(0);
          // The discount never touches shipping: the total is at least the shipping.
          expect(totals.total.amount).toBeGreaterThanOrEqual(shipping ?? 0);
          expect(totals.total.amount).toBe(amount - discount.amount + (shipping ?? 0));
        },
      ),
    );
  });

  it('a percentage is exact within half a minor unit and monotonic in the percentage', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 1, max: 99 }), (amount, pct) => {
        const lower = discountAmount({ type: 'percentage', value: pct }, eur(amount), FX).amount;
        const higher = discountAmount({ type: 'percentage', value: pct + 1 }, eur(amount), FX).amount;
        expect(Math.abs(lower - (amount * pct) / 100)).toBeLessThanOrEqual(0.5);
        expect(higher).toBeGreaterThanOrEqual(lower);
      }),
    );
  });
});

describe('checking a code against a checkout', () => {
  it('given a valid code / it applies with its amount', () => {
    expect(checkDiscount(rule(), context())).toEqual({ ok: true, amount: eur(500) });
  });

  it.each([
    ['no such code', undefined, context(), 'unknown', 'DISCOUNT_UNKNOWN'],
    ['a paused code', rule({ active: false }), context(), 'unknown', 'DISCOUNT_UNKNOWN'],
    ['an expired code (at its expiry instant)', rule({ expiresAt: NOW }), context(), 'expired', 'DISCOUNT_EXPIRED'],
    ['a used-up code', rule({ usageLimit: 3 }), context(eur(5000), { uses: 3 }), 'used_up', 'DISCOUNT_USED_UP'],
    ['a subtotal under the minimum', rule({ minSubtotalCents: 5001 }), context(), 'minimum_not_met', 'DISCOUNT_MINIMUM_NOT_MET'],
    ['a once-per-email code this email used', rule({ oncePerEmail: true }), context(eur(5000), { usesByEmail: 1 }), 'already_used', 'DISCOUNT_ALREADY_USED'],
  ] as const)('given %s / it is refused with its own reason and code', (_what, r, ctx, reason, code) => {
    const check = checkDiscount(r, ctx);
    expect(check).toMatchObject({ ok: false, reason, code });
    expect(check.ok ? '' : check.message).toMatch(/discount code|minimum/);
  });

  it('given uses under the limit, an expiry still ahead and exactly the minimum / it applies', () => {
    const r = rule({ usageLimit: 3, expiresAt: new Date(NOW.getTime() + 1), minSubtotalCents: 5000, oncePerEmail: true });
    expect(checkDiscount(r, context(eur(5000), { uses: 2, usesByEmail: 0 }))).toMatchObject({ ok: true });
  });

  it('given a minimum in EUR and a checkout in JPY / it compares the converted minimum and reports it', () => {
    // 50.00 EUR × 178.42 = 8921 yen.
    const r = rule({ minSubtotalCents: 5000 });
    expect(checkDiscount(r, context(money(8920, 'JPY')))).toEqual({
      ok: false, reason: 'minimum_not_met', code: 'DISCOUNT_MINIMUM_NOT_MET', message: expect.any(String), minimum: money(8921, 'JPY'),
    });
    expect(checkDiscount(r, context(money(8921, 'JPY')))).toEqual({ ok: true, amount: money(892, 'JPY') });
  });
});

describe('codes and totals', () => {
  it('codes are case-insensitive and of a printable shape', () => {
    expect(normalizeDiscountCode('  summer-10 ')).toBe('SUMMER-10');
    for (const ok of ['SUMMER10', 'BLACK_FRIDAY', 'A-1']) expect(DISCOUNT_CODE_PATTERN.test(ok), ok).toBe(true);
    for (const bad of ['AB', '-LEADING', 'WITH SPACE', 'ÜBER10', 'X'.repeat(41)]) expect(DISCOUNT_CODE_PATTERN.test(bad), bad).toBe(false);
  });

  it('the total is items + bumps − discount + shipping, the discount capped at the merchandise', () => {
    expect(checkoutTotals({ items: money(4980, 'JPY'), bumps: money(1000, 'JPY'), shipping: money(874, 'JPY'), discount: money(598, 'JPY') })).toEqual({
      merchandise: money(5980, 'JPY'), discount: money(598, 'JPY'), shipping: money(874, 'JPY'), total: money(6256, 'JPY'),
    });
    expect(checkoutTotals({ items: eur(1000), bumps: eur(0), shipping: eur(490), discount: eur(5000) }).total).toEqual(eur(490));
    expect(() => checkoutTotals({ items: eur(1000), bumps: money(10, 'USD') })).toThrow(MoneyError);
  });
});
