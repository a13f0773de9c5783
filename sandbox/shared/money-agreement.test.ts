// Our money code (domain/money.ts) and each simulator's (its platform's rules: storefront-a/money.ts for Shopify,
// storefront-b/money.ts and taxes.ts for WooCommerce, processor/money.ts for Whop) are written apart on purpose, and
// eslint keeps sandbox/ from importing ours. Where the platform and the service must agree, both sides compute the
// answer here on their own and are held to the same hand-worked figure, so a bug on either side shows; where they
// rightly differ (a WooCommerce store's decimals are its own setting), the difference is pinned.
import { describe, expect, it } from 'vitest';
import * as ours from '../../domain/money.js';
import * as whop from '../processor/money.js';
import * as shopify from '../storefront-a/money.js';
import * as woo from '../storefront-b/money.js';
import { calculateOrderTaxes, NO_TAXES } from '../storefront-b/taxes.js';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** Every code domain/money.ts knows (it exports no list: every three-letter code is asked). */
const OUR_CURRENCIES = [...LETTERS].flatMap((a) => [...LETTERS].flatMap((b) => [...LETTERS].map((c) => `${a}${b}${c}`))).filter(ours.isKnownCurrency);

describe('decimals of a currency', () => {
  it('given each currency both know / a WooCommerce store set up in it shows the ISO decimals, but for the 24 its locale data shows without decimals', () => {
    const differ = OUR_CURRENCIES.filter(woo.isWooCurrency).filter((c) => woo.priceDecimalsFor(c) !== ours.currencyExponent(c));
    expect(Object.fromEntries(differ.map((c) => [c, [woo.priceDecimalsFor(c), ours.currencyExponent(c)]]))).toEqual({
      ...Object.fromEntries('AFN ALL AMD COP CRC GYD IDR IRR KPW LAK LBP MGA MMK MNT MUR PKR RSD SOS SYP TWD TZS UZS YER'.split(' ').map((c) => [c, [0, 2]])),
      IQD: [0, 3],
    });
    expect(OUR_CURRENCIES.filter(woo.isWooCurrency)).toHaveLength(152);
  });

  it("given each ISO currency Whop charges in / Whop's smallest unit is the ISO minor unit", () => {
    const iso = [...whop.CURRENCIES].map((c) => c.toUpperCase()).filter(ours.isKnownCurrency);
    expect(iso).toHaveLength(84);
    for (const c of iso) expect([c, whop.smallestUnitDecimals(c.toLowerCase())]).toEqual([c, ours.currencyExponent(c)]);
  });

  it.each([['EUR', 2], ['USD', 2], ['JPY', 0], ['KRW', 0], ['CLP', 0], ['KWD', 3], ['BHD', 3], ['TND', 3]] as const)(
    'given %s / Shopify (the currency digits) and we count %i decimals', (currency, decimals) => {
      expect(shopify.fractionDigits(currency)).toBe(decimals);
      expect(ours.currencyExponent(currency)).toBe(decimals);
    },
  );
});

// [currency, decimal string, minor units]: amounts every side must read and write the same.
const AMOUNTS = [
  ['EUR', '19.99', 1999], ['EUR', '0.05', 5], ['EUR', '-12.30', -1230], ['EUR', '1234567.89', 123456789],
  ['JPY', '1500', 1500], ['JPY', '0', 0], ['JPY', '8765', 8765],
  ['KWD', '24.995', 24995], ['KWD', '0.005', 5], ['BHD', '1.000', 1000], ['OMR', '-0.250', -250],
] as const;

describe('decimal amounts', () => {
  it.each(AMOUNTS)('given %s %s / every side reads %i minor units and writes the same amount back', (currency, text, units) => {
    const decimals = woo.priceDecimalsFor(currency);
    expect(ours.parseDecimalToMinor(text, currency).amount).toBe(units);
    expect(woo.parseWooAmount(text, decimals)).toBe(units);
    expect(shopify.toMinor(text, currency)).toBe(units);
    expect(whop.toUnits(Number(text), currency.toLowerCase())).toBe(units);

    const written = ours.minorToDecimalString(ours.money(units, currency));
    expect(woo.formatWooAmount(units, decimals)).toBe(written);
    expect(shopify.toRestDecimal(units, currency)).toBe(written);
    expect(Number(shopify.toDecimal(units, currency))).toBe(Number(written));
    // What the service sends Whop (its decimal string as a JSON number) is kept to the last fils: 24.995, not 25.
    expect(whop.whopAmount(Number(written), currency.toLowerCase())).toBe(Number(written));
    expect(whop.fromUnits(units, currency.toLowerCase())).toBe(Number(written));
  });

  it('given a KWD payment refunded in two parts / neither Whop nor we see anything left (no float remainder)', () => {
    expect(whop.sumAmounts('kwd', 24.995, -10.001, -14.994)).toBe(0);
    expect(ours.subtract(ours.subtract(ours.money(24995, 'KWD'), ours.money(10001, 'KWD')), ours.money(14994, 'KWD')).amount).toBe(0);
    expect(whop.sumAmounts('usd', 0.3, -0.1, -0.2)).toBe(0);
  });
});

