// Sessions end when the merchant says so, and only the dashboard's own origin can act with the cookie.
//   - Logout ends the session of the token it is given (bearer or cookie): that token answers 401 at once,
//     not after its 30 days; other sessions go on. "Log out everywhere" ends them all. A password change
//     still ends every other session, and tokens without a session id are not accepted.
//   - Credentialed CORS belongs to the dashboard's origin only; a shop page or a checkout subdomain gets the
//     public allowlist without credentials, and a request from any other origin cannot use the cookie, not
//     even a "simple" POST that needs no preflight.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack.js';
import { SESSION_COOKIE } from '../../api/plugins/auth.js';

let stack: TestStack;
let appOrigin: string;
const password = 'correct horse battery staple 42';
let n = 0;

beforeAll(async () => {
  stack = await startTestStack({ RATE_LIMIT_LOGIN: '1000/60', RATE_LIMIT_REGISTER: '1000/60' });
  appOrigin = stack.config.appOrigin;
});
afterAll(async () => {
  await stack?.close();
});

type Json = Record<string, unknown>;

async function call(method: 'GET' | 'POST' | 'PATCH', url: string, opts: { token?: string; cookie?: string; origin?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.cookie) headers.cookie = `${SESSION_COOKIE}=${opts.cookie}`;
  if (opts.origin) headers.origin = opts.origin;
  const res = await stack.app.inject({ method, url, headers, payload: opts.body as Json | undefined });
  return { status: res.statusCode, body: res.json() as Json, headers: res.headers };
}

/** A registered merchant and a first login token. */
async function registered(): Promise<{ email: string; token: string; id: string }> {
  const email = `sessions-${Date.now().toString(36)}-${n++}@shop.test`;
  const res = await call('POST', '/api/auth/register', { body: { email, password, shopName: 'Session Shop', phone: '+49 30 123456' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { email, token: String(res.body.token), id: String((res.body.merchant as Json).id) };
}

async function login(email: string): Promise<string> {
  const res = await call('POST', '/api/auth/login', { body: { email, password } });
  expect(res.status).toBe(200);
  return String(res.body.token);
}

const me = (auth: { token?: string; cookie?: string; origin?: string }) => call('GET', '/api/merchant/me', auth);

describe('logout', () => {
  it('given a bearer token / when it logs out / that token answers 401 at once, while another session of the merchant goes on', async () => {
    const m = await registered();
    const laptop = await login(m.email);
    expect((await me({ token: m.token })).status).toBe(200);

    const res = await call('POST', '/api/auth/logout', { token: m.token });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true });
    expect(String(res.headers['set-cookie'])).toContain(`${SESSION_COOKIE}=;`);
    const after = await me({ token: m.token });
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ code: 'UNAUTHORIZED', error: expect.stringContaining('ended') });
    expect((await me({ token: laptop })).status).toBe(200);
  });

  it('given the session cookie from the dashboard / when it logs out / the same token is refused as cookie and as bearer', async () => {
    const m = await registered();
    expect((await me({ cookie: m.token, origin: appOrigin })).status).toBe(200);
    expect((await call('POST', '/api/auth/logout', { cookie: m.token, origin: appOrigin })).status).toBe(200);
    expect((await me({ cookie: m.token, origin: appOrigin })).status).toBe(401);
    expect((await me({ token: m.token })).status).toBe(401);
  });

  it('given no token, or one that is not valid / it still answers 200 and clears the cookie (nothing to end)', async () => {
    for (const opts of [{}, { token: 'not-a-jwt' }]) {
      const res = await call('POST', '/api/auth/logout', opts);
      expect(res.status).toBe(200);
      expect(String(res.headers['set-cookie'])).toContain(`${SESSION_COOKIE}=;`);
    }
  });
});

describe('log out everywhere', () => {
  it('given three sessions / when one of them logs out everywhere / every token of the merchant answers 401, and a new login works', async () => {
    const m = await registered();
    const other = await registered();
    const phone = await login(m.email);
    const tablet = await login(m.email);

    const res = await call('POST', '/api/auth/logout-all', { token: phone });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, sessionsEnded: 3 });
    for (const token of [m.token, phone, tablet]) expect((await me({ token })).status).toBe(401);
    expect((await me({ token: other.token })).status).toBe(200);
    expect((await me({ token: await login(m.email) })).status).toBe(200);
  });

  it('given no valid session / it answers 401 and ends nothing', async () => {
    const m = await registered();
    expect((await call('POST', '/api/auth/logout-all', {})).status).toBe(401);
    expect((await me({ token: m.token })).status).toBe(200);
  });
});

