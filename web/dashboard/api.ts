// The dashboard's one door to the API, on top of web/shared/api.ts (the same contract as the checkout page).
// The session lives in the HttpOnly cookie the API sets on login (same origin), so no token is ever kept in
// script-readable storage. A failure is thrown as an ApiError carrying the API's `{ error, code }` and, for
// INVALID_INPUT, the per-field messages keyed by field path ("branding.logoUrl", "shippingRates.0.name"),
// so forms show them next to the field they concern.
//
// Every call names its route as the API's OpenAPI document does (`/api/merchant/members/{id}`), and its path
// parameters, query, body and answer are typed from the SDK's types generated from that document
// (sdk/src/schema.ts, `npm run sdk:generate`): a renamed route, parameter or field fails `tsc -p web`. Type-only:
// nothing of the SDK reaches the bundle.
import type { paths } from '../../sdk/src/schema.js';
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

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The routes of the document that answer `M`. */
export type RouteOf<M extends Method> = { [P in keyof paths]: paths[P][M] extends undefined ? never : P }[keyof paths];
/** One operation of the document: `Operation<'/api/merchant/me', 'get'>`. */
export type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Success = 200 | 201 | 202;
/** What an operation answers when it succeeds (its 2xx JSON bodies). */
export type AnswerOf<O> = O extends { responses: infer R } ? { [S in keyof R & Success]: Json<R[S]> }[keyof R & Success] : never;
/** The JSON body an operation takes. */
export type BodyOf<O> = O extends { requestBody: { content: { 'application/json': infer B } } } ? B : O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
/** The answer of `M path`: `Answer<'/api/merchant/me', 'get'>` is the merchant. */
export type Answer<P extends keyof paths, M extends Method> = AnswerOf<Operation<P, M>>;
/** The body `M path` takes. */
export type Body<P extends keyof paths, M extends Method> = BodyOf<Operation<P, M>>;

type PathParams<O> = O extends { parameters: { path: infer T } } ? T : never;
type QueryParams<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** The query `GET path` takes. */
export type Query<P extends RouteOf<'get'>> = QueryParams<Operation<P, 'get'>>;

/**
 * What a call adds to its route: `params` fills the route's `{name}`s (required when it has some), `query` the query
 * string (undefined, null and empty values left out, arrays repeat the key), `body` the JSON body (required when the
 * operation requires one).
 */
export type Init<O> = ([PathParams<O>] extends [never] ? { params?: never } : { params: PathParams<O> }) &
  ([QueryParams<O>] extends [never] ? { query?: never } : { query?: QueryParams<O> }) &
  (O extends { requestBody?: never } ? { body?: never } : O extends { requestBody: object } ? { body: BodyOf<O> } : { body?: BodyOf<O> }) & {
    /** A 401 does not send the app back to the login screen (GET /api/merchant/me asks whether anyone is signed in). */
    quiet401?: boolean;
  };
type Args<O> = object extends Init<O> ? [init?: Init<O>] : [init: Init<O>];

interface AnyInit {
  params?: Record<string, string | number>;
  query?: QueryValues;
  body?: unknown;
  quiet401?: boolean;
}
type QueryValues = Record<string, string | number | readonly string[] | undefined | null>;

/** The route with its `{name}`s filled (each encoded) and the query string. */
function url(route: string, init: AnyInit = {}): string {
  const params = init.params ?? {};
  const path = route.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${route}: no value for {${name}}`);
    return encodeURIComponent(String(value));
  });
  return path + query(init.query ?? {});
}

/** A link to a GET route of the API (a download the browser fetches with the session cookie). */
export function apiHref<P extends RouteOf<'get'>>(route: P, ...[init]: Args<Operation<P, 'get'>>): string {
  return url(route, init as AnyInit | undefined);
}

async function request(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', route: string, init: AnyInit = {}): Promise<never> {
  // A POST, PUT or PATCH always carries a JSON body (`{}` when the operation takes none); GET and DELETE none.
  const body = method === 'GET' || method === 'DELETE' ? undefined : (init.body ?? {});
  const res = await call<never>(method, url(route, init), body);
  if (res.ok) return res.data;
  // Query-string problems come as "querystring.from": shown by the field named "from".
  const fields = Object.fromEntries(Object.entries(res.fields).map(([k, v]) => [k.replace(/^(querystring|params)\./, ''), v]));
  if (res.status === 401 && !init.quiet401) onUnauthorized?.();
  throw new ApiError(res.message, res.code, res.status, fields);
}

export const api = {
  get: <P extends RouteOf<'get'>>(route: P, ...[init]: Args<Operation<P, 'get'>>): Promise<Answer<P, 'get'>> => request('GET', route, init as AnyInit | undefined),
  post: <P extends RouteOf<'post'>>(route: P, ...[init]: Args<Operation<P, 'post'>>): Promise<Answer<P, 'post'>> => request('POST', route, init as AnyInit | undefined),
  put: <P extends RouteOf<'put'>>(route: P, ...[init]: Args<Operation<P, 'put'>>): Promise<Answer<P, 'put'>> => request('PUT', route, init as AnyInit | undefined),
  patch: <P extends RouteOf<'patch'>>(route: P, ...[init]: Args<Operation<P, 'patch'>>): Promise<Answer<P, 'patch'>> => request('PATCH', route, init as AnyInit | undefined),
  del: <P extends RouteOf<'delete'>>(route: P, ...[init]: Args<Operation<P, 'delete'>>): Promise<Answer<P, 'delete'>> => request('DELETE', route, init as AnyInit | undefined),
};

/** Query string from defined, non-empty values (arrays repeat the key). */
export function query(params: QueryValues): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) v.forEach((x: string) => q.append(k, x));
    else q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}
