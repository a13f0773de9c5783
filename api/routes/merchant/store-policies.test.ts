// The store's policy pages (the checkout footer's links): read from the store with its ship-to countries — when it
// connects (storefront A install, storefront B connect) and on POST /api/merchant/store-countries/refresh — checked
// (domain/merchant/store-policies.ts) and kept on the merchant (GET /me `storePolicies`). A read that fails keeps what was read
// before and says why, and never fails the countries read: a storefront A shop installed before `read_legal_policies`
// was asked keeps working.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { api, control, merchantWithProcessor, storefrontACheckout, storefrontAMerchant, unique, type Json, type Merchant } from '../../../test/e2e/checkout-helpers.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

const me = async (m: Merchant) => (await api(stack, 'GET', '/api/merchant/me', undefined, m.token)).body as Json;
const refresh = (m: Merchant) => api(stack, 'POST', '/api/merchant/store-countries/refresh', undefined, m.token);
const policyPages = (storeId: string, pages: Json[]) => control(stack.urls.storefrontB, 'POST', `stores/${storeId}/policy-pages`, { pages });

/** A storefront B store of its own, its policy pages set before the merchant connects it. */
async function storefrontBMerchant(name: string, pages: Json[]): Promise<Merchant & { storeId: string }> {
  const merchant = await merchantWithProcessor(stack, name);
  const storeId = `pol-${unique()}`.toLowerCase().slice(0, 40);
  const created = await control(stack.urls.storefrontB, 'POST', 'stores', { id: storeId, name });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect((await policyPages(storeId, pages)).status).toBe(200);
  const connect = await api(stack, 'POST', '/api/merchant/storefront-b/connect', { storeUrl: `${stack.urls.storefrontB}/stores/${storeId}`, consumerKey: created.body.consumerKey, consumerSecret: created.body.consumerSecret }, merchant.token);
  expect(connect.status, JSON.stringify(connect.body)).toBe(200);
  return { ...merchant, storeId };
}

