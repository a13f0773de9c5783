import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';

let stack: TestStack;
type Json = Record<string, unknown>;
interface Account { token: string; id: string; email: string; slug: string }
let a: Account;
let b: Account;
let n = 0;

async function call(method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, opts: { body?: unknown; token?: string } = {}) {
  const res = await stack.app.inject({
    method,
    url,
    payload: opts.body as Json | undefined,
    remoteAddress: `192.0.2.${(n++ % 250) + 1}`,
    headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
  });
  return { status: res.statusCode, body: res.json() as Json & { code?: string; error?: string } };
}

async function account(shopName: string): Promise<Account> {
  const email = `m${Date.now()}${n++}@shop.test`;
  const res = await call('POST', '/api/auth/register', { body: { email, password: 'correct horse battery 9', shopName, phone: '+49 30 1234567' } });
  const merchant = res.body.merchant as Json;
  return { token: String(res.body.token), id: String(merchant.id), email, slug: String(merchant.slug) };
}

beforeAll(async () => {
  stack = await startTestStack();
  a = await account('Alpha Goods');
  b = await account('Beta Goods');
});
afterAll(async () => {
  await stack?.close();
});

const svgLogo = () => `${stack.urls.storefrontA}/shops/demo-shop.myshopify.com/cdn/products/`;

