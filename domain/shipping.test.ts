import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { eur, money, MoneyError } from './money.js';
import { COUNTRY_CODES } from './countries.js';
import { destinationProblem, quoteShippingRates, selectRate, servedCountries, shippingCountries, type ShippingRateInput } from './shipping.js';

const FX = { USD: '1.1562', JPY: '178.42', KWD: '0.3550' };
const rate = (name: string, basePriceCents: number, extra: Partial<ShippingRateInput> = {}): ShippingRateInput => ({
  id: name.toLowerCase(), name, free: false, basePriceCents, freeThresholdCents: null, ...extra,
});
const inEur = (subtotalCents: number) => ({ currency: 'EUR', subtotal: eur(subtotalCents), fxRates: FX });

describe('shipping quotes', () => {
  it('lists the rates cheapest first, in EUR as the merchant set them', () => {
    const quotes = quoteShippingRates([rate('Express', 1290), rate('Standard', 490), rate('Pickup', 0)], inEur(5000));
    expect(quotes).toEqual([
      { id: 'pickup', name: 'Pickup', price: eur(0), free: false, countries: null, deliveryDays: null },
      { id: 'standard', name: 'Standard', price: eur(490), free: false, countries: null, deliveryDays: null },
      { id: 'express', name: 'Express', price: eur(1290), free: false, countries: null, deliveryDays: null },
    ]);
  });
  it('keeps the merchant’s order among equal prices', () => {
    const quotes = quoteShippingRates([rate('B', 490), rate('A', 490), rate('Free', 990, { free: true }), rate('C', 490)], inEur(0));
    expect(quotes.map((q) => q.name)).toEqual(['Free', 'B', 'A', 'C']);
  });
  it('shows a free rate at 0 with a free label, whatever its price', () => {
    const [quote] = quoteShippingRates([rate('Courier', 990, { free: true, freeThresholdCents: 100_000 })], inEur(0));
    expect(quote).toEqual({ id: 'courier', name: 'Courier', price: eur(0), free: true, reason: 'free_rate', countries: null, deliveryDays: null });
  });
  it('ships free from the threshold on, the boundary included', () => {
    const standard = rate('Standard', 490, { freeThresholdCents: 5000 });
    expect(quoteShippingRates([standard], inEur(4999))[0]).toMatchObject({ price: eur(490), free: false });
    expect(quoteShippingRates([standard], inEur(5000))[0]).toEqual({ id: 'standard', name: 'Standard', price: eur(0), free: true, reason: 'threshold', countries: null, deliveryDays: null });
    expect(quoteShippingRates([standard], inEur(5001))[0]).toMatchObject({ free: true, reason: 'threshold' });
  });
  it('converts price and threshold into the checkout currency and compares there', () => {
    // 4.90 EUR × 1.1562 = 5.66538 → 5.67 USD; threshold 50.00 EUR → 57.81 USD.
    const standard = rate('Standard', 490, { freeThresholdCents: 5000 });
    const usd = (cents: number) => ({ currency: 'USD', subtotal: money(cents, 'USD'), fxRates: FX });
    expect(quoteShippingRates([standard], usd(5780))[0]).toMatchObject({ price: money(567, 'USD'), free: false });
    expect(quoteShippingRates([standard], usd(5781))[0]).toMatchObject({ price: money(0, 'USD'), free: true, reason: 'threshold' });
    // No minor units in JPY: 4.90 × 178.42 = 874.258 → 874 yen; 50 EUR → 8921 yen.
    const jpy = (yen: number) => ({ currency: 'JPY', subtotal: money(yen, 'JPY'), fxRates: FX });
    expect(quoteShippingRates([standard], jpy(8920))[0]).toMatchObject({ price: money(874, 'JPY'), free: false });
    expect(quoteShippingRates([standard], jpy(8921))[0]).toMatchObject({ free: true, price: money(0, 'JPY') });
    // Three minor units in KWD: 4.90 × 0.355 = 1.7395 KWD.
    const kwd = { currency: 'KWD', subtotal: money(0, 'KWD'), fxRates: FX };
    expect(quoteShippingRates([standard], kwd)[0]).toMatchObject({ price: money(1740, 'KWD') });
  });
  it('gives rates without an id their position as id', () => {
    const quotes = quoteShippingRates([{ ...rate('Express', 990), id: undefined }, { ...rate('Standard', 490), id: undefined }], inEur(0));
    expect(quotes.map((q) => [q.id, q.name])).toEqual([['rate_1', 'Standard'], ['rate_0', 'Express']]);
  });
  it('refuses a subtotal in another currency, a missing rate and invalid prices', () => {
    expect(() => quoteShippingRates([rate('Standard', 490)], { currency: 'USD', subtotal: eur(100), fxRates: FX })).toThrow(MoneyError);
    expect(() => quoteShippingRates([rate('Standard', 490)], { currency: 'GBP', subtotal: money(0, 'GBP'), fxRates: FX })).toThrow(MoneyError);
    expect(() => quoteShippingRates([rate('Standard', -1)], inEur(0))).toThrow(MoneyError);
    expect(() => quoteShippingRates([rate('Standard', 4.9)], inEur(0))).toThrow(MoneyError);
    expect(() => quoteShippingRates([rate('Standard', 490, { freeThresholdCents: -5 })], inEur(0))).toThrow(MoneyError);
  });
  it('selects the picked rate, or nothing for an unknown id', () => {
    const quotes = quoteShippingRates([rate('Express', 1290), rate('Standard', 490)], inEur(0));
    expect(selectRate(quotes, 'express')).toMatchObject({ name: 'Express', price: eur(1290) });
    expect(selectRate(quotes, 'overnight')).toBeUndefined();
  });

  describe('shipping zones', () => {
    const dhl = rate('DHL', 490, { countries: ['DE', 'AT'] });
    const world = rate('World', 2990); // follows the store
    const store = ['DE', 'AT', 'FR', 'US'];

    it('given a rate with its own countries / it ships there only, whatever the store ships to', () => {
      expect(servedCountries(dhl, store)).toEqual(['DE', 'AT']);
      expect(servedCountries(dhl, null)).toEqual(['DE', 'AT']);
    });
    it('given a rate following the store / it ships where the store does, and everywhere while that was never read', () => {
      expect(servedCountries(world, store)).toEqual(store);
      expect(servedCountries(world, null)).toEqual(COUNTRY_CODES);
      expect(servedCountries({ countries: 'store' }, [])).toEqual([]);
    });
    it('offers the countries some rate ships to, in the list order, each once', () => {
      expect(shippingCountries([dhl, rate('Swiss', 990, { countries: ['CH', 'DE'] })], store)).toEqual(['AT', 'CH', 'DE']);
      expect(shippingCountries([], store)).toEqual([]);
      expect(shippingCountries([world], null)).toHaveLength(COUNTRY_CODES.length);
    });
    it('quotes each rate with its own countries, null for one that follows the store', () => {
      const quotes = quoteShippingRates([dhl, world], inEur(0));
      expect(quotes.map((q) => [q.name, q.countries])).toEqual([['DHL', ['DE', 'AT']], ['World', null]]);
    });
    it('given a destination no rate ships to / the address is refused, by country name', () => {
      const quotes = quoteShippingRates([dhl, world], inEur(0));
      expect(destinationProblem(quotes, store, 'KP', 'dhl')).toEqual({ field: 'address.country', message: 'this shop does not ship to North Korea (KP)' });
      expect(destinationProblem(quotes, store, 'AQ', 'world')).toMatchObject({ field: 'address.country' });
      // The store's countries never read: a rate that follows the store ships everywhere.
      expect(destinationProblem(quotes, null, 'KP', 'world')).toBeUndefined();
    });
    it('given a served destination and a rate that does not ship there / the rate is refused', () => {
      const quotes = quoteShippingRates([dhl, world], inEur(0));
      expect(destinationProblem(quotes, store, 'US', 'dhl')).toEqual({ field: 'shippingRateId', message: 'DHL does not ship to United States (US): choose another shipping method' });
      expect(destinationProblem(quotes, store, 'US', 'world')).toBeUndefined();
      expect(destinationProblem(quotes, store, 'DE', 'dhl')).toBeUndefined();
      // An id that is no quote is pricing's to refuse.
      expect(destinationProblem(quotes, store, 'DE', 'overnight')).toBeUndefined();
    });
  });

  const rates = fc.array(
    fc.record({
      name: fc.string({ maxLength: 10 }),
      free: fc.boolean(),
      basePriceCents: fc.integer({ min: 0, max: 100_000 }),
      freeThresholdCents: fc.option(fc.integer({ min: 0, max: 1_000_000 })),
    }),
    { maxLength: 8 },
  );
  const checkout = fc.constantFrom('EUR', 'USD', 'JPY', 'KWD').chain((currency) =>
    fc.integer({ min: 0, max: 10_000_000 }).map((amount) => ({ currency, subtotal: money(amount, currency), fxRates: FX })),
  );
  it('always sorts by price, prices free rates at 0, and keeps every rate once', () => {
    fc.assert(fc.property(rates, checkout, (input, context) => {
      const quotes = quoteShippingRates(input, context);
      expect(quotes.map((q) => q.id).sort()).toEqual(input.map((_, i) => `rate_${i}`).sort());
      for (const [i, quote] of quotes.entries()) {
        expect(quote.price.currency).toBe(context.currency);
        if (quote.free) expect(quote.price.amount).toBe(0);
        const next = quotes[i + 1];
        if (next) expect(quote.price.amount).toBeLessThanOrEqual(next.price.amount);
        const source = input[Number(quote.id.slice('rate_'.length))];
        if (source?.free) expect(quote).toMatchObject({ free: true, reason: 'free_rate' });
      }
    }));
  });
  it('ships free exactly when the subtotal reaches the converted threshold', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 0, max: 1_000_000 }), checkout, (price, threshold, context) => {
      const [quote] = quoteShippingRates([rate('Standard', price, { freeThresholdCents: threshold })], context);
      const converted = quoteShippingRates([rate('Threshold', threshold)], context)[0]?.price.amount ?? NaN;
      expect(quote?.free).toBe(context.subtotal.amount >= converted);
    }));
  });
});

describe('a delivery estimate', () => {
  it('goes with its rate into the quote, free or not; a rate without one quotes null', () => {
    const rates = [
      { id: 'standard', name: 'Standard', free: false, basePriceCents: 490, freeThresholdCents: 5000, deliveryDays: { min: 3, max: 5 } },
      { id: 'courier', name: 'Courier', free: false, basePriceCents: 990, freeThresholdCents: null },
    ];
    expect(quoteShippingRates(rates, inEur(5000)).map((q) => [q.id, q.free, q.deliveryDays])).toEqual([['standard', true, { min: 3, max: 5 }], ['courier', false, null]]);
  });
});
