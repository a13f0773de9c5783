// Contract test: Shop.shopPolicies (the shop's legal policies, which the service reads at install and on the
// merchant's refresh for the checkout footer's links) through Shopify's official Admin API client
// (@shopify/admin-api-client 2), pointed at the simulator. ShopPolicy needs `read_legal_policies` (its requiredAccess in
// Shopify's 2026-10 introspection, @shopify/dev-mcp 1.16.0): without it the simulator must refuse as Shopify does.
import { createAdminApiClient } from '@shopify/admin-api-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../test/harness/simulators.js';
import { createStorefrontASimulator, DEFAULT_SCOPES, DEMO_SHOP, type StorefrontASimulator } from './simulator.js';

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

const QUERY = 'query ShopPolicies { shop { shopPolicies { type title url } } }';
type Answer = { shop: { shopPolicies: Array<{ type: string; title: string; url: string }> } };

/** The official client for the demo shop with an access token holding these scopes. */
const admin = (scopes: string[]) =>
  createAdminApiClient({
    storeDomain: DEMO_SHOP,
    apiVersion: '2026-10',
    accessToken: sim.install(DEMO_SHOP, { scopes }),
    customFetchApi: (url, init) => fetch(String(url).replace(`https://${DEMO_SHOP}`, `${simUrl}/shops/${DEMO_SHOP}`), init),
  });

const writePolicies = (policies: Array<{ type: string; title?: string; body: string }>) =>
  fetch(`${simUrl}/_control/shops/${DEMO_SHOP}/policies`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ policies }) });

describe('Shop.shopPolicies by the official Admin API client', () => {
  it('given a new shop (no policy written) / it lists none', async () => {
    const { data, errors } = await admin(['read_legal_policies']).request<Answer>(QUERY);
    expect(errors).toBeUndefined();
    expect(data!.shop.shopPolicies).toEqual([]);
  });

  it('given the merchant wrote a refund and a privacy policy / both come with their title and their page on the primary domain', async () => {
    expect((await writePolicies([{ type: 'REFUND_POLICY', body: '<p>30 days.</p>' }, { type: 'PRIVACY_POLICY', title: 'Datenschutzerklärung', body: '<p>…</p>' }])).status).toBe(200);

    const { data, errors } = await admin(DEFAULT_SCOPES).request<Answer>(QUERY);

    expect(errors).toBeUndefined();
    expect(data!.shop.shopPolicies).toEqual([
      { type: 'REFUND_POLICY', title: 'Refund policy', url: 'https://www.demo-shop.example/policies/refund-policy' },
      { type: 'PRIVACY_POLICY', title: 'Datenschutzerklärung', url: 'https://www.demo-shop.example/policies/privacy-policy' },
    ]);
    // A policy whose text is cleared is gone.
    await writePolicies([{ type: 'REFUND_POLICY', body: '' }]);
    expect((await admin(DEFAULT_SCOPES).request<Answer>(QUERY)).data!.shop.shopPolicies.map((p) => p.type)).toEqual(['PRIVACY_POLICY']);
  });

  it('given a token without read_legal_policies (an install from before we asked for it) / ACCESS_DENIED naming the scope, and no data', async () => {
    await writePolicies([{ type: 'REFUND_POLICY', body: '<p>30 days.</p>' }]);
    const withoutScope = DEFAULT_SCOPES.filter((s) => s !== 'read_legal_policies');

    const { data, errors } = await admin(withoutScope).request<Answer>(QUERY);

    expect(data?.shop).toBeFalsy();
    const [denied] = errors?.graphQLErrors ?? [];
    expect(denied).toMatchObject({ extensions: { code: 'ACCESS_DENIED' } });
    expect(denied?.message).toContain('read_legal_policies');
    // The same token still reads the fields that need no such scope.
    expect((await admin(withoutScope).request('query { shop { name } }')).errors).toBeUndefined();
  });

  it('given a policy type Shopify does not have, or a field ShopPolicy does not have / the simulator refuses both as Shopify would', async () => {
    expect((await writePolicies([{ type: 'COOKIE_POLICY', body: 'x' }])).status).toBe(400);
    const { errors } = await admin(DEFAULT_SCOPES).request('query { shop { shopPolicies { handle } } }');
    expect(errors?.graphQLErrors?.[0]?.message ?? errors?.message).toMatch(/handle/);
  });
});