describe('configuration', () => {
  it('given branding, texts, COD and shipping rates / PATCH config stores them and /me shows them', async () => {
    const res = await call('PATCH', '/api/merchant/config', {
      token: a.token,
      body: {
        branding: { primaryColor: '#1A2B3C', accentColor: '#0f1e2d' },
        checkoutTexts: { headline: 'Almost yours', payButtonLabel: 'Pay now' },
        codEnabled: true,
        shippingRates: [
          { name: 'Express', free: false, basePriceCents: 1290 },
          { name: 'Standard', free: false, basePriceCents: 490, freeThresholdCents: 5000 },
          { name: 'Pick-up', free: true, basePriceCents: 0 },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      codEnabled: true,
      branding: { primaryColor: '#1a2b3c', accentColor: '#0f1e2d', logoUrl: null },
      checkoutTexts: { headline: 'Almost yours', payButtonLabel: 'Pay now' },
    });
    expect((res.body.shippingRates as Json[]).map((r) => [r.name, r.basePriceCents, r.freeThresholdCents])).toEqual([
      ['Express', 1290, null],
      ['Standard', 490, 5000],
      ['Pick-up', 0, null],
    ]);
    // Texts merge; an empty string returns a key to its default.
    const merged = await call('PATCH', '/api/merchant/config', { token: a.token, body: { checkoutTexts: { headline: '', footerNote: 'Thanks!' } } });
    expect(merged.body.checkoutTexts).toEqual({ payButtonLabel: 'Pay now', footerNote: 'Thanks!' });
  });

  it('given a PNG or SVG logo over https (the sandbox here) / it is accepted; a non-image or unsafe URL is refused', async () => {
    const page = await (await fetch(`${stack.urls.storefrontA}/shops/demo-shop.myshopify.com/`)).text();
    const image = /src="([^"]+\.svg)"/.exec(page)?.[1];
    expect(image).toBeDefined();
    const logoUrl = new URL(image!, `${stack.urls.storefrontA}/`).toString();
    expect(logoUrl.startsWith(svgLogo())).toBe(true);
    const ok = await call('PATCH', '/api/merchant/config', { token: a.token, body: { branding: { logoUrl } } });
    expect(ok.status).toBe(200);
    expect((ok.body.branding as Json).logoUrl).toBe(logoUrl);

    for (const bad of [`${stack.urls.storefrontA}/_control/health`, 'http://example.com/logo.png', 'https://127.0.0.1/logo.png', 'https://169.254.169.254/latest/meta-data', 'not a url']) {
      const res = await call('PATCH', '/api/merchant/config', { token: a.token, body: { branding: { logoUrl: bad } } });
      expect(res.status, bad).toBe(400);
      expect(res.body.code).toBe('INVALID_INPUT');
      expect(Object.keys((res.body.details as { fields: Json }).fields)).toEqual(['body.branding.logoUrl']);
    }
    expect(((await call('GET', '/api/merchant/me', { token: a.token })).body.branding as Json).logoUrl).toBe(logoUrl);
  });

  it.each([
    [{ branding: { primaryColor: 'red' } }],
    [{ branding: { accentColor: '#12345' } }],
    [{ shippingRates: [{ name: '', basePriceCents: 100 }] }],
    [{ shippingRates: [{ name: 'Neg', basePriceCents: -1 }] }],
    [{ shippingRates: [{ name: 'Float', basePriceCents: 4.5 }] }],
    [{ checkoutTexts: { unknownKey: 'x' } }],
    [{ somethingElse: true }],
  ])('given invalid config %j / it answers 400 INVALID_INPUT and changes nothing', async (body) => {
    const before = (await call('GET', '/api/merchant/me', { token: a.token })).body;
    const res = await call('PATCH', '/api/merchant/config', { token: a.token, body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect((await call('GET', '/api/merchant/me', { token: a.token })).body).toEqual(before);
  });

  it('given a slug or its checkout host / the public config answers what the checkout needs and no secret', async () => {
    const bySlug = await call('GET', `/api/merchant/config/${a.slug}`);
    const byHost = await call('GET', `/api/merchant/config/${a.slug}.localhost`);
    expect(bySlug.status).toBe(200);
    expect(byHost.body).toEqual(bySlug.body);
    expect(Object.keys(bySlug.body).sort()).toEqual(['branding', 'checkoutTexts', 'codEnabled', 'shippingRates', 'shopName', 'slug', 'storePlatform']);
    expect(JSON.stringify(bySlug.body)).not.toContain(a.email);
    expect((await call('GET', '/api/merchant/config/no-such-shop')).body.code).toBe('NOT_FOUND');
  });
});

describe('slug and subdomain', () => {
  it('given a valid free slug / it is taken and the subdomain follows', async () => {
    const res = await call('PATCH', '/api/merchant/slug', { token: a.token, body: { slug: `alpha-${Date.now()}` } });
    expect(res.status).toBe(200);
    a.slug = String(res.body.slug);
    const sub = await call('GET', '/api/merchant/subdomain', { token: a.token });
    expect(sub.body).toMatchObject({ slug: a.slug, subdomain: `${a.slug}.localhost`, checkoutOrigin: expect.stringContaining(`${a.slug}.localhost`) });
  });

  it.each(['ab', 'Has_Underscore', 'www', 'admin', 'checkout', '-edge', 'x'.repeat(41)])('given "%s" / it answers 400 INVALID_SLUG', async (slug) => {
    const res = await call('PATCH', '/api/merchant/slug', { token: a.token, body: { slug } });
    expect(res).toMatchObject({ status: 400, body: { code: 'INVALID_SLUG' } });
  });

  it("given another merchant's slug / it answers 409 SLUG_COLLISION and both keep theirs", async () => {
    const res = await call('PATCH', '/api/merchant/slug', { token: a.token, body: { slug: b.slug } });
    expect(res).toMatchObject({ status: 409, body: { code: 'SLUG_COLLISION' } });
    expect((await call('GET', '/api/merchant/me', { token: b.token })).body.slug).toBe(b.slug);
    expect((await call('GET', '/api/merchant/me', { token: a.token })).body.slug).toBe(a.slug);
  });

  it('given regenerate / a new suffixed slug from the shop name', async () => {
    const res = await call('POST', '/api/merchant/slug/regenerate', { token: a.token });
    expect(String(res.body.slug)).toMatch(/^alpha-goods-[0-9a-f]{6}$/);
    a.slug = String(res.body.slug);
  });
});

describe('account and shop', () => {
  it('given a new phone / it needs no password; an email change needs the current password and re-verification', async () => {
    expect((await call('PATCH', '/api/merchant/account', { token: a.token, body: { phone: '+33 1 23 45 67 89' } })).body.merchant).toMatchObject({ phone: '+33 1 23 45 67 89' });
    const noPassword = await call('PATCH', '/api/merchant/account', { token: a.token, body: { email: 'new@shop.test' } });
    expect(noPassword).toMatchObject({ status: 401, body: { code: 'INVALID_CREDENTIALS' } });
    const taken = await call('PATCH', '/api/merchant/account', { token: a.token, body: { email: b.email, currentPassword: 'correct horse battery 9' } });
    expect(taken).toMatchObject({ status: 409, body: { code: 'EMAIL_EXISTS' } });
    const newEmail = `renamed${Date.now()}@shop.test`;
    const changed = await call('PATCH', '/api/merchant/account', { token: a.token, body: { email: newEmail, currentPassword: 'correct horse battery 9' } });
    expect(changed.body.merchant).toMatchObject({ email: newEmail, emailVerified: false });
    a.email = newEmail;
  });

  it('given a password change / other sessions end, the answered token works', async () => {
    const login = await call('POST', '/api/auth/login', { body: { email: a.email, password: 'correct horse battery 9' } });
    const other = String(login.body.token);
    await new Promise((r) => setTimeout(r, 1100));
    const changed = await call('PATCH', '/api/merchant/account', { token: a.token, body: { newPassword: 'another strong passphrase 3', currentPassword: 'correct horse battery 9' } });
    expect(changed.status).toBe(200);
    expect((await call('GET', '/api/merchant/me', { token: other })).status).toBe(401);
    a.token = String(changed.body.token);
    expect((await call('GET', '/api/merchant/me', { token: a.token })).status).toBe(200);
  });

  it('given a shop name and platform / PATCH shop stores them', async () => {
    const res = await call('PATCH', '/api/merchant/shop', { token: a.token, body: { shopName: 'Alpha Goods GmbH', storePlatform: 'storefront-b' } });
    expect(res.body).toMatchObject({ shopName: 'Alpha Goods GmbH', storePlatform: 'storefront-b' });
    expect((await call('PATCH', '/api/merchant/shop', { token: a.token, body: { storePlatform: 'storefront-z' } })).body.code).toBe('INVALID_INPUT');
  });
});

describe('tenant isolation', () => {
  it("given merchant A's token / every merchant route reads and writes A only", async () => {
    const bBefore = (await call('GET', '/api/merchant/me', { token: b.token })).body;
    const me = await call('GET', '/api/merchant/me', { token: a.token });
    expect(me.body.id).toBe(a.id);
    // Bodies that try to name B are refused (strict schemas) or ignored (ids come from the token).
    expect((await call('PATCH', '/api/merchant/config', { token: a.token, body: { merchantId: b.id, codEnabled: false } })).status).toBe(400);
    await call('PATCH', '/api/merchant/config', { token: a.token, body: { shippingRates: [{ name: 'Only A', basePriceCents: 100 }], branding: { primaryColor: '#000000' } } });
    await call('PATCH', '/api/merchant/shop', { token: a.token, body: { shopName: 'A again' } });
    await call('PATCH', '/api/merchant/account', { token: a.token, body: { phone: '+1 555 0100' } });
    await call('POST', '/api/merchant/slug/regenerate', { token: a.token });
    expect((await call('GET', '/api/merchant/me', { token: b.token })).body).toEqual(bBefore);
    expect((await call('GET', '/api/merchant/subdomain', { token: b.token })).body.slug).toBe(b.slug);
  });

  it.each([
    ['GET', '/api/merchant/me'],
    ['PATCH', '/api/merchant/config'],
    ['PATCH', '/api/merchant/account'],
    ['PATCH', '/api/merchant/shop'],
    ['PATCH', '/api/merchant/slug'],
    ['POST', '/api/merchant/slug/regenerate'],
    ['GET', '/api/merchant/subdomain'],
    ['POST', '/api/auth/email/verify-request'],
  ] as const)('%s %s without a token answers 401', async (method, url) => {
    expect((await call(method, url, { body: method === 'GET' ? undefined : {} })).body.code).toBe('UNAUTHORIZED');
  });
});
