import { describe, expect, it } from 'vitest';
import { unzipSync } from 'fflate';
import { STOREFRONT_A_SCOPES, storefrontAAad } from '../../../model/connections.js';
import {
  call, consent, createMerchant, DEMO_APP, DEMO_SHOP, installThroughOAuth, openCallback, openInstall, saveInputs, simControl, simShop, useStorefrontAStack,
} from '../../../test/harness/storefront-a-stack.js';

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
    await simControl(s, `shops/${DEMO_SHOP}/script-tags`, { clientId: DEMO_APP.clientId, src: `${s.stack.config.publicApiUrl}/script-tag.js` });
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

  it('given a connected shop / when the merchant saves the same inputs again / then nothing changes and the link reinstalls the same app', async () => {
    const m = await createMerchant(s);
    await installThroughOAuth(s, m.token);
    const before = await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: m.id } });
    const res = await call(s, 'PUT', '/api/merchant/storefront-a', { token: m.token, body: inputs });
    expect(res.body).toMatchObject({ shop: DEMO_SHOP, connected: true, pending: false });
    expect(await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: m.id } })).toEqual({ ...before, updatedAt: expect.any(Date) });
  });
});

describe('reconnecting storefront A: the working connection serves until the new install completes', () => {
  /** A storefront A cart of `shop` turned into a checkout: proof the connection works end to end. */
  async function checkoutFrom(shop: string) {
    const products = (await (await fetch(`${s.stack.urls.storefrontA}/_control/shops/${shop}`)).json()) as { products: Array<{ variants: Array<{ id: number }> }> };
    const cart = await simControl(s, `shops/${shop}/carts`, { items: [{ variantId: products.products[0]!.variants[0]!.id, quantity: 1 }] });
    return call(s, 'POST', '/api/checkout/create', { body: { platform: 'storefront-a', shop, cartToken: cart.body.token } });
  }

  const otherShop = 'second-shop.myshopify.com';
  const otherApp = { clientId: 'sfa-second-client-0002', clientSecret: 'sfa_secret_second_0123456789ab' };

  async function connectedMerchant() {
    const m = await createMerchant(s);
    await installThroughOAuth(s, m.token);
    expect((await checkoutFrom(DEMO_SHOP)).status).toBe(201);
    return { m, before: await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: m.id } }), merchantBefore: await db().merchant.findUniqueOrThrow({ where: { id: m.id } }) };
  }

  /** The connection, the merchant's platform and shop, checkouts and the answer of GET: all as before, plus the pending inputs. */
  async function expectWorkingAsBefore(c: Awaited<ReturnType<typeof connectedMerchant>>, pending: { shop: string; clientId: string } | null) {
    const row = await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: c.m.id } });
    const { pendingShop, pendingClientId, pendingClientSecretEnc, pendingSince, updatedAt, ...working } = row;
    const { pendingShop: _a, pendingClientId: _b, pendingClientSecretEnc: _c, pendingSince: _d, updatedAt: _e, ...workingBefore } = c.before;
    expect(working).toEqual(workingBefore);
    expect({ pendingShop, pendingClientId }).toEqual({ pendingShop: pending?.shop ?? null, pendingClientId: pending?.clientId ?? null });
    expect(pendingClientSecretEnc === null).toBe(pending === null);
    expect(pendingSince === null).toBe(pending === null);
    expect(updatedAt).toBeInstanceOf(Date);
    expect(await db().merchant.findUniqueOrThrow({ where: { id: c.m.id } })).toMatchObject({ storePlatform: 'STOREFRONT_A', shopDomain: DEMO_SHOP });
    expect((await checkoutFrom(DEMO_SHOP)).status).toBe(201);
    const seen = await call(s, 'GET', '/api/merchant/storefront-a', { token: c.m.token });
    expect(seen.body).toMatchObject({ shop: DEMO_SHOP, clientId: DEMO_APP.clientId, connected: true, pending: pending ? { ...pending, since: expect.any(String) } : null });
  }

  it('given a connected shop / when the merchant saves another shop, another app or a new secret / then the connection keeps serving and the inputs wait as pending', async () => {
    const c = await connectedMerchant();
    for (const body of [
      { ...inputs, shop: otherShop },
      { ...inputs, clientId: otherApp.clientId },
      { ...inputs, clientSecret: 'rotated-secret-0123456789' },
    ]) {
      const res = await call(s, 'PUT', '/api/merchant/storefront-a', { token: c.m.token, body });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ shop: body.shop, clientId: body.clientId, connected: false, pending: true });
      const handoff = s.stack.app.jwt.verify<{ shopDomain: string }>(new URL(String(res.body.installUrl)).searchParams.get('handoff')!);
      expect(handoff.shopDomain).toBe(body.shop);
      await expectWorkingAsBefore(c, { shop: body.shop, clientId: body.clientId });
    }
  });

  it('given pending inputs whose install cannot complete (a wrong secret: the callback does not verify) / then the working connection stays as it was', async () => {
    const c = await connectedMerchant();
    const installUrl = await saveInputs(s, c.m.token, { clientSecret: 'not-the-apps-secret-0123456789' });
    const res = await openCallback(s, await consent(await openInstall(s, installUrl)));
    expect(res.status).toBe(302);
    expect(res.location).toContain('/dashboard/connection-problem?platform=storefront-a&problem=wrong-secret&code=INVALID_SIGNATURE');
    await expectWorkingAsBefore(c, { shop: DEMO_SHOP, clientId: DEMO_APP.clientId });
    // The right inputs again: nothing left pending.
    await saveInputs(s, c.m.token);
    await expectWorkingAsBefore(c, null);
  });

  it('given pending inputs for another shop and app / when their install completes / then they replace the connection in one step', async () => {
    expect((await simControl(s, 'shops', { shop: otherShop, name: 'Second Shop' })).status).toBe(201);
    expect((await simControl(s, 'apps', { ...otherApp, redirectUrls: [`${s.stack.config.publicApiUrl}/api/auth/storefront-a/callback`] })).status).toBe(201);
    const c = await connectedMerchant();
    const installUrl = await saveInputs(s, c.m.token, { shop: otherShop, ...otherApp });
    await expectWorkingAsBefore(c, { shop: otherShop, clientId: otherApp.clientId });

    const res = await openCallback(s, await consent(await openInstall(s, installUrl)));
    expect(res.location).toBe(`${s.stack.config.appOrigin}/dashboard?storefrontA=connected`);

    const row = await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: c.m.id } });
    expect(row).toMatchObject({ shop: otherShop, clientId: otherApp.clientId, connected: true, pendingShop: null, pendingClientId: null, pendingClientSecretEnc: null, pendingSince: null });
    expect(s.secrets.decrypt(row.clientSecretEnc, storefrontAAad.clientSecret(c.m.id))).toBe(otherApp.clientSecret);
    expect(row.accessTokenEnc).not.toBe(c.before.accessTokenEnc);
    expect(await db().merchant.findUniqueOrThrow({ where: { id: c.m.id } })).toMatchObject({ storePlatform: 'STOREFRONT_A', shopDomain: otherShop });
    expect((await simShop(s, otherShop)).installs.map((i) => i.clientId)).toContain(otherApp.clientId);
    expect((await checkoutFrom(otherShop)).status).toBe(201);
    expect((await checkoutFrom(DEMO_SHOP)).status).toBe(404);
  });
});