describe('the store\'s policy pages', () => {
  it('given a storefront A shop with a refund and a privacy policy / the install reads both; a renamed one and a new one are read on refresh; the bundle carries them', async () => {
    const merchant = await storefrontAMerchant(stack, 'Policies A', { primaryDomain: 'www.policies-a.example', policies: [{ type: 'PRIVACY_POLICY', body: '<p>We keep little.</p>' }, { type: 'REFUND_POLICY', body: '<p>30 days.</p>' }] });

    // In the checkout's order (refund before privacy), whatever order the shop lists them in.
    expect((await me(merchant)).storePolicies).toEqual({
      policies: [
        { kind: 'refund', title: 'Refund policy', url: 'https://www.policies-a.example/policies/refund-policy' },
        { kind: 'privacy', title: 'Privacy policy', url: 'https://www.policies-a.example/policies/privacy-policy' },
      ],
      readAt: expect.any(String),
      error: null,
    });
    const token = await storefrontACheckout(stack, merchant.shop);
    expect((await api(stack, 'GET', `/api/checkout/session-bundle/${token}`)).body.storePolicies).toEqual((await me(merchant)).storePolicies.policies);

    await control(stack.urls.storefrontA, 'POST', `shops/${merchant.shop.host}/policies`, { policies: [{ type: 'REFUND_POLICY', title: '  Returns &  refunds  ', body: '<p>60 days.</p>' }, { type: 'TERMS_OF_SERVICE', body: '<p>…</p>' }] });
    const res = await refresh(merchant);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.policies).toEqual({
      policies: [
        { kind: 'refund', title: 'Returns & refunds', url: 'https://www.policies-a.example/policies/refund-policy' },
        { kind: 'privacy', title: 'Privacy policy', url: 'https://www.policies-a.example/policies/privacy-policy' },
        { kind: 'terms', title: 'Terms of service', url: 'https://www.policies-a.example/policies/terms-of-service' },
      ],
      readAt: expect.any(String),
      error: null,
    });
    expect((await me(merchant)).storePolicies).toEqual(res.body.policies);
  });

  it('given a shop installed before read_legal_policies was asked / the countries are read, the policies read before stay with the reason, and the dashboard lists the scope as missing', async () => {
    const merchant = await storefrontAMerchant(stack, 'Policies A old', { shipsTo: ['DE'], policies: [{ type: 'REFUND_POLICY', body: '<p>30 days.</p>' }] });
    const before = (await me(merchant)).storePolicies;
    expect(before.policies).toHaveLength(1);
    // The install's grant, as a shop installed before 2026-11-29 holds it: every scope but the new one.
    const host = merchant.shop.host;
    for (const grant of stack.sims.storefrontA.state.tokens.values()) if (grant.shop === host) grant.scopes = grant.scopes.filter((s) => s !== 'read_legal_policies');
    const row = await stack.database.db.storefrontAConnection.findUniqueOrThrow({ where: { merchantId: merchant.id } });
    await stack.database.db.storefrontAConnection.update({ where: { merchantId: merchant.id }, data: { scopes: row.scopes!.split(',').filter((s) => s !== 'read_legal_policies').join(',') } });
    await control(stack.urls.storefrontA, 'POST', `shops/${host}/ships-to`, { countries: ['DE', 'AT'] });
    await control(stack.urls.storefrontA, 'POST', `shops/${host}/policies`, { policies: [{ type: 'PRIVACY_POLICY', body: '<p>…</p>' }] });

    const res = await refresh(merchant);

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ countries: ['AT', 'DE'], error: null });
    expect(res.body.policies).toEqual({ policies: before.policies, readAt: before.readAt, error: expect.stringMatching(/unauthorized.*read_legal_policies/) });
    expect((await api(stack, 'GET', '/api/merchant/storefront-a', undefined, merchant.token)).body.missingScopes).toEqual(['read_legal_policies']);
    // A checkout still works and shows what was read before.
    const token = await storefrontACheckout(stack, merchant.shop);
    expect((await api(stack, 'GET', `/api/checkout/session-bundle/${token}`)).body.storePolicies).toEqual(before.policies);
  });

  it('given a WooCommerce store with published terms, privacy and refund pages / connect reads them with the store\'s titles and permalinks', async () => {
    const merchant = await storefrontBMerchant('Policies B', [
      { type: 'terms', page: { title: 'Terms & Conditions', slug: 'terms', status: 'publish' } },
      { type: 'privacy', page: { title: 'Privacy Policy', status: 'publish' } },
      { type: 'refund', page: { title: 'Refund and Returns Policy', slug: 'refund_returns', status: 'publish' } },
    ]);
    const home = `${stack.urls.storefrontB}/stores/${merchant.storeId}`;
    expect((await me(merchant)).storePolicies).toEqual({
      policies: [
        { kind: 'refund', title: 'Refund and Returns Policy', url: `${home}/refund_returns/` },
        { kind: 'privacy', title: 'Privacy Policy', url: `${home}/privacy-policy/` },
        { kind: 'terms', title: 'Terms & Conditions', url: `${home}/terms/` },
      ],
      readAt: expect.any(String),
      error: null,
    });
  });

  it('given a store whose plugin is deactivated / the refresh reads the countries, keeps the policies read before and says to activate or update the plugin; a later good read clears it', async () => {
    const merchant = await storefrontBMerchant('Policies B off', [{ type: 'refund', page: { title: 'Refunds', status: 'publish' } }]);
    const before = (await me(merchant)).storePolicies;
    await control(stack.urls.storefrontB, 'POST', `stores/${merchant.storeId}/plugin`, { active: false });

    const res = await refresh(merchant);

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ error: null, readAt: expect.any(String) });
    expect(res.body.policies).toEqual({ policies: before.policies, readAt: before.readAt, error: expect.stringContaining('not active or older than 1.3.0') });

    await control(stack.urls.storefrontB, 'POST', `stores/${merchant.storeId}/plugin`, { active: true });
    expect((await refresh(merchant)).body.policies).toMatchObject({ policies: before.policies, error: null });
  });

  it('given a page title too long and one of only spaces / the long one is cut with an ellipsis, the empty one left out and named for the merchant', async () => {
    const merchant = await storefrontBMerchant('Policies B odd', [
      { type: 'terms', page: { title: 'Terms and conditions of sale, delivery, returns and everything else a shopper could ever want to know', slug: 'terms', status: 'publish' } },
      { type: 'refund', page: { title: '   ', slug: 'refunds', status: 'publish' } },
    ]);
    const { policies, error } = (await me(merchant)).storePolicies;
    expect(policies).toEqual([{ kind: 'terms', title: expect.stringMatching(/^Terms and conditions of sale, .{40,}…$/), url: expect.stringMatching(/\/terms\/$/) }]);
    expect(policies[0].title).toHaveLength(80);
    expect(error).toBe('Left out (not a page address we link to, or no title): refund (title: no title)');
  });
});
