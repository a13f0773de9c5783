// Merchant API keys end to end through the app: a key is shown once and stored hashed; it calls the merchant routes
// its scopes allow and gets 403 on the others (write implies read, session-only routes refuse every key); a revoked,
// expired, rolled-out, malformed or other-environment key gets 401; another merchant's ids are 404 to a key as to a
// session; each key has its own rate limit; bad input changes nothing; merchants using keys at once stay isolated.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { createTestMerchant, type TestMerchant } from '../../../test/harness/merchants.js';
import { seedCheckoutSessions } from '../../../scripts/lib/stack/stats-seed.js';
import { API_KEY_PATTERN } from '../../../domain/merchant/api-keys.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Small, so the limit test reaches it; every other test uses fresh keys (the limit is per key). */
const KEY_LIMIT = 8;
let stack: TestStack;
let a: TestMerchant;
let b: TestMerchant;
let n = 0;

beforeAll(async () => {
  stack = await startTestStack({ RATE_LIMIT_API_KEY: `${KEY_LIMIT}/60` });
  a = await createTestMerchant(stack.database.db, stack.app, 'Keys A');
  b = await createTestMerchant(stack.database.db, stack.app, 'Keys B');
  await seedCheckoutSessions(stack.database.db, { merchantId: a.id, count: 30, seed: 'keys-a', start: new Date('2026-09-01T00:00:00Z'), stepMs: 60_000 });
  await seedCheckoutSessions(stack.database.db, { merchantId: b.id, count: 10, seed: 'keys-b', start: new Date('2026-09-01T00:00:00Z'), stepMs: 60_000 });
});
afterAll(async () => {
  await stack?.close();
});

const db = () => stack.database.db;

async function call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, credential: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await stack.app.inject({
    method, url, payload: body as Json | undefined, remoteAddress: `198.51.100.${(n++ % 250) + 1}`, headers: { authorization: `Bearer ${credential}`, ...headers },
  });
  return { status: res.statusCode, body: res.json() as Json, headers: res.headers, text: res.body };
}

/** A key of merchant `m` made through the API with the merchant's session, as the dashboard does. */
async function newKey(m: TestMerchant, scopes: string[], extra: Json = {}): Promise<{ secret: string; id: string; view: Json }> {
  const res = await call('POST', '/api/merchant/api-keys', m.token, { name: `key ${n}`, scopes, ...extra });
  expect(res.status, res.text).toBe(201);
  return { secret: res.body.secret as string, id: res.body.key.id as string, view: res.body.key as Json };
}

const discount = (code: string) => ({ code, type: 'percentage', percentOff: 10 });

describe('creating a key', () => {
  it('given a session / the secret is answered once, listed never, and stored only as its SHA-256', async () => {
    const res = await call('POST', '/api/merchant/api-keys', a.token, { name: '  ERP sync  ', scopes: ['orders:read', 'orders:write', 'commerce:read'], expiresAt: '2030-01-01T00:00:00Z' });
    expect(res.status, res.text).toBe(201);
    const { secret, key } = res.body;
    expect(secret).toMatch(API_KEY_PATTERN);
    expect(secret).toMatch(/^ck_test_/);
    expect(key).toEqual({
      id: expect.any(String), name: 'ERP sync', mode: 'test', prefix: secret.slice(0, 14), scopes: ['commerce:read', 'orders:write'], status: 'active',
      createdAt: expect.any(String), lastUsedAt: null, expiresAt: '2030-01-01T00:00:00.000Z', revokedAt: null, rolledAt: null, rolledToId: null,
    });

    const list = await call('GET', '/api/merchant/api-keys', a.token);
    expect(list.body.items.map((k: Json) => k.id)).toContain(key.id);
    const one = await call('GET', `/api/merchant/api-keys/${key.id}`, a.token);
    expect(one.body).toEqual(key);
    const secretPart = secret.slice(14);
    for (const text of [list.text, one.text]) expect(text).not.toContain(secretPart);

    const [row] = await db().$queryRaw<Json[]>`SELECT * FROM api_keys WHERE id = ${key.id}::uuid`;
    expect(Buffer.from(row!.secret_hash as Uint8Array).equals(createHash('sha256').update(secret).digest())).toBe(true);
    expect(JSON.stringify(row, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v))).not.toContain(secretPart);
  });

  it('given two keys / their secrets differ and each is 256 bits of base62 after the prefix', async () => {
    const [x, y] = [await newKey(a, ['stats:read']), await newKey(a, ['stats:read'])];
    expect(x.secret).not.toBe(y.secret);
    expect(x.secret.length).toBe('ck_test_'.length + 43);
  });
});

