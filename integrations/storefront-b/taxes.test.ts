// WooCommerce's tax arithmetic as restated in taxes.ts, on the numbers a running WooCommerce 10.0.2 booked for the same
// orders (test/real/woocommerce-taxes.test.ts): the fast witness of the rules the real tier found we had wrong.
import { describe, expect, it } from 'vitest';
import { calcExclusiveTax, findRates, formatPostcode, orderTaxes, shippingTaxClassOf, taxLocationOf, type OrderPlace, type TaxLocation, type WooTaxRate, type WooTaxSettings } from './taxes.js';

const BERLIN: TaxLocation = { country: 'DE', state: '', postcode: '10115', city: 'Berlin' };
const VIENNA: TaxLocation = { country: 'AT', state: '', postcode: '1010', city: 'Wien' };
const rate = (id: number, over: Partial<WooTaxRate> = {}): WooTaxRate => ({ id, country: 'DE', state: '', postcodes: [], cities: [], rate: '19.0000', priority: 1, compound: false, shipping: true, class: 'standard', ...over });
const settings = (over: Partial<WooTaxSettings> = {}): WooTaxSettings => ({
  enabled: true, pricesIncludeTax: false, basedOn: 'shipping', shippingTaxClass: 'inherit', roundAtSubtotal: false,
  base: { country: 'DE', state: 'DE-BE', postcode: '10115', city: 'Berlin' }, classes: ['standard', 'reduced-rate', 'zero-rate'], decimals: 2, ...over,
});
const inBerlin: OrderPlace = { shipping: BERLIN, billing: BERLIN, shippingMethodId: 'flat_rate' };
const taxable = (total: number, taxClass = '') => ({ total, taxStatus: 'taxable', taxClass });

describe('orderTaxes: what calculate_totals books', () => {
  it('given prices with tax and two lines whose nets each round down (50.394958, 2.100840) / the lines are added rounded to the cent: 67.37, not 67.38', () => {
    const t = orderTaxes(settings({ pricesIncludeTax: true }), [rate(1)], [taxable(50.394958), taxable(2.10084)], 4.117647, inBerlin);
    // Seen on WooCommerce 10.0.2: cart_tax 9.58 + 0.40, shipping_tax 0.78, total 67.37.
    expect({ shippingTax: t.shippingTax, totalTax: t.totalTax, total: t.total }).toEqual({ shippingTax: 0.78, totalTax: 10.76, total: 67.37 });
  });

  it('given taxes rounded at subtotal / only their sum is rounded: 0.285 + 0.475 + 0.931 → total_tax 1.69 (per line: 0.29 + 0.48 + 0.93 = 1.70)', () => {
    const lines = [taxable(1.5), taxable(2.5)];
    expect(orderTaxes(settings({ roundAtSubtotal: true }), [rate(1)], lines, 4.9, inBerlin)).toMatchObject({ totalTax: 1.69, total: 10.59 });
    expect(orderTaxes(settings(), [rate(1)], lines, 4.9, inBerlin)).toMatchObject({ totalTax: 1.7, total: 10.6 });
    // 11.9643 + 0.931 = 12.8953 → 12.90 (the parts rounded would give 11.96 + 0.93 = 12.89).
    expect(orderTaxes(settings({ roundAtSubtotal: true }), [rate(1)], [taxable(3), taxable(59.97)], 4.9, inBerlin)).toMatchObject({ totalTax: 12.9, total: 80.77 });
  });

  it('given a compound rate at priority 2 / it is charged on the price plus the regular tax, each rate rounded on its own', () => {
    const rates = [rate(1), rate(2, { rate: '3.0000', priority: 2, compound: true })];
    expect([...calcExclusiveTax(59.97, rates)]).toEqual([[1, 11.3943], [2, 2.140929]]);
    expect(orderTaxes(settings(), rates, [taxable(59.97)], 4.9, inBerlin)).toMatchObject({ totalTax: 14.63, total: 79.5 });
  });
});

