import { describe, expect, it } from 'vitest';
import { storefrontAAad } from '../../../activities/storefront-a.js';
import {
  call, createMerchant, DEMO_APP, DEMO_SHOP, installThroughOAuth, saveInputs, simShop, useStorefrontAStack,
} from '../../test/storefront-a-stack.js';

const s = useStorefrontAStack();

const db = () => s.stack.database.db;
const inputs = { shop: DEMO_SHOP, clientId: DEMO_APP.clientId, clientSecret: DEMO_APP.clientSecret };

describe('PUT /api/merchant/storefront-a', () => {
  it('given valid inputs / then they are saved with the secret sealed, storefront A becomes the platform, and an install link is answered', async () => {
    const m = await createMerchant(s);
    const res = await call(s, 'PUT', '/api/merchant/storefront-a', { token: m.token, body: { ...inputs, shop: '  HTTPS://Demo-Shop.myshopify.com/admin ' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ shop: DEMO_SHOP, clientId: DEMO_APP.clientId, connected: false });
    expect(JSON.stringify(res.body)).not.toContain(DEMO_APP.clientSecret);
    const link = new URL(String(res.body.installUrl));
    expect(link.origin + link.pathname).toBe(`${s.stack.config.publicApiUrl}/api/auth/storefront-a/install`);
    const handoff = s.stack.app.jwt.verify<{ merchantId: string; shopDomain: string; purpose: string; exp: number; iat: number }>(link.searchParams.get('handoff')!);
    expect(handoff).toMatchObject({ merchantId: m.id, shopDomain: DEMO_SHOP, purpose: 'storefront-a-install' });
    expect(handoff.exp - handoff.iat).toBe(600);

    const row = await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: m.id } });
    expect(row.clientSecretEnc).not.toContain(DEMO_APP.clientSecret);
    expect(s.secrets.decrypt(row.clientSecretEnc, storefrontAAad.clientSecret(m.id))).toBe(DEMO_APP.clientSecret);
    expect(row).toMatchObject({ shop: DEMO_SHOP, connected: false, accessTokenEnc: null });
    expect(await db().merchant.findUniqueOrThrow({ where: { id: m.id } })).toMatchObject({ storePlatform: 'STOREFRONT_A', shopDomain: DEMO_SHOP });
  });

  it('given a host that is not a shop host, or missing fields / then 400 INVALID_INPUT and nothing is saved', async () => {
    const m = await createMerchant(s);
    for (const body of [
      { ...inputs, shop: 'evil.example.com' },
      { ...inputs, shop: 'demo-shop.myshopify.com.evil.test' },
      { ...inputs, shop: '' },
      { ...inputs, clientSecret: '' },
      { shop: DEMO_SHOP, clientId: DEMO_APP.clientId },
    ]) {
      const res = await call(s, 'PUT', '/api/merchant/storefront-a', { token: m.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('INVALID_INPUT');
    }
    expect(await db().storefrontAConnection.count({ where: { merchantId: m.id } })).toBe(0);
    expect((await db().merchant.findUniqueOrThrow({ where: { id: m.id } })).storePlatform).toBeNull();
  });

  it('given a shop connected to another merchant / then 409 CONFLICT and the other connection is untouched', async () => {
    const a = await createMerchant(s);
    const b = await createMerchant(s);
    await installThroughOAuth(s, a.token);
    const before = await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: a.id } });
    const res = await call(s, 'PUT', '/api/merchant/storefront-a', { token: b.token, body: inputs });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('CONFLICT');
    expect(await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: a.id } })).toEqual(before);
    expect(await db().storefrontAConnection.count({ where: { merchantId: b.id } })).toBe(0);
  });

  it('given a shop another merchant entered but never installed / then it goes to the merchant who saves it now', async () => {
    const a = await createMerchant(s);
    const b = await createMerchant(s);
    await saveInputs(s, a.token);
    await saveInputs(s, b.token);
    expect(await db().storefrontAConnection.count({ where: { merchantId: a.id } })).toBe(0);
    expect((await db().merchant.findUniqueOrThrow({ where: { id: a.id } })).shopDomain).toBeNull();
    expect((await db().storefrontAConnection.findUniqueOrThrow({ where: { shop: DEMO_SHOP } })).merchantId).toBe(b.id);
  });

  it('given a connected shop / when the merchant saves a new secret for the same shop and app / then the connection stays; when the shop changes / then it is reset', async () => {
    const m = await createMerchant(s);
    await installThroughOAuth(s, m.token);
    const same = await call(s, 'PUT', '/api/merchant/storefront-a', { token: m.token, body: { ...inputs, clientSecret: 'rotated-secret-0123456789' } });
    expect(same.body.connected).toBe(true);
    const other = await call(s, 'PUT', '/api/merchant/storefront-a', { token: m.token, body: { ...inputs, shop: 'other-shop.myshopify.com' } });
    expect(other.body.connected).toBe(false);
    expect(await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: m.id } })).toMatchObject({ shop: 'other-shop.myshopify.com', accessTokenEnc: null, scopes: null, scriptTagId: null });
  });
});

