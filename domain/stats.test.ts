import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CHECKOUT_STATUSES } from './checkout/checkout-status.js';
import { milestonesOfEvent, ORDER_VIEWS, summarizeFunnel, summarizeStats, type StatsGroup } from './stats.js';

describe('milestones of timeline events', () => {
  it('given each event the checkout records / it marks the funnel step it stands for and the steps before', () => {
    const all = ['contactEnteredAt', 'shippingChosenAt', 'paymentStartedAt'];
    expect(milestonesOfEvent('contact_entered', {})).toEqual(['contactEnteredAt']);
    expect(milestonesOfEvent('shipping_chosen', {})).toEqual(['contactEnteredAt', 'shippingChosenAt']);
    expect(milestonesOfEvent('details_entered', { totalMinor: 100 })).toEqual(['contactEnteredAt', 'shippingChosenAt']);
    expect(milestonesOfEvent('payment_started', { attempt: 2 })).toEqual(all);
    expect(milestonesOfEvent('cod_confirmed', {})).toEqual(all);
    // ON_HOLD: the shopper paid (the payment is held before its order): the checkout got that far.
    for (const to of ['COMPLETED', 'REFUNDED', 'COD_CONFIRMED', 'ON_HOLD']) expect(milestonesOfEvent('status_changed', { from: 'OPEN', to })).toEqual(all);
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
    refunds: fc.integer({ min: 0, max: 50 }),
    refundedShare: fc.double({ min: 0, max: 0.99, noNaN: true }),
  })
  .map(({ currency, status, sessions, cuts, totalMinor, refunds, refundedShare }): StatsGroup => {
    const [contact, shipping, payment, codPaid] = cuts.map((c) => Math.min(c, sessions)).sort((x, y) => y - x) as [number, number, number, number];
    // Money comes back of card payments only: all of it when REFUNDED, part of it on COMPLETED and ON_HOLD ones.
    const withRefunds = status === 'REFUNDED' ? sessions : status === 'COMPLETED' || status === 'ON_HOLD' ? Math.min(refunds, sessions) : 0;
    const refundedMinor = status === 'REFUNDED' ? totalMinor : withRefunds > 0 ? Math.floor(totalMinor * refundedShare) : 0;
    return {
      currency, status, sessions, contactEntered: contact, shippingChosen: shipping, paymentStarted: payment, codPaid: status === 'COD_CONFIRMED' ? codPaid : 0, totalMinor,
      codPaidMinor: status === 'COD_CONFIRMED' ? Math.floor((totalMinor * codPaid) / sessions) : 0, withRefunds, refundedMinor,
    };
  });

const sum = <T>(list: readonly T[], of: (x: T) => number) => list.reduce((n, x) => n + of(x), 0);
const of = <T extends { currency: string }>(list: readonly T[], currency: string) => list.find((x) => x.currency === currency);

describe('statistics and funnel from grouped sessions', () => {
  it('given any sessions / the funnel never grows, starts at all sessions and ends at completed + COD orders + held payments; revenue, refunds and holds add up', () => {
    fc.assert(
      fc.property(fc.array(group, { maxLength: 30 }), (groups) => {
        const stats = summarizeStats(groups);
        const steps = summarizeFunnel(groups);
        expect(steps[0]!.sessions).toBe(stats.sessions);
        for (let i = 1; i < steps.length; i++) expect(steps[i]!.sessions).toBeLessThanOrEqual(steps[i - 1]!.sessions);
        // A held payment was paid by the shopper: it converted, as the funnel's last step says.
        expect(steps[4]!.sessions).toBe(stats.completedOrders + stats.codOrders + stats.heldOrders);
        expect(stats.conversionRate).toBe(steps[4]!.overallConversion ?? 0);
        // "Paid" is money kept: the totals and any breakdown agree, refunds included.
        expect(stats.paidOrders + stats.refundedOrders).toBe(stats.completedOrders);
        expect(sum(stats.revenue, (r) => r.orders)).toBe(stats.paidOrders);
        expect(sum(stats.revenue, (r) => r.partiallyRefundedOrders)).toBe(stats.partiallyRefundedOrders);
        expect(stats.partiallyRefundedOrders).toBeLessThanOrEqual(stats.paidOrders);
        expect(sum(stats.refunds, (r) => r.fullyRefundedOrders)).toBe(stats.refundedOrders);
        expect(sum(stats.held, (h) => h.orders)).toBe(stats.heldOrders);
        expect(stats.conversionRate).toBeGreaterThanOrEqual(0);
        expect(stats.conversionRate).toBeLessThanOrEqual(1);
        for (const r of stats.revenue) {
          // Revenue is money kept: what was charged less what came back; the average is over that.
          expect(r.amountMinor).toBe(r.grossMinor - r.refundedMinor);
          expect(Math.abs(r.averageOrderValueMinor * r.orders - r.amountMinor)).toBeLessThanOrEqual(r.orders / 2);
        }
        // Every unit given back is in refunds, once: partial refunds of paid orders, full refunds, refunds of held payments.
        const currencies = new Set(groups.map((g) => g.currency));
        for (const c of currencies) {
          const back = (of(stats.revenue, c)?.refundedMinor ?? 0) + (of(stats.refunds, c)?.fullyRefundedMinor ?? 0) + (of(stats.held, c)?.refundedMinor ?? 0);
          expect(of(stats.refunds, c)?.amountMinor ?? 0).toBe(back);
          expect(of(stats.refunds, c)?.amountMinor ?? 0).toBe(sum(groups.filter((g) => g.currency === c), (g) => g.refundedMinor));
        }
      }),
    );
  });

  const g = (currency: string, status: string, sessions: number, totalMinor: number, more: Partial<StatsGroup> = {}): StatsGroup =>
    ({ currency, status, sessions, contactEntered: sessions, shippingChosen: sessions, paymentStarted: sessions, codPaid: 0, totalMinor, codPaidMinor: 0, withRefunds: 0, refundedMinor: 0, ...more });

  it('given refunded and COD orders / they convert but are not revenue; COD value is apart, split by collection', () => {
    const stats = summarizeStats([
      g('EUR', 'COMPLETED', 3, 1000),
      g('EUR', 'REFUNDED', 1, 999, { withRefunds: 1, refundedMinor: 999 }),
      g('EUR', 'COD_CONFIRMED', 3, 1000, { codPaid: 2, codPaidMinor: 700 }),
      g('JPY', 'ABANDONED', 3, 5000),
    ]);
    expect(stats).toEqual({
      sessions: 10,
      paidOrders: 3,
      completedOrders: 4,
      refundedOrders: 1,
      partiallyRefundedOrders: 0,
      codOrders: 3,
      heldOrders: 0,
      conversionRate: 0.7,
      revenue: [{ currency: 'EUR', orders: 3, amountMinor: 1000, averageOrderValueMinor: 333, grossMinor: 1000, refundedMinor: 0, partiallyRefundedOrders: 0 }],
      refunds: [{ currency: 'EUR', orders: 1, amountMinor: 999, fullyRefundedOrders: 1, fullyRefundedMinor: 999 }],
      held: [],
      cod: [{ currency: 'EUR', orders: 3, amountMinor: 1000, collectedOrders: 2, collectedAmountMinor: 700 }],
    });
  });

  it('given one order paid and then refunded / it is refunded, not paid: no paid order, no revenue, one completed', () => {
    const refunded = g('EUR', 'REFUNDED', 1, 5890, { withRefunds: 1, refundedMinor: 5890 });
    expect(summarizeStats([refunded])).toMatchObject({ paidOrders: 0, refundedOrders: 1, completedOrders: 1, revenue: [], refunds: [{ currency: 'EUR', orders: 1, amountMinor: 5890, fullyRefundedOrders: 1, fullyRefundedMinor: 5890 }] });
  });

  it('given paid orders refunded in part, in two currencies / revenue is the money kept, the average over it; the refunds are reported per currency', () => {
    // EUR: 4 paid orders of €50.00 in all (€200.00), 2 of them with €30.00 given back between them; one €80.00 order refunded in full.
    // SEK: 1 paid order of 1,000.00 kr with 250.00 kr given back.
    const stats = summarizeStats([
      g('EUR', 'COMPLETED', 4, 20_000, { withRefunds: 2, refundedMinor: 3_000 }),
      g('EUR', 'REFUNDED', 1, 8_000, { withRefunds: 1, refundedMinor: 8_000 }),
      g('SEK', 'COMPLETED', 1, 100_000, { withRefunds: 1, refundedMinor: 25_000 }),
    ]);
    expect(stats).toMatchObject({ paidOrders: 5, partiallyRefundedOrders: 3, refundedOrders: 1, completedOrders: 6, heldOrders: 0, conversionRate: 1 });
    expect(stats.revenue).toEqual([
      // Not €200.00: €170.00 is what the merchant keeps; the average order €42.50, not €50.00.
      { currency: 'EUR', orders: 4, amountMinor: 17_000, averageOrderValueMinor: 4_250, grossMinor: 20_000, refundedMinor: 3_000, partiallyRefundedOrders: 2 },
      { currency: 'SEK', orders: 1, amountMinor: 75_000, averageOrderValueMinor: 75_000, grossMinor: 100_000, refundedMinor: 25_000, partiallyRefundedOrders: 1 },
    ]);
    // What the processor gave back: €30.00 in part and €80.00 in full (€110.00 on 3 orders); 250.00 kr in part.
    expect(stats.refunds).toEqual([
      { currency: 'EUR', orders: 3, amountMinor: 11_000, fullyRefundedOrders: 1, fullyRefundedMinor: 8_000 },
      { currency: 'SEK', orders: 1, amountMinor: 25_000, fullyRefundedOrders: 0, fullyRefundedMinor: 0 },
    ]);
  });

  it('given payments on hold / counted apart (with what was given back of them): never paid, never revenue, but converted', () => {
    const stats = summarizeStats([
      g('EUR', 'COMPLETED', 1, 5_000),
      g('EUR', 'ON_HOLD', 2, 9_000, { withRefunds: 1, refundedMinor: 500 }),
      g('USD', 'ON_HOLD', 1, 4_200),
      g('USD', 'ABANDONED', 1, 4_200),
    ]);
    expect(stats).toMatchObject({ sessions: 5, paidOrders: 1, completedOrders: 1, heldOrders: 3, conversionRate: 0.8 });
    expect(stats.revenue).toEqual([{ currency: 'EUR', orders: 1, amountMinor: 5_000, averageOrderValueMinor: 5_000, grossMinor: 5_000, refundedMinor: 0, partiallyRefundedOrders: 0 }]);
    expect(stats.held).toEqual([
      { currency: 'EUR', orders: 2, amountMinor: 9_000, refundedMinor: 500 },
      { currency: 'USD', orders: 1, amountMinor: 4_200, refundedMinor: 0 },
    ]);
    // The €5.00 given back of a held payment is a refund the processor reports: it is in refunds too.
    expect(stats.refunds).toEqual([{ currency: 'EUR', orders: 1, amountMinor: 500, fullyRefundedOrders: 0, fullyRefundedMinor: 0 }]);
    expect(summarizeFunnel([g('EUR', 'ON_HOLD', 2, 9_000), g('EUR', 'ABANDONED', 2, 0, { paymentStarted: 0 })]).map((s) => s.sessions)).toEqual([4, 4, 4, 2, 2]);
  });

  it('given a paid session without contact or shipping milestones (an older row) / it still counts at every step', () => {
    const legacy = g('EUR', 'COMPLETED', 2, 0, { contactEntered: 0, shippingChosen: 0, paymentStarted: 1 });
    const left = g('EUR', 'ABANDONED', 5, 0, { contactEntered: 3, shippingChosen: 2, paymentStarted: 1 });
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
