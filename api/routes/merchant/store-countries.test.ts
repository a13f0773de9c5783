// Where the merchant's store ships: read from the store when it connects (storefront A install, storefront B connect)
// and again on POST /api/merchant/store-countries/refresh, kept on the merchant (GET /me `storeCountries`), each
// merchant's from its own store. A store that will not say keeps what was read before and says why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { api, control, merchantWithProcessor, storefrontAMerchant, unique, type Json, type Merchant } from '../../../test/e2e/checkout-helpers.js';
import { COUNTRY_CODES } from '../../../domain/countries.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

const me = async (m: Merchant) => (await api(stack, 'GET', '/api/merchant/me', undefined, m.token)).body as Json;
const refresh = (m: Merchant) => api(stack, 'POST', '/api/merchant/store-countries/refresh', undefined, m.token);

/** A storefront B store of its own (sandbox control API), connected by the merchant with its keys. */
async function storefrontBMerchant(name: string, settings: Json): Promise<Merchant & { storeId: string }> {
  const merchant = await merchantWithProcessor(stack, name);
  const storeId = `zones-${unique()}`.toLowerCase().slice(0, 40);
  const created = await control(stack.urls.storefrontB, 'POST', 'stores', { id: storeId, name });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect((await control(stack.urls.storefrontB, 'POST', `stores/${storeId}/general-settings`, settings)).status).toBe(200);
  const connect = await api(stack, 'POST', '/api/merchant/storefront-b/connect', { storeUrl: `${stack.urls.storefrontB}/stores/${storeId}`, consumerKey: created.body.consumerKey, consumerSecret: created.body.consumerSecret }, merchant.token);
  expect(connect.status, JSON.stringify(connect.body)).toBe(200);
  return { ...merchant, storeId };
}

describe('the store\'s ship-to countries', () => {
  it('given a storefront A shop shipping to Germany and Austria / the install reads them; after the merchant adds France, a refresh reads that', async () => {
    const merchant = await storefrontAMerchant(stack, 'Zones A', { shipsTo: ['DE', 'AT'] });
    const host = merchant.shop.host;

    const installed = (await me(merchant)).storeCountries;
    expect(installed).toEqual({ countries: ['AT', 'DE'], readAt: expect.any(String), error: null });

    await control(stack.urls.storefrontA, 'POST', `shops/${host}/ships-to`, { countries: ['DE', 'AT', 'FR', 'ZZ'] });
    const res = await refresh(merchant);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // Shopify's ZZ ("unknown region") is no country an address can be in: left out.
    expect(res.body).toEqual({ countries: ['AT', 'DE', 'FR'], readAt: expect.any(String), error: null, policies: { policies: [], readAt: expect.any(String), error: null } });
    const { policies: _policies, ...countries } = res.body;
    expect((await me(merchant)).storeCountries).toEqual(countries);
  });

  it('given storefront B stores / the selling and shipping locations decide, as WooCommerce combines them', async () => {
    const specific = await storefrontBMerchant('Zones B1', { allowedCountries: 'all', shipToCountries: 'specific', specificShipToCountries: ['FR', 'BE'] });
    expect((await me(specific)).storeCountries).toMatchObject({ countries: ['BE', 'FR'], error: null });

    // "Ship to all countries you sell to", selling everywhere but North Korea.
    const except = await storefrontBMerchant('Zones B2', { allowedCountries: 'all_except', allExceptCountries: ['KP'], shipToCountries: '' });
    const countries = (await me(except)).storeCountries.countries as string[];
    expect(countries).toHaveLength(COUNTRY_CODES.length - 1);
    expect(countries).not.toContain('KP');

    // The first merchant's countries are its own: the second connect changed nothing of them.
    expect((await me(specific)).storeCountries.countries).toEqual(['BE', 'FR']);

    await control(stack.urls.storefrontB, 'POST', `stores/${specific.storeId}/general-settings`, { shipToCountries: '', allowedCountries: 'specific', specificAllowedCountries: ['LU'] });
    expect((await refresh(specific)).body).toMatchObject({ countries: ['LU'], error: null });
    expect((await me(except)).storeCountries.countries).toHaveLength(COUNTRY_CODES.length - 1);
  });

  it('given a store that refuses the read / the countries read before stay and the reason is kept; a later good read clears it', async () => {
    const merchant = await storefrontBMerchant('Zones B3', { shipToCountries: 'specific', specificShipToCountries: ['NL'] });
    const before = (await me(merchant)).storeCountries;
    // The merchant revokes the key in WooCommerce: the store now answers 401 to it.
    const store = stack.sims.storefrontB.stores.get(merchant.storeId)!;
    const keys = new Map(store.keys);
    store.keys.clear();

    const res = await refresh(merchant);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ countries: ['NL'], readAt: before.readAt, error: expect.stringMatching(/unauthorized/) });

    for (const [k, v] of keys) store.keys.set(k, v);
    expect((await refresh(merchant)).body).toMatchObject({ countries: ['NL'], error: null });
  });

  it('given no store connected / a refresh answers CONFLICT and stores nothing', async () => {
    const merchant = await merchantWithProcessor(stack, 'Zones none');
    const res = await refresh(merchant);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('CONFLICT');
    expect((await me(merchant)).storeCountries).toEqual({ countries: [], readAt: null, error: null });
  });
});
