// The browser side of the API's contract: JSON in, JSON out, and every failure as `{ error, code }` with,
// for INVALID_INPUT, `details.fields` (field path → message). Same-origin calls: the checkout page is
// served by the API on the merchant's checkout host, the dashboard on the app origin.

export interface ApiFailure {
  status: number;
  code: string;
  message: string;
  /** Field messages keyed by the field's path in the body, `body.` removed: `address.postalCode`. */
  fields: Record<string, string>;
  retryAfterSeconds?: number;
}

export type ApiResult<T> = { ok: true; status: number; data: T } | ({ ok: false } & ApiFailure);

/** The API's field keys (`body.address.postalCode`) as form field names (`address.postalCode`). */
export function fieldErrors(details: unknown): Record<string, string> {
  const fields = (details as { fields?: unknown } | undefined)?.fields;
  const out: Record<string, string> = {};
  if (fields && typeof fields === 'object') {
    for (const [key, message] of Object.entries(fields)) if (typeof message === 'string') out[key.replace(/^body\.?/, '') || 'body'] = message;
  }
  return out;
}

export interface ApiOptions {
  /** Abort after this many milliseconds (answers a NETWORK failure). */
  timeoutMs?: number;
  headers?: Record<string, string>;
}

/** What every call of this page sends and says: the checkout page sets its language (its refusals come back in it). */
const defaults: { headers: Record<string, string>; network: string; failed: (status: number) => string } = {
  headers: {},
  network: 'We could not reach the server. Check your connection and try again.',
  failed: (status) => `Something went wrong (HTTP ${status}).`,
};

export function configureApi(opts: Partial<typeof defaults>): void {
  Object.assign(defaults, opts);
}

export async function api<T>(method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, body?: unknown, opts: ApiOptions = {}): Promise<ApiResult<T>> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: { accept: 'application/json', ...defaults.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: opts.timeoutMs ? AbortSignal.timeout(opts.timeoutMs) : undefined,
    });
  } catch {
    return { ok: false, status: 0, code: 'NETWORK', message: defaults.network, fields: {} };
  }
  let json: unknown = null;
  try {
    json = await res.json();
  } catch {
    json = null;
  }
  if (res.ok) return { ok: true, status: res.status, data: json as T };
  const err = (json ?? {}) as { error?: unknown; code?: unknown; details?: unknown };
  const retry = Number(res.headers.get('retry-after'));
  return {
    ok: false,
    status: res.status,
    code: typeof err.code === 'string' ? err.code : 'INTERNAL_ERROR',
    message: typeof err.error === 'string' ? err.error : defaults.failed(res.status),
    fields: fieldErrors(err.details),
    ...(Number.isFinite(retry) && retry > 0 ? { retryAfterSeconds: retry } : {}),
  };
}
