import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canTransition, CHECKOUT_STATUSES, isCheckoutStatus, isOpen, countsAsRevenue, isClosedToShopper, type CheckoutStatus } from './checkout-status.js';
import { refundableMinor, refundRefusal, type RefundBalance } from './refunds.js';
import { applyProcessorEvent, DEVIATIONS, PROCESSOR_EVENTS } from './processor-events.js';

const O = 'OPEN', P = 'PAYMENT_PENDING', D = 'COD_CONFIRMED', C = 'COMPLETED', H = 'ON_HOLD', F = 'FAILED', R = 'REFUNDED', A = 'ABANDONED';

// Every (status × event) pair, written out so that any change to the machine has to change this table.
// The last column is an event the machine does not know.
const EVENTS = [
  'invoice_paid', 'payment_succeeded', 'membership_activated', 'membership_went_valid',
  'payment.failed', 'payment_failed', 'invoice_payment_failed',
  'payment.refunded', 'payment_refunded', 'invoice_refunded',
  'payment.pending',
] as const;
const EXPECTED: Record<CheckoutStatus, readonly CheckoutStatus[]> = {
  // Taken at their word (no facts: a success is a good payment, a refund a full one).
  //                succeeded ×4      failed ×3   refunded ×3  unknown
  OPEN:            [C, C, C, C,       F, F, F,    O, O, O,     O],
  PAYMENT_PENDING: [C, C, C, C,       F, F, F,    P, P, P,     P],
  COD_CONFIRMED:   [C, C, C, C,       D, D, D,    D, D, D,     D], // failure: deviation (see DEVIATIONS)
  COMPLETED:       [C, C, C, C,       C, C, C,    R, R, R,     C],
  ON_HOLD:         [C, C, C, C,       H, H, H,    R, R, R,     H], // a held payment shown good again completes
  FAILED:          [C, C, C, C,       F, F, F,    F, F, F,     F],
  REFUNDED:        [R, R, R, R,       R, R, R,    R, R, R,     R], // success: never back from a refund (deviation)
  ABANDONED:       [C, C, C, C,       F, F, F,    A, A, A,     A],
};

// Endpoint- and timer-driven transitions: from → the statuses it may go to.
const ALLOWED: Record<CheckoutStatus, readonly CheckoutStatus[]> = {
  OPEN: [P, C, D, A],
  PAYMENT_PENDING: [A],
  COD_CONFIRMED: [],
  COMPLETED: [R],
  ON_HOLD: [R],
  FAILED: [P, C, D, A],
  REFUNDED: [],
  ABANDONED: [],
};

describe('checkout session status on processor events', () => {
  it('covers every status and every event the machine knows', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...CHECKOUT_STATUSES].sort());
    expect(EVENTS.slice(0, -1)).toEqual([...PROCESSOR_EVENTS]);
  });
  const pairs = CHECKOUT_STATUSES.flatMap((status) => EVENTS.map((event, i) => [status, event, EXPECTED[status][i]] as const));
  it.each(pairs)('given a %s session, when %s arrives, it becomes %s', (status, event, next) => {
    const outcome = applyProcessorEvent(status, event);
    expect(outcome).toEqual({
      next,
      changed: next !== status,
      effect: next === C && status !== C ? 'create_order' : next === H && status !== H ? 'hold' : 'none',
    });
  });

  const HELD = ['payment_refunded', 'payment_disputed', 'amount_mismatch', 'currency_mismatch'] as const;
  // After a success event the processor shows the payment held: every session that could still become an order is held.
  const ON_HELD_SUCCESS: Record<CheckoutStatus, CheckoutStatus> = { OPEN: H, PAYMENT_PENDING: H, COD_CONFIRMED: D, COMPLETED: C, ON_HOLD: H, FAILED: H, REFUNDED: R, ABANDONED: H };
  it.each(CHECKOUT_STATUSES.flatMap((status) => HELD.map((reason) => [status, reason, ON_HELD_SUCCESS[status]] as const)))(
    'given a %s session, when a success arrives whose payment the processor shows %s, it becomes %s (no order)',
    (status, reason, next) => {
      const outcome = applyProcessorEvent(status, 'payment_succeeded', { payment: reason });
      expect(outcome).toEqual({ next, changed: next !== status, effect: next === H && status !== H ? 'hold' : 'none' });
    },
  );
  it.each(CHECKOUT_STATUSES)('given a %s session, when a success arrives with no paid payment behind it, nothing changes', (status) => {
    expect(applyProcessorEvent(status, 'membership_activated', { payment: 'unpaid' })).toEqual({ next: status, changed: false, effect: 'none' });
  });
  it.each<CheckoutStatus>([C, H])('given a %s session, when a refund arrives that the processor shows partial, it stays %s', (status) => {
    expect(applyProcessorEvent(status, 'payment_refunded', { fullyRefunded: false })).toEqual({ next: status, changed: false, effect: 'none' });
    expect(applyProcessorEvent(status, 'payment_refunded', { fullyRefunded: true }).next).toBe(R);
  });
  it('documents its deviations from the spec', () => {
    expect(DEVIATIONS.join(' ')).toContain('REFUNDED');
  });

  const status = fc.constantFrom(...CHECKOUT_STATUSES);
  const event = fc.oneof(fc.constantFrom(...PROCESSOR_EVENTS), fc.string({ maxLength: 24 }));
  const facts = fc.record({ payment: fc.constantFrom('paid', 'unpaid', ...HELD), fullyRefunded: fc.boolean() }, { requiredKeys: [] });
  it('never moves a COMPLETED session to FAILED, a REFUNDED one anywhere, and refunds only paid sessions (COMPLETED, ON_HOLD)', () => {
    fc.assert(fc.property(status, fc.array(fc.tuple(event, facts), { maxLength: 20 }), (start, events) => {
      let current: CheckoutStatus = start;
      for (const [e, f] of events) {
        const { next } = applyProcessorEvent(current, e, f);
        if (current === C) expect(next).not.toBe(F);
        if (current === R) expect(next).toBe(R);
        if (next === R && current !== R) expect([C, H]).toContain(current);
        current = next;
      }
    }));
  });
  it('changes nothing on a duplicate delivery', () => {
    fc.assert(fc.property(status, event, (start, e) => {
      const once = applyProcessorEvent(start, e).next;
      expect(applyProcessorEvent(once, e)).toEqual({ next: once, changed: false, effect: 'none' });
    }));
  });
});

