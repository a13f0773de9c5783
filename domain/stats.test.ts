import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CHECKOUT_STATUSES } from './checkout-status.js';
import { milestonesOfEvent, ORDER_VIEWS, summarizeFunnel, summarizeStats, type StatsGroup } from './stats.js';

describe('milestones of timeline events', () => {
  it('given each event the checkout records / it marks the funnel step it stands for and the steps before', () => {
    const all = ['contactEnteredAt', 'shippingChosenAt', 'paymentStartedAt'];
    expect(milestonesOfEvent('contact_entered', {})).toEqual(['contactEnteredAt']);
    expect(milestonesOfEvent('shipping_chosen', {})).toEqual(['contactEnteredAt', 'shippingChosenAt']);
    expect(milestonesOfEvent('details_entered', { totalMinor: 100 })).toEqual(['contactEnteredAt', 'shippingChosenAt']);
    expect(milestonesOfEvent('payment_started', { attempt: 2 })).toEqual(all);
    expect(milestonesOfEvent('cod_confirmed', {})).toEqual(all);
    for (const to of ['COMPLETED', 'REFUNDED', 'COD_CONFIRMED']) expect(milestonesOfEvent('status_changed', { from: 'OPEN', to })).toEqual(all);
    for (const to of ['PAYMENT_PENDING', 'FAILED', 'ABANDONED']) expect(milestonesOfEvent('status_changed', { from: 'OPEN', to })).toEqual([]);
    for (const type of ['created', 'order_created', 'email_sent', 'webhook_received', 'refund_requested']) expect(milestonesOfEvent(type, {})).toEqual([]);
  });
});

// A group as the stats query answers it: milestones are cumulative, so sessions ≥ contact ≥ shipping ≥ payment
// (an ordered status may lack them on older rows: it counts at every step anyway).
const group = fc
  .record({
    currency: fc.constantFrom('EUR', 'SEK', 'JPY'),
    status: fc.constantFrom(...CHECKOUT_STATUSES),
    sessions: fc.integer({ min: 1, max: 50 }),
    cuts: fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 4, maxLength: 4 }),
    totalMinor: fc.integer({ min: 0, max: 1_000_000 }),
  })
  .map(({ currency, status, sessions, cuts, totalMinor }): StatsGroup => {
    const [contact, shipping, payment, codPaid] = cuts.map((c) => Math.min(c, sessions)).sort((x, y) => y - x) as [number, number, number, number];
    return { currency, status, sessions, contactEntered: contact, shippingChosen: shipping, paymentStarted: payment, codPaid: status === 'COD_CONFIRMED' ? codPaid : 0, totalMinor, codPaidMinor: status === 'COD_CONFIRMED' ? Math.floor((totalMinor * codPaid) / sessions) : 0 };
  });

describe('statistics and funnel from grouped sessions', () => {
  it('given any sessions / the funnel never grows, starts at all sessions and ends at completed + COD orders', () => {
    fc.assert(
      fc.property(fc.array(group, { maxLength: 30 }), (groups) => {
        const stats = summarizeStats(groups);
        const steps = summarizeFunnel(groups);
        expect(steps[0]!.sessions).toBe(stats.sessions);
        for (let i = 1; i < steps.length; i++) expect(steps[i]!.sessions).toBeLessThanOrEqual(steps[i - 1]!.sessions);
        expect(steps[4]!.sessions).toBe(stats.completedOrders + stats.codOrders);
        // "Paid" is money kept: the totals and any breakdown agree, refunds included.
        expect(stats.paidOrders + stats.refundedOrders).toBe(stats.completedOrders);
        expect(stats.revenue.reduce((n, r) => n + r.orders, 0)).toBe(stats.paidOrders);
        expect(stats.conversionRate).toBeGreaterThanOrEqual(0);
        expect(stats.conversionRate).toBeLessThanOrEqual(1);
        for (const r of stats.revenue) expect(Math.abs(r.averageOrderValueMinor * r.orders - r.amountMinor)).toBeLessThanOrEqual(r.orders / 2);
      }),
    );
  });

  it('given refunded and COD orders / they convert but are not revenue; COD value is apart, split by collection', () => {
    const g = (currency: string, status: string, sessions: number, totalMinor: number, codPaid = 0, codPaidMinor = 0): StatsGroup =>
      ({ currency, status, sessions, contactEntered: sessions, shippingChosen: sessions, paymentStarted: sessions, codPaid, totalMinor, codPaidMinor });
    const stats = summarizeStats([
      g('EUR', 'COMPLETED', 3, 1000),
      g('EUR', 'REFUNDED', 1, 999),
      g('EUR', 'COD_CONFIRMED', 3, 1000, 2, 700),
      g('JPY', 'ABANDONED', 3, 5000),
    ]);
    expect(stats).toEqual({
      sessions: 10,
      paidOrders: 3,
      completedOrders: 4,
      refundedOrders: 1,
      codOrders: 3,
      conversionRate: 0.7,
      revenue: [{ currency: 'EUR', orders: 3, amountMinor: 1000, averageOrderValueMinor: 333 }],
      cod: [{ currency: 'EUR', orders: 3, amountMinor: 1000, collectedOrders: 2, collectedAmountMinor: 700 }],
    });
  });

  it('given one order paid and then refunded / it is refunded, not paid: no paid order, no revenue, one completed', () => {
    const refunded: StatsGroup = { currency: 'EUR', status: 'REFUNDED', sessions: 1, contactEntered: 1, shippingChosen: 1, paymentStarted: 1, codPaid: 0, totalMinor: 5890, codPaidMinor: 0 };
    expect(summarizeStats([refunded])).toMatchObject({ paidOrders: 0, refundedOrders: 1, completedOrders: 1, revenue: [] });
  });

  it('given a paid session without contact or shipping milestones (an older row) / it still counts at every step', () => {
    const legacy: StatsGroup = { currency: 'EUR', status: 'COMPLETED', sessions: 2, contactEntered: 0, shippingChosen: 0, paymentStarted: 1, codPaid: 0, totalMinor: 0, codPaidMinor: 0 };
    const left: StatsGroup = { currency: 'EUR', status: 'ABANDONED', sessions: 5, contactEntered: 3, shippingChosen: 2, paymentStarted: 1, codPaid: 0, totalMinor: 0, codPaidMinor: 0 };
    expect(summarizeFunnel([legacy, left]).map((s) => s.sessions)).toEqual([7, 5, 4, 3, 2]);
    expect(summarizeFunnel([]).map((s) => [s.stepConversion, s.overallConversion])).toEqual(Array(5).fill([null, null]));
  });
});

describe('the orders list views', () => {
  it('given every status a session that reached payment can have / it is in exactly one view; an open checkout is in none', () => {
    for (const status of CHECKOUT_STATUSES) {
      const views = Object.entries(ORDER_VIEWS).filter(([, statuses]) => (statuses as readonly string[]).includes(status)).map(([view]) => view);
      expect(views, status).toEqual(status === 'OPEN' ? [] : [['COMPLETED', 'COD_CONFIRMED', 'REFUNDED', 'ON_HOLD'].includes(status) ? 'orders' : 'checkouts']);
    }
    expect(ORDER_VIEWS.orders).toContain('ON_HOLD');
  });
});
