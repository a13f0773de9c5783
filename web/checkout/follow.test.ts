// When the checkout page looks at its session again: a paid order until the store named it, a return from the
// processor briskly, a pending or failed payment quietly (a late success still arrives), nothing else.
import { describe, expect, it } from 'vitest';
import { nextLookMs, returnedFromProcessor } from './follow.js';
import { refusesCode } from './steps/form/DiscountCode.js';

describe('following the session', () => {
  it('given a paid order / the page looks until the store order is created or refused, less and less often', () => {
    for (const status of ['COMPLETED', 'COD_CONFIRMED'] as const) {
      expect(nextLookMs({ status, storeOrder: null, confirming: false, looks: 0 })).toBe(2_000);
      expect(nextLookMs({ status, storeOrder: 'pending', confirming: true, looks: 1 })).toBe(3_000);
      expect(nextLookMs({ status, storeOrder: 'pending', confirming: false, looks: 20 })).toBe(15_000);
      expect(nextLookMs({ status, storeOrder: 'created', confirming: false, looks: 0 })).toBeNull();
      expect(nextLookMs({ status, storeOrder: 'failed', confirming: false, looks: 0 })).toBeNull();
    }
  });

  it('given the return from the processor / the page looks every 1.5 s whatever the status says yet (a stale failure included)', () => {
    for (const status of ['PAYMENT_PENDING', 'FAILED', 'OPEN'] as const) expect(nextLookMs({ status, storeOrder: null, confirming: true, looks: 9 })).toBe(1_500);
  });

  it('given a pending or failed payment after that / it keeps looking quietly, 3 s growing to 30 s, never giving up', () => {
    for (const status of ['PAYMENT_PENDING', 'FAILED'] as const) {
      expect(nextLookMs({ status, storeOrder: null, confirming: false, looks: 0 })).toBe(3_000);
      expect(nextLookMs({ status, storeOrder: null, confirming: false, looks: 2 })).toBe(6_750);
      expect(nextLookMs({ status, storeOrder: null, confirming: false, looks: 500 })).toBe(30_000);
    }
  });

  it('given an open, refunded or expired checkout / nothing to wait for', () => {
    for (const status of ['OPEN', 'REFUNDED', 'ABANDONED'] as const) expect(nextLookMs({ status, storeOrder: null, confirming: false, looks: 0 })).toBeNull();
  });

  it('given the processor\'s redirect / its payment_id or checkout_status marks the return; other query strings do not', () => {
    expect(returnedFromProcessor('?payment_id=pay_1&checkout_status=success')).toBe(true);
    expect(returnedFromProcessor('?checkout_status=error')).toBe(true);
    expect(returnedFromProcessor('')).toBe(false);
    expect(returnedFromProcessor('?utm_source=mail')).toBe(false);
  });
});

describe('a discount code checked again', () => {
  it('given a refusal / only a verdict on the code drops it; the checkout having moved on, the network or a limit keep it', () => {
    for (const code of ['DISCOUNT_UNKNOWN', 'DISCOUNT_EXPIRED', 'DISCOUNT_USED_UP', 'DISCOUNT_MINIMUM_NOT_MET', 'DISCOUNT_ALREADY_USED', 'INVALID_INPUT']) expect(refusesCode(code), code).toBe(true);
    for (const code of ['CONFLICT', 'NETWORK', 'RATE_LIMITED', 'INTERNAL_ERROR', 'NOT_FOUND']) expect(refusesCode(code), code).toBe(false);
  });
});
