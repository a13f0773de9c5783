import { describe, expect, it } from 'vitest';
import { judgePayment, type ObservedPayment } from './payment-check.js';

const paid = (over: Partial<ObservedPayment> = {}): ObservedPayment => ({ state: 'paid', amountMinor: 5470, currency: 'EUR', refundedMinor: 0, disputed: false, ...over });
const expected = { amountMinor: 5470, currency: 'EUR' };

describe('whether a reported payment can become the order it pays for', () => {
  it('given the payment paid in full, in the checkout\'s currency / paid', () => {
    expect(judgePayment(paid(), expected)).toEqual({ verdict: 'paid' });
    expect(judgePayment(paid({ currency: 'eur' }), expected)).toEqual({ verdict: 'paid' });
  });
  it('given no payment, or one pending or failed / unpaid (a membership event alone is not money)', () => {
    expect(judgePayment(null, expected)).toEqual({ verdict: 'unpaid' });
    expect(judgePayment(paid({ state: 'pending' }), expected)).toEqual({ verdict: 'unpaid' });
    expect(judgePayment(paid({ state: 'failed' }), expected)).toEqual({ verdict: 'unpaid' });
  });
  it('given the payment refunded, in full or in part, before the order / held: payment_refunded', () => {
    expect(judgePayment(paid({ state: 'refunded', refundedMinor: 5470 }), expected)).toMatchObject({ verdict: 'held', reason: 'payment_refunded' });
    expect(judgePayment(paid({ refundedMinor: 100 }), expected)).toMatchObject({ verdict: 'held', reason: 'payment_refunded', message: expect.stringContaining('€1.00') });
  });
  it('given a dispute / held: payment_disputed', () => {
    expect(judgePayment(paid({ disputed: true }), expected)).toMatchObject({ verdict: 'held', reason: 'payment_disputed' });
  });
  it('given less or more than the total / held: amount_mismatch, both amounts named', () => {
    expect(judgePayment(paid({ amountMinor: 100 }), expected)).toMatchObject({ verdict: 'held', reason: 'amount_mismatch', message: expect.stringMatching(/paid €1\.00.*€54\.70/) });
    expect(judgePayment(paid({ amountMinor: 5471 }), expected)).toMatchObject({ verdict: 'held', reason: 'amount_mismatch' });
  });
  it('given another currency / held: currency_mismatch', () => {
    expect(judgePayment(paid({ currency: 'USD' }), expected)).toMatchObject({ verdict: 'held', reason: 'currency_mismatch' });
  });
});
