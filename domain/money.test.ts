import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  add, compare, convert, convertFromEur, currencyExponent, eur, formatMoney, isKnownCurrency, isValidRate, isZero, minorToDecimalString,
  money, MoneyError, multiply, parseDecimalToMinor, percentOf, subtract, sum, type FxRates, type Money,
} from './money.js';

// The ECB reference rates of the seed file (prisma/seed/ecb-eurofxref-daily.xml, 2026-11-20).
const ECB: FxRates = {
  USD: '1.1562', JPY: '178.42', CZK: '24.283', DKK: '7.4694', GBP: '0.87915', HUF: '386.95', PLN: '4.2385', RON: '5.0841',
  SEK: '10.9875', CHF: '0.9287', ISK: '146.90', NOK: '11.7210', TRY: '48.9712', AUD: '1.7843', BRL: '6.1876', CAD: '1.6231',
  CNY: '8.2236', HKD: '8.9994', IDR: '19312.55', ILS: '3.7651', INR: '102.4315', KRW: '1698.37', MXN: '21.3148', MYR: '4.8219',
  NZD: '2.0462', PHP: '68.157', SGD: '1.5078', THB: '37.551', ZAR: '20.0334',
};
const WITH_3_DIGITS: FxRates = { KWD: '0.3550', BHD: '0.4358', OMR: '0.4445', JOD: '0.8197', TND: '3.3921' };
const ALL_RATES: FxRates = { ...ECB, ...WITH_3_DIGITS };
const CURRENCIES = ['EUR', ...Object.keys(ALL_RATES)];

/** A positive decimal rate string with up to 6 decimals, like the ECB publishes. */
const rateString = fc
  .tuple(fc.integer({ min: 1, max: 2_000_000_000 }), fc.integer({ min: 0, max: 6 }))
  .map(([digits, decimals]) => {
    const s = String(digits).padStart(decimals + 1, '0');
    return decimals ? `${s.slice(0, s.length - decimals)}.${s.slice(s.length - decimals)}` : s;
  });
const currency = fc.constantFrom(...CURRENCIES);
const cents = fc.integer({ min: -1_000_000_000, max: 1_000_000_000 });

describe('currencies', () => {
  it('knows every currency of the ECB reference rates, and EUR, with ISO 4217 minor units', () => {
    for (const code of ['EUR', ...Object.keys(ECB)]) expect(isKnownCurrency(code)).toBe(true);
    expect(currencyExponent('EUR')).toBe(2);
    expect(currencyExponent('USD')).toBe(2);
    // ISO, not CLDR display digits: HUF and IDR have 2 minor units even though shops often show none.
    expect(currencyExponent('HUF')).toBe(2);
    expect(currencyExponent('IDR')).toBe(2);
  });
  it.each(['JPY', 'KRW', 'ISK', 'CLP', 'VND', 'XAF', 'XOF'])('%s has no minor units', (code) => expect(currencyExponent(code)).toBe(0));
  it.each(['BHD', 'KWD', 'OMR', 'JOD', 'TND'])('%s has 3 minor units', (code) => expect(currencyExponent(code)).toBe(3));
  it.each(['XYZ', 'usd', 'EURO', '', 'EU', 'constructor', 'XXX'])('refuses %j', (code) => {
    expect(() => currencyExponent(code)).toThrow(MoneyError);
    expect(() => money(1, code)).toThrow(MoneyError);
  });
  it('builds money only from safe integers of minor units', () => {
    expect(money(1999, 'EUR')).toEqual({ amount: 1999, currency: 'EUR' });
    expect(money(-0, 'EUR').amount).toBe(0);
    for (const bad of [19.99, Number.NaN, Infinity, Number.MAX_SAFE_INTEGER + 1]) expect(() => money(bad, 'EUR')).toThrow(MoneyError);
  });
});

