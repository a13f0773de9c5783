import { describe, expect, it } from 'vitest';
import { isKnownCurrency } from '../../domain/money.js';
import { PROCESSOR_CURRENCIES, processorChargesIn } from './currencies.js';

describe("Whop's currencies", () => {
  it('given the ISO currencies of the SDK enum / each is charged in, in any case; ones Whop lacks are not', () => {
    for (const c of ['EUR', 'usd', 'JPY', 'KWD', 'XOF', 'AWG']) expect(processorChargesIn(c), c).toBe(true);
    // Among the 72 ISO currencies the issue found missing from Whop's enum; and the enum's non-ISO members.
    for (const c of ['ISK', 'UAH', 'GEL', 'AZN', 'XAF', 'BTC', 'USDT', 'WHOP_USD', 'XAU', '']) expect(processorChargesIn(c), c).toBe(false);
  });

  it('given the list / every entry is a known ISO 4217 code, sorted, without repeats', () => {
    expect(PROCESSOR_CURRENCIES.length).toBe(84);
    expect(PROCESSOR_CURRENCIES.every(isKnownCurrency)).toBe(true);
    expect([...PROCESSOR_CURRENCIES].sort()).toEqual(PROCESSOR_CURRENCIES);
    expect(new Set(PROCESSOR_CURRENCIES).size).toBe(PROCESSOR_CURRENCIES.length);
  });
});