describe('what a key may call', () => {
  it('given orders:read and commerce:write / it lists its merchant\'s orders and creates a discount code, as the session would', async () => {
    const key = await newKey(a, ['orders:read', 'commerce:write', 'account:read']);
    const orders = await call('GET', '/api/checkout/merchant/orders?limit=100', key.secret);
    expect(orders.status, orders.text).toBe(200);
    const bySession = await call('GET', '/api/checkout/merchant/orders?limit=100', a.token);
    expect(orders.body).toEqual(bySession.body);
    expect(orders.body.items.length).toBeGreaterThan(0);

    const created = await call('POST', '/api/merchant/discounts', key.secret, discount('KEYMADE'));
    expect(created.status, created.text).toBe(201);
    expect(await db().discountCode.count({ where: { merchantId: a.id, code: 'KEYMADE' } })).toBe(1);
    // Write implies read.
    expect((await call('GET', `/api/merchant/discounts/${created.body.id}`, key.secret)).status).toBe(200);
    expect((await call('GET', '/api/merchant/me', key.secret)).body.id).toBe(a.id);
  });

  it('given a key without the route\'s scope / 403 FORBIDDEN naming the scope, nothing done', async () => {
    const key = await newKey(a, ['stats:read']);
    const res = await call('GET', '/api/checkout/merchant/orders', key.secret);
    expect(res).toMatchObject({ status: 403, body: { code: 'FORBIDDEN', details: { requiredScope: 'orders:read' } } });
    expect((await call('GET', '/api/merchant/stats', key.secret)).status).toBe(200);
  });

  it('given a read scope / reads work, writes answer 403 with the write scope and change nothing', async () => {
    const key = await newKey(a, ['commerce:read', 'orders:read']);
    expect((await call('GET', '/api/merchant/discounts', key.secret)).status).toBe(200);
    const before = await db().discountCode.count({ where: { merchantId: a.id } });
    const res = await call('POST', '/api/merchant/discounts', key.secret, discount('READONLY'));
    expect(res).toMatchObject({ status: 403, body: { code: 'FORBIDDEN', details: { requiredScope: 'commerce:write' } } });
    const token = (await db().checkoutSession.findFirstOrThrow({ where: { merchantId: a.id, status: 'COMPLETED', source: 'store_cart' } })).token;
    expect((await call('POST', `/api/checkout/merchant/orders/${token}/refund`, key.secret, {})).body).toMatchObject({ code: 'FORBIDDEN', details: { requiredScope: 'orders:write' } });
    expect(await db().discountCode.count({ where: { merchantId: a.id } })).toBe(before);
    expect((await db().checkoutSession.findUniqueOrThrow({ where: { token } })).refundRequestedAt).toBeNull();
  });

  it('given a key with every scope / key management, the account\'s credentials and sessions still answer 403: they need a dashboard session', async () => {
    const all = ['account', 'settings', 'domains', 'connections', 'onboarding', 'commerce', 'orders', 'stats', 'billing', 'webhooks'].map((r) => `${r}:write`);
    const key = await newKey(a, all);
    const other = await newKey(a, ['stats:read']);
    const keysBefore = await db().apiKey.count({ where: { merchantId: a.id } });
    for (const [method, url, body] of [
      ['GET', '/api/merchant/api-keys', undefined],
      ['POST', '/api/merchant/api-keys', { name: 'minted by a key', scopes: ['orders:read'] }],
      ['GET', `/api/merchant/api-keys/${other.id}`, undefined],
      ['POST', `/api/merchant/api-keys/${other.id}/roll`, {}],
      ['DELETE', `/api/merchant/api-keys/${other.id}`, undefined],
      ['PATCH', '/api/merchant/account', { phone: '+49 30 999' }],
      ['POST', '/api/auth/logout-all', {}],
    ] as const) {
      const res = await call(method, url, key.secret, body);
      expect(res, `${method} ${url}`).toMatchObject({ status: 403, body: { code: 'FORBIDDEN', error: expect.stringContaining('dashboard session') } });
    }
    expect(await db().apiKey.count({ where: { merchantId: a.id } })).toBe(keysBefore);
    expect((await db().apiKey.findUniqueOrThrow({ where: { id: other.id } })).revokedAt).toBeNull();
    // The session is untouched: logout-all was refused.
    expect((await call('GET', '/api/merchant/me', a.token)).status).toBe(200);
  });

  it('given another merchant\'s ids / a key gets 404 and changes nothing, like a session', async () => {
    const keyA = await newKey(a, ['commerce:write', 'orders:write']);
    const theirs = await call('POST', '/api/merchant/discounts', b.token, discount('ONLYBETA'));
    for (const [method, body] of [['GET', undefined], ['PATCH', { percentOff: 99 }], ['DELETE', undefined]] as const) {
      expect((await call(method, `/api/merchant/discounts/${theirs.body.id}`, keyA.secret, body)).status, method).toBe(404);
    }
    expect((await db().discountCode.findUniqueOrThrow({ where: { id: theirs.body.id } })).value).toBe(10);
    const orderB = (await db().checkoutSession.findFirstOrThrow({ where: { merchantId: b.id, status: 'COMPLETED', source: 'store_cart' } })).token;
    expect((await call('GET', `/api/checkout/merchant/orders/${orderB}`, keyA.secret)).status).toBe(404);
    expect((await call('POST', `/api/checkout/merchant/orders/${orderB}/refund`, keyA.secret, {})).status).toBe(404);
    const listed = await call('GET', '/api/checkout/merchant/orders?limit=100', keyA.secret);
    expect(listed.body.items.some((o: Json) => o.token === orderB)).toBe(false);
    // Nor can a session see or touch another merchant's keys.
    const keyB = await newKey(b, ['stats:read']);
    expect((await call('GET', `/api/merchant/api-keys/${keyB.id}`, a.token)).status).toBe(404);
    expect((await call('POST', `/api/merchant/api-keys/${keyB.id}/roll`, a.token, {})).status).toBe(404);
    expect((await call('DELETE', `/api/merchant/api-keys/${keyB.id}`, a.token)).status).toBe(404);
    expect((await call('GET', '/api/merchant/api-keys', a.token)).body.items.some((k: Json) => k.id === keyB.id)).toBe(false);
    expect((await call('GET', '/api/merchant/stats', keyB.secret)).status).toBe(200);
  });
});