describe('conversion', () => {
  it('is exact on known cases', () => {
    // 19.99 × 1.1562 = 23.112438 USD
    expect(convertFromEur(1999, 'USD', ECB)).toEqual({ amount: 2311, currency: 'USD' });
    // 19.99 × 178.42 = 3566.6158 JPY
    expect(convertFromEur(1999, 'JPY', ECB)).toEqual({ amount: 3567, currency: 'JPY' });
    // 19.99 × 0.3550 = 7.096450 KWD
    expect(convertFromEur(1999, 'KWD', ALL_RATES)).toEqual({ amount: 7096, currency: 'KWD' });
    // 0.01 × 19312.55 = 193.1255 IDR
    expect(convertFromEur(1, 'IDR', ECB)).toEqual({ amount: 19313, currency: 'IDR' });
    // 10.00 USD ÷ 1.25 = 8 EUR; × 150 = 1200 JPY
    expect(convert(money(1000, 'USD'), 'JPY', { USD: '1.25', JPY: '150' })).toEqual({ amount: 1200, currency: 'JPY' });
    // 23.11 USD ÷ 1.1562 = 19.98789… EUR
    expect(convert(money(2311, 'USD'), 'EUR', ECB)).toEqual({ amount: 1999, currency: 'EUR' });
    // A float would get this wrong: 1.005 × 100 = 100.49999… in binary.
    expect(convertFromEur(100, 'USD', { USD: '1.005' })).toEqual({ amount: 101, currency: 'USD' });
  });
  it('rounds half-up, away from zero for negative amounts', () => {
    expect(convertFromEur(1, 'USD', { USD: '1.5' }).amount).toBe(2);
    expect(convertFromEur(1, 'USD', { USD: '2.5' }).amount).toBe(3);
    expect(convertFromEur(1, 'USD', { USD: '1.4999' }).amount).toBe(1);
    expect(convertFromEur(-1, 'USD', { USD: '1.5' }).amount).toBe(-2);
    expect(convertFromEur(50, 'JPY', { JPY: '3' }).amount).toBe(2); // 1.5 yen
  });
  it('treats EUR to EUR and same-currency conversion as the identity, without needing a rate', () => {
    expect(convertFromEur(1999, 'EUR', {})).toEqual(eur(1999));
    expect(convert(money(3567, 'JPY'), 'JPY', {})).toEqual(money(3567, 'JPY'));
  });
  it('refuses a missing or malformed rate, and unknown currencies', () => {
    expect(() => convertFromEur(100, 'USD', {})).toThrow(MoneyError);
    expect(() => convert(money(100, 'USD'), 'EUR', { JPY: '178.42' })).toThrow(MoneyError);
    for (const bad of ['0', '0.000', '-1.2', '1,2', '1e3', ' 1.2', '1.', '.5', '', 'NaN']) {
      expect(isValidRate(bad)).toBe(false);
      expect(() => convertFromEur(100, 'USD', { USD: bad })).toThrow(MoneyError);
    }
    expect(() => convertFromEur(100, 'XYZ', { XYZ: '1' })).toThrow(MoneyError);
  });
  it('refuses a result that does not fit a safe integer', () => {
    expect(() => convertFromEur(Number.MAX_SAFE_INTEGER, 'IDR', ECB)).toThrow(MoneyError);
  });

  it('converts 0 to 0', () => {
    fc.assert(fc.property(currency, currency, (from, to) => {
      expect(convert(money(0, from), to, ALL_RATES)).toEqual(money(0, to));
    }));
  });
  it('always gives a safe integer in the target currency', () => {
    fc.assert(fc.property(cents, currency, (amount, to) => {
      const result = convertFromEur(amount, to, ALL_RATES);
      expect(Number.isSafeInteger(result.amount)).toBe(true);
      expect(result.currency).toBe(to);
    }));
  });
  it('is within half a minor unit of the exact value, ties away from zero', () => {
    fc.assert(fc.property(cents, rateString, fc.constantFrom('USD', 'JPY', 'KWD'), (amount, rate, to) => {
      const [whole = '', fraction = ''] = rate.split('.');
      const num = BigInt(whole + fraction);
      const den = 10n ** BigInt(fraction.length);
      // exact = amount / 100 × rate × 10^exp, compared as 2·result·D versus 2·N to stay in integers.
      const N = BigInt(amount) * num * 10n ** BigInt(currencyExponent(to));
      const D = den * 100n;
      let result: Money;
      try {
        result = convertFromEur(amount, to, { [to]: rate });
      } catch (error) {
        expect(error).toBeInstanceOf(MoneyError); // only when out of the safe-integer range
        return;
      }
      const twiceError = 2n * BigInt(result.amount) * D - 2n * N; // 2·(result − exact)·D
      expect(twiceError <= D && twiceError >= -D).toBe(true);
      if (twiceError === D) expect(amount).toBeGreaterThan(0); // a tie rounded up only for positives
      if (twiceError === -D) expect(amount).toBeLessThan(0);
    }));
  });
  it('is monotonic: a ≤ b gives convert(a) ≤ convert(b)', () => {
    fc.assert(fc.property(cents, cents, currency, currency, (x, y, from, to) => {
      const [a, b] = x <= y ? [x, y] : [y, x];
      expect(convert(money(a, from), to, ALL_RATES).amount).toBeLessThanOrEqual(convert(money(b, from), to, ALL_RATES).amount);
    }));
  });
  it('comes back from EUR → X → EUR within the rounding of both legs', () => {
    fc.assert(fc.property(cents, currency, (amount, to) => {
      const there = convertFromEur(amount, to, ALL_RATES);
      const back = convert(there, 'EUR', ALL_RATES);
      // Leg 1 is off by ≤ ½ unit of X (worth 50 / (10^exp × rate) EUR cents), leg 2 by ≤ ½ cent.
      const rate = to === 'EUR' ? 1 : Number(ALL_RATES[to]);
      const bound = 0.5 + 50 / (10 ** currencyExponent(to) * rate);
      expect(Math.abs(back.amount - amount)).toBeLessThanOrEqual(bound + 1e-9);
    }));
  });
  it('is symmetric around zero', () => {
    fc.assert(fc.property(cents, currency, (amount, to) => {
      // `|| 0`: negating a zero result gives -0, which is the same amount.
      expect(convertFromEur(-amount, to, ALL_RATES).amount).toBe(-convertFromEur(amount, to, ALL_RATES).amount || 0);
    }));
  });
  it('never gives JPY minor units: a yen amount is whole yen', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 10_000_000 }), (amount) => {
      const yen = convertFromEur(amount, 'JPY', ECB);
      expect(minorToDecimalString(yen)).not.toContain('.');
      expect(yen.amount).toBe(Math.floor((amount * 17842 + 5000) / 10000)); // amount/100 × 178.42, half-up
    }));
  });
});