describe('taxLocationOf: get_tax_location', () => {
  it('given taxes based on the billing address / the billing address, even when the order ships elsewhere', () => {
    expect(taxLocationOf(settings({ basedOn: 'billing' }), { shipping: BERLIN, billing: VIENNA, shippingMethodId: 'flat_rate' })).toBe(VIENNA);
  });

  it('given taxes based on the shipping address of an order that ships nowhere / the billing address', () => {
    expect(taxLocationOf(settings(), { shipping: { ...BERLIN, country: '' }, billing: VIENNA, shippingMethodId: 'flat_rate' })).toBe(VIENNA);
  });

  it('given taxes based on the shop base, or local pickup / the shop base', () => {
    const s = settings();
    expect(taxLocationOf(settings({ basedOn: 'base' }), { shipping: VIENNA, billing: VIENNA, shippingMethodId: 'flat_rate' })).toEqual(s.base);
    expect(taxLocationOf(s, { shipping: VIENNA, billing: VIENNA, shippingMethodId: 'local_pickup' })).toEqual(s.base);
  });
});

describe('shippingTaxClassOf: the shipping line\'s class', () => {
  it('given "inherit" / the first of the store\'s classes (standard first) that a taxable item has; items taxed for nothing do not count', () => {
    const s = settings();
    expect(shippingTaxClassOf(s, [{ taxStatus: 'taxable', taxClass: 'reduced-rate' }, { taxStatus: 'taxable', taxClass: '' }])).toBe('');
    expect(shippingTaxClassOf(s, [{ taxStatus: 'none', taxClass: '' }, { taxStatus: 'taxable', taxClass: 'reduced-rate' }])).toBe('reduced-rate');
    expect(shippingTaxClassOf(s, [{ taxStatus: 'none', taxClass: '' }])).toBeNull();
    expect(shippingTaxClassOf(settings({ shippingTaxClass: 'zero-rate' }), [{ taxStatus: 'none', taxClass: '' }])).toBe('zero-rate');
  });
});

describe('findRates: the rates of a location', () => {
  it('given a rate limited to 10* / Berlin 10115 has it, Munich 80331 does not', () => {
    const rates = [rate(1, { postcodes: ['10*'] })];
    expect(findRates(rates, BERLIN, '').map((r) => r.id)).toEqual([1]);
    expect(findRates(rates, { ...BERLIN, postcode: '80331' }, '')).toEqual([]);
  });

  it('given postcodes written as their country writes them / a wildcard matches the formatted postcode (SW1A 1AA), a range holds the postcode', () => {
    expect(formatPostcode('sw1a1aa', 'GB')).toBe('SW1A 1AA');
    const london = { country: 'GB', state: '', postcode: 'sw1a 1aa', city: 'London' };
    expect(findRates([rate(1, { country: 'GB', postcodes: ['SW1A*'] })], london, '')).toHaveLength(1);
    // WooCommerce compares the stored code with the formatted postcode's prefixes: "SW1A1*" is none of them.
    expect(findRates([rate(1, { country: 'GB', postcodes: ['SW1A1*'] })], london, '')).toEqual([]);
    expect(findRates([rate(1, { postcodes: ['10000...10999'] })], BERLIN, '')).toHaveLength(1);
    expect(findRates([rate(1, { postcodes: ['11000...11999'] })], BERLIN, '')).toEqual([]);
  });

  it('given two rates of one priority / the one naming the state wins; one per priority', () => {
    const rates = [rate(1), rate(2, { state: 'BE', rate: '20.0000' }), rate(3, { priority: 2, rate: '1.0000' })];
    expect(findRates(rates, { ...BERLIN, state: 'BE' }, '').map((r) => r.id)).toEqual([2, 3]);
    expect(findRates(rates, BERLIN, '').map((r) => r.id)).toEqual([1, 3]);
  });
});