describe('what else ends a session', () => {
  it('given a password change / every earlier session ends at once; the answer carries the new session\'s token', async () => {
    const m = await registered();
    const other = await login(m.email);
    const changed = await call('PATCH', '/api/merchant/account', { token: m.token, body: { currentPassword: password, newPassword: 'another horse battery staple 43' } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    // At once, even within the same second (a token's iat has one-second precision; its session does not).
    for (const token of [other, m.token]) expect((await me({ token })).status).toBe(401);
    expect((await me({ token: String(changed.body.token) })).status).toBe(200);
  });

  it('given a correctly signed token without a session id (issued before sessions had ids) / 401', async () => {
    const m = await registered();
    const legacy = stack.app.jwt.sign({ merchantId: m.id, shopDomain: '' });
    const res = await me({ token: legacy });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  });
});

describe('origins', () => {
  const shopPage = 'https://hostile-shop.myshopify.com';
  const checkoutSubdomain = () => `http://some-merchant.localhost:${new URL(stack.apiUrl).port}`;

  it('given the dashboard\'s origin / merchant routes answer credentialed CORS, for a preflight too', async () => {
    const m = await registered();
    const res = await me({ cookie: m.token, origin: appOrigin });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(appOrigin);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    const preflight = await stack.app.inject({ method: 'OPTIONS', url: '/api/merchant/shop', headers: { origin: appOrigin, 'access-control-request-method': 'PATCH' } });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-credentials']).toBe('true');
  });

  it('given a shop page or a checkout subdomain / CORS never allows credentials, and a preflight neither', async () => {
    for (const origin of [shopPage, checkoutSubdomain()]) {
      const res = await call('GET', '/api/merchant/config/no-such-shop', { origin });
      expect(res.headers['access-control-allow-origin'], origin).toBe(origin);
      expect(res.headers['access-control-allow-credentials'], origin).toBeUndefined();
      const preflight = await stack.app.inject({ method: 'OPTIONS', url: '/api/merchant/shop', headers: { origin, 'access-control-request-method': 'PATCH' } });
      expect(preflight.headers['access-control-allow-credentials'], origin).toBeUndefined();
    }
  });

  it('given a logged-in merchant\'s cookie sent by a shop page or a checkout subdomain (a simple POST, no preflight) / 403 ORIGIN_NOT_ALLOWED and nothing changes', async () => {
    const m = await registered();
    for (const origin of [shopPage, checkoutSubdomain()]) {
      const read = await me({ cookie: m.token, origin });
      expect(read.status, origin).toBe(403);
      expect(read.body.code).toBe('ORIGIN_NOT_ALLOWED');
      const write = await call('PATCH', '/api/merchant/shop', { cookie: m.token, origin, body: { shopName: 'Hijacked' } });
      expect(write.status, origin).toBe(403);
      const out = await call('POST', '/api/auth/logout-all', { cookie: m.token, origin });
      expect(out.status, origin).toBe(403);
    }
    expect((await me({ token: m.token })).body).toMatchObject({ shopName: 'Session Shop' });
    // The same cookie from the dashboard, or with no Origin at all (a same-origin GET), works.
    expect((await me({ cookie: m.token, origin: appOrigin })).status).toBe(200);
    expect((await me({ cookie: m.token })).status).toBe(200);
  });

  it('given a bearer token from another allowed origin / it is accepted (a token is not sent by the browser on its own)', async () => {
    const m = await registered();
    expect((await me({ token: m.token, origin: shopPage })).status).toBe(200);
  });

  it('given the public checkout routes from a checkout subdomain or a shop page / they answer, without credentials', async () => {
    for (const origin of [shopPage, checkoutSubdomain()]) {
      const res = await call('POST', '/api/checkout/create', { origin, body: { platform: 'storefront-a', shop: 'no-such-shop.myshopify.com', cartToken: 'c1' } });
      expect(res.status, origin).toBe(404);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    }
  });
});
