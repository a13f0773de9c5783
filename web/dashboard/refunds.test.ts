import { describe, expect, it } from 'vitest';
import { readableAmounts } from './format.js';
import { dialogField, emptyDraft, inFlight, orderStatus, refundRequest, storeOrderStatusLabel, storeState, type OrderRefund, type RefundOrder } from './refunds.js';

const line = (title: string, quantity: number, unitPrice: number) => ({ title, variantTitle: null, quantity, unitPrice, orderBump: false });
const refund = (over: Partial<OrderRefund>): OrderRefund => ({
  id: 'rf1', amount: 1000, currency: 'EUR', reason: null, restock: false, lines: [], origin: 'merchant', state: 'succeeded', failureReason: null,
  processorRefundId: null, store: { state: 'created', refundId: null, error: null }, createdAt: '2026-11-20T10:00:00.000Z', succeededAt: null, ...over,
});

/** An order of 2 × €12.00 and 1 × €30.00 (€54.00), €50.00 of it left to refund. */
const order = (over: Partial<RefundOrder> = {}): RefundOrder => ({ items: [line('Mug', 2, 1200), line('Lamp', 1, 3000)], refunds: [], refundableMinor: 5000, currency: 'EUR', ...over });

describe('the order status in words', () => {
  it('given a paid order with part of it given back / it reads "Partially refunded" with how much; without refunds "Paid"; held "On hold" with why', () => {
    expect(orderStatus({ status: 'COMPLETED', refundedMinor: 500, totals: { currency: 'EUR' } })).toEqual({ key: 'PARTIALLY_REFUNDED', label: 'Partially refunded', note: '€5.00 refunded' });
    expect(orderStatus({ status: 'COMPLETED', refundedMinor: 0, totals: { currency: 'EUR' } })).toEqual({ key: 'COMPLETED', label: 'Paid', note: null });
    // Without the currency the words stand alone.
    expect(orderStatus({ status: 'COMPLETED', refundedMinor: 500 })).toEqual({ key: 'PARTIALLY_REFUNDED', label: 'Partially refunded', note: null });
    expect(orderStatus({ status: 'COMPLETED' }).label).toBe('Paid');
    expect(orderStatus({ status: 'ON_HOLD', hold: { reason: 'payment_disputed' } })).toEqual({ key: 'ON_HOLD', label: 'On hold', note: 'payment disputed' });
    expect(orderStatus({ status: 'ON_HOLD', refundedMinor: 500, totals: { currency: 'EUR' }, hold: { reason: 'payment_refunded' } }))
      .toEqual({ key: 'ON_HOLD', label: 'On hold', note: 'refunded before the order' });
    // Refunded in full: the status says it all.
    expect(orderStatus({ status: 'REFUNDED', refundedMinor: 5400, totals: { currency: 'EUR' } })).toEqual({ key: 'REFUNDED', label: 'Refunded', note: null });
  });

  it("given the store's own word on its order / Shopify's and WooCommerce's statuses read as words", () => {
    expect(storeOrderStatusLabel('partially_refunded')).toBe('Partially refunded');
    expect(storeOrderStatusLabel('processing')).toBe('Processing');
    expect(storeOrderStatusLabel('ready_for_pickup')).toBe('Ready for pickup');
  });

  it('given amounts the API writes in minor units / they read as money, the rest of the sentence unchanged', () => {
    expect(readableAmounts('The shopper paid 5841 EUR (minor units), the checkout\'s total is 6000 EUR (minor units): no order was created'))
      .toBe('The shopper paid €58.41, the checkout\'s total is €60.00: no order was created');
    expect(readableAmounts('Refund of 12 ordered items')).toBe('Refund of 12 ordered items');
  });
});

describe('where a refund stands', () => {
  it('given each state / a refund is followed until the processor confirmed it and the store booked it', () => {
    expect(inFlight(refund({ state: 'requested', store: { state: 'pending', refundId: null, error: null } }))).toBe(true);
    expect(inFlight(refund({ state: 'succeeded', store: { state: 'pending', refundId: null, error: null } }))).toBe(true);
    expect(inFlight(refund({ state: 'succeeded', store: { state: 'failed', refundId: null, error: 'no' } }))).toBe(false);
    expect(inFlight(refund({ state: 'failed', store: { state: 'pending', refundId: null, error: null } }))).toBe(false);
    expect(storeState(refund({ state: 'requested', store: { state: 'pending', refundId: null, error: null } })).label).toBe('Booked once the money is back');
    expect(storeState(refund({ store: { state: 'failed', refundId: null, error: 'no' } })).label).toBe('The store refused it');
  });
});

describe('the refund dialog', () => {
  it('given nothing changed / everything left is refunded with an empty body', () => {
    expect(refundRequest(order(), emptyDraft())).toEqual({ ok: true, body: {}, amountMinor: 5000 });
  });

  it('given everything left with returned items / the amount is sent explicitly (lines alone would refund only their value), restock with them', () => {
    const r = refundRequest(order(), { ...emptyDraft(), quantities: { 1: '1' }, restock: true, reason: '  Broken  ' });
    expect(r).toEqual({ ok: true, body: { amountMinor: 5000, lines: [{ line: 1, quantity: 1 }], restock: true, reason: 'Broken' }, amountMinor: 5000 });
  });

  it('given part of it / the typed amount in the order currency; restock without items is not sent', () => {
    expect(refundRequest(order(), { ...emptyDraft(), mode: 'part', amount: '12,5', restock: true })).toEqual({ ok: true, body: { amountMinor: 1250 }, amountMinor: 1250 });
    expect(refundRequest(order({ currency: 'JPY', refundableMinor: 5000 }), { ...emptyDraft(), mode: 'part', amount: '1200' })).toMatchObject({ body: { amountMinor: 1200 } });
  });

  it('given an amount that is not one, or 0 / the amount field says so and nothing is sent', () => {
    expect(refundRequest(order(), { ...emptyDraft(), mode: 'part', amount: 'abc' })).toEqual({ ok: false, errors: { amount: 'must be an amount like 4.90' } });
    expect(refundRequest(order(), { ...emptyDraft(), mode: 'part', amount: '0' })).toEqual({ ok: false, errors: { amount: 'must be more than 0' } });
    expect(refundRequest(order(), { ...emptyDraft(), mode: 'part', amount: '' })).toEqual({ ok: false, errors: { amount: 'enter an amount' } });
  });

  it('given more items than the line holds, less what earlier refunds gave back / that line\'s field says how many are left', () => {
    const earlier = [refund({ lines: [{ line: 0, quantity: 1 }] }), refund({ id: 'rf2', state: 'failed', lines: [{ line: 0, quantity: 1 }] })];
    expect(refundRequest(order({ refunds: earlier }), { ...emptyDraft(), quantities: { 0: '2' } })).toEqual({ ok: false, errors: { 'line.0': 'at most 1 (1 given back already)' } });
    expect(refundRequest(order(), { ...emptyDraft(), quantities: { 1: '1.5' } })).toEqual({ ok: false, errors: { 'line.1': 'a whole number of items' } });
  });

  it("given the API's field paths / each lands on the dialog's field, lines by the order line they were sent for", () => {
    const sent = { lines: [{ line: 1, quantity: 1 }] };
    expect(dialogField('amountMinor', sent)).toBe('amount');
    expect(dialogField('lines.0.quantity', sent)).toBe('line.1');
    expect(dialogField('lines.3.quantity', sent)).toBeNull();
    expect(dialogField('reason', sent)).toBe('reason');
  });
});
