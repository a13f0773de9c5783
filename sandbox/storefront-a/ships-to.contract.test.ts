// Contract test: Shop.shipsToCountries (the countries of the shop's shipping zones, which the service reads at install
// and on the merchant's refresh) through Shopify's official Admin API client (@shopify/admin-api-client 2), pointed
// at the simulator. A simulator that answers another shape, or needs a scope Shopify does not, fails here.
import { createAdminApiClient } from '@shopify/admin-api-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../test/harness/simulators.js';
import { createStorefrontASimulator, DEMO_SHOP, type StorefrontASimulator } from './simulator.js';
import { REST_OF_WORLD } from './state.js';

let sim: StorefrontASimulator;
let simUrl: string;
let closeSim: () => Promise<void>;

beforeAll(async () => {
  ({ sim, url: simUrl, close: closeSim } = await startSimulator((publicUrl) => createStorefrontASimulator({ publicUrl })));
});
afterAll(async () => {
  await closeSim();
});
beforeEach(async () => {
  await sim.reset();
});

/** The official client for the demo shop with an access token holding no scope at all: the field needs none. */
const admin = () =>
  createAdminApiClient({
    storeDomain: DEMO_SHOP,
    apiVersion: '2026-10',
    accessToken: sim.install(DEMO_SHOP, { scopes: [] }),
    customFetchApi: (url, init) => fetch(String(url).replace(`https://${DEMO_SHOP}`, `${simUrl}/shops/${DEMO_SHOP}`), init),
  });

describe('Shop.shipsToCountries by the official Admin API client', () => {
  it('given a new shop / it ships to every country of the CountryCode enum but ZZ (a "Rest of World" zone)', async () => {
    const { data, errors } = await admin().request<{ shop: { shipsToCountries: string[] } }>('query ShipsTo { shop { shipsToCountries } }');
    expect(errors).toBeUndefined();
    expect(data!.shop.shipsToCountries).toEqual(REST_OF_WORLD);
    expect(data!.shop.shipsToCountries).toContain('KP');
    expect(data!.shop.shipsToCountries).not.toContain('ZZ');
  });

  it('given the merchant ships to Germany and Austria only / it answers those two, sorted', async () => {
    const set = await fetch(`${simUrl}/_control/shops/${DEMO_SHOP}/ships-to`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ countries: ['DE', 'AT', 'DE'] }) });
    expect(set.status).toBe(200);
    const { data } = await admin().request<{ shop: { shipsToCountries: string[] } }>('query ShipsTo { shop { shipsToCountries } }');
    expect(data!.shop.shipsToCountries).toEqual(['AT', 'DE']);
  });

  it('given a field Shopify\'s Shop does not have / the simulator refuses it as Shopify does', async () => {
    const { errors } = await admin().request('query { shop { shipsToCountriesV2 } }');
    expect(errors?.graphQLErrors?.[0]?.message ?? errors?.message).toMatch(/shipsToCountriesV2/);
  });
});