describe('GET /api/merchant/storefront-a', () => {
  it('given saved inputs / then it shows shop, client id and state, never the secret or the token', async () => {
    const m = await createMerchant(s);
    await installThroughOAuth(s, m.token);
    const res = await call(s, 'GET', '/api/merchant/storefront-a', { token: m.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ shop: DEMO_SHOP, clientId: DEMO_APP.clientId, connected: true, uninstalledAt: null, scopes: ['read_products', 'read_checkouts', 'write_script_tags', 'write_orders'] });
    expect(typeof res.body.installedAt).toBe('string');
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(DEMO_APP.clientSecret);
    expect(text).not.toMatch(/sfat_|accessToken|Enc/);
  });

  it('given no inputs / then 404 NOT_FOUND', async () => {
    const m = await createMerchant(s);
    const res = await call(s, 'GET', '/api/merchant/storefront-a', { token: m.token });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });
});

describe('DELETE /api/merchant/storefront-a', () => {
  it('given a connected shop / then our script tag leaves the shop, the connection is forgotten and the platform is cleared', async () => {
    const m = await createMerchant(s);
    await installThroughOAuth(s, m.token);
    expect((await simShop(s)).scriptTags).toHaveLength(1);
    const res = await call(s, 'DELETE', '/api/merchant/storefront-a', { token: m.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ disconnected: true, scriptTagsRemoved: 1, warning: null });
    expect((await simShop(s)).scriptTags).toEqual([]);
    expect(await db().storefrontAConnection.count({ where: { merchantId: m.id } })).toBe(0);
    expect(await db().merchant.findUniqueOrThrow({ where: { id: m.id } })).toMatchObject({ storePlatform: null, shopDomain: null });
  });

  it('given the store cannot be reached / then the connection is still removed, with a warning', async () => {
    const m = await createMerchant(s);
    await installThroughOAuth(s, m.token);
    await fetch(`${s.stack.urls.storefrontA}/_control/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'error', status: 503, count: 10, match: `/shops/${DEMO_SHOP}/admin/api` }),
    });
    const res = await call(s, 'DELETE', '/api/merchant/storefront-a', { token: m.token });
    await fetch(`${s.stack.urls.storefrontA}/_control/faults`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(res.body.scriptTagsRemoved).toBe(0);
    expect(String(res.body.warning)).toMatch(/store/);
    expect(await db().storefrontAConnection.count({ where: { merchantId: m.id } })).toBe(0);
  });

  it('given no connection / then 404 NOT_FOUND', async () => {
    const m = await createMerchant(s);
    const res = await call(s, 'DELETE', '/api/merchant/storefront-a', { token: m.token });
    expect(res.status).toBe(404);
  });
});

describe('authentication and tenant isolation', () => {
  it('given no token or a bad token / then every route answers 401', async () => {
    for (const [method, url] of [['PUT', '/api/merchant/storefront-a'], ['GET', '/api/merchant/storefront-a'], ['DELETE', '/api/merchant/storefront-a']] as const) {
      for (const token of [undefined, 'not-a-jwt']) {
        const res = await call(s, method, url, { token, body: method === 'PUT' ? inputs : undefined });
        expect(res.status, `${method} ${url}`).toBe(401);
        expect(res.body.code).toBe('UNAUTHORIZED');
      }
    }
    expect(await db().storefrontAConnection.count()).toBe(0);
  });

  it('given merchant A connected / when merchant B reads, saves or deletes / then B only ever sees and changes B\'s own connection', async () => {
    const a = await createMerchant(s);
    const b = await createMerchant(s);
    await installThroughOAuth(s, a.token);
    const before = await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: a.id } });

    expect((await call(s, 'GET', '/api/merchant/storefront-a', { token: b.token })).status).toBe(404);
    expect((await call(s, 'DELETE', '/api/merchant/storefront-a', { token: b.token })).status).toBe(404);
    await saveInputs(s, b.token, { shop: 'beta-shop.myshopify.com', clientId: 'beta-client', clientSecret: 'beta-secret-0123456789' });
    const seen = await call(s, 'GET', '/api/merchant/storefront-a', { token: b.token });
    expect(seen.body).toMatchObject({ shop: 'beta-shop.myshopify.com', clientId: 'beta-client', connected: false });
    expect((await call(s, 'DELETE', '/api/merchant/storefront-a', { token: b.token })).status).toBe(200);

    expect(await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: a.id } })).toEqual(before);
    expect((await simShop(s)).scriptTags).toHaveLength(1);
    expect((await call(s, 'GET', '/api/merchant/storefront-a', { token: a.token })).body).toMatchObject({ shop: DEMO_SHOP, connected: true });
  });
});

describe('OpenAPI', () => {
  it('documents every storefront A route with its security', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/docs/json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json() as { paths: Record<string, Record<string, { security?: unknown; responses: Record<string, unknown> }>> };
    expect(Object.keys(doc.paths['/api/merchant/storefront-a']!).sort()).toEqual(['delete', 'get', 'put']);
    expect(doc.paths['/api/merchant/storefront-a']!.put!.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths['/api/merchant/script-tag/status']!.get).toBeDefined();
    expect(doc.paths['/api/merchant/script-tag/install']!.post).toBeDefined();
    expect(doc.paths['/api/auth/storefront-a/install']!.get!.responses['302']).toBeDefined();
    expect(doc.paths['/api/auth/storefront-a/callback']!.get!.security).toBeUndefined();
    expect(doc.paths['/webhooks/storefront-a']!.post).toBeDefined();
  });
});