describe('GET /api/merchant/storefront-a', () => {
  it('given saved inputs / then it shows shop, client id and state, never the secret or the token', async () => {
    const m = await createMerchant(s);
    await installThroughOAuth(s, m.token);
    const res = await call(s, 'GET', '/api/merchant/storefront-a', { token: m.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ shop: DEMO_SHOP, clientId: DEMO_APP.clientId, connected: true, uninstalledAt: null, scopes: [...STOREFRONT_A_SCOPES], missingScopes: [] });
    expect(typeof res.body.installedAt).toBe('string');
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(DEMO_APP.clientSecret);
    expect(text).not.toMatch(/sfat_|accessToken|Enc/);
  });

  it('given an install granted before refunds and cart emptying were asked for / then it names the scopes a reinstall grants (write implies read)', async () => {
    const m = await createMerchant(s);
    await installThroughOAuth(s, m.token);
    // What a shop installed before 2026-11-28 holds: read_orders, no write_orders nor unauthenticated_write_checkouts.
    await db().storefrontAConnection.update({ where: { merchantId: m.id }, data: { scopes: 'write_draft_orders,read_orders,read_themes,write_script_tags,unauthenticated_read_checkouts,unauthenticated_read_product_listings' } });
    const res = await call(s, 'GET', '/api/merchant/storefront-a', { token: m.token });
    expect(res.status).toBe(200);
    expect(res.body.missingScopes).toEqual(['write_orders', 'read_markets', 'read_legal_policies', 'unauthenticated_write_checkouts']);
  });

  it('given no inputs / then 404 NOT_FOUND', async () => {
    const m = await createMerchant(s);
    const res = await call(s, 'GET', '/api/merchant/storefront-a', { token: m.token });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });
});

describe('DELETE /api/merchant/storefront-a', () => {
  it('given a connected shop with a legacy script tag of ours / then the tag leaves the shop, the connection is forgotten and the platform is cleared', async () => {
    const m = await createMerchant(s);
    await installThroughOAuth(s, m.token);
    await simControl(s, `shops/${DEMO_SHOP}/script-tags`, { clientId: DEMO_APP.clientId, src: `${s.stack.config.publicApiUrl}/script-tag.js` });
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
    await simControl(s, `shops/${DEMO_SHOP}/script-tags`, { clientId: DEMO_APP.clientId, src: `${s.stack.config.publicApiUrl}/script-tag.js` });
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

describe('GET /api/merchant/storefront-a/app.zip', () => {
  it('given saved inputs / then the Shopify CLI project of that app: its client id, this service\'s callback and webhooks, the app embed; before the inputs, 404', async () => {
    const m = await createMerchant(s);
    const before = await s.app.inject({ method: 'GET', url: '/api/merchant/storefront-a/app.zip', headers: { authorization: `Bearer ${m.token}` } });
    expect(before.statusCode).toBe(404);
    expect(before.json()).toMatchObject({ code: 'NOT_FOUND' });
    await saveInputs(s, m.token);
    const res = await s.app.inject({ method: 'GET', url: '/api/merchant/storefront-a/app.zip', headers: { authorization: `Bearer ${m.token}` } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toBe('attachment; filename="hosted-checkout-shopify-app.zip"');
    const files = unzipSync(res.rawPayload);
    const toml = Buffer.from(files['hosted-checkout-shopify-app/shopify.app.toml']!).toString();
    expect(toml).toContain(`client_id = "${DEMO_APP.clientId}"`);
    expect(toml).toContain(`redirect_urls = [ "${s.stack.config.publicApiUrl}/api/auth/storefront-a/callback" ]`);
    expect(toml).toContain(`uri = "${s.stack.config.publicApiUrl}/webhooks/storefront-a/customers/data_request"`);
    expect(Object.keys(files)).toContain('hosted-checkout-shopify-app/extensions/hosted-checkout/blocks/checkout-embed.liquid');
    expect(Object.values(files).map((f) => Buffer.from(f).toString()).join('\n')).not.toContain(DEMO_APP.clientSecret);
  });
});
