// The dashboard's one door to the API, on top of web/shared/api.ts (the same contract as the checkout page).
// The session lives in the HttpOnly cookie the API sets on login (same origin), so no token is ever kept in
// script-readable storage. A failure is thrown as an ApiError carrying the API's `{ error, code }` and, for
// INVALID_INPUT, the per-field messages keyed by field path ("branding.logoUrl", "shippingRates.0.name"),
// so forms show them next to the field they concern.
import { api as call } from '../shared/api.js';

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
    readonly fields: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** Called when a request answers 401: the app returns to the login screen. */
let onUnauthorized: (() => void) | undefined;
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export async function request<T>(method: Method, path: string, body?: unknown, opts: { quiet401?: boolean } = {}): Promise<T> {
  const res = await call<T>(method, path, body);
  if (res.ok) return res.data;
  // Query-string problems come as "querystring.from": shown by the field named "from".
  const fields = Object.fromEntries(Object.entries(res.fields).map(([k, v]) => [k.replace(/^(querystring|params)\./, ''), v]));
  if (res.status === 401 && !opts.quiet401) onUnauthorized?.();
  throw new ApiError(res.message, res.code, res.status, fields);
}

export const api = {
  get: <T>(path: string, opts?: { quiet401?: boolean }) => request<T>('GET', path, undefined, opts),
  post: <T>(path: string, body?: unknown) => request<T>('POST', path, body ?? {}),
  put: <T>(path: string, body?: unknown) => request<T>('PUT', path, body ?? {}),
  patch: <T>(path: string, body?: unknown) => request<T>('PATCH', path, body ?? {}),
  del: <T>(path: string) => request<T>('DELETE', path),
};

/** Query string from defined, non-empty values (arrays repeat the key). */
export function query(params: Record<string, string | number | string[] | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) v.forEach((x) => q.append(k, x));
    else q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}
