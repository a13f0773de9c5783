import { createHmac } from 'node:crypto';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';

let stack: TestStack;
let ipCounter = 0;
/** A fresh client IP per call unless given, so the per-IP rate limits only bite where a test means them to. */
const nextIp = () => `198.51.100.${(ipCounter++ % 250) + 1}`;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

type Json = Record<string, unknown>;
async function call(method: 'GET' | 'POST' | 'PATCH', url: string, opts: { body?: unknown; token?: string; ip?: string; headers?: Record<string, string> } = {}) {
  const res = await stack.app.inject({
    method,
    url,
    payload: opts.body as Json | undefined,
    remoteAddress: opts.ip ?? nextIp(),
    headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...opts.headers },
  });
  return { status: res.statusCode, body: res.json() as Json & { code?: string; error?: string; token?: string; merchant?: Json }, headers: res.headers };
}

let n = 0;
const uniqueEmail = () => `owner${Date.now()}${n++}@shop.test`;
const PASSWORD = 'correct horse battery 9';

async function register(overrides: Json = {}) {
  const email = uniqueEmail();
  const res = await call('POST', '/api/auth/register', { body: { email, password: PASSWORD, shopName: 'Fine Shoes', phone: '+49 30 1234567', ...overrides } });
  return { ...res, email };
}

