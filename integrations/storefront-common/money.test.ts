import fc from 'fast-check';
import { MoneyError } from '../../domain/money.js';
import { describe, expect, it } from 'vitest';
import { currencyExponent, decimalToMinor, minorToDecimal } from './money.js';
import { storeOrderInputSchema, type StoreOrderInput } from './order.js';

describe('store prices as decimal strings', () => {
  it('given prices as stores print them, when converted, then they are exact minor units', () => {
    expect(decimalToMinor('24.9', 'EUR')).toBe(2490);
    expect(decimalToMinor('18', 'EUR')).toBe(1800);
    expect(decimalToMinor('0.30', 'EUR')).toBe(30);
    expect(decimalToMinor('19.990', 'EUR')).toBe(1999);
    expect(decimalToMinor('2490', 'JPY')).toBe(2490);
    expect(decimalToMinor('24.900', 'KWD')).toBe(24900);
    expect(decimalToMinor('-5.00', 'EUR')).toBe(-500);
  });

  it('given a price the currency cannot hold or no plain decimal, when converted, then it is refused', () => {
    for (const [value, currency] of [['24.905', 'EUR'], ['24.5', 'JPY'], ['1e3', 'EUR'], ['', 'EUR'], ['12,50', 'EUR'], ['1.00', 'XXZ']]) {
      expect(() => decimalToMinor(value!, currency!), `${value} ${currency}`).toThrow(MoneyError);
    }
  });

  it('given any amount, when printed and read back, then it is unchanged', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), fc.constantFrom('EUR', 'JPY', 'KWD', 'USD'), (minor, currency) => {
        const text = minorToDecimal(minor, currency);
        expect(text.split('.')[1]?.length ?? 0).toBe(currencyExponent(currency));
        expect(decimalToMinor(text, currency)).toBe(minor);
      }),
    );
  });
});

describe('the neutral order input', () => {
  const order: StoreOrderInput = {
    sessionToken: 'cs_1',
    currency: 'EUR',
    email: 'a@example.com',
    shippingAddress: { firstName: 'A', lastName: 'B', line1: 'Street 1', city: 'Berlin', postalCode: '10115', countryCode: 'DE' },
    lines: [{ title: 'Mug', quantity: 2, unitPriceMinor: 1800 }],
    shipping: { title: 'Standard', priceMinor: 490 },
    totals: { subtotalMinor: 3600, shippingMinor: 490, discountMinor: 0, totalMinor: 4090 },
    payment: { method: 'card' },
  };

  it('given totals that add up, when parsed, then it is accepted', () => {
    expect(storeOrderInputSchema.safeParse(order).success).toBe(true);
  });

  it('given a total that differs from lines + shipping − discount, when parsed, then it is refused', () => {
    const result = storeOrderInputSchema.safeParse({ ...order, totals: { ...order.totals, totalMinor: 4000 } });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['totals', 'totalMinor']);
  });
});
