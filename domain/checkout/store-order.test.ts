import { describe, expect, it } from 'vitest';
import { orderNumberLabel, storeOrderOf } from './store-order.js';

describe('the store order of a session', () => {
  it('given a paid session without an order yet / pending (COMPLETED does not mean the order is on the store)', () => {
    for (const status of ['COMPLETED', 'COD_CONFIRMED', 'REFUNDED']) {
      expect(storeOrderOf({ status, storeOrderId: null, storeOrderError: null })).toEqual({ state: 'pending', id: null, number: null, error: null });
    }
  });

  it('given an order id / created, whatever the status', () => {
    expect(storeOrderOf({ status: 'COMPLETED', storeOrderId: '4711', storeOrderNumber: '#1001', storeOrderError: null })).toEqual({ state: 'created', id: '4711', number: '#1001', error: null });
    expect(storeOrderOf({ status: 'REFUNDED', storeOrderId: '4711', storeOrderNumber: '#1001', storeOrderError: null })).toEqual({ state: 'created', id: '4711', number: '#1001', error: null });
  });

  it('given the store refused it for good / failed, with the reason', () => {
    expect(storeOrderOf({ status: 'COMPLETED', storeOrderId: null, storeOrderError: 'out of stock' })).toEqual({ state: 'failed', id: null, number: null, error: 'out of stock' });
  });

  it('given a session that was not paid / no store order to expect', () => {
    for (const status of ['OPEN', 'PAYMENT_PENDING', 'FAILED', 'ABANDONED']) expect(storeOrderOf({ status, storeOrderId: null, storeOrderError: null })).toBeNull();
  });
});

describe('the order number people read', () => {
  it('given the store\'s number / storefront A\'s "#1001" stays as it is, storefront B\'s "57" reads "#57"', () => {
    expect(orderNumberLabel('#1001')).toBe('#1001');
    expect(orderNumberLabel('57')).toBe('#57');
    expect(orderNumberLabel(' 57 ')).toBe('#57');
  });
});
