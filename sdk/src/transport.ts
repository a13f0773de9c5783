// The fetch every request goes through: authentication, a per-attempt time-out, and retries that cannot do
// anything twice. A POST gets an Idempotency-Key (the caller's, or a random one) before its first attempt and
// keeps it on every retry, so the server answers a retried POST with its first answer instead of acting again.
// What is retried: no answer at all (connection error, time-out), 429, 502, 503, 504 — and 500 for reads.
// Retry-After is honoured (seconds or an HTTP date, capped); otherwise the wait doubles from 0.5 s with jitter.

export interface TransportOptions {
  apiKey: string;
  /** Retries after the first attempt (default 2; 0 turns retries off). */
  maxRetries: number;
  /** Per-attempt time-out in milliseconds (default 30 s). */
  timeoutMs: number;
  fetch: typeof globalThis.fetch;
  userAgent: string;
  /** The wait before retry `n` (1-based) when the server gives no Retry-After. */
  retryDelayMs: (retry: number) => number;
  /** Waits between attempts (tests replace it). */
  sleep: (ms: number) => Promise<void>;
}

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** Longest wait a Retry-After may ask for before the SDK gives up and answers the error instead. */
const MAX_RETRY_AFTER_MS = 60_000;
const RETRYABLE = new Set([429, 502, 503, 504]);

export const defaultRetryDelayMs = (retry: number) => Math.min(8_000, 500 * 2 ** (retry - 1)) * (0.75 + Math.random() * 0.5);

/** Retry-After as milliseconds (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const randomKey = () => `sdk_${globalThis.crypto.randomUUID()}`;

export function createTransport(opts: TransportOptions): (input: Request) => Promise<Response> {
  return async (input: Request) => {
    const headers = new Headers(input.headers);
    headers.set('authorization', `Bearer ${opts.apiKey}`);
    if (!headers.has('user-agent')) headers.set('user-agent', opts.userAgent);
    const method = input.method.toUpperCase();
    if (method === 'POST' && !headers.has(IDEMPOTENCY_HEADER)) headers.set(IDEMPOTENCY_HEADER, randomKey());
    // Read once: every attempt sends the same bytes (a Request body can be consumed only once).
    const body = method === 'GET' || method === 'HEAD' ? undefined : await input.arrayBuffer();
    const safeToRepeat = method === 'GET' || method === 'HEAD' || method === 'POST';

    for (let attempt = 0; ; attempt++) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new Error(`no answer within ${opts.timeoutMs} ms`)), opts.timeoutMs);
      const onCallerAbort = () => controller.abort(input.signal.reason);
      input.signal.addEventListener('abort', onCallerAbort, { once: true });
      let response: Response;
      try {
        response = await opts.fetch(new Request(input.url, { method, headers, body: body && body.byteLength > 0 ? body : undefined, signal: controller.signal, redirect: 'manual' }));
      } catch (err) {
        if (input.signal.aborted || attempt >= opts.maxRetries || !safeToRepeat) throw err;
        await opts.sleep(opts.retryDelayMs(attempt + 1));
        continue;
      } finally {
        clearTimeout(timer);
        input.signal.removeEventListener('abort', onCallerAbort);
      }
      const retryable = RETRYABLE.has(response.status) || (response.status === 500 && (method === 'GET' || method === 'HEAD'));
      // A PATCH/DELETE is repeated only when the server says it did not act (429: not let in; 503: not ready).
      const repeatable = safeToRepeat || response.status === 429 || response.status === 503;
      if (!retryable || !repeatable || attempt >= opts.maxRetries) return response;
      const asked = retryAfterMs(response.headers.get('retry-after'));
      if (asked !== undefined && asked > MAX_RETRY_AFTER_MS) return response;
      await response.body?.cancel().catch(() => undefined);
      await opts.sleep(asked ?? opts.retryDelayMs(attempt + 1));
    }
  };
}