describe('keys that no longer work', () => {
  it('given a revoked key / 401 at once; it stays listed as revoked; revoking again changes nothing', async () => {
    const key = await newKey(a, ['stats:read']);
    expect((await call('GET', '/api/merchant/stats', key.secret)).status).toBe(200);
    const revoked = await call('DELETE', `/api/merchant/api-keys/${key.id}`, a.token);
    expect(revoked.body).toMatchObject({ id: key.id, status: 'revoked', revokedAt: expect.any(String) });
    const res = await call('GET', '/api/merchant/stats', key.secret);
    expect(res).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED', error: expect.stringContaining('revoked') } });
    const again = await call('DELETE', `/api/merchant/api-keys/${key.id}`, a.token);
    expect(again.body.revokedAt).toBe(revoked.body.revokedAt);
    expect((await call('POST', `/api/merchant/api-keys/${key.id}/roll`, a.token, {})).body.code).toBe('CONFLICT');
  });

  it('given a key past its expiry / 401 saying it expired', async () => {
    const key = await newKey(a, ['stats:read'], { expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    expect((await call('GET', '/api/merchant/stats', key.secret)).status).toBe(200);
    await db().$executeRaw`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = ${key.id}::uuid`;
    const res = await call('GET', '/api/merchant/stats', key.secret);
    expect(res).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED', error: expect.stringContaining('expired') } });
    expect((await call('GET', `/api/merchant/api-keys/${key.id}`, a.token)).body.status).toBe('expired');
  });

  it('given a rolled key / the old one works until its overlap ends, then 401; the new one has its scopes and works', async () => {
    const key = await newKey(a, ['stats:read', 'orders:read']);
    const rolled = await call('POST', `/api/merchant/api-keys/${key.id}/roll`, a.token, { overlapSeconds: 3600 });
    expect(rolled.status, rolled.text).toBe(201);
    const { secret, key: next, previous } = rolled.body;
    expect(secret).toMatch(API_KEY_PATTERN);
    expect(next).toMatchObject({ name: key.view.name, scopes: ['orders:read', 'stats:read'], status: 'active' });
    expect(previous).toMatchObject({ id: key.id, status: 'expiring', rolledToId: next.id });
    const overlapEnd = new Date(previous.expiresAt).getTime();
    expect(Math.abs(overlapEnd - (Date.now() + 3_600_000))).toBeLessThan(60_000);

    expect((await call('GET', '/api/merchant/stats', key.secret)).status).toBe(200);
    expect((await call('GET', '/api/merchant/stats', secret)).status).toBe(200);
    // Rolling the old key again is refused: roll its successor.
    expect((await call('POST', `/api/merchant/api-keys/${key.id}/roll`, a.token, {})).status).toBe(409);

    await db().$executeRaw`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = ${key.id}::uuid`;
    const old = await call('GET', '/api/merchant/stats', key.secret);
    expect(old).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED', error: expect.stringContaining('rolled') } });
    expect((await call('GET', '/api/checkout/merchant/orders', secret)).status).toBe(200);
  });

  it('given a roll with overlap 0, or without a body / the old key stops at once, or works 24 more hours', async () => {
    const now = await newKey(a, ['stats:read']);
    expect((await call('POST', `/api/merchant/api-keys/${now.id}/roll`, a.token, { overlapSeconds: 0 })).status).toBe(201);
    expect((await call('GET', '/api/merchant/stats', now.secret)).status).toBe(401);

    const later = await newKey(a, ['stats:read']);
    const res = await stack.app.inject({ method: 'POST', url: `/api/merchant/api-keys/${later.id}/roll`, headers: { authorization: `Bearer ${a.token}` } });
    expect(res.statusCode, res.body).toBe(201);
    expect(Math.abs(new Date(res.json().previous.expiresAt).getTime() - (Date.now() + 86_400_000))).toBeLessThan(60_000);
  });

  it('given two rolls of one key at once / one wins, the other is refused, and one successor exists', async () => {
    const key = await newKey(a, ['stats:read']);
    const results = await Promise.all([0, 1, 2].map(() => call('POST', `/api/merchant/api-keys/${key.id}/roll`, a.token, {})));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    const keys = await db().apiKey.findMany({ where: { merchantId: a.id, name: key.view.name } });
    expect(keys).toHaveLength(2);
  });

  it('given a key of the other environment, a malformed one, or an unknown one / 401 with a message saying which', async () => {
    const live = `ck_live_${'A'.repeat(43)}`;
    expect(await call('GET', '/api/merchant/stats', live)).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED', error: expect.stringMatching(/live API key.*accepts test keys/) } });
    expect(await call('GET', '/api/merchant/stats', 'ck_test_short')).toMatchObject({ status: 401, body: { error: expect.stringContaining('Malformed API key') } });
    expect(await call('GET', '/api/merchant/stats', `ck_test_${'B'.repeat(43)}`)).toMatchObject({ status: 401, body: { error: 'Unknown API key' } });
    // A live row in this database (a copy of production's) is refused as well.
    const key = await newKey(a, ['stats:read']);
    await db().$executeRaw`UPDATE api_keys SET mode = 'LIVE' WHERE id = ${key.id}::uuid`;
    expect((await call('GET', '/api/merchant/stats', key.secret)).status).toBe(401);
  });

  it('given a key in the session cookie / 401: keys are accepted in the Authorization header only', async () => {
    const key = await newKey(a, ['stats:read']);
    const res = await stack.app.inject({ method: 'GET', url: '/api/merchant/stats', cookies: { checkout_session: key.secret } });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toContain('Authorization header');
  });

  it('given a deleted merchant / its keys go with it', async () => {
    const m = await createTestMerchant(db(), stack.app, 'Gone');
    const key = await newKey(m, ['stats:read']);
    await db().merchant.delete({ where: { id: m.id } });
    expect((await call('GET', '/api/merchant/stats', key.secret)).status).toBe(401);
    expect(await db().apiKey.count({ where: { merchantId: m.id } })).toBe(0);
  });
});

describe('use', () => {
  it('given requests with a key / last use is recorded, at most once a minute', async () => {
    const key = await newKey(a, ['stats:read']);
    await call('GET', '/api/merchant/stats', key.secret);
    const first = (await db().apiKey.findUniqueOrThrow({ where: { id: key.id } })).lastUsedAt;
    expect(first).not.toBeNull();
    await call('GET', '/api/merchant/stats', key.secret);
    expect((await db().apiKey.findUniqueOrThrow({ where: { id: key.id } })).lastUsedAt).toEqual(first);
    await db().$executeRaw`UPDATE api_keys SET last_used_at = now() - interval '2 minutes' WHERE id = ${key.id}::uuid`;
    const stale = (await db().apiKey.findUniqueOrThrow({ where: { id: key.id } })).lastUsedAt!;
    await call('GET', '/api/merchant/stats', key.secret);
    const third = (await db().apiKey.findUniqueOrThrow({ where: { id: key.id } })).lastUsedAt!;
    // Recorded anew: the two-minute-old value moved forward by about those two minutes, however slow the machine.
    expect(third.getTime()).toBeGreaterThanOrEqual(stale.getTime() + 60_000);
    expect(third.getTime()).toBeGreaterThanOrEqual(first!.getTime());
  });

  it(`given more than ${KEY_LIMIT} requests of one key in the window / 429 RATE_LIMITED with Retry-After and RateLimit headers; other keys and the session go on`, async () => {
    const key = await newKey(a, ['stats:read', 'commerce:read']);
    const other = await newKey(a, ['stats:read']);
    for (let i = 0; i < KEY_LIMIT; i++) {
      const res = await call('GET', i % 2 ? '/api/merchant/stats' : '/api/merchant/discounts', key.secret);
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe(String(KEY_LIMIT));
      expect(res.headers['ratelimit-remaining']).toBe(String(KEY_LIMIT - i - 1));
    }
    const over = await call('GET', '/api/merchant/stats', key.secret);
    expect(over).toMatchObject({ status: 429, body: { code: 'RATE_LIMITED' } });
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect(over.headers['ratelimit-remaining']).toBe('0');
    expect((await call('GET', '/api/merchant/stats', other.secret)).status).toBe(200);
    // Sessions keep today's limits: no per-key counter, no RateLimit headers.
    for (let i = 0; i < KEY_LIMIT + 2; i++) expect((await call('GET', '/api/merchant/stats', a.token)).status).toBe(200);
    expect((await call('GET', '/api/merchant/stats', a.token)).headers['ratelimit-limit']).toBeUndefined();
  });

  it('given three merchants using their keys at once / each sees and changes only its own records', async () => {
    const merchants = await Promise.all([1, 2, 3].map((i) => createTestMerchant(db(), stack.app, `Concurrent ${i}`)));
    const keys = await Promise.all(merchants.map((m) => newKey(m, ['commerce:write'])));
    await Promise.all(keys.flatMap((k, i) => [0, 1, 2].map((j) => call('POST', '/api/merchant/discounts', k.secret, discount(`M${i}CODE${j}`)))));
    const lists = await Promise.all(keys.map((k) => call('GET', '/api/merchant/discounts', k.secret)));
    lists.forEach((l, i) => expect(l.body.items.map((d: Json) => d.code).sort()).toEqual([0, 1, 2].map((j) => `M${i}CODE${j}`)));
    for (const [i, m] of merchants.entries()) {
      expect((await db().discountCode.findMany({ where: { merchantId: m.id } })).map((d) => d.code).sort()).toEqual([0, 1, 2].map((j) => `M${i}CODE${j}`));
    }
  });

  it('given any answer, a refusal included / it carries Request-Id and x-request-id, the same id', async () => {
    const key = await newKey(a, ['stats:read']);
    for (const res of [await call('GET', '/api/merchant/stats', key.secret), await call('GET', '/api/checkout/merchant/orders', key.secret), await call('GET', '/api/merchant/stats', 'ck_test_x')]) {
      expect(res.headers['request-id']).toMatch(/\S{8,}/);
      expect(res.headers['x-request-id']).toBe(res.headers['request-id']);
    }
  });
});

describe('bad input', () => {
  const NUL = 'a\u0000b';
  const LONE = 'a\ud83db';

  /** 400 INVALID_INPUT naming the field, and the merchant's keys are as before. */
  async function refused(send: () => Promise<{ status: number; body: Json; text: string }>, field: string) {
    const before = await db().apiKey.findMany({ where: { merchantId: a.id }, orderBy: { id: 'asc' } });
    const res = await send();
    expect(res.status, res.text).toBe(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(Object.keys(res.body.details?.fields ?? {}).join(' '), res.text).toContain(field);
    expect(await db().apiKey.findMany({ where: { merchantId: a.id }, orderBy: { id: 'asc' } })).toEqual(before);
  }

  /** JSON text as given (JSON.stringify writes a lone surrogate as its escape). */
  const raw = (method: 'POST', url: string, body: unknown) =>
    stack.app.inject({ method, url, payload: JSON.stringify(body), headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/json' } })
      .then((r) => ({ status: r.statusCode, body: r.json() as Json, text: r.body }));

  it.each([
    [{ name: NUL, scopes: ['orders:read'] }, 'body.name'],
    [{ name: LONE, scopes: ['orders:read'] }, 'body.name'],
    [{ name: 'x'.repeat(101), scopes: ['orders:read'] }, 'body.name'],
    [{ name: '   ', scopes: ['orders:read'] }, 'body.name'],
    [{ name: 'tab\there', scopes: ['orders:read'] }, 'body.name'],
    [{ name: 'ok', scopes: ['orders:admin'] }, 'body.scopes.0'],
    [{ name: 'ok', scopes: ['refunds:write'] }, 'body.scopes.0'],
    [{ name: 'ok', scopes: [] }, 'body.scopes'],
    [{ name: 'ok' }, 'body.scopes'],
    [{ name: 'ok', scopes: ['orders:read'], expiresAt: '2020-01-01T00:00:00Z' }, 'body.expiresAt'],
    [{ name: 'ok', scopes: ['orders:read'], expiresAt: 'next week' }, 'body.expiresAt'],
    [{ name: 'ok', scopes: ['orders:read'], mode: 'live' }, 'body'],
  ])('given a create with %j / 400 naming the field, no key made', async (body, field) => {
    await refused(() => raw('POST', '/api/merchant/api-keys', body), field);
  });

  it.each([
    [{ overlapSeconds: -1 }, 'body.overlapSeconds'],
    [{ overlapSeconds: 7 * 86_400 + 1 }, 'body.overlapSeconds'],
    [{ overlapSeconds: 1.5 }, 'body.overlapSeconds'],
    [{ overlapSeconds: '60' }, 'body.overlapSeconds'],
    [{ overlap: 60 }, 'body'],
  ])('given a roll with %j / 400 naming the field, the key unchanged', async (body, field) => {
    const key = await newKey(a, ['stats:read']);
    await refused(() => raw('POST', `/api/merchant/api-keys/${key.id}/roll`, body), field);
  });

  it('given an id that is not one / 400 naming it', async () => {
    expect((await call('GET', '/api/merchant/api-keys/not-an-id', a.token)).body).toMatchObject({ code: 'INVALID_INPUT', details: { fields: { 'params.id': expect.any(String) } } });
  });
});
