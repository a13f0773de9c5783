// Failures before a credential is known are limited per address (api/plugins/rate-limits.ts, `app.failures`): a flood
// of unknown API keys reaches the database only as often as the limit allows, and unsigned processor deliveries are
// stored only up to it — per claimed session, so one merchant's failing deliveries never hold back another's.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestStack, type TestStack } from '../../test/harness/stack.js';
import { createTestMerchant, type TestMerchant } from '../../test/harness/merchants.js';
import { PROCESSOR_WEBHOOK_PATH } from '../../model/connections.js';

const AUTH_LIMIT = 5;
const WEBHOOK_LIMIT = 4;
let stack: TestStack;
let merchant: TestMerchant;

beforeAll(async () => {
  stack = await startTestStack({ RATE_LIMIT_AUTH_FAILURES: `${AUTH_LIMIT}/60`, RATE_LIMIT_WEBHOOK_FAILURES: `${WEBHOOK_LIMIT}/60` });
  merchant = await createTestMerchant(stack.database.db, stack.app, 'Failure limits');
});
afterAll(async () => {
  await stack?.close();
});

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** A well-formed test key nobody issued. */
const unknownKey = () => `ck_test_${Array.from(randomBytes(43), (b) => BASE62[b % 62]).join('')}`;
const get = (credential: string, ip: string) => stack.app.inject({ method: 'GET', url: '/api/merchant/stats', remoteAddress: ip, headers: { authorization: `Bearer ${credential}` } });
const statuses = (list: Array<{ statusCode: number }>) => list.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.statusCode]: (acc[r.statusCode] ?? 0) + 1 }), {});

describe('credentials that do not authenticate', () => {
  it('given 300 unknown, well-formed API keys from one address at once / 5 are looked up and answered 401, the rest 429 with Retry-After and RateLimit headers; another address is still served', async () => {
    const lookups = vi.spyOn(stack.database.db.apiKey, 'findUnique');
    try {
      const answers = await Promise.all(Array.from({ length: 300 }, () => get(unknownKey(), '203.0.113.10')));
      expect(statuses(answers)).toEqual({ 401: AUTH_LIMIT, 429: 300 - AUTH_LIMIT });
      expect(lookups).toHaveBeenCalledTimes(AUTH_LIMIT);
      const refused = answers.find((r) => r.statusCode === 429)!;
      expect(refused.json()).toMatchObject({ code: 'RATE_LIMITED', error: expect.stringContaining('failed authentications') });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.headers).toMatchObject({ 'ratelimit-limit': String(AUTH_LIMIT), 'ratelimit-remaining': '0' });

      // The merchant's own session from the flooded address waits too; from any other address it works.
      expect((await get(merchant.token, '203.0.113.10')).statusCode).toBe(429);
      expect((await get(merchant.token, '203.0.113.11')).statusCode).toBe(200);
      expect((await get(unknownKey(), '203.0.113.12')).statusCode).toBe(401);
    } finally {
      lookups.mockRestore();
    }
  });

  it('given a session used 30 times from one address, up to the limit at once / every request succeeds: a success gives its count back', async () => {
    const answers = [];
    for (let round = 0; round < 6; round++) answers.push(...(await Promise.all(Array.from({ length: AUTH_LIMIT }, () => get(merchant.token, '203.0.113.20')))));
    expect(statuses(answers)).toEqual({ 200: 30 });
  });

  it('given more requests at once than the limit from one address / the ones over it are refused, and once answered the address is served again', async () => {
    const burst = await Promise.all(Array.from({ length: AUTH_LIMIT * 2 }, () => get(merchant.token, '203.0.113.21')));
    expect(statuses(burst)).toEqual({ 200: AUTH_LIMIT, 429: AUTH_LIMIT });
    expect((await get(merchant.token, '203.0.113.21')).statusCode).toBe(200);
  });

  it('given no credential at all / 401 every time and nothing counted (refusing it costs no lookup)', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => stack.app.inject({ method: 'GET', url: '/api/merchant/stats', remoteAddress: '203.0.113.30' })));
    expect(statuses(answers)).toEqual({ 401: 20 });
    expect((await get(merchant.token, '203.0.113.30')).statusCode).toBe(200);
  });
});

describe('webhook deliveries that do not verify', () => {
  const token = () => `cs_${randomBytes(24).toString('base64url')}`;
  const deliver = (sessionToken: string, ip: string) =>
    stack.app.inject({
      method: 'POST', url: PROCESSOR_WEBHOOK_PATH, remoteAddress: ip,
      headers: { 'content-type': 'application/json', 'x-processor-signature': 'f'.repeat(64) },
      payload: JSON.stringify({ event: 'payment_succeeded', data: { id: `pay_${randomBytes(6).toString('hex')}`, metadata: { checkout_session_token: sessionToken } }, padding: 'x'.repeat(200_000) }),
    });
  const stored = (sessionToken: string) => stack.database.db.processorWebhookDelivery.count({ where: { sessionToken } });

  it('given 12 unsigned deliveries claiming one session from one address / 4 are stored and answered 401, the rest 429 and not stored; another claim from that address is still heard', async () => {
    const claimed = token();
    const answers = await Promise.all(Array.from({ length: 12 }, () => deliver(claimed, '198.51.100.77')));
    expect(statuses(answers)).toEqual({ 401: WEBHOOK_LIMIT, 429: 12 - WEBHOOK_LIMIT });
    expect(await stored(claimed)).toBe(WEBHOOK_LIMIT);
    const refused = answers.find((r) => r.statusCode === 429)!;
    expect(refused.json()).toMatchObject({ code: 'RATE_LIMITED', error: expect.stringContaining('webhook deliveries that did not verify') });
    expect(refused.headers).toMatchObject({ 'ratelimit-limit': String(WEBHOOK_LIMIT), 'ratelimit-remaining': '0', 'retry-after': expect.any(String) });

    // Counted apart per claim: the same sender's deliveries about another session are not held back.
    const other = token();
    expect((await deliver(other, '198.51.100.77')).statusCode).toBe(401);
    expect(await stored(other)).toBe(1);
  });
});