describe('arithmetic', () => {
  it('adds, subtracts, multiplies and takes percentages in one currency', () => {
    expect(add(eur(1999), eur(1))).toEqual(eur(2000));
    expect(subtract(eur(500), eur(1999))).toEqual(eur(-1499));
    expect(multiply(eur(1999), 3)).toEqual(eur(5997));
    expect(multiply(eur(1999), 0)).toEqual(eur(0));
    expect(percentOf(eur(1999), 1900)).toEqual(eur(380)); // 19 % of 19.99 = 3.7981
    expect(percentOf(eur(1), 5000)).toEqual(eur(1)); // half a cent rounds up
    expect(percentOf(eur(-1), 5000)).toEqual(eur(-1));
    expect(percentOf(eur(1), 4999)).toEqual(eur(0));
    expect(percentOf(money(1234, 'KWD'), 10_000)).toEqual(money(1234, 'KWD'));
    expect(sum([], 'JPY')).toEqual(money(0, 'JPY'));
    expect(sum([eur(1), eur(2), eur(3)], 'EUR')).toEqual(eur(6));
    expect(isZero(eur(0))).toBe(true);
    expect(isZero(eur(-1))).toBe(false);
    expect([eur(3), eur(-1), eur(2)].sort(compare)).toEqual([eur(-1), eur(2), eur(3)]);
  });
  it('refuses to mix currencies', () => {
    expect(() => add(eur(1), money(1, 'USD'))).toThrow(MoneyError);
    expect(() => subtract(eur(1), money(1, 'USD'))).toThrow(MoneyError);
    expect(() => compare(eur(1), money(1, 'JPY'))).toThrow(MoneyError);
    expect(() => sum([eur(1), money(1, 'USD')], 'EUR')).toThrow(MoneyError);
    expect(() => sum([money(1, 'USD')], 'EUR')).toThrow(MoneyError);
  });
  it('refuses fractional quantities and results out of range', () => {
    expect(() => multiply(eur(100), 1.5)).toThrow(MoneyError);
    expect(() => percentOf(eur(100), 12.5)).toThrow(MoneyError);
    expect(() => multiply(eur(Number.MAX_SAFE_INTEGER), 2)).toThrow(MoneyError);
    expect(() => add(eur(Number.MAX_SAFE_INTEGER), eur(1))).toThrow(MoneyError);
  });
  it('sums associatively and commutatively', () => {
    const amounts = fc.array(fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }), { maxLength: 30 });
    fc.assert(fc.property(amounts, (list) => {
      const items = list.map((amount) => eur(amount));
      const total = sum(items, 'EUR');
      expect(sum([...items].reverse(), 'EUR')).toEqual(total);
      const half = Math.floor(items.length / 2);
      expect(add(sum(items.slice(0, half), 'EUR'), sum(items.slice(half), 'EUR'))).toEqual(total);
    }));
    fc.assert(fc.property(cents, cents, cents, (a, b, c) => {
      expect(add(add(eur(a), eur(b)), eur(c))).toEqual(add(eur(a), add(eur(b), eur(c))));
      expect(add(eur(a), eur(b))).toEqual(add(eur(b), eur(a)));
    }));
  });
});

