// The sandbox values the docs quote for a walk-through (docs/dashboard.md, docs/sandbox.md, docs/onboarding.md) are run
// against the sandbox, so the docs and the sandbox cannot drift apart again (dashboard.md once quoted a Shopify client
// secret the sandbox did not have, which led a merchant straight to a failed install). Each value is read from the
// docs' text, not from the sandbox's code: a Shopify client ID and secret must sign and exchange a real install, a
// WooCommerce key pair must read the store's REST API, a Whop key must answer accounts/me with the business quoted.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack.js';
import { consent } from '../harness/storefront-a-stack.js';
import { verifyCallbackHmac } from '../../integrations/storefront-a/oauth.js';
import { WooCommerceRestApi } from '../harness/woocommerce-official.js';

const PAGES = ['dashboard.md', 'sandbox.md', 'onboarding.md'] as const;
const text = Object.fromEntries(PAGES.map((p) => [p, readFileSync(new URL(`../../docs/${p}`, import.meta.url), 'utf8')]));
const all = (re: RegExp) => [...new Set(PAGES.flatMap((p) => [...text[p]!.matchAll(re)].map((m) => m[1]!)))];

const shopifySecrets = all(/`((?:shpss|sfa)_[A-Za-z0-9_]+)`/g);
const shopifyClientIds = all(/`(sfa-[a-z0-9-]+)`/g);
const shops = all(/`([a-z0-9-]+\.myshopify\.com)`/g);
const wooKeys = all(/`(ck_[0-9a-f]{40})`/g);
const wooSecrets = all(/`(cs_[0-9a-f]{40})`/g);
const whopKeys = all(/`(apik_[a-z0-9_]+)`/g).concat(all(/\*\*`(apik_[a-z0-9_]+)`\*\*/g));
const whopBusinesses = new Map(PAGES.flatMap((p) => [...text[p]!.matchAll(/`(apik_[a-z0-9_]+)`\*{0,2} \((?:company|business) \*{0,2}`(biz_[a-z0-9]+)`/g)].map((m) => [m[1]!, m[2]!] as const)));

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
}, 180_000);
afterAll(async () => {
  await stack?.close();
});

describe('the sandbox values quoted in the docs work against the sandbox', () => {
  it('the docs quote the values a walk-through needs', () => {
    expect(shopifySecrets.length).toBeGreaterThan(0);
    expect(shopifyClientIds.length).toBeGreaterThan(0);
    expect(shops).toContain('demo-shop.myshopify.com');
    expect(wooKeys.length).toBeGreaterThan(0);
    expect(wooSecrets.length).toBeGreaterThan(0);
    expect(whopKeys.length).toBeGreaterThan(0);
  });

  it('every quoted Shopify client secret signs the demo shop\'s install and exchanges its code, with the quoted client ID', async () => {
    for (const clientId of shopifyClientIds) {
      for (const shop of shops.filter((s) => s.startsWith('demo-shop'))) {
        const authorize = new URL(`${stack.urls.storefrontA}/shops/${shop}/admin/oauth/authorize`);
        authorize.search = new URLSearchParams({ client_id: clientId, scope: 'read_themes', redirect_uri: `${stack.config.publicApiUrl}/api/auth/storefront-a/callback`, state: 'docs-check' }).toString();
        for (const clientSecret of shopifySecrets) {
          const callback = await consent(authorize);
          expect(await verifyCallbackHmac(callback.searchParams, { clientId, clientSecret }), `the secret ${clientSecret} quoted in the docs does not verify Shopify's signature`).toBe(true);
          const exchange = await fetch(`${stack.urls.storefrontA}/shops/${shop}/admin/oauth/access_token`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ client_id: clientId, client_secret: clientSecret, code: callback.searchParams.get('code') }),
          });
          expect(exchange.status, `client ${clientId} / secret ${clientSecret}`).toBe(200);
          expect(((await exchange.json()) as { access_token?: string }).access_token).toBeTruthy();
        }
      }
    }
  });

  it('every quoted WooCommerce key pair reads the demo store\'s REST API', async () => {
    for (const key of wooKeys) {
      for (const secret of wooSecrets) {
        // WooCommerce's official client, as a merchant's integration would use the keys (OAuth 1.0a over http).
        const client = new WooCommerceRestApi({ url: `${stack.urls.storefrontB}/stores/demo`, consumerKey: key, consumerSecret: secret, version: 'wc/v3' });
        const res = await client.get('products');
        expect(res.status, `${key} / ${secret}`).toBe(200);
      }
    }
  });

  it('every quoted Whop API key answers accounts/me, with the business the docs name beside it', async () => {
    expect(whopBusinesses.size).toBeGreaterThan(0);
    for (const key of whopKeys) {
      const res = await fetch(`${stack.urls.processor}/api/v1/accounts/me`, { headers: { authorization: `Bearer ${key}`, 'api-version-date': '2026-07-20' } });
      expect(res.status, key).toBe(200);
      const business = whopBusinesses.get(key);
      if (business) expect(((await res.json()) as { id: string }).id).toBe(business);
    }
  });
});
