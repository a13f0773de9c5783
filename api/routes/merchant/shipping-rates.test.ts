// Shipping rates with the countries each ships to, through PATCH /api/merchant/config: "store" (every country the store
// ships to, the default) or a list of country codes, and the delivery estimate (business days) the checkout shows with
// the rate. A bad list or estimate is refused naming its field and changes nothing; one merchant's rates are never
// another's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { createTestMerchant, type TestMerchant } from '../../../test/harness/merchants.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let stack: TestStack;
let n = 0;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

async function call(method: 'GET' | 'PATCH', url: string, token: string, body?: unknown) {
  const res = await stack.app.inject({ method, url, payload: body as Json | undefined, remoteAddress: `198.51.100.${(n++ % 250) + 1}`, headers: { authorization: `Bearer ${token}` } });
  return { status: res.statusCode, body: res.json() as Json };
}
const setRates = (m: TestMerchant, shippingRates: unknown) => call('PATCH', '/api/merchant/config', m.token, { shippingRates });
const ratesOf = async (m: TestMerchant) => ((await call('GET', '/api/merchant/me', m.token)).body.shippingRates as Json[]).map((r) => [r.name, r.countries]);

describe('the countries of a shipping rate', () => {
  it('given no countries / the rate follows the store; a list is answered upper-case, once each, in a fixed order', async () => {
    const m = await createTestMerchant(stack.database.db, stack.app, 'Rates Shop');
    const res = await setRates(m, [{ name: 'World', basePriceCents: 2990 }, { name: 'DHL', basePriceCents: 490, countries: ['de', ' AT ', 'DE'] }, { name: 'Store', basePriceCents: 990, countries: 'store' }]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await ratesOf(m)).toEqual([['World', 'store'], ['DHL', ['AT', 'DE']], ['Store', 'store']]);
    expect(await stack.database.db.shippingRate.findMany({ where: { merchantId: m.id }, orderBy: { position: 'asc' }, select: { allStoreCountries: true, countries: true } })).toEqual([
      { allStoreCountries: true, countries: [] }, { allStoreCountries: false, countries: ['AT', 'DE'] }, { allStoreCountries: true, countries: [] },
    ]);
  });

  it.each([
    ['an empty list', [], 'body.shippingRates.1.countries', 'choose at least one country, or every country the store ships to'],
    ['a code that is no country', ['DE', 'XX'], 'body.shippingRates.1.countries.1', 'choose a country: a two-letter code such as DE'],
    ['another word than "store"', 'everywhere', 'body.shippingRates.1.countries', undefined],
  ])('given %s / 400 INVALID_INPUT on the field, and the rates stay as they were', async (_what, countries, field, message) => {
    const m = await createTestMerchant(stack.database.db, stack.app, 'Bad Rates Shop');
    await setRates(m, [{ name: 'Standard', basePriceCents: 490, countries: ['FR'] }]);

    const res = await setRates(m, [{ name: 'World', basePriceCents: 2990 }, { name: 'DHL', basePriceCents: 490, countries }]);

    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(Object.keys(res.body.details.fields)).toContain(field);
    if (message) expect(res.body.details.fields[field]).toBe(message);
    expect(await ratesOf(m)).toEqual([['Standard', ['FR']]]);
  });

  it('given two merchants / each one\'s rates and countries are its own', async () => {
    const a = await createTestMerchant(stack.database.db, stack.app, 'Rates A');
    const b = await createTestMerchant(stack.database.db, stack.app, 'Rates B');
    await setRates(a, [{ name: 'Alpine', basePriceCents: 490, countries: ['AT', 'CH'] }]);
    await setRates(b, [{ name: 'Nordic', basePriceCents: 590, countries: ['SE'] }]);
    await setRates(a, [{ name: 'Alpine', basePriceCents: 490, countries: ['CH'] }]);
    expect(await ratesOf(a)).toEqual([['Alpine', ['CH']]]);
    expect(await ratesOf(b)).toEqual([['Nordic', ['SE']]]);
  });
});

describe('the delivery estimate of a shipping rate', () => {
  const call2 = async (method: 'GET' | 'POST', url: string, token?: string) => {
    const res = await stack.app.inject({ method, url, remoteAddress: `198.51.100.${(n++ % 250) + 1}`, headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: res.statusCode, body: res.json() as Json };
  };

  it('given a range on one rate and none on another / the dashboard and the checkout\'s rates answer it, the other null', async () => {
    const m = await createTestMerchant(stack.database.db, stack.app, 'Estimate Shop');
    const res = await setRates(m, [{ name: 'Standard', basePriceCents: 490, deliveryDays: { min: 3, max: 5 } }, { name: 'Pickup', basePriceCents: 0 }]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((res.body.shippingRates as Json[]).map((r) => [r.name, r.deliveryDays])).toEqual([['Standard', { min: 3, max: 5 }], ['Pickup', null]]);
    expect(await stack.database.db.shippingRate.findMany({ where: { merchantId: m.id }, orderBy: { position: 'asc' }, select: { deliveryMinDays: true, deliveryMaxDays: true } })).toEqual([
      { deliveryMinDays: 3, deliveryMaxDays: 5 }, { deliveryMinDays: null, deliveryMaxDays: null },
    ]);
    // What a checkout of this merchant lists (a preview reads the same rates as a real session).
    const preview = await call2('POST', '/api/merchant/preview', m.token);
    expect(preview.status, JSON.stringify(preview.body)).toBeLessThan(300);
    const token = new URL(preview.body.previewUrl as string).pathname.split('/').pop()!;
    const bundle = await call2('GET', `/api/checkout/session-bundle/${token}`);
    expect(bundle.status, JSON.stringify(bundle.body)).toBe(200);
    expect((bundle.body.shipping as Json[]).map((r) => [r.name, r.deliveryDays])).toEqual([['Pickup', null], ['Standard', { min: 3, max: 5 }]]);
  });

  it.each([
    ['fewer days at most than at least', { min: 5, max: 3 }, 'body.shippingRates.0.deliveryDays.max'],
    ['only the fewest days', { min: 2 }, 'body.shippingRates.0.deliveryDays.max'],
    ['more than 90 days', { min: 1, max: 91 }, 'body.shippingRates.0.deliveryDays.max'],
    ['a fraction of a day', { min: 1.5, max: 2 }, 'body.shippingRates.0.deliveryDays.min'],
    ['a text', '3-5 days', 'body.shippingRates.0.deliveryDays'],
  ])('given %s / 400 INVALID_INPUT on the field, and the rates stay as they were', async (_what, deliveryDays, field) => {
    const m = await createTestMerchant(stack.database.db, stack.app, 'Bad Estimate Shop');
    await setRates(m, [{ name: 'Standard', basePriceCents: 490, deliveryDays: { min: 1, max: 2 } }]);
    const res = await setRates(m, [{ name: 'Standard', basePriceCents: 490, deliveryDays }]);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(Object.keys(res.body.details.fields)).toContain(field);
    expect(((await call('GET', '/api/merchant/me', m.token)).body.shippingRates as Json[]).map((r) => r.deliveryDays)).toEqual([{ min: 1, max: 2 }]);
  });
});
