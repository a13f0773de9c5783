import { describe, expect, it } from 'vitest';
import { nextUpsellState, upsellOrderKey, upsellOutcomeOfEvent, UPSELL_PURCHASE_STATES, type UpsellChargeOutcome } from './upsell-purchase.js';

describe('an upsell purchase moved by the processor', () => {
  it.each<[string, UpsellChargeOutcome | undefined]>([
    ['payment_succeeded', 'paid'], ['payment.failed', 'failed'], ['payment_failed', 'failed'], ['payment.refunded', 'refunded'],
    ['membership_went_valid', 'paid'], ['refund.created', undefined], ['anything', undefined],
  ])('reads %s as %s', (event, outcome) => expect(upsellOutcomeOfEvent(event)).toBe(outcome));

  it('lets a success win except after a refund, never undoes a success with a failure, refunds only a paid charge', () => {
    const table = Object.fromEntries(UPSELL_PURCHASE_STATES.map((s) => [s, (['pending', 'paid', 'failed', 'refunded'] as const).map((o) => nextUpsellState(s, o))]));
    expect(table).toEqual({
      PENDING: ['PENDING', 'PAID', 'FAILED', 'PENDING'],
      PAID: ['PAID', 'PAID', 'PAID', 'REFUNDED'],
      FAILED: ['FAILED', 'PAID', 'FAILED', 'FAILED'],
      REFUNDED: ['REFUNDED', 'REFUNDED', 'REFUNDED', 'REFUNDED'],
    });
  });

  it('keys its store order apart from the checkout\'s, within the plugin\'s lookup pattern', () => {
    const key = upsellOrderKey(`cs_${'a'.repeat(32)}`, '7f0b8c2e-3c4d-4e5f-8a9b-0c1d2e3f4a5b');
    expect(key).toMatch(/^[A-Za-z0-9_-]{8,128}$/);
    expect(key.startsWith('cs_')).toBe(true);
  });
});
