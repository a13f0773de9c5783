import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  applyProcessorEvent, canTransition, CHECKOUT_STATUSES, DEVIATIONS, isCheckoutStatus, isOpen, isPaid, isTerminal, PROCESSOR_EVENTS,
  refundRefusal, type CheckoutStatus,
} from './checkout-status.js';

const O = 'OPEN', P = 'PAYMENT_PENDING', D = 'COD_CONFIRMED', C = 'COMPLETED', F = 'FAILED', R = 'REFUNDED', A = 'ABANDONED';

// Every (status × event) pair, written out so that any change to the machine has to change this table.
// The last column is an event the machine does not know.
const EVENTS = [
  'invoice_paid', 'payment_succeeded', 'membership_activated', 'membership_went_valid',
  'payment.failed', 'payment_failed', 'invoice_payment_failed',
  'payment.refunded', 'payment_refunded', 'invoice_refunded',
  'payment.pending',
] as const;
const EXPECTED: Record<CheckoutStatus, readonly CheckoutStatus[]> = {
  //                succeeded ×4      failed ×3   refunded ×3  unknown
  OPEN:            [C, C, C, C,       F, F, F,    O, O, O,     O],
  PAYMENT_PENDING: [C, C, C, C,       F, F, F,    P, P, P,     P],
  COD_CONFIRMED:   [C, C, C, C,       D, D, D,    D, D, D,     D], // failure: deviation (see DEVIATIONS)
  COMPLETED:       [C, C, C, C,       C, C, C,    R, R, R,     C],
  FAILED:          [C, C, C, C,       F, F, F,    F, F, F,     F],
  REFUNDED:        [C, C, C, C,       R, R, R,    R, R, R,     R], // success: spec's "any"; failure: deviation
  ABANDONED:       [C, C, C, C,       F, F, F,    A, A, A,     A],
};

// Endpoint- and timer-driven transitions: from → the statuses it may go to.
const ALLOWED: Record<CheckoutStatus, readonly CheckoutStatus[]> = {
  OPEN: [P, C, D, A],
  PAYMENT_PENDING: [A],
  COD_CONFIRMED: [],
  COMPLETED: [R],
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
      effect: next === C && status !== C ? 'create_order' : 'none',
    });
  });
  it('documents its deviations from the spec', () => {
    expect(DEVIATIONS.join(' ')).toContain('REFUNDED');
  });

  const status = fc.constantFrom(...CHECKOUT_STATUSES);
  const event = fc.oneof(fc.constantFrom(...PROCESSOR_EVENTS), fc.string({ maxLength: 24 }));
  it('never moves a COMPLETED session to FAILED, and refunds only COMPLETED sessions', () => {
    fc.assert(fc.property(status, fc.array(event, { maxLength: 20 }), (start, events) => {
      let current: CheckoutStatus = start;
      for (const e of events) {
        const { next } = applyProcessorEvent(current, e);
        if (current === C) expect(next).not.toBe(F);
        if (next === R && current !== R) expect(current).toBe(C);
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
    expect(CHECKOUT_STATUSES.filter(isTerminal)).toEqual([D, C, R, A]);
    expect(CHECKOUT_STATUSES.filter(isPaid)).toEqual([C]);
  });
  it('recognises statuses', () => {
    expect(isCheckoutStatus('COD_CONFIRMED')).toBe(true);
    expect(isCheckoutStatus('completed')).toBe(false);
    expect(isCheckoutStatus(undefined)).toBe(false);
  });
});

describe('who may ask for a refund', () => {
  it('given a COMPLETED card payment never refunded / a refund may be asked for', () => {
    expect(refundRefusal({ status: C, refundRequested: false, paymentMethod: 'card' })).toBeNull();
  });
  it.each<CheckoutStatus>([O, P, F, A])('given a %s session / NOT_REFUNDABLE', (status) => {
    expect(refundRefusal({ status, refundRequested: false })?.code).toBe('NOT_REFUNDABLE');
  });
  it('given a cash-on-delivery order / NOT_REFUNDABLE, even if a late card success made it COMPLETED', () => {
    expect(refundRefusal({ status: D, refundRequested: false, paymentMethod: 'cod' })?.code).toBe('NOT_REFUNDABLE');
    expect(refundRefusal({ status: C, refundRequested: false, paymentMethod: 'cod' })?.code).toBe('NOT_REFUNDABLE');
  });
  it('given a COMPLETED order with nothing to pay (total 0) / NOT_REFUNDABLE', () => {
    expect(refundRefusal({ status: C, refundRequested: false, paymentMethod: 'free' })).toMatchObject({ code: 'NOT_REFUNDABLE', message: expect.stringContaining('nothing to refund') });
  });
  it('given a refund asked for or done / REFUND_ALREADY_REQUESTED, whatever else is true', () => {
    fc.assert(fc.property(fc.constantFrom(...CHECKOUT_STATUSES), fc.constantFrom('card', 'cod', null), (status, paymentMethod) => {
      expect(refundRefusal({ status, refundRequested: true, paymentMethod })?.code).toBe('REFUND_ALREADY_REQUESTED');
    }));
    expect(refundRefusal({ status: R, refundRequested: false })).toEqual({ code: 'REFUND_ALREADY_REQUESTED', message: 'This order is already refunded' });
  });
});