describe('checkout session status on endpoints and timers', () => {
  const pairs = CHECKOUT_STATUSES.flatMap((from) => CHECKOUT_STATUSES.map((to) => [from, to, ALLOWED[from].includes(to)] as const));
  it.each(pairs)('%s → %s allowed: %s', (from, to, allowed) => expect(canTransition(from, to)).toBe(allowed));

  it('tells open sessions from those the shopper is done with', () => {
    expect(CHECKOUT_STATUSES.filter(isOpen)).toEqual([O, P, F]);
    expect(CHECKOUT_STATUSES.filter(isClosedToShopper)).toEqual([D, C, H, R, A]);
    expect(CHECKOUT_STATUSES.filter(countsAsRevenue)).toEqual([C]);
  });
  it('recognises statuses', () => {
    expect(isCheckoutStatus('COD_CONFIRMED')).toBe(true);
    expect(isCheckoutStatus('completed')).toBe(false);
    expect(isCheckoutStatus(undefined)).toBe(false);
  });
});

describe('who may ask for a refund, and how much', () => {
  const paid = (over: Partial<RefundBalance> = {}): RefundBalance => ({ status: C, paymentMethod: 'card', totalMinor: 5470, refundedMinor: 0, pendingMinor: 0, ...over });
  it('given a COMPLETED card payment never refunded / the whole or any part of it may be refunded', () => {
    expect(refundRefusal(paid())).toBeNull();
    expect(refundRefusal(paid(), 100)).toBeNull();
    expect(refundRefusal(paid(), 5470)).toBeNull();
    expect(refundableMinor(paid())).toBe(5470);
  });
  it('given a payment held for review (ON_HOLD) / it can be refunded', () => {
    expect(refundRefusal(paid({ status: H }), 5470)).toBeNull();
  });
  it('given earlier partial refunds, some still pending / only what is left, and more is REFUND_EXCEEDS_BALANCE with what is left', () => {
    const b = paid({ refundedMinor: 100, pendingMinor: 370 });
    expect(refundableMinor(b)).toBe(5000);
    expect(refundRefusal(b, 5000)).toBeNull();
    expect(refundRefusal(b, 5001)).toMatchObject({ code: 'REFUND_EXCEEDS_BALANCE', refundableMinor: 5000 });
  });
  it('given everything refunded or on its way back / REFUND_ALREADY_REQUESTED', () => {
    expect(refundRefusal(paid({ refundedMinor: 5000, pendingMinor: 470 }))).toEqual({ code: 'REFUND_ALREADY_REQUESTED', message: 'The rest of this order is already being refunded' });
    expect(refundRefusal(paid({ status: R, refundedMinor: 5470 }))).toEqual({ code: 'REFUND_ALREADY_REQUESTED', message: 'This order is already refunded in full' });
  });
  it.each<CheckoutStatus>([O, P, F, A])('given a %s session / NOT_REFUNDABLE', (status) => {
    expect(refundRefusal(paid({ status }))?.code).toBe('NOT_REFUNDABLE');
  });
  it('given a cash-on-delivery order / NOT_REFUNDABLE, even if a late card success made it COMPLETED', () => {
    expect(refundRefusal(paid({ status: D, paymentMethod: 'cod' }))?.code).toBe('NOT_REFUNDABLE');
    expect(refundRefusal(paid({ paymentMethod: 'cod' }))?.code).toBe('NOT_REFUNDABLE');
  });
  it('given a COMPLETED order with nothing to pay (total 0) / NOT_REFUNDABLE', () => {
    expect(refundRefusal(paid({ paymentMethod: 'free', totalMinor: 0 }))).toMatchObject({ code: 'NOT_REFUNDABLE', message: expect.stringContaining('nothing to refund') });
  });
  it('never allows more than the charge, however the refunds add up', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 10_000 }), fc.array(fc.integer({ min: 1, max: 10_000 }), { maxLength: 8 }), (total, asks) => {
      let refunded = 0;
      for (const ask of asks) {
        if (refundRefusal(paid({ totalMinor: total, refundedMinor: refunded }), ask) === null) refunded += ask;
      }
      expect(refunded).toBeLessThanOrEqual(total);
    }));
  });
});