// [currency, line (minor units), rate %, tax (minor units), the worked figure]: a tax line rounded to the currency's
// decimals, half away from zero, as WooCommerce rounds each line's tax (WC_Tax::round) and as percentOf rounds.
const TAX_LINES = [
  ['EUR', 1234, 19, 234, '12.34 × 19 % = 2.3446'],
  ['EUR', 5, 10, 1, '0.05 × 10 % = 0.005, half up'],
  ['EUR', 1050, 7, 74, '10.50 × 7 % = 0.735, half up'],
  ['EUR', 4482, 19, 852, '44.82 × 19 % = 8.5158'],
  ['JPY', 1234, 8, 99, '1234 × 8 % = 98.72'],
  ['JPY', 1235, 10, 124, '1235 × 10 % = 123.5, half up'],
  ['KWD', 1234, 5, 62, '1.234 × 5 % = 0.0617'],
  ['KWD', 5, 10, 1, '0.005 × 10 % = 0.0005, half up'],
] as const;

describe('a tax line', () => {
  it.each(TAX_LINES)('given a %s line of %i at %i % / WooCommerce and we both book %i (%s)', (currency, line, rate, tax) => {
    expect(ours.percentOf(ours.money(line, currency), rate * 100).amount).toBe(tax);

    const decimals = woo.priceDecimalsFor(currency);
    const at = { country: 'DE', state: '', postcode: '10115', city: 'Berlin' };
    const booked = calculateOrderTaxes(
      { ...NO_TAXES, enabled: true, rates: [{ id: 1, country: '', state: '', postcodes: [], cities: [], rate: rate.toFixed(4), name: 'VAT', priority: 1, compound: false, shipping: false, order: 0, class: 'standard' }] },
      { lines: [{ subtotal: woo.unitsToMajor(line, decimals), total: woo.unitsToMajor(line, decimals) }], shippingTotal: 0, shipping: at, billing: at, shippingMethodId: 'flat_rate', decimals },
    );
    expect(woo.majorToUnits(booked.cartTax, decimals)).toBe(tax);
    expect(woo.majorToUnits(booked.total, decimals)).toBe(ours.add(ours.money(line, currency), ours.money(tax, currency)).amount);
  });
});

describe("each platform's own reading of an amount", () => {
  it.each([
    ['19.995', 2, 2000, 'rounded half away from zero to the store decimals'],
    ['-0.005', 2, -1, 'negative: away from zero'],
    ['0.0049', 2, 0, 'below half'],
    ['1,234.5', 2, 123450, 'a thousands comma is dropped (wc_format_decimal keeps digits, "." and "-")'],
    ['1.2.3', 2, 1230, 'only the last "." is kept'],
    ['abc', 2, 0, 'no number: 0, as PHP reads it'],
    ['', 2, 0, 'empty: 0'],
    ['2116.5', 0, 2117, 'a store without decimals'],
  ] as const)('given WooCommerce is sent %j at %i decimals / it keeps %i (%s)', (text, decimals, units, _why) => {
    expect(woo.parseWooAmount(text, decimals)).toBe(units);
  });

  it('given amounts beyond what the store can count / WooCommerce reading answers null', () => {
    expect(woo.parseWooAmount('99999999999999999', 2)).toBeNull();
  });

  it('given WooCommerce product prices / they are written without trailing zeros, order amounts with every decimal', () => {
    expect([woo.wooPriceString(2490, 2), woo.wooPriceString(1800, 2), woo.wooPriceString(2490, 0), woo.wooPriceString(24900, 3)]).toEqual(['24.9', '18', '2490', '24.9']);
    expect([woo.formatWooAmount(2490, 2), woo.formatWooAmount(2490, 0), woo.formatWooAmount(-5, 3)]).toEqual(['24.90', '2490', '-0.005']);
  });

  it.each([
    [1.005, 'usd', 101, 'the written 1.005 rounds up (1.005 × 100 in floating point is 100.4999…)'],
    [12.5, 'usd', 1250, 'hundredths'],
    [2490.5, 'jpy', 2491, 'no decimals: half away from zero'],
    [24.9954, 'kwd', 24995, 'thousandths'],
    [-0.005, 'eur', -1, 'negative: away from zero'],
    [1e-7, 'usd', 0, 'an exponent form'],
  ] as const)('given Whop is sent %d %s / it counts %i smallest units (%s)', (amount, currency, units, _why) => {
    expect(whop.toUnits(amount, currency)).toBe(units);
  });

  it('given a 97 % share of a Whop amount / it is rounded to the smallest unit', () => {
    expect([whop.percentOfAmount(10.05, 97, 'usd'), whop.percentOfAmount(1000, 97, 'jpy'), whop.percentOfAmount(1.001, 97, 'kwd')]).toEqual([9.75, 970, 0.971]);
  });
});
