import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpClient } from '../integrations/http.js';
import { checkPinned, PINNED_CHECK_MS, pinnedFetch } from './pinned-fetch.js';
import { createUrlGuard, UnsafeUrlError } from './ssrf.js';

const PUBLIC_V4 = '93.184.216.34';

/** A local server: what it received per socket, and a handler per test. */
let server: Server;
let origin: string;
let handle: (req: IncomingMessage, res: ServerResponse, nth: number) => void;
const seen: Array<{ method: string; path: string; socket: Socket; body: string }> = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, path: req.url!, socket: req.socket, body: Buffer.concat(chunks).toString() });
      handle(req, res, seen.filter((s) => s.socket === req.socket).length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  seen.length = 0;
  handle = (_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'x-wp-total': '2' }).end('{"ok":true}');
});

describe('the pinned transport of store calls', () => {
  it('given a name the guard accepted at check() that resolves to a loopback address when the connection opens (DNS rebinding) / the connection is refused and nothing reaches the address', async () => {
    let answers = 0;
    // The first answer (the check) is public, the next ones (the connect) point inside.
    const guard = createUrlGuard({ allowHttp: true, resolve: async () => (answers++ === 0 ? [PUBLIC_V4] : ['127.0.0.1']) });
    const url = `http://store.example:${new URL(origin).port}/wp-json/wc/v3/products`;
    await guard.check(url);

    const err = await pinnedFetch(guard)(url).then(() => undefined, (e: unknown) => e);

    expect(err).toBeInstanceOf(UnsafeUrlError);
    expect((err as UnsafeUrlError).reason).toBe('loopback');
    expect(answers).toBe(2);
    expect(seen).toEqual([]);
  });

  it('given an origin the guard exempts (the local sandbox) / answers status, headers and body as fetch does, over one kept-alive connection', async () => {
    const guard = createUrlGuard({ allowedOrigins: [origin] });
    const http = createHttpClient({ system: 'store', baseUrl: origin, fetch: pinnedFetch(guard) });

    const first = await http.request<{ ok: boolean }>('GET', '/a', { query: { include: '1,2' } });
    const second = await http.request<{ ok: boolean }>('POST', '/b', { body: { n: 1 } });
    const res = await pinnedFetch(guard)(`${origin}/c`, { headers: { accept: 'application/json' } });

    expect([first, second]).toEqual([{ ok: true }, { ok: true }]);
    expect([res.status, res.ok, res.headers.get('x-wp-total'), await res.json()]).toEqual([200, true, '2', { ok: true }]);
    expect(seen.map((s) => [s.method, s.path, s.body])).toEqual([['GET', '/a?include=1%2C2', ''], ['POST', '/b', '{"n":1}'], ['GET', '/c', '']]);
    expect(new Set(seen.map((s) => s.socket)).size).toBe(1);
    expect(pinnedFetch(guard)).toBe(pinnedFetch(guard));
  });

  it('given error answers, a redirect and an empty 204 / each is answered as it came (a redirect is not followed)', async () => {
    const guard = createUrlGuard({ allowedOrigins: [origin] });
    handle = (req, res) => {
      if (req.url === '/missing') res.writeHead(404, { 'content-type': 'application/json' }).end('{"code":"rest_no_route"}');
      else if (req.url === '/moved') res.writeHead(301, { location: 'http://169.254.169.254/' }).end();
      else res.writeHead(204).end();
    };
    const http = createHttpClient({ system: 'store', baseUrl: origin, fetch: pinnedFetch(guard) });

    await expect(http.request('GET', '/missing')).rejects.toMatchObject({ kind: 'not_found', status: 404, remote: { code: 'rest_no_route' } });
    const moved = await pinnedFetch(guard)(`${origin}/moved`, { redirect: 'manual' });
    expect([moved.status, moved.headers.get('location')]).toEqual([301, 'http://169.254.169.254/']);
    expect((await pinnedFetch(guard)(`${origin}/empty`)).status).toBe(204);
    expect(seen.map((s) => s.path)).toEqual(['/missing', '/moved', '/empty']);
  });

  it('given a store slower than the time-out / the call fails as a time-out (TimeoutError), as with fetch', async () => {
    const guard = createUrlGuard({ allowedOrigins: [origin] });
    handle = (_req, res) => setTimeout(() => res.writeHead(200).end('{}'), 500);
    const http = createHttpClient({ system: 'store', baseUrl: origin, fetch: pinnedFetch(guard), timeoutMs: 100 });

    await expect(http.request('GET', '/slow')).rejects.toMatchObject({ kind: 'timeout' });
    // The answer arriving mid-body is cut off too.
    handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).write('{"a":');
      setTimeout(() => res.end('1}'), 500);
    };
    await expect(http.request('GET', '/half')).rejects.toMatchObject({ kind: 'timeout' });
  });

  it('given a kept-alive connection the store closed as the next call went out / a GET is sent once more on a new connection; a POST is not (it may have been received)', async () => {
    const guard = createUrlGuard({ allowedOrigins: [origin] });
    // Each connection answers its first request and drops the next one without an answer.
    handle = (req, res, nth) => (nth === 1 ? res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}') : req.socket.destroy());
    const fetcher = pinnedFetch(guard);

    expect((await fetcher(`${origin}/1`)).status).toBe(200);
    expect((await fetcher(`${origin}/2`)).status).toBe(200);
    expect(seen.map((s) => s.path)).toEqual(['/1', '/2', '/2']);
    expect(new Set(seen.map((s) => s.socket)).size).toBe(2);

    const err = await fetcher(`${origin}/3`, { method: 'POST', body: '{}' }).then(() => undefined, (e: unknown) => e);
    expect((err as NodeJS.ErrnoException).code).toBe('ECONNRESET');
    expect(seen.map((s) => s.path)).toEqual(['/1', '/2', '/2', '/3']);
  });

  it('given a store URL the guard accepted a moment ago / checkPinned reuses that for 30 s (one DNS resolution), then checks again; a refusal or failure is never reused', async () => {
    let now = 0;
    const answers: string[][] = [[PUBLIC_V4], [PUBLIC_V4], ['10.0.0.7'], [PUBLIC_V4]];
    const asked: string[] = [];
    const guard = createUrlGuard({ allowHttp: true, resolve: async (host) => (asked.push(host), answers.shift()!) });
    const clock = () => now;

    await checkPinned(guard, 'http://shop.example/', clock);
    now = PINNED_CHECK_MS - 1;
    await checkPinned(guard, 'http://shop.example/', clock);
    expect(asked).toEqual(['shop.example']);

    now = PINNED_CHECK_MS;
    await checkPinned(guard, 'http://shop.example/', clock);
    expect(asked).toHaveLength(2);

    // Past the window the name points inside: refused, and the refusal is not kept.
    now = 2 * PINNED_CHECK_MS;
    await expect(checkPinned(guard, 'http://shop.example/', clock)).rejects.toMatchObject({ reason: 'private' });
    await checkPinned(guard, 'http://shop.example/', clock);
    expect(asked).toHaveLength(4);
    // Another URL of another guard is its own.
    await expect(checkPinned(createUrlGuard(), 'http://shop.example/', clock)).rejects.toMatchObject({ reason: 'scheme' });
  });
});
