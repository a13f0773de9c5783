// Idempotency-Key on merchant POSTs, through the app: the same request under a key is answered from its first answer
// (and acts once), another request under it is refused, a key whose request still runs answers 409, keys are kept
// 24 hours and per merchant, answers are stored sealed, and what is refused before the handler keeps nothing. The
// rule that a 5xx is not kept is shown on a bare app whose route fails once (no real route fails on demand).
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import fp from 'fastify-plugin';
import { z } from 'zod';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../test/harness/stack.js';
import { createTestMerchant, type TestMerchant } from '../../test/harness/merchants.js';
import { createSecretBox } from '../../security/secrets.js';
import { validatorCompiler } from '../validation.js';
import { errorsPlugin } from './errors.js';
import { idempotencyPlugin } from './idempotency.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let stack: TestStack;
let a: TestMerchant;
let b: TestMerchant;
let keyA: string;

beforeAll(async () => {
  stack = await startTestStack();
  a = await createTestMerchant(stack.database.db, stack.app, 'Idem A');
  b = await createTestMerchant(stack.database.db, stack.app, 'Idem B');
  const created = await post('/api/merchant/api-keys', a.token, { name: 'idempotency', scopes: ['commerce:write', 'orders:write'] });
  keyA = created.body.secret as string;
});
afterAll(async () => {
  await stack?.close();
});

const db = () => stack.database.db;

async function post(url: string, credential: string, body: unknown, idempotencyKey?: string, method: 'POST' | 'PATCH' = 'POST') {
  const res = await stack.app.inject({
    method, url, payload: body as Json, headers: { authorization: `Bearer ${credential}`, ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }) },
  });
  return { status: res.statusCode, body: res.json() as Json, headers: res.headers, text: res.body };
}

const discount = (code: string, percentOff = 10) => ({ code, type: 'percentage', percentOff });
const codes = async (merchantId: string, code: string) => db().discountCode.count({ where: { merchantId, code } });

describe('the same request under one key', () => {
  it('given a retried POST / the first answer again, marked Idempotent-Replayed, and one discount code', async () => {
    const key = randomUUID();
    const first = await post('/api/merchant/discounts', keyA, discount('ONCE1'), key);
    expect(first.status, first.text).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post('/api/merchant/discounts', keyA, discount('ONCE1'), key);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toMatch(/application\/json/);
    expect(again.text).toBe(first.text);
    expect(await codes(a.id, 'ONCE1')).toBe(1);
    // A session of the same merchant does not get the key's answer: it belongs to the credential that made it.
    const fromSession = await post('/api/merchant/discounts', a.token, discount('ONCE1'), key);
    expect(fromSession.status).toBe(422);
    expect(fromSession.headers['idempotent-replayed']).toBeUndefined();
  });

  it('given no Idempotency-Key / every POST acts: the second create of a code is refused as a duplicate', async () => {
    expect((await post('/api/merchant/discounts', keyA, discount('NOKEY1'))).status).toBe(201);
    expect((await post('/api/merchant/discounts', keyA, discount('NOKEY1'))).body.code).toBe('DISCOUNT_CODE_EXISTS');
  });

  it('given a business refusal (4xx) as the first answer / it is kept and replayed, as at Stripe: a new attempt takes a new key', async () => {
    await post('/api/merchant/discounts', keyA, discount('TAKEN1'));
    const key = randomUUID();
    const first = await post('/api/merchant/discounts', keyA, discount('TAKEN1'), key);
    expect(first).toMatchObject({ status: 409, body: { code: 'DISCOUNT_CODE_EXISTS' } });
    const again = await post('/api/merchant/discounts', keyA, discount('TAKEN1'), key);
    expect(again).toMatchObject({ status: 409, body: { code: 'DISCOUNT_CODE_EXISTS' }, headers: { 'idempotent-replayed': 'true' } });
  });

  it('given the key with another body, URL or method / 422 IDEMPOTENCY_KEY_REUSED, nothing done', async () => {
    const key = randomUUID();
    const { body: made } = await post('/api/merchant/discounts', keyA, discount('FIRST1'), key);
    const otherBody = await post('/api/merchant/discounts', keyA, discount('FIRST2'), key);
    expect(otherBody).toMatchObject({ status: 422, body: { code: 'IDEMPOTENCY_KEY_REUSED' } });
    const otherUrl = await post('/api/merchant/order-bumps', keyA, { productId: '1', title: 'Wrap', priceCents: 100 }, key);
    expect(otherUrl.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await codes(a.id, 'FIRST2')).toBe(0);
    expect(await db().orderBump.count({ where: { merchantId: a.id } })).toBe(0);
    // A PATCH is not a POST: the header means nothing there and the change is made.
    expect((await post(`/api/merchant/discounts/${made.id}`, keyA, { percentOff: 20 }, key, 'PATCH')).body.percentOff).toBe(20);
  });

  it('given the same key used by two merchants / each has its own', async () => {
    const key = `shared-${randomUUID()}`;
    expect((await post('/api/merchant/discounts', keyA, discount('SHARED1'), key)).status).toBe(201);
    const other = await post('/api/merchant/discounts', b.token, discount('SHARED9'), key);
    expect(other.status).toBe(201);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(await codes(b.id, 'SHARED9')).toBe(1);
  });
});

