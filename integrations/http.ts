// The JSON-over-HTTP transport every integration client shares: base URL, default headers, a time-out on
// every call, an optional Idempotency-Key, and one mapping from HTTP outcomes to IntegrationError.
import { IntegrationError, type IntegrationErrorKind } from './errors.js';

export interface HttpClientOptions {
  /** Name of the external system, used in errors and logs ("processor", "storefront-a", ...). */
  system: string;
  baseUrl: string;
  headers?: Record<string, string>;
  /** Per-call time-out in ms (default 10 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  idempotencyKey?: string;
  timeoutMs?: number;
}

export interface HttpClient {
  readonly baseUrl: string;
  request<T>(method: string, path: string, opts?: RequestOptions): Promise<T>;
}

/** An HTTP status as our error kind (shared by every client, the SDK-based processor client included). */
export function kindForStatus(status: number): IntegrationErrorKind {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 404) return 'not_found';
  if (status === 409) return 'conflict';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'unavailable';
  return 'rejected';
}

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** The remote's own message: `{ error: "..." }`, `{ error: { message } }`, `{ message }` or plain text. */
function describeRemoteError(body: unknown): string {
  if (typeof body === 'string') return body.slice(0, 200);
  if (!body || typeof body !== 'object') return '';
  const { error, message } = body as { error?: unknown; message?: unknown };
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string') return (error as { message: string }).message;
  return typeof message === 'string' ? message : '';
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const doFetch = options.fetch ?? fetch;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  return {
    baseUrl,
    async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
      const url = new URL(baseUrl + (path.startsWith('/') ? path : `/${path}`));
      for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
      const headers: Record<string, string> = { accept: 'application/json', ...options.headers, ...opts.headers };
      if (opts.body !== undefined) headers['content-type'] = 'application/json';
      if (opts.idempotencyKey) headers['idempotency-key'] = opts.idempotencyKey;
      const timeoutMs = opts.timeoutMs ?? options.timeoutMs ?? 10_000;
      let res: Response;
      try {
        res = await doFetch(url, {
          method,
          headers,
          body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
          signal: AbortSignal.timeout(timeoutMs),
          redirect: 'manual',
        });
      } catch (err) {
        const name = (err as Error)?.name;
        if (name === 'TimeoutError' || name === 'AbortError') {
          throw new IntegrationError(options.system, 'timeout', `${options.system}: ${method} ${url.pathname} did not answer within ${timeoutMs} ms`, { cause: err });
        }
        throw new IntegrationError(options.system, 'unavailable', `${options.system}: ${method} ${url.pathname} failed: ${(err as Error)?.message ?? String(err)}`, { cause: err });
      }
      const text = await res.text().catch(() => '');
      let body: unknown = undefined;
      if (text) {
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
      }
      if (!res.ok) {
        const remoteMessage = describeRemoteError(body);
        throw new IntegrationError(
          options.system,
          kindForStatus(res.status),
          `${options.system}: ${method} ${url.pathname} answered ${res.status}${remoteMessage ? `: ${remoteMessage}` : ''}`,
          { status: res.status, retryAfterMs: retryAfterMs(res.headers.get('retry-after')), remote: body },
        );
      }
      if (text && typeof body === 'string') {
        throw new IntegrationError(options.system, 'invalid_response', `${options.system}: ${method} ${url.pathname} answered non-JSON`, { status: res.status });
      }
      return body as T;
    },
  };
}
