// The client: every operation of the API, typed from its OpenAPI document (`client.api`, openapi-fetch: answers
// `{ data, error, response }`), and a thin layer over the merchant resources people use most, which throws a
// CheckoutApiError instead and pages through lists. Both share one transport (auth, time-outs, safe retries).
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';
import { CheckoutConnectionError, apiErrorOf } from './errors.js';
import { createTransport, defaultRetryDelayMs, IDEMPOTENCY_HEADER } from './transport.js';

export interface CheckoutClientOptions {
  /** Where the API is served, e.g. `https://api.checkout.example` (no trailing path). */
  baseUrl: string;
  /** A secret API key (`ck_live_…` / `ck_test_…`) from the dashboard's API keys page, or a dashboard session token. */
  apiKey: string;
  /** Retries after the first attempt for answers that are safe to repeat (default 2). */
  maxRetries?: number;
  /** Per-attempt time-out in milliseconds (default 30 000). */
  timeoutMs?: number;
  /** A fetch of your own (default: globalThis.fetch). */
  fetch?: typeof globalThis.fetch;
  /** The wait before retry `n` without a Retry-After (default 0.5 s doubling to 8 s, with jitter). */
  retryDelayMs?: (retry: number) => number;
}

/** Options of one write: your own idempotency key makes a retry of yours (not only the SDK's) safe too. */
export interface WriteOptions {
  idempotencyKey?: string;
  signal?: AbortSignal;
}

type Schemas = components['schemas'];
export type DiscountCode = Schemas['DiscountCode'];
export type OrderSummary = Schemas['OrderSummary'];
export type OrderDetail = Schemas['OrderDetail'];
export type OrdersPage = Schemas['OrdersPage'];
type JsonBody<P extends keyof paths, M extends 'post' | 'patch'> = paths[P][M] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
export type DiscountCodeCreate = JsonBody<'/api/merchant/discounts', 'post'>;
export type DiscountCodeUpdate = JsonBody<'/api/merchant/discounts/{id}', 'patch'>;
/** A list filter whose `limit` may be a number (the wire format is its digits). */
type WithLimit<Q> = Omit<Q, 'limit'> & { limit?: number | string };
/** The orders filter; `limit` may be a number. */
export type OrdersQuery = WithLimit<NonNullable<paths['/api/checkout/merchant/orders']['get']['parameters']['query']>>;
export type RefundRequest = NonNullable<JsonBody<'/api/checkout/merchant/orders/{token}/refund', 'post'>>;
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
/** An endpoint as created or rotated: the only answers that carry its signing secret (`whsec_…`). */
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type WebhookEndpointCreate = JsonBody<'/api/merchant/webhooks/endpoints', 'post'>;
export type WebhookEndpointUpdate = JsonBody<'/api/merchant/webhooks/endpoints/{id}', 'patch'>;
export type WebhookDelivery = Schemas['WebhookDelivery'];
/** The delivery filter; `limit` may be a number. */
export type WebhookDeliveriesQuery = WithLimit<NonNullable<paths['/api/merchant/webhooks/deliveries']['get']['parameters']['query']>>;
/** The event filter; `limit` may be a number. */
export type MerchantEventsQuery = WithLimit<NonNullable<paths['/api/merchant/webhooks/events']['get']['parameters']['query']>>;

export const SDK_VERSION = '0.1.0';