describe('decimal strings', () => {
  it.each([
    ['19.99', 'EUR', 1999], ['19.9', 'EUR', 1990], ['19', 'EUR', 1900], ['0.05', 'EUR', 5], ['-0.05', 'EUR', -5], ['-0', 'EUR', 0],
    ['1500', 'JPY', 1500], ['1500.00', 'JPY', 1500], ['1.234', 'KWD', 1234], ['19.990', 'EUR', 1999],
  ] as const)('parses %s %s as %d minor units', (value, code, amount) => {
    expect(parseDecimalToMinor(value, code)).toEqual({ amount, currency: code });
  });
  it.each([
    ['19.995', 'EUR'], ['1.5', 'JPY'], ['1.2345', 'KWD'], ['', 'EUR'], ['.5', 'EUR'], ['1.', 'EUR'], ['1,50', 'EUR'], [' 1', 'EUR'],
    ['+1', 'EUR'], ['1e3', 'EUR'], ['abc', 'EUR'], ['1', 'XYZ'], ['99999999999999999', 'EUR'],
  ] as const)('refuses %j %s', (value, code) => expect(() => parseDecimalToMinor(value, code)).toThrow(MoneyError));
  it('writes minor units back as a decimal string', () => {
    expect(minorToDecimalString(eur(1999))).toBe('19.99');
    expect(minorToDecimalString(eur(-5))).toBe('-0.05');
    expect(minorToDecimalString(money(1500, 'JPY'))).toBe('1500');
    expect(minorToDecimalString(money(5, 'KWD'))).toBe('0.005');
  });
  it('round-trips every amount', () => {
    fc.assert(fc.property(fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), currency, (amount, code) => {
      const value = money(amount, code);
      expect(parseDecimalToMinor(minorToDecimalString(value), code)).toEqual(value);
    }));
  });
});

describe('formatting', () => {
  const plain = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');
  it('formats with the locale and the currency’s ISO digits', () => {
    expect(formatMoney(money(2311, 'USD'), 'en-US')).toBe('$23.11');
    expect(plain(formatMoney(eur(2311), 'de-DE'))).toBe('23,11 €');
    expect(formatMoney(money(1500, 'JPY'), 'en-US')).toBe('¥1,500');
    expect(plain(formatMoney(money(1234, 'KWD'), 'en-US'))).toBe('KWD 1.234');
    expect(plain(formatMoney(money(150000, 'HUF'), 'en-US'))).toBe('HUF 1,500.00');
    expect(formatMoney(eur(-5), 'en-US')).toBe('-€0.05');
  });
  it('keeps every digit of large amounts', () => {
    expect(formatMoney(money(Number.MAX_SAFE_INTEGER, 'USD'), 'en-US')).toBe('$90,071,992,547,409.91');
  });
  it('refuses an invalid locale', () => {
    expect(() => formatMoney(eur(1), 'not a locale!')).toThrow(MoneyError);
  });
});
