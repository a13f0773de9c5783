import { describe, expect, it } from 'vitest';
import { createStorefrontAClient } from '../../../integrations/storefront-a/client.js';
import {
  call, createMerchant, DEMO_SHOP, installThroughOAuth, saveInputs, simControl, simShop, useStorefrontAStack, storedAccessToken,
} from '../../../test/harness/storefront-a-stack.js';

const s = useStorefrontAStack();

const db = () => s.stack.database.db;
const src = () => `${s.stack.config.publicApiUrl}/script-tag.js`;

async function storeClient(merchantId: string) {
  return createStorefrontAClient({ shop: DEMO_SHOP, accessToken: (await storedAccessToken(s, merchantId))!, apiUrlTemplate: s.stack.config.storefrontA.apiTemplate });
}

describe('GET /api/merchant/script-tag/status', () => {
  it('given an installed shop with our tag / then installed, with the tag id, checked live and recorded', async () => {
    const m = await createMerchant(s);
    await installThroughOAuth(s, m.token);
    const tagId = String((await simShop(s)).scriptTags[0]!.id);
    const before = Date.now();
    const res = await call(s, 'GET', '/api/merchant/script-tag/status', { token: m.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ platform: 'STOREFRONT_A', installed: true, scriptTagId: tagId, src: src() });
    expect(Date.parse(String(res.body.checkedAt))).toBeGreaterThanOrEqual(before - 1000);
    const row = await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: m.id } });
    expect(row.scriptTagCheckedAt!.toISOString()).toBe(res.body.checkedAt);
  });

  it('given our tag was removed at the store / then not installed; when POST install / then it is back and status says so', async () => {
    const m = await createMerchant(s);
    await installThroughOAuth(s, m.token);
    const client = await storeClient(m.id);
    for (const tag of await client.listScriptTags()) await client.deleteScriptTag(tag.id);

    const missing = await call(s, 'GET', '/api/merchant/script-tag/status', { token: m.token });
    expect(missing.body).toMatchObject({ installed: false, scriptTagId: null });
    expect((await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: m.id } })).scriptTagId).toBeNull();

    const installed = await call(s, 'POST', '/api/merchant/script-tag/install', { token: m.token });
    expect(installed.status, JSON.stringify(installed.body)).toBe(200);
    const tags = (await simShop(s)).scriptTags;
    expect(tags).toHaveLength(1);
    expect(tags[0]!.src).toBe(src());
    expect(installed.body).toMatchObject({ platform: 'STOREFRONT_A', installed: true, scriptTagId: String(tags[0]!.id), src: src() });
    expect((await call(s, 'GET', '/api/merchant/script-tag/status', { token: m.token })).body).toMatchObject({ installed: true, scriptTagId: String(tags[0]!.id) });
  });

  it('given the tag is already there / when POST install / then no second tag is made', async () => {
    const m = await createMerchant(s);
    await installThroughOAuth(s, m.token);
    const res = await call(s, 'POST', '/api/merchant/script-tag/install', { token: m.token });
    expect(res.body.installed).toBe(true);
    expect((await simShop(s)).scriptTags).toHaveLength(1);
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
        expect(res.body.error).toMatch(/storefront A/i);
      }
    }
  });

  it('given the app was uninstalled at the store without us hearing of it / then 409 CONFLICT asking to install again', async () => {
    const m = await createMerchant(s);
    await installThroughOAuth(s, m.token);
    // No webhook address: the platform uninstalls, the notification goes nowhere.
    await simControl(s, 'webhooks/send', { shop: DEMO_SHOP, topic: 'app/uninstalled' });
    const res = await call(s, 'GET', '/api/merchant/script-tag/status', { token: m.token });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatch(/install the app again/);
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

  it('given merchant A installed / when merchant B asks for status or install / then B gets 409 and A\'s shop is untouched', async () => {
    const a = await createMerchant(s);
    const b = await createMerchant(s);
    await installThroughOAuth(s, a.token);
    const client = await storeClient(a.id);
    for (const tag of await client.listScriptTags()) await client.deleteScriptTag(tag.id);
    expect((await call(s, 'POST', '/api/merchant/script-tag/install', { token: b.token })).status).toBe(409);
    expect((await call(s, 'GET', '/api/merchant/script-tag/status', { token: b.token })).status).toBe(409);
    expect((await simShop(s)).scriptTags).toEqual([]);
  });
});
