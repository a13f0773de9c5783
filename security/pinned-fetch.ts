// The transport of calls to a URL a merchant gave us (their WooCommerce store): a fetch over node:http(s) whose
// connections are kept alive and opened only to addresses the URL guard accepts.
//
// Every new connection resolves the host with the guard's `lookup` (security/ssrf.ts), which refuses a loopback,
// private, metadata or otherwise unsafe address: what is connected to is what was checked, at the moment the
// connection is opened, so DNS rebinding cannot swap the address between a check and the connect (the gap
// UrlGuard.check() alone leaves, see ssrf.ts). A kept-alive connection stays with the address it was opened to
// (checked then) and is closed after IDLE_MS without use, so a changed DNS answer is followed within seconds. IP
// literals never reach a lookup: the callers check() the URL first, which judges them.
//
// Besides the pinning, node:http costs less per call than the global fetch (undici's WHATWG streams), which is
// what a shopper's checkout create pays while it reads the store (docs/operations.md "What it costs").
//
// Only what integrations/http.ts asks of a fetch: method, headers, a string body, a signal, redirect 'manual'
// (a redirect is answered, never followed). A GET or HEAD whose kept-alive connection the store had closed just
// before (ECONNRESET on a reused socket, before any answer) is sent once more on a new connection, as Node's
// documentation advises; nothing else is retried (an order create must never be sent twice by the transport).
import http from 'node:http';
import https from 'node:https';
import type { UrlGuard } from './ssrf.js';

/** How long an idle kept-alive connection is kept (a store's server usually closes its side after 5 s or more). */
const IDLE_MS = 4_000;
/** Connections per store origin at once (the API's creates of one store in a flash sale share them). */
const MAX_SOCKETS = 64;
/** Statuses whose answer has no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 204, 205, 304]);

const perGuard = new WeakMap<UrlGuard, typeof fetch>();

/** How long a URL's accepted check is reused by checkPinned (its connections are pinned: see there). */
export const PINNED_CHECK_MS = 30_000;
const checksPerGuard = new WeakMap<UrlGuard, Map<string, { until: number; check: Promise<URL> }>>();

/**
 * `guard.check(url)` for a URL whose calls go through pinnedFetch(guard), its acceptance reused for PINNED_CHECK_MS
 * (a refusal or failure is never kept: the next call checks again). The check resolves the host (one getaddrinfo
 * per call otherwise); reusing its "yes" is safe only because the connections are pinned: a name that now resolves
 * to an unsafe address passes this early check for a few seconds more, but no connection can be opened to that
 * address (the guard's lookup refuses it at connect), so the call fails instead of reaching it.
 */
export function checkPinned(guard: UrlGuard, url: string, now: () => number = Date.now): Promise<URL> {
  let checks = checksPerGuard.get(guard);
  if (!checks) checksPerGuard.set(guard, (checks = new Map()));
  const at = now();
  const hit = checks.get(url);
  if (hit && hit.until > at) return hit.check;
  const check = guard.check(url);
  checks.delete(url);
  checks.set(url, { until: at + PINNED_CHECK_MS, check });
  check.catch(() => {
    if (checks.get(url)?.check === check) checks.delete(url);
  });
  // Bounded: the oldest entries go first.
  while (checks.size > 10_000) checks.delete(checks.keys().next().value!);
  return check;
}

/** The pinned fetch of `guard`, one per guard (its connections are shared by every client of the process). */
export function pinnedFetch(guard: UrlGuard): typeof fetch {
  let fetcher = perGuard.get(guard);
  if (!fetcher) perGuard.set(guard, (fetcher = createPinnedFetch(guard)));
  return fetcher;
}

function createPinnedFetch(guard: UrlGuard): typeof fetch {
  const options = { keepAlive: true, maxSockets: MAX_SOCKETS, timeout: IDLE_MS, scheduling: 'lifo' as const };
  const pinned = { ...options, lookup: guard.lookup };
  // The origins the guard exempts (the local sandbox, on a loopback name) connect with the system resolver, as check() lets them.
  const allowed = new Set(guard.allowedOrigins);
  const agents: Record<string, { pinned: http.Agent; exempt: http.Agent; request: typeof http.request }> = {
    'http:': { pinned: new http.Agent(pinned), exempt: new http.Agent(options), request: http.request },
    'https:': { pinned: new https.Agent(pinned), exempt: new https.Agent(options), request: https.request },
  };

  const send = (url: URL, init: RequestInit, retry: boolean): Promise<Response> =>
    new Promise((resolve, reject) => {
      const transport = agents[url.protocol];
      if (!transport) return reject(new TypeError(`unsupported protocol ${url.protocol}`));
      const agent = allowed.has(url.origin) ? transport.exempt : transport.pinned;
      const signal = init.signal ?? undefined;
      if (signal?.aborted) return reject(signal.reason as Error);
      const method = (init.method ?? 'GET').toUpperCase();
      let answered = false;
      // An aborted call fails with the signal's reason (a TimeoutError for AbortSignal.timeout), as fetch does.
      const fail = (err: unknown) => reject(signal?.aborted ? (signal.reason as Error) : err);
      const req = transport.request(url, { method, headers: headersOf(init.headers), agent, signal }, (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', fail);
        res.on('end', () => {
          if (!res.complete) return fail(new Error('the connection closed before the whole answer came'));
          const status = res.statusCode ?? 0;
          const headers = new Headers();
          for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
          try {
            resolve(new Response(NULL_BODY.has(status) ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage ?? '', headers }));
          } catch (err) {
            fail(err);
          }
        });
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (retry && !answered && req.reusedSocket && err.code === 'ECONNRESET' && (method === 'GET' || method === 'HEAD') && !signal?.aborted) {
          send(url, init, false).then(resolve, reject);
          return;
        }
        fail(err);
      });
      req.end(typeof init.body === 'string' ? init.body : undefined);
    });

  return (input, init = {}) => {
    if (init.body !== undefined && init.body !== null && typeof init.body !== 'string') return Promise.reject(new TypeError('pinnedFetch sends string bodies only'));
    return send(new URL(input instanceof Request ? input.url : String(input)), init, true);
  };
}

function headersOf(headers: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(headers).forEach((value, name) => {
    out[name] = value;
  });
  return out;
}
