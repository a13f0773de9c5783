// The SDK's transport on its own, against a scripted fetch: what it retries, with which idempotency key, after
// how long, and what it never repeats.
import { describe, expect, it } from 'vitest';
import { createCheckoutClient, CheckoutApiError, CheckoutConnectionError, retryAfterMs } from '../src/index.js';

interface Seen {
  method: string;
  url: string;
  headers: Headers;
  body: string;
}

/** A fetch answering from a script, one entry per call (an Error entry is a connection failure). */
function scripted(answers: Array<Response | Error | ((request: Request) => Promise<Response>)>) {
  const seen: Seen[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    seen.push({ method: request.method, url: request.url, headers: request.headers, body: await request.text() });
    const next = answers.shift();
    if (!next) throw new Error('no scripted answer left');
    if (next instanceof Error) throw next;
    return typeof next === 'function' ? next(request) : next;
  };
  return { fetch: fetch as typeof globalThis.fetch, seen };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const discount = { id: 'd1', code: 'SAVE10', type: 'percent', percentOff: 10 };

function client(answers: Parameters<typeof scripted>[0], opts: { maxRetries?: number; timeoutMs?: number } = {}) {
  const script = scripted(answers);
  const waits: number[] = [];
  const sdk = createCheckoutClient({
    baseUrl: 'https://api.checkout.test',
    apiKey: 'ck_test_abc',
    fetch: script.fetch,
    retryDelayMs: (n) => {
      waits.push(n * 10);
      return 1;
    },
    ...opts,
  });
  return { sdk, seen: script.seen, waits };
}

describe('retries', () => {
  it('given a POST answered 503 then 201 / it is sent twice with the same generated Idempotency-Key and the same body', async () => {
    const { sdk, seen } = client([json(503, { error: 'not ready', code: 'NOT_READY' }), json(201, discount)]);
    const created = await sdk.discounts.create({ code: 'save10', type: 'percent', percentOff: 10 } as never);
    expect(created).toEqual(discount);
    expect(seen).toHaveLength(2);
    const keys = seen.map((s) => s.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^sdk_[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(seen[1]!.body).toBe(seen[0]!.body);
    expect(JSON.parse(seen[0]!.body)).toEqual({ code: 'save10', type: 'percent', percentOff: 10 });
    expect(seen.every((s) => s.headers.get('authorization') === 'Bearer ck_test_abc')).toBe(true);
  });

  it('given the caller\'s own idempotency key / every attempt carries it, and each create gets a fresh one otherwise', async () => {
    const { sdk, seen } = client([new TypeError('fetch failed'), json(201, discount), json(201, discount)]);
    await sdk.discounts.create({ code: 'a' } as never, { idempotencyKey: 'order-42' });
    await sdk.discounts.create({ code: 'a' } as never);
    expect(seen.map((s) => s.headers.get('idempotency-key'))).toEqual(['order-42', 'order-42', expect.stringMatching(/^sdk_/)]);
  });

  it('given 429 with Retry-After: 1 / it waits the second the server asked for, not its own delay', async () => {
    const { sdk, seen, waits } = client([json(429, { error: 'slow down', code: 'RATE_LIMITED' }, { 'retry-after': '1' }), json(200, [discount])]);
    const started = Date.now();
    expect(await sdk.discounts.list()).toEqual([discount]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(seen).toHaveLength(2);
    expect(waits).toEqual([]);
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(new Date(Date.now() + 5_000).toUTCString())).toBeGreaterThan(3_000);
    expect(retryAfterMs('soon')).toBeUndefined();
  });

  it('given a Retry-After beyond a minute / it answers the error instead of waiting', async () => {
    const { sdk, seen } = client([json(429, { error: 'slow down', code: 'RATE_LIMITED' }, { 'retry-after': '3600' })]);
    await expect(sdk.discounts.list()).rejects.toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(seen).toHaveLength(1);
  });

  it('given failures past maxRetries / it stops after 1 + maxRetries attempts with the last error, waiting longer each time', async () => {
    const { sdk, seen, waits } = client([json(502, { error: 'a', code: 'UPSTREAM_ERROR' }), json(502, { error: 'b', code: 'UPSTREAM_ERROR' }), json(502, { error: 'c', code: 'UPSTREAM_ERROR' })]);
    await expect(sdk.discounts.list()).rejects.toMatchObject({ status: 502, message: 'c' });
    expect(seen).toHaveLength(3);
    expect(waits).toEqual([10, 20]);
  });

  it('given a PATCH answered 502 / it is not repeated (the server may have applied it); 503 is', async () => {
    const first = client([json(502, { error: 'x', code: 'UPSTREAM_ERROR' })]);
    await expect(first.sdk.discounts.update('d1', { active: false } as never)).rejects.toMatchObject({ status: 502 });
    expect(first.seen).toHaveLength(1);
    expect(first.seen[0]!.headers.get('idempotency-key')).toBeNull();
    const second = client([json(503, { error: 'x', code: 'NOT_READY' }), json(200, discount)]);
    expect(await second.sdk.discounts.update('d1', { active: false } as never)).toEqual(discount);
    expect(second.seen).toHaveLength(2);
  });

  it('given a 500 / a read is retried, a write is not', async () => {
    const read = client([json(500, { error: 'x', code: 'INTERNAL_ERROR' }), json(200, [])]);
    expect(await read.sdk.discounts.list()).toEqual([]);
    const write = client([json(500, { error: 'x', code: 'INTERNAL_ERROR' })]);
    await expect(write.sdk.discounts.create({ code: 'a' } as never)).rejects.toMatchObject({ status: 500, code: 'INTERNAL_ERROR' });
    expect(write.seen).toHaveLength(1);
  });

  it('given no answer within timeoutMs on every attempt / a CheckoutConnectionError', async () => {
    // Like a real fetch: nothing comes back until the request is aborted.
    const hang = (request: Request) => new Promise<Response>((_, reject) => request.signal.addEventListener('abort', () => reject(request.signal.reason)));
    const { sdk, seen } = client([hang, hang], { maxRetries: 1, timeoutMs: 50 });
    await expect(sdk.discounts.list()).rejects.toBeInstanceOf(CheckoutConnectionError);
    expect(seen).toHaveLength(2);
  });
});

describe('errors', () => {
  it('given a refusal / a CheckoutApiError with status, code, field messages and the request id', async () => {
    const { sdk } = client([json(400, { error: 'Invalid input', code: 'INVALID_INPUT', details: { fields: { 'body.code': 'use 3-40 letters' } } }, { 'request-id': 'req_1' })]);
    const err = await sdk.discounts.create({ code: 'x' } as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CheckoutApiError);
    expect(err).toMatchObject({ status: 400, code: 'INVALID_INPUT', message: 'Invalid input', requestId: 'req_1', fields: { 'body.code': 'use 3-40 letters' } });
  });

  it('given a non-JSON error page from a proxy / the status stands in for the code', async () => {
    const { sdk } = client([new Response('<html>Bad gateway</html>', { status: 404, statusText: 'Not Found', headers: { 'content-type': 'text/html' } })]);
    await expect(sdk.discounts.get('nope')).rejects.toMatchObject({ status: 404, code: 'HTTP_404' });
  });
});

describe('pagination', () => {
  it('given three pages / iterate follows nextCursor to the end and all collects every order once', async () => {
    const order = (n: number) => ({ token: `cs_${n}` });
    const { sdk, seen } = client([
      json(200, { items: [order(1), order(2)], nextCursor: 'c2' }),
      json(200, { items: [order(3), order(4)], nextCursor: 'c3' }),
      json(200, { items: [order(5)], nextCursor: null }),
    ]);
    const all = await sdk.orders.all({ status: 'COMPLETED', limit: 2 });
    expect(all.map((o) => o.token)).toEqual(['cs_1', 'cs_2', 'cs_3', 'cs_4', 'cs_5']);
    expect(seen.map((s) => new URL(s.url).searchParams.get('cursor'))).toEqual([null, 'c2', 'c3']);
    expect(seen.every((s) => new URL(s.url).searchParams.get('status') === 'COMPLETED')).toBe(true);
  });
});