describe('keys in flight, expired, refused', () => {
  it('given five identical POSTs at once under one key / one code is made; the others answer 409 or its replay', async () => {
    const key = randomUUID();
    const answers = await Promise.all([0, 1, 2, 3, 4].map(() => post('/api/merchant/discounts', keyA, discount('RACE1'), key)));
    expect(await codes(a.id, 'RACE1')).toBe(1);
    const acted = answers.filter((r) => r.status === 201 && !r.headers['idempotent-replayed']);
    expect(acted).toHaveLength(1);
    for (const r of answers) {
      if (r === acted[0]) continue;
      expect(r.status === 409 ? r.body.code : r.headers['idempotent-replayed'], r.text).toBe(r.status === 409 ? 'CONFLICT' : 'true');
    }
  });

  it('given a key whose first request is still running / 409 CONFLICT without acting; after 5 minutes without an answer the claim is taken over', async () => {
    const key = randomUUID();
    const body = discount('RUNNING1');
    // Claim the key the way a running request does (the fingerprint of this exact request), by its first try.
    const first = await post('/api/merchant/discounts', keyA, body, key);
    await db().$executeRaw`UPDATE idempotency_records SET status_code = NULL, body_sealed = NULL, completed_at = NULL WHERE key = ${key}`;
    await db().discountCode.deleteMany({ where: { id: first.body.id } });
    const busy = await post('/api/merchant/discounts', keyA, body, key);
    expect(busy).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
    expect(await codes(a.id, 'RUNNING1')).toBe(0);
    await db().$executeRaw`UPDATE idempotency_records SET created_at = now() - interval '6 minutes' WHERE key = ${key}`;
    const taken = await post('/api/merchant/discounts', keyA, body, key);
    expect(taken.status, taken.text).toBe(201);
    expect(await codes(a.id, 'RUNNING1')).toBe(1);
  });

  it('given a key first used over 24 hours ago / it is free again: another request under it acts', async () => {
    const key = randomUUID();
    await post('/api/merchant/discounts', keyA, discount('OLD1'), key);
    await db().$executeRaw`UPDATE idempotency_records SET created_at = now() - interval '24 hours 1 minute' WHERE key = ${key}`;
    const fresh = await post('/api/merchant/discounts', keyA, discount('OLD2'), key);
    expect(fresh.status, fresh.text).toBe(201);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(await codes(a.id, 'OLD2')).toBe(1);
    // And within 24 hours it holds: the new answer is kept.
    expect((await post('/api/merchant/discounts', keyA, discount('OLD3'), key)).body.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('given a request refused by validation or by its scope / nothing is kept under the key: the corrected request acts', async () => {
    const key = randomUUID();
    const bad = await post('/api/merchant/discounts', keyA, { code: 'x', type: 'percentage', percentOff: 10 }, key);
    expect(bad.status).toBe(400);
    const readOnly = (await post('/api/merchant/api-keys', a.token, { name: 'reader', scopes: ['commerce:read'] })).body.secret as string;
    expect((await post('/api/merchant/discounts', readOnly, discount('FIXED1'), key)).status).toBe(403);
    expect(await db().idempotencyRecord.count({ where: { key } })).toBe(0);
    expect((await post('/api/merchant/discounts', keyA, discount('FIXED1'), key)).status).toBe(201);
  });

  it.each([
    ['', 'empty'],
    ['x'.repeat(256), '256 characters'],
    [' padded', 'a space first'],
    ['caf\u00e9', 'not ASCII'],
  ])('given Idempotency-Key %j (%s) / 400 INVALID_INPUT naming the header, nothing made', async (value) => {
    const res = await post('/api/merchant/discounts', keyA, discount('BADKEY1'), value);
    expect(res.status, res.text).toBe(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(Object.keys(res.body.details?.fields ?? {})).toContain('headers.idempotency-key');
    expect(await codes(a.id, 'BADKEY1')).toBe(0);
  });

  it('given a key of 255 printable characters with inner spaces / it is accepted', async () => {
    const key = `a ${'~'.repeat(252)}z`;
    expect(key).toHaveLength(255);
    expect((await post('/api/merchant/discounts', keyA, discount('LONGKEY1'), key)).status).toBe(201);
    expect((await post('/api/merchant/discounts', keyA, discount('LONGKEY1'), key)).headers['idempotent-replayed']).toBe('true');
  });
});

describe('keys belong to the credential that used them', () => {
  const me = async (token: string) => (await stack.app.inject({ method: 'GET', url: '/api/merchant/me', headers: { authorization: `Bearer ${token}` } })).statusCode;

  it('given "log out everywhere" under a key, then two new logins / the same request under the key from one of them answers 422, is not replayed and ends nothing; sent without the key it ends both', async () => {
    const m = await createTestMerchant(db(), stack.app, 'Idem logout');
    const key = randomUUID();
    const first = await post('/api/auth/logout-all', m.token, {}, key);
    expect(first.status, first.text).toBe(200);
    const [one, two] = [await stack.app.issueSessionToken({ merchantId: m.id, shopDomain: '' }), await stack.app.issueSessionToken({ merchantId: m.id, shopDomain: '' })];

    const again = await post('/api/auth/logout-all', one, {}, key);
    expect(again.status, again.text).toBe(422);
    expect(again.body).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', error: expect.stringContaining('another dashboard session') });
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect([await me(one), await me(two)]).toEqual([200, 200]);

    expect((await post('/api/auth/logout-all', one, {})).body).toMatchObject({ sessionsEnded: 2 });
    expect([await me(one), await me(two)]).toEqual([401, 401]);
  });

  it('given a new API key made by one session under a key / another session of the merchant sending the same request and key gets 422, not the secret', async () => {
    const other = await stack.app.issueSessionToken({ merchantId: a.id, shopDomain: '' });
    const key = randomUUID();
    const body = { name: 'not for others', scopes: ['stats:read'] };
    const first = await post('/api/merchant/api-keys', a.token, body, key);
    expect(first.status).toBe(201);
    const elsewhere = await post('/api/merchant/api-keys', other, body, key);
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.text).not.toContain(first.body.secret as string);
    expect(await db().apiKey.count({ where: { merchantId: a.id, name: 'not for others' } })).toBe(1);
    // The session that made it still gets its answer again.
    expect((await post('/api/merchant/api-keys', a.token, body, key)).body.secret).toBe(first.body.secret);
  });

  it('given a discount made with an API key under a key / the dashboard session sending the same request and key gets 422 naming an API key, and no second code', async () => {
    const key = randomUUID();
    expect((await post('/api/merchant/discounts', keyA, discount('BYKEY1'), key)).status).toBe(201);
    const fromSession = await post('/api/merchant/discounts', a.token, discount('BYKEY1'), key);
    expect(fromSession.status).toBe(422);
    expect(fromSession.body.error).toContain('another API key');
    expect(await codes(a.id, 'BYKEY1')).toBe(1);
  });
});

describe('what is stored', () => {
  it('given a new API key made under an Idempotency-Key / the replay answers the same secret, one key exists, and the table holds no secret in clear', async () => {
    const key = randomUUID();
    const body = { name: 'replayed', scopes: ['stats:read'] };
    const first = await post('/api/merchant/api-keys', a.token, body, key);
    const again = await post('/api/merchant/api-keys', a.token, body, key);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.secret).toBe(first.body.secret);
    expect(await db().apiKey.count({ where: { merchantId: a.id, name: 'replayed' } })).toBe(1);
    const [row] = await db().$queryRaw<Json[]>`SELECT * FROM idempotency_records WHERE key = ${key}`;
    expect(row).toMatchObject({ status_code: 201, content_type: expect.stringContaining('application/json') });
    expect(JSON.stringify(row)).not.toContain((first.body.secret as string).slice(8));
    expect(JSON.stringify(row)).not.toContain('replayed');
  });
});

describe('a first answer that is a 5xx', () => {
  it('given a route that fails once / the failure is not kept: the retry under the same key runs and its answer is kept', async () => {
    const app = Fastify({ logger: false }).withTypeProvider<ZodTypeProvider>();
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    await app.register(errorsPlugin);
    // The auth plugin's part the idempotency plugin relies on: request.merchant set before the route runs.
    await app.register(fp(async (i) => {
      i.decorateRequest('merchant', null as never);
      i.decorate('authenticate', async (request: { merchant: unknown }) => {
        request.merchant = { merchantId: a.id, shopDomain: '', sessionId: null, memberId: null, role: 'owner' };
      });
    }, { name: 'auth' }));
    await app.register(idempotencyPlugin, { db: db(), secrets: createSecretBox(stack.config.secretsKey!) });
    let runs = 0;
    app.post('/flaky', { onRequest: app.authenticate, schema: { security: [{ bearerAuth: [] }], body: z.object({ n: z.number() }) } }, async (_request, reply) => {
      runs++;
      if (runs === 1) throw new Error('the database went away');
      return reply.code(201).send({ runs });
    });
    try {
      const key = randomUUID();
      const send = () => app.inject({ method: 'POST', url: '/flaky', payload: { n: 1 }, headers: { 'idempotency-key': key } });
      expect((await send()).statusCode).toBe(500);
      expect(await db().idempotencyRecord.count({ where: { key } })).toBe(0);
      const retry = await send();
      expect(retry.statusCode).toBe(201);
      expect(retry.json()).toEqual({ runs: 2 });
      const replay = await send();
      expect(replay.json()).toEqual({ runs: 2 });
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(runs).toBe(2);
    } finally {
      await app.close();
    }
  });
});