/** openapi-fetch's answer: the data, or the API's refusal as a thrown CheckoutApiError. */
async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let answer;
  try {
    answer = await call;
  } catch (err) {
    if (err instanceof Error && err.name === 'AbortError') throw err;
    throw new CheckoutConnectionError(`The checkout API could not be reached: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  if (answer.response.ok) return answer.data as T;
  throw apiErrorOf(answer.response, answer.error);
}

const writeHeaders = (opts: WriteOptions = {}) => (opts.idempotencyKey ? { [IDEMPOTENCY_HEADER]: opts.idempotencyKey } : {});

/** A query as sent: `limit` as its digits. */
const wireQuery = <Q extends { limit?: number | string }>({ limit, ...rest }: Q) => ({ ...rest, ...(limit === undefined ? {} : { limit: String(limit) }) });

/** One list of the API as `list` (a page), `iterate` (every item, page after page) and `all` (collected, at most `max`). */
function pagedList<Q extends { cursor?: string }, T>(list: (query: Q) => Promise<{ items: T[]; nextCursor?: string | null }>) {
  async function* iterate(query: Q = {} as Q): AsyncGenerator<T, void, undefined> {
    let cursor = query.cursor;
    do {
      const page = await list({ ...query, ...(cursor ? { cursor } : {}) });
      yield* page.items;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }
  async function all(query: Q = {} as Q, max = 10_000): Promise<T[]> {
    const found: T[] = [];
    for await (const item of iterate(query)) {
      found.push(item);
      if (found.length >= max) break;
    }
    return found;
  }
  return { list: (query: Q = {} as Q) => list(query), iterate, all };
}

export function createCheckoutClient(options: CheckoutClientOptions) {
  if (!options.apiKey) throw new TypeError('createCheckoutClient: apiKey is required');
  const baseUrl = new URL(options.baseUrl).origin;
  const api: Client<paths> = createClient<paths>({
    baseUrl,
    fetch: createTransport({
      apiKey: options.apiKey,
      maxRetries: options.maxRetries ?? 2,
      timeoutMs: options.timeoutMs ?? 30_000,
      fetch: options.fetch ?? globalThis.fetch,
      userAgent: `checkout-service-sdk/${SDK_VERSION} node/${typeof process === 'undefined' ? 'unknown' : process.version}`,
      retryDelayMs: options.retryDelayMs ?? defaultRetryDelayMs,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    }),
  });

  const discounts = {
    list: () => unwrap(api.GET('/api/merchant/discounts')),
    get: (id: string) => unwrap(api.GET('/api/merchant/discounts/{id}', { params: { path: { id } } })),
    create: (body: DiscountCodeCreate, opts?: WriteOptions) =>
      unwrap(api.POST('/api/merchant/discounts', { body, headers: writeHeaders(opts), signal: opts?.signal })),
    update: (id: string, body: DiscountCodeUpdate, opts?: WriteOptions) =>
      unwrap(api.PATCH('/api/merchant/discounts/{id}', { params: { path: { id } }, body, signal: opts?.signal })),
    delete: (id: string, opts?: WriteOptions) => unwrap(api.DELETE('/api/merchant/discounts/{id}', { params: { path: { id } }, signal: opts?.signal })),
  };

  const orderPages = pagedList((query: OrdersQuery) => unwrap(api.GET('/api/checkout/merchant/orders', { params: { query: wireQuery(query) } })));
  const orders = {
    /** One page, newest first; pass `nextCursor` back as `cursor` for the next. */
    list: orderPages.list,
    /** Every order matching `query`, page after page, as one stream. */
    iterate: orderPages.iterate,
    /** Every order matching `query`, collected (at most `max`, default 10 000). */
    all: orderPages.all,
    get: (token: string) => unwrap(api.GET('/api/checkout/merchant/orders/{token}', { params: { path: { token } } })),
    /** A full refund through the processor: accepted now (202), REFUNDED once the processor confirms. */
    refund: (token: string, body?: RefundRequest, opts?: WriteOptions) =>
      unwrap(api.POST('/api/checkout/merchant/orders/{token}/refund', { params: { path: { token } }, body, headers: writeHeaders(opts), signal: opts?.signal })),
  };

  // Outgoing webhooks (docs/webhooks.md): the key needs webhooks:read / webhooks:write.
  const byId = (id: string) => ({ params: { path: { id } } });
  const webhooks = {
    endpoints: {
      list: () => unwrap(api.GET('/api/merchant/webhooks/endpoints')),
      get: (id: string) => unwrap(api.GET('/api/merchant/webhooks/endpoints/{id}', byId(id))),
      /** A new endpoint; the answer carries its signing secret, which is never shown again: keep it. */
      create: (body: WebhookEndpointCreate, opts?: WriteOptions) =>
        unwrap(api.POST('/api/merchant/webhooks/endpoints', { body, headers: writeHeaders(opts), signal: opts?.signal })),
      update: (id: string, body: WebhookEndpointUpdate, opts?: WriteOptions) =>
        unwrap(api.PATCH('/api/merchant/webhooks/endpoints/{id}', { ...byId(id), body, signal: opts?.signal })),
      delete: (id: string, opts?: WriteOptions) => unwrap(api.DELETE('/api/merchant/webhooks/endpoints/{id}', { ...byId(id), signal: opts?.signal })),
      /** A new secret now; deliveries are signed with the old one too for 24 hours (pass both to verifyWebhook meanwhile). */
      rotateSecret: (id: string, opts?: WriteOptions) =>
        unwrap(api.POST('/api/merchant/webhooks/endpoints/{id}/rotate-secret', { ...byId(id), headers: writeHeaders(opts), signal: opts?.signal })),
      /** Sends a `webhook.test` event to this endpoint only. */
      sendTest: (id: string, opts?: WriteOptions) =>
        unwrap(api.POST('/api/merchant/webhooks/endpoints/{id}/test', { ...byId(id), headers: writeHeaders(opts), signal: opts?.signal })),
      /** Delivers again every dead delivery of this endpoint since `since` (ISO 8601). */
      replaySince: (id: string, since: string | Date, opts?: WriteOptions) =>
        unwrap(api.POST('/api/merchant/webhooks/endpoints/{id}/replay', {
          ...byId(id), body: { since: since instanceof Date ? since.toISOString() : since }, headers: writeHeaders(opts), signal: opts?.signal,
        })),
    },
    deliveries: {
      ...pagedList((query: WebhookDeliveriesQuery) => unwrap(api.GET('/api/merchant/webhooks/deliveries', { params: { query: wireQuery(query) } }))),
      /** One delivery with its attempt log (status, duration, the start of each answer). */
      get: (id: string) => unwrap(api.GET('/api/merchant/webhooks/deliveries/{id}', byId(id))),
      /** Delivers it again with the same webhook-id (receivers dedupe on it). */
      replay: (id: string, opts?: WriteOptions) =>
        unwrap(api.POST('/api/merchant/webhooks/deliveries/{id}/replay', { ...byId(id), headers: writeHeaders(opts), signal: opts?.signal })),
    },
    events: {
      ...pagedList((query: MerchantEventsQuery) => unwrap(api.GET('/api/merchant/webhooks/events', { params: { query: wireQuery(query) } }))),
      get: (id: string) => unwrap(api.GET('/api/merchant/webhooks/events/{id}', byId(id))),
    },
  };

  return { api, discounts, orders, webhooks };
}

export type CheckoutClient = ReturnType<typeof createCheckoutClient>;