async function waitForEmail(to: string, tag: string) {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const found = stack.sims.email.messages({ to, tag });
    if (found.length) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no ${tag} email to ${to}`);
}

function linkToken(text: string): string {
  const match = /token=([A-Za-z0-9_-]+)/.exec(text);
  if (!match) throw new Error(`no token link in ${text}`);
  return match[1]!;
}

function forge(payload: Json, secret = stack.config.jwtSecret!, header: Json = { alg: 'HS256', typ: 'JWT' }): string {
  const b64 = (v: Json) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const unsigned = `${b64(header)}.${b64(payload)}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

describe('registration', () => {
  it('given a new email / it creates the merchant, answers a session token and cookie, and emails a verification link', async () => {
    const { status, body, headers, email } = await register();
    expect(status).toBe(201);
    expect(body.token).toEqual(expect.any(String));
    expect(body.merchant).toMatchObject({ email, shopName: 'Fine Shoes', slug: expect.stringMatching(/^fine-shoes/), emailVerified: false });
    const cookie = String(headers['set-cookie']);
    expect(cookie).toMatch(/checkout_session=/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/); // local/test; production sets Secure

    const [mail] = await waitForEmail(email, 'email_verification');
    const token = linkToken(mail!.TextBody ?? '');
    expect((await call('POST', '/api/auth/email/verify-confirm', { body: { token } })).status).toBe(200);
    expect((await call('GET', '/api/merchant/me', { token: body.token })).body.emailVerified).toBe(true);
    // Single use.
    expect((await call('POST', '/api/auth/email/verify-confirm', { body: { token } })).body.code).toBe('INVALID_TOKEN');
    // The database keeps only the hash of the link token.
    const row = await stack.database.db.oneTimeToken.findFirstOrThrow({ where: { merchant: { email } } });
    expect(row.tokenHash).not.toBe(token);
  });

  it('given two shops with the same name / the second gets a suffixed slug', async () => {
    const a = await register({ shopName: 'Twin Shop' });
    const b = await register({ shopName: 'Twin Shop' });
    expect(a.body.merchant!.slug).not.toBe(b.body.merchant!.slug);
    expect(String(b.body.merchant!.slug)).toMatch(/^twin-shop(-[0-9a-f]{6})?$/);
  });

  it('given an email already registered / it answers 409 EMAIL_EXISTS and creates nothing', async () => {
    const first = await register();
    const before = await stack.database.db.merchant.count();
    const again = await call('POST', '/api/auth/register', { body: { email: first.email.toUpperCase(), password: PASSWORD, shopName: 'X', phone: '+4912345678' } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('EMAIL_EXISTS');
    expect(await stack.database.db.merchant.count()).toBe(before);
  });

  it.each([
    [{ password: 'short' }, 'body.password'],
    [{ password: 'password123' }, 'body.password'],
    [{ email: 'not-an-email' }, 'body.email'],
    [{ phone: 'call me' }, 'body.phone'],
    [{ shopName: '' }, 'body.shopName'],
  ])('given bad input %j / it answers 400 INVALID_INPUT naming the field', async (override, field) => {
    const res = await register(override);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(Object.keys((res.body.details as { fields: Json }).fields)).toContain(field);
  });
});

describe('login and sessions', () => {
  it('given the right password / it answers a token that opens /me, by header and by cookie', async () => {
    const { email } = await register();
    const res = await call('POST', '/api/auth/login', { body: { email, password: PASSWORD } });
    expect(res.status).toBe(200);
    expect((await call('GET', '/api/merchant/me', { token: res.body.token })).body.email).toBe(email);
    const cookie = String(res.headers['set-cookie']).split(';')[0]!;
    const byCookie = await stack.app.inject({ method: 'GET', url: '/api/merchant/me', headers: { cookie } });
    expect(byCookie.statusCode).toBe(200);
  });

  it('given a wrong password or an unknown email / both answer the same 401 INVALID_CREDENTIALS', async () => {
    const { email } = await register();
    const wrong = await call('POST', '/api/auth/login', { body: { email, password: 'not the password 1' } });
    const unknown = await call('POST', '/api/auth/login', { body: { email: 'nobody@shop.test', password: PASSWORD } });
    expect(wrong).toMatchObject({ status: 401, body: { code: 'INVALID_CREDENTIALS' } });
    expect(unknown.body).toEqual(wrong.body);
  });

  it('given an unknown email and a wrong password / each login derives exactly one scrypt key at the same cost (timing: npm run bench -- login-timing)', async () => {
    const { email } = await register();
    // Every scrypt the process runs, with its cost: node:crypto's export wrapped, and the ESM bindings of the
    // builtin (security/passwords.ts imports it by name) synced to the wrapper. The equal work is what makes the
    // two answers take the same time; the time itself is measured by the benchmark, not asserted on a shared machine.
    const crypto = createRequire(import.meta.url)('node:crypto') as { scrypt: (...args: unknown[]) => void };
    const original = crypto.scrypt;
    const derived: string[] = [];
    crypto.scrypt = (...args: unknown[]) => {
      const [, salt, keylen, options] = args as [unknown, Buffer, number, { N?: number; r?: number; p?: number }];
      derived.push(`keylen=${keylen} salt=${salt.length} N=${options.N} r=${options.r} p=${options.p}`);
      original(...args);
    };
    syncBuiltinESMExports();
    try {
      const loginDerives = async (target: string) => {
        derived.length = 0;
        const res = await call('POST', '/api/auth/login', { body: { email: target, password: 'wrong password 1x' } });
        expect(res.status).toBe(401);
        return [...derived];
      };
      const unknown = await loginDerives('ghost@shop.test');
      const wrong = await loginDerives(email);
      expect(wrong).toHaveLength(1);
      expect(unknown).toEqual(wrong);
    } finally {
      crypto.scrypt = original;
      syncBuiltinESMExports();
    }
  });

  describe('every bad token answers 401 UNAUTHORIZED', () => {
    let merchantId: string;
    let email: string;
    /** The session the registration started: forged payloads name it, so each case fails for its own reason. */
    let sid: string;
    beforeAll(async () => {
      const r = await register();
      merchantId = String(r.body.merchant!.id);
      email = r.email;
      sid = (JSON.parse(Buffer.from(String(r.body.token).split('.')[1]!, 'base64url').toString()) as { sid: string }).sid;
    });
    const now = () => Math.floor(Date.now() / 1000);
    const cases: Array<[string, () => Record<string, string>]> = [
      ['missing', () => ({})],
      ['not a bearer header', () => ({ authorization: 'Basic abc' })],
      ['garbage', () => ({ authorization: 'Bearer not.a.jwt' })],
      ['expired', () => ({ authorization: `Bearer ${forge({ sid, merchantId, shopDomain: '', iat: now() - 40 * 86400, exp: now() - 10 * 86400 })}` })],
      ['alg none', () => ({ authorization: `Bearer ${forge({ sid, merchantId, shopDomain: '', iat: now() }, '', { alg: 'none', typ: 'JWT' }).split('.').slice(0, 2).join('.')}.` })],
      ['signed with another secret', () => ({ authorization: `Bearer ${forge({ sid, merchantId, shopDomain: '', iat: now() }, 'another-secret-another-secret-another')}` })],
      ['tampered payload', () => {
        const good = forge({ sid, merchantId, shopDomain: '', iat: now() });
        const [h, , s] = good.split('.');
        const evil = Buffer.from(JSON.stringify({ sid, merchantId: '00000000-0000-0000-0000-000000000000', shopDomain: '', iat: now() })).toString('base64url');
        return { authorization: `Bearer ${h}.${evil}.${s}` };
      }],
      ['a handoff token', () => ({ authorization: `Bearer ${stack.app.signPurposeToken({ merchantId, shopDomain: '' }, 'storefront-a-install', 600)}` })],
      ['an unknown merchant', () => ({ authorization: `Bearer ${forge({ sid, merchantId: '00000000-0000-0000-0000-000000000000', shopDomain: '', iat: now() })}` })],
      ['no session id', () => ({ authorization: `Bearer ${forge({ merchantId, shopDomain: '', iat: now() })}` })],
      ['an unknown session', () => ({ authorization: `Bearer ${forge({ sid: '00000000-0000-0000-0000-000000000000', merchantId, shopDomain: '', iat: now() })}` })],
    ];
    it.each(cases)('%s', async (_label, headers) => {
      const res = await stack.app.inject({ method: 'GET', url: '/api/merchant/me', headers: headers() });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: expect.any(String), code: 'UNAUTHORIZED' });
    });
    it('a valid forged-looking token signed with our secret works (the cases above fail for their own reason)', async () => {
      const res = await stack.app.inject({ method: 'GET', url: '/api/merchant/me', headers: { authorization: `Bearer ${forge({ sid, merchantId, shopDomain: '', iat: now() })}` } });
      expect(res.statusCode).toBe(200);
      expect(res.json().email).toBe(email);
    });
  });
});

describe('password reset', () => {
  it('given an account / the emailed single-use link sets a new password and ends older sessions', async () => {
    const { email, body } = await register();
    const oldToken = String(body.token);
    await new Promise((r) => setTimeout(r, 1100)); // the old session must predate the change by a second (JWT iat)

    const req = await call('POST', '/api/auth/password/reset-request', { body: { email } });
    expect(req).toMatchObject({ status: 202, body: { ok: true } });
    const [mail] = await waitForEmail(email, 'password_reset');
    const token = linkToken(mail!.TextBody ?? '');

    expect((await call('POST', '/api/auth/password/reset-confirm', { body: { token, password: 'short' } })).body.code).toBe('INVALID_INPUT');
    const done = await call('POST', '/api/auth/password/reset-confirm', { body: { token, password: 'a brand new passphrase 7' } });
    expect(done.status).toBe(200);
    expect((await call('GET', '/api/merchant/me', { token: oldToken })).status).toBe(401);
    expect((await call('GET', '/api/merchant/me', { token: String(done.body.token) })).status).toBe(200);
    expect((await call('POST', '/api/auth/password/reset-confirm', { body: { token, password: 'another new passphrase 8' } })).body.code).toBe('INVALID_TOKEN');
    expect((await call('POST', '/api/auth/login', { body: { email, password: PASSWORD } })).status).toBe(401);
    expect((await call('POST', '/api/auth/login', { body: { email, password: 'a brand new passphrase 7' } })).status).toBe(200);
  });

  it('given an unknown email / it answers exactly the same and sends nothing', async () => {
    const known = await register();
    const a = await call('POST', '/api/auth/password/reset-request', { body: { email: known.email } });
    const b = await call('POST', '/api/auth/password/reset-request', { body: { email: 'nobody-here@shop.test' } });
    expect(b).toEqual({ ...a, headers: b.headers });
    await new Promise((r) => setTimeout(r, 500));
    expect(stack.sims.email.messages({ to: 'nobody-here@shop.test' })).toHaveLength(0);
  });

  it('given an expired link / it is refused', async () => {
    const { email } = await register();
    await call('POST', '/api/auth/password/reset-request', { body: { email } });
    const [mail] = await waitForEmail(email, 'password_reset');
    const token = linkToken(mail!.TextBody ?? '');
    await stack.database.db.oneTimeToken.updateMany({ where: { merchant: { email }, purpose: 'PASSWORD_RESET' }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await call('POST', '/api/auth/password/reset-confirm', { body: { token, password: 'a brand new passphrase 7' } })).body.code).toBe('INVALID_TOKEN');
  });
});

describe('rate limits', () => {
  it('given 10 logins from one IP in the window / the 11th answers 429 RATE_LIMITED with Retry-After, another IP is not limited', async () => {
    const ip = '203.0.113.10';
    for (let i = 0; i < 10; i++) expect((await call('POST', '/api/auth/login', { ip, body: { email: 'x@shop.test', password: 'wrong password 12' } })).status).toBe(401);
    const blocked = await call('POST', '/api/auth/login', { ip, body: { email: 'x@shop.test', password: 'wrong password 12' } });
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe('RATE_LIMITED');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    // Spoofing X-Forwarded-For does not help while no proxy is trusted.
    const spoofed = await call('POST', '/api/auth/login', { ip, headers: { 'x-forwarded-for': '192.0.2.99' }, body: { email: 'x@shop.test', password: 'wrong password 12' } });
    expect(spoofed.status).toBe(429);
    expect((await call('POST', '/api/auth/login', { ip: '203.0.113.11', body: { email: 'x@shop.test', password: 'wrong password 12' } })).status).toBe(401);
  });

  it('given 5 registrations from one IP / the 6th answers 429, another IP still registers', async () => {
    const ip = '203.0.113.20';
    for (let i = 0; i < 5; i++) {
      const res = await call('POST', '/api/auth/register', { ip, body: { email: uniqueEmail(), password: PASSWORD, shopName: 'Limit Shop', phone: '+4912345678' } });
      expect(res.status).toBe(201);
    }
    const blocked = await call('POST', '/api/auth/register', { ip, body: { email: uniqueEmail(), password: PASSWORD, shopName: 'Limit Shop', phone: '+4912345678' } });
    expect(blocked).toMatchObject({ status: 429, body: { code: 'RATE_LIMITED' } });
    expect((await call('POST', '/api/auth/register', { ip: '203.0.113.21', body: { email: uniqueEmail(), password: PASSWORD, shopName: 'Limit Shop', phone: '+4912345678' } })).status).toBe(201);
  });
});

describe('closed signup', () => {
  it('given PUBLIC_SIGNUP=false / registration needs a valid invite token', async () => {
    const closed = await startTestStack({ PUBLIC_SIGNUP: 'false', INVITE_TOKENS: 'invite-abc-123,invite-def-456' });
    try {
      const body = { email: uniqueEmail(), password: PASSWORD, shopName: 'Invited', phone: '+4912345678' };
      const none = await closed.app.inject({ method: 'POST', url: '/api/auth/register', payload: body });
      expect(none.statusCode).toBe(403);
      expect(none.json().code).toBe('SIGNUP_CLOSED');
      const wrong = await closed.app.inject({ method: 'POST', url: '/api/auth/register', payload: { ...body, inviteToken: 'invite-xyz' } });
      expect(wrong.json().code).toBe('SIGNUP_CLOSED');
      const ok = await closed.app.inject({ method: 'POST', url: '/api/auth/register', payload: { ...body, inviteToken: 'invite-def-456' } });
      expect(ok.statusCode).toBe(201);
    } finally {
      await closed.close();
    }
  });
});
