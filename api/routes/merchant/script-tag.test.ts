import { describe, expect, it } from 'vitest';
import {
  call, createMerchant, DEMO_APP, DEMO_SHOP, installThroughOAuth, saveInputs, simControl, simShop, useStorefrontAStack,
} from '../../../test/harness/storefront-a-stack.js';
import { setAppEmbed } from '../../../scripts/lib/theme-extension.js';

const s = useStorefrontAStack();

const db = () => s.stack.database.db;
const src = () => `${s.stack.config.publicApiUrl}/script-tag.js`;
const activationUrl = () => `${s.stack.config.storefrontA.apiTemplate.replace('{shop}', DEMO_SHOP)}/admin/themes/current/editor?context=apps&activateAppId=${DEMO_APP.clientId}/checkout-embed`;
/** A script tag made before Shopify refused new ones (2026-10-01), left in the shop. */
const legacyTag = async () => (await simControl(s, `shops/${DEMO_SHOP}/script-tags`, { clientId: DEMO_APP.clientId, src: src() })).body;

describe('GET /api/merchant/script-tag/status: the app embed in the published theme', () => {
  it('given an installed shop whose merchant has not turned the embed on / then not installed, with the activation link; once saved on in the theme editor / installed, recorded', async () => {
    const m = await createMerchant(s);
    await installThroughOAuth(s, m.token);
    const before = Date.now();
    const off = await call(s, 'GET', '/api/merchant/script-tag/status', { token: m.token });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body).toMatchObject({ platform: 'STOREFRONT_A', installed: false, scriptTagId: null, activationUrl: activationUrl(), themeName: 'Dawn' });
    expect(Date.parse(String(off.body.checkedAt))).toBeGreaterThanOrEqual(before - 1000);

    await setAppEmbed(s.stack.urls.storefrontA, DEMO_SHOP, DEMO_APP.clientId, true);
    const on = await call(s, 'GET', '/api/merchant/script-tag/status', { token: m.token });
    expect(on.body).toMatchObject({ installed: true, activationUrl: activationUrl() });
    const row = await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: m.id } });
    expect(row).toMatchObject({ appEmbedActive: true });
    expect(row.scriptTagCheckedAt!.toISOString()).toBe(on.body.checkedAt);

    // Turned off again (or a theme published without it): status says so.
    await setAppEmbed(s.stack.urls.storefrontA, DEMO_SHOP, DEMO_APP.clientId, false);
    expect((await call(s, 'GET', '/api/merchant/script-tag/status', { token: m.token })).body).toMatchObject({ installed: false });
    expect((await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: m.id } })).appEmbedActive).toBe(false);
  });

  it('given a legacy script tag of ours in the shop / status reports it; POST install removes it, creates none, and answers the activation link', async () => {
    const m = await createMerchant(s);
    await installThroughOAuth(s, m.token);
    const tag = await legacyTag();
    const status = await call(s, 'GET', '/api/merchant/script-tag/status', { token: m.token });
    expect(status.body).toMatchObject({ installed: false, scriptTagId: String(tag.gid) });

    const installed = await call(s, 'POST', '/api/merchant/script-tag/install', { token: m.token });
    expect(installed.status, JSON.stringify(installed.body)).toBe(200);
    expect(installed.body).toMatchObject({ platform: 'STOREFRONT_A', installed: false, scriptTagId: null, activationUrl: activationUrl() });
    expect((await simShop(s)).scriptTags).toEqual([]);
    // Installing again is harmless: still no tag.
    expect((await call(s, 'POST', '/api/merchant/script-tag/install', { token: m.token })).body).toMatchObject({ scriptTagId: null });
    expect((await simShop(s)).scriptTags).toEqual([]);
  });
});

describe('script tag routes refuse what they cannot do', () => {
  it('given no storefront A connection, or inputs saved but not installed / then 409 CONFLICT with a clear message', async () => {
    const m = await createMerchant(s);
    for (const step of ['none', 'saved']) {
      if (step === 'saved') await saveInputs(s, m.token);
      for (const [method, url] of [['GET', '/api/merchant/script-tag/status'], ['POST', '/api/merchant/script-tag/install']] as const) {
        const res = await call(s, method, url, { token: m.token });
        expect(res.status, `${step} ${url}`).toBe(409);
        expect(res.body.code).toBe('CONFLICT');
        expect(res.body.error).toMatch(/Shopify/);
      }
    }
  });

  it('given the app was uninstalled at the store / then 409 CONFLICT asking to install it again, whether or not we heard of it', async () => {
    // Heard: Shopify's app/uninstalled reaches the subscription the install made.
    const m = await createMerchant(s);
    await installThroughOAuth(s, m.token);
    await simControl(s, 'webhooks/send', { shop: DEMO_SHOP, topic: 'app/uninstalled' });
    const heard = await call(s, 'GET', '/api/merchant/script-tag/status', { token: m.token });
    expect(heard.status).toBe(409);
    expect(heard.body.error).toMatch(/install the app/);

    // Not heard: the token simply stops working at the shop (401).
    const other = await createMerchant(s);
    await s.stack.database.db.storefrontAConnection.deleteMany();
    await installThroughOAuth(s, other.token);
    s.stack.sims.storefrontA.state.tokens.clear();
    const unheard = await call(s, 'GET', '/api/merchant/script-tag/status', { token: other.token });
    expect(unheard.status).toBe(409);
    expect(unheard.body.error).toMatch(/install the app again/);
  });

  it('given the store is down / then 502 UPSTREAM_ERROR', async () => {
    const m = await createMerchant(s);
    await installThroughOAuth(s, m.token);
    await simControl(s, 'faults', { mode: 'error', status: 503, count: 10, match: `/shops/${DEMO_SHOP}/admin/api` });
    const res = await call(s, 'POST', '/api/merchant/script-tag/install', { token: m.token });
    await fetch(`${s.stack.urls.storefrontA}/_control/faults`, { method: 'DELETE' });
    expect(res.status).toBe(502);
    expect(res.body.code).toBe('UPSTREAM_ERROR');
  });

  it('given no token / then 401', async () => {
    for (const [method, url] of [['GET', '/api/merchant/script-tag/status'], ['POST', '/api/merchant/script-tag/install']] as const) {
      const res = await call(s, method, url);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    }
  });

  it('given merchant A installed with a legacy tag / when merchant B asks for status or install / then B gets 409 and A\'s shop is untouched', async () => {
    const a = await createMerchant(s);
    const b = await createMerchant(s);
    await installThroughOAuth(s, a.token);
    await legacyTag();
    expect((await call(s, 'POST', '/api/merchant/script-tag/install', { token: b.token })).status).toBe(409);
    expect((await call(s, 'GET', '/api/merchant/script-tag/status', { token: b.token })).status).toBe(409);
    expect((await simShop(s)).scriptTags).toHaveLength(1);
  });
});
