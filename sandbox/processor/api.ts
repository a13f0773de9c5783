// Whop's REST API v1 as documented (docs/processor.md): mounted at /api/v1 like https://api.whop.com/api/v1,
// `Authorization: Bearer <API key>` on every call, JSON in and out, errors `{ error: { type, message } }`,
// lists `{ data, page_info }` with cursor pagination, and Idempotency-Key on POSTs (answers stored for replay,
// `Idempotent-Replayed: true`, the same key with another request is a 400). `Api-Version-Date` is accepted;
// an unknown date is a 400 as on Whop. Unknown body fields are ignored; known ones are type-checked.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { domainApiRoutes, type DomainStore } from './domains.js';
import { CURRENCIES } from './money.js';
import { WhopError, type Account, type WhopStore } from './store.js';

/**
 * The dated versions this sandbox speaks: @whop/sdk 0.0.42 sends 2026-07-20; Whop's Python SDK whop-sdk 2.6.0 (the
 * Domains API's contract test) sends its default, 2026-10-15-1 (whop_sdk/client.py, `api_version_date`).
 */
export const API_VERSION_DATES = ['2026-07-20', '2026-10-15-1'];

const currency = z.string().transform((c) => c.toLowerCase()).refine((c) => CURRENCIES.has(c), { message: 'is not one of the available currencies' });
const price = z.number().min(0).max(999_999.99);
const metadata = z.record(z.string().max(40), z.unknown()).refine((m) => Object.keys(m).length <= 50, { message: 'at most 50 keys' });
const url = z.url({ protocol: /^https?$/ }).max(2048);
const idParams = z.object({ id: z.string().min(1).max(100) });
const planType = z.enum(['one_time', 'renewal']);
const visibility = z.enum(['visible', 'hidden', 'archived', 'quick_link']);

const inlinePlan = z.looseObject({
  product_id: z.string().nullish(),
  plan_type: planType.nullish(),
  initial_price: price.nullish(),
  renewal_price: price.nullish(),
  billing_period: z.number().int().min(1).max(3650).nullish(),
  currency: currency.nullish(),
  visibility: visibility.nullish(),
  title: z.string().max(120).nullish(),
  metadata: metadata.nullish(),
});
const productBody = z.looseObject({ title: z.string().trim().min(1).max(80), account_id: z.string().optional(), visibility: visibility.optional(), description: z.string().nullish(), metadata: metadata.nullish() });
const planBody = inlinePlan.extend({ account_id: z.string().optional() });
// Whop's payment method overrides of one checkout (PaymentMethodTypes names, e.g. apple_pay, google_pay); the three
// fields are listed as required in the checkout configuration reference.
const paymentMethodType = z.string().regex(/^[a-z][a-z0-9_]*$/, 'is not a payment method type');
const paymentMethodConfiguration = z.object({ disabled: z.array(paymentMethodType), enabled: z.array(paymentMethodType), include_platform_defaults: z.boolean() });
const checkoutBody = z.looseObject({
  payment_method_configuration: paymentMethodConfiguration.nullish(),
  plan: inlinePlan.extend({ account_id: z.string().optional() }).nullish(),
  plan_id: z.string().nullish(),
  metadata: metadata.nullish(),
  redirect_url: url.nullish(),
  mode: z.enum(['payment', 'setup']).optional(),
  account_id: z.string().optional(),
});
const chargeBody = z.looseObject({
  company_id: z.string(),
  member_id: z.string(),
  payment_method_id: z.string(),
  plan_id: z.string().nullish(),
  plan: inlinePlan.extend({ currency }).nullish(),
  metadata: metadata.nullish(),
});
const refundBody = z.looseObject({ partial_amount: price.nullish() });
const webhookEvents = z.array(z.string().regex(/^[a-z_]+(\.[a-z_]+)*$/, 'not an event name')).max(100);
const webhookBody = z.looseObject({
  url,
  events: webhookEvents.nullish(),
  api_version: z.enum(['v1', 'v2', 'v5']).nullish(),
  resource_id: z.string().nullish(),
  enabled: z.boolean().nullish(),
  child_resource_events: z.boolean().nullish(),
});
const cancelBody = z.looseObject({ cancellation_mode: z.enum(['at_period_end', 'immediate']).nullish() });
const page = { first: z.coerce.number().int().min(1).max(100).optional(), after: z.string().optional() };
/** created_after / created_before of Whop's lists: an ISO 8601 timestamp. */
const timestamp = z.string().refine((v) => !Number.isNaN(Date.parse(v)), { message: 'is not a timestamp' }).transform((v) => Date.parse(v)).optional();
const createdRange = z.looseObject({ created_after: timestamp, created_before: timestamp });
const inRange = (createdAt: string, range: { created_after?: number; created_before?: number }) =>
  (range.created_after === undefined || Date.parse(createdAt) > range.created_after) && (range.created_before === undefined || Date.parse(createdAt) < range.created_before);

/**
 * Whop's creation filters and order on company lists (@whop/sdk 0.0.42 RefundListParams, DisputeListParams):
 * `created_after` / `created_before` (strictly after / before), `direction` asc or desc; newest first when none is given.
 */
const creation = {
  created_after: z.iso.datetime({ offset: true }).optional(),
  created_before: z.iso.datetime({ offset: true }).optional(),
  direction: z.enum(['asc', 'desc']).optional(),
};

function byCreation<T extends { created_at: string }>(items: T[], query: { created_after?: string; created_before?: string; direction?: 'asc' | 'desc' }): T[] {
  const after = query.created_after ? Date.parse(query.created_after) : -Infinity;
  const before = query.created_before ? Date.parse(query.created_before) : Infinity;
  const sign = query.direction === 'asc' ? 1 : -1;
  return items
    .filter((i) => Date.parse(i.created_at) > after && Date.parse(i.created_at) < before)
    .sort((a, b) => sign * (Date.parse(a.created_at) - Date.parse(b.created_at)) || sign * a.created_at.localeCompare(b.created_at));
}

function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  throw new WhopError(400, 'invalid_request', result.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
}

/** A bracketed array query parameter (`ids[]=a&ids[]=b`, how the SDK encodes arrays), or the plain key. */
function arrayParam(query: Record<string, unknown>, key: string): string[] | undefined {
  const value = query[`${key}[]`] ?? query[key];
  if (value === undefined) return undefined;
  return (Array.isArray(value) ? value : [value]).map(String);
}

/** `{ data, page_info }`; the cursor is the offset of the next item, and null on the last page (the SDK stops on null). */
function listPage<T>(items: T[], query: { first?: number; after?: string }) {
  const start = query.after ? Number(Buffer.from(query.after, 'base64url').toString('utf8')) || 0 : 0;
  const size = query.first ?? 25;
  const data = items.slice(start, start + size);
  const more = start + size < items.length;
  const cursor = (n: number) => Buffer.from(String(n), 'utf8').toString('base64url');
  return {
    data,
    page_info: { end_cursor: more ? cursor(start + size) : null, start_cursor: data.length ? cursor(start) : null, has_next_page: more, has_previous_page: start > 0 },
  };
}

export function sendWhopError(reply: FastifyReply, error: WhopError): FastifyReply {
  return reply.code(error.status).send({ error: { type: error.type, message: error.message } });
}

export function whopErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof WhopError) return sendWhopError(reply, error);
  const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
  if (status < 500) return sendWhopError(reply, new WhopError(status, 'invalid_request', error.message));
  request.log.error({ err: error }, 'whop sandbox: unexpected error');
  return sendWhopError(reply, new WhopError(500, 'internal_error', 'An unexpected error occurred'));
}

/** JSON with sorted keys: the same body in another key order is the same request. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v));
}

/**
 * Whop's idempotency: per credential and key, 24 hours; the request is method, path, query, body and Api-Version-Date.
 * `ignored(request)`: this request is served as if it carried no key (nothing replayed, nothing stored).
 */
function installIdempotency(scope: FastifyInstance, credential: (request: FastifyRequest) => string, ignored: (request: FastifyRequest) => boolean): { clear(): void } {
  const records = new Map<string, { fingerprint: string; response?: { status: number; body: string } }>();
  const running = new WeakMap<FastifyRequest, string>();
  scope.addHook('preHandler', async (request, reply) => {
    const key = request.headers['idempotency-key'];
    if (request.method !== 'POST' || key === undefined || ignored(request)) return;
    if (typeof key !== 'string' || key.length === 0 || Buffer.byteLength(key) > 255) throw new WhopError(400, 'invalid_request', 'Idempotency-Key must be 1 to 255 bytes');
    const storeKey = `${credential(request)} ${key}`;
    const fingerprint = `${request.method} ${request.url} ${String(request.headers['api-version-date'] ?? '')} ${canonical(request.body ?? {})}`;
    const record = records.get(storeKey);
    if (!record) {
      records.set(storeKey, { fingerprint });
      running.set(request, storeKey);
      return;
    }
    if (record.fingerprint !== fingerprint) throw new WhopError(400, 'invalid_request', 'This Idempotency-Key was already used with a different request');
    if (!record.response) throw new WhopError(409, 'conflict', 'A request with this Idempotency-Key is still in progress');
    return reply.code(record.response.status).header('idempotent-replayed', 'true').type('application/json; charset=utf-8').send(record.response.body);
  });
  scope.addHook('onSend', async (request, reply, payload) => {
    const storeKey = running.get(request);
    if (storeKey === undefined) return payload;
    running.delete(request);
    const record = records.get(storeKey);
    if (reply.statusCode >= 500 || typeof payload !== 'string' || !record) records.delete(storeKey);
    else record.response = { status: reply.statusCode, body: payload };
    return payload;
  });
  return { clear: () => records.clear() };
}

export interface ApiRoutesOptions {
  store: WhopStore;
  /** This sandbox's address as browsers reach it (purchase_url). */
  publicBase: (request: FastifyRequest) => string;
  /** Off-session charges settle this long after the answer (Whop processes them in the background). */
  chargeSettleMs: number;
  onIdempotencyStore: (store: { clear(): void }) => void;
  /** The Domains API's claims (domains.ts). */
  domains: DomainStore;
}

export async function apiRoutes(v1: FastifyInstance, { store, publicBase, chargeSettleMs, onIdempotencyStore, domains }: ApiRoutesOptions): Promise<void> {
  const accounts = new WeakMap<FastifyRequest, Account>();
  const account = (request: FastifyRequest) => accounts.get(request)!;
  const companyOf = (request: FastifyRequest) => account(request).company.id;
  /** A company id in a request must be the caller's own: another company's is a permission error. */
  const sameCompany = (request: FastifyRequest, id: string | null | undefined, field: string) => {
    if (id && id !== companyOf(request)) throw new WhopError(403, 'forbidden', `This API key cannot act on ${field} ${id}`);
    return companyOf(request);
  };
  const requiredCompany = (request: FastifyRequest, id: unknown, field: string) => {
    if (typeof id !== 'string' || !id) throw new WhopError(400, 'invalid_request', `Missing required parameter: ${field}`);
    return sameCompany(request, id, field);
  };

  v1.setErrorHandler(whopErrorHandler);
  v1.setNotFoundHandler((request, reply) => sendWhopError(reply, new WhopError(404, 'not_found', `No route ${request.method} ${request.url.split('?')[0]}`)));
  v1.addHook('onRequest', async (request, reply) => {
    const key = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    const found = key === undefined ? undefined : store.accountByKey(key);
    if (!found) {
      reply.header('www-authenticate', 'Bearer');
      throw new WhopError(401, 'unauthorized', 'The API key is missing or not valid');
    }
    const date = request.headers['api-version-date'];
    if (typeof date === 'string' && !API_VERSION_DATES.includes(date)) {
      throw new WhopError(400, 'invalid_request', `Unsupported Api-Version-Date ${date}; supported: ${API_VERSION_DATES.join(', ')}`);
    }
    accounts.set(request, found);
  });
  /** POST /payments served while the control plane says Whop ignores Idempotency-Key there (one shot each). */
  const keyIgnored = new WeakSet<FastifyRequest>();
  v1.addHook('preHandler', async (request) => {
    if (request.method === 'POST' && request.routeOptions.url === `${v1.prefix}/payments` && store.chargeFaults.ignoreIdempotencyKey > 0) {
      store.chargeFaults.ignoreIdempotencyKey -= 1;
      keyIgnored.add(request);
    }
  });
  onIdempotencyStore(installIdempotency(v1, (request) => account(request).apiKey, (request) => keyIgnored.has(request)));
  /**
   * A charge whose answer is lost: registered after the idempotency hooks, so the answer is stored for a replay as Whop
   * would have it, and only then withheld — until the caller gives up (a time-out), or the connection is dropped.
   */
  const answerLost = new WeakMap<FastifyRequest, 'timeout' | 'drop'>();
  v1.addHook('onSend', async (request, reply, payload) => {
    const mode = answerLost.get(request);
    if (!mode) return payload;
    answerLost.delete(request);
    if (mode === 'timeout') await new Promise<void>((resolve) => reply.raw.once('close', () => resolve()));
    request.raw.socket?.destroy();
    return payload;
  });

  // Accounts: the key check.
  domainApiRoutes(v1, domains, (request) => ({ companyId: companyOf(request), apiKey: account(request).apiKey }));

  v1.get('/accounts/me', async (request) => {
    const { company } = account(request);
    return {
      ...company, status: 'active', capabilities: null, country: 'US', metadata: {}, parent_account_id: null, balances: [], wallet: null, social_links: [],
      business_type: null, description: null, logo_url: null, banner_image_url: null,
    };
  });

  // Products.
  v1.post('/products', async (request) => {
    const body = parse(productBody, request.body);
    return store.createProduct(sameCompany(request, body.account_id, 'account_id'), body);
  });
  v1.get('/products/:id', async (request) => store.own(store.products, parse(idParams, request.params).id, companyOf(request), 'Product'));

  // Plans.
  v1.post('/plans', async (request) => {
    const body = parse(planBody, request.body);
    return store.planView(store.createPlan(sameCompany(request, body.account_id, 'account_id'), body));
  });
  v1.get('/plans/:id', async (request) => store.planView(store.own(store.plans, parse(idParams, request.params).id, companyOf(request), 'Plan')));

  // Checkout configurations: where a buyer pays (purchase_url).
  v1.post('/checkout_configurations', async (request) => {
    const body = parse(checkoutBody, request.body);
    const company = sameCompany(request, body.plan?.account_id ?? body.account_id, 'account_id');
    return store.checkoutView(store.createCheckout(company, body), publicBase(request));
  });
  v1.get('/checkout_configurations/:id', async (request) =>
    store.checkoutView(store.own(store.checkouts, parse(idParams, request.params).id, companyOf(request), 'Checkout configuration'), publicBase(request)));

  // Payments.
  v1.get('/payments', async (request) => {
    const query = request.query as Record<string, unknown>;
    const company = requiredCompany(request, query.company_id, 'company_id');
    const checkouts = arrayParam(query, 'checkout_configuration_ids');
    const statuses = arrayParam(query, 'statuses');
    const products = arrayParam(query, 'product_ids');
    const plans = arrayParam(query, 'plan_ids');
    const range = parse(createdRange, query);
    const items = [...store.payments.values()]
      .filter((p) => p.company_id === company && (!checkouts || (p.checkout_configuration_id !== null && checkouts.includes(p.checkout_configuration_id))) && (!statuses || statuses.includes(p.status))
        && (!products || (p.product_id !== null && products.includes(p.product_id))) && (!plans || plans.includes(p.plan_id)) && inRange(p.created_at, range))
      .reverse()
      .map((p) => store.paymentView(p));
    return listPage(items, parse(z.looseObject(page), query));
  });
  // Disputes of a company (@whop/sdk src/resources/disputes.ts DisputeListParams: company_id required, created_after,
  // created_before, direction), paged like every list.
  v1.get('/disputes', async (request) => {
    const query = request.query as Record<string, unknown>;
    const company = requiredCompany(request, query.company_id, 'company_id');
    const filters = parse(z.looseObject({ ...page, ...creation }), query);
    const items = byCreation([...store.disputes.values()].filter((d) => d.company_id === company), filters).map((d) => store.disputeView(d));
    return listPage(items, filters);
  });
  v1.get('/disputes/:id', async (request) => store.disputeView(store.own(store.disputes, parse(idParams, request.params).id, companyOf(request), 'Dispute')));
  v1.get('/payments/:id', async (request) => store.paymentView(store.own(store.payments, parse(idParams, request.params).id, companyOf(request), 'Payment')));
  v1.post('/payments/:id/refund', async (request) => {
    const { partial_amount } = parse(refundBody, request.body);
    return store.paymentView(store.refund(companyOf(request), parse(idParams, request.params).id, partial_amount));
  });
  // Refunds (@whop/sdk src/resources/refunds.ts): every refund of the caller's company, newest first, filtered by
  // payment; one by id. A refund made through POST /payments/{id}/refund and one made in Whop's dashboard (the
  // control plane's refund) are listed alike.
  // company_id (the caller's own, else 403), created_after, created_before and direction filter as Whop's do.
  v1.get('/refunds', async (request) => {
    const query = request.query as Record<string, unknown>;
    const company = query.company_id === undefined ? companyOf(request) : requiredCompany(request, query.company_id, 'company_id');
    const paymentId = typeof query.payment_id === 'string' ? query.payment_id : undefined;
    const filters = parse(z.looseObject({ ...page, ...creation }), query);
    const refunds = [...store.payments.values()]
      .filter((p) => p.company_id === company && (!paymentId || p.id === paymentId))
      .flatMap((p) => p.refunds);
    return listPage(byCreation(refunds, filters).map((r) => store.refundView(r)), filters);
  });
  v1.get('/refunds/:id', async (request) => {
    const { id } = parse(idParams, request.params);
    const refund = [...store.payments.values()].filter((p) => p.company_id === companyOf(request)).flatMap((p) => p.refunds).find((r) => r.id === id);
    if (!refund) throw new WhopError(404, 'not_found', `Refund ${id} not found`);
    return store.refundView(refund);
  });
  v1.post('/payments', async (request) => {
    const body = parse(chargeBody, request.body);
    const { payment, settle } = store.chargeSaved(requiredCompany(request, body.company_id, 'company_id'), body);
    const view = store.paymentView(payment);
    setTimeout(settle, chargeSettleMs).unref();
    if (store.chargeFaults.loseAnswer > 0) {
      store.chargeFaults.loseAnswer -= 1;
      answerLost.set(request, store.chargeFaults.loseAnswerMode);
    }
    return view;
  });

  // Payment methods (@whop/sdk src/resources/payment-methods.ts): those saved for off-session charges, of one member or
  // of the whole company ("Provide either this or member_id, not both"), newest first.
  v1.get('/payment_methods', async (request) => {
    const query = request.query as Record<string, unknown>;
    const memberId = typeof query.member_id === 'string' && query.member_id ? query.member_id : undefined;
    if (memberId && query.company_id) throw new WhopError(400, 'invalid_request', 'Provide either company_id or member_id, not both');
    if (!memberId && !query.company_id) throw new WhopError(400, 'invalid_request', 'Missing required parameter: member_id or company_id');
    const company = memberId ? store.own(store.members, memberId, companyOf(request), 'Member').company_id : requiredCompany(request, query.company_id, 'company_id');
    const range = parse(createdRange, query);
    const items = store.savedMethods(company, { memberId }).filter((m) => inRange(m.created_at, range)).map((m) => store.paymentMethodView(m));
    return listPage(items, parse(z.looseObject(page), query));
  });
  v1.get('/payment_methods/:id', async (request) => {
    const query = request.query as Record<string, unknown>;
    const { id } = parse(idParams, request.params);
    const method = store.paymentMethods.get(id);
    const member = method ? store.members.get(method.member_id) : undefined;
    if (!method?.off_session || member?.company_id !== companyOf(request) || (typeof query.member_id === 'string' && query.member_id !== member.id)) throw new WhopError(404, 'not_found', `Payment method not found: ${id}`);
    return store.paymentMethodView(method);
  });

  // Memberships.
  v1.get('/memberships', async (request) => {
    const query = request.query as Record<string, unknown>;
    const company = requiredCompany(request, query.company_id, 'company_id');
    const plans = arrayParam(query, 'plan_ids');
    const statuses = arrayParam(query, 'statuses');
    const items = [...store.memberships.values()]
      .filter((m) => m.company_id === company && (!plans || plans.includes(m.plan_id)) && (!statuses || statuses.includes(m.status)))
      .reverse()
      .map((m) => store.membershipView(m));
    return listPage(items, parse(z.looseObject(page), query));
  });
  v1.get('/memberships/:id', async (request) => store.membershipView(store.own(store.memberships, parse(idParams, request.params).id, companyOf(request), 'Membership')));
  v1.post('/memberships/:id/cancel', async (request) => {
    const { cancellation_mode } = parse(cancelBody, request.body);
    return store.membershipView(store.cancelMembership(companyOf(request), parse(idParams, request.params).id, cancellation_mode ?? 'at_period_end'));
  });

  // Webhooks: the secret only in the answer to create.
  const webhookView = ({ webhook_secret: _s, company_id, created_via: _via, ...webhook }: ReturnType<WhopStore['createWebhook']>) => ({ ...webhook, resource_id: company_id, testable_events: webhook.events });
  v1.post('/webhooks', async (request) => {
    const body = parse(webhookBody, request.body);
    const webhook = store.createWebhook(sameCompany(request, body.resource_id, 'resource_id'), body);
    return { ...webhookView(webhook), webhook_secret: webhook.webhook_secret };
  });
  v1.get('/webhooks', async (request) => {
    const query = request.query as Record<string, unknown>;
    const company = requiredCompany(request, query.company_id, 'company_id');
    return listPage([...store.webhooks.values()].filter((w) => w.company_id === company).reverse().map(webhookView), parse(z.looseObject(page), query));
  });
  v1.get('/webhooks/:id', async (request) => webhookView(store.own(store.webhooks, parse(idParams, request.params).id, companyOf(request), 'Webhook')));
  v1.delete('/webhooks/:id', async (request) => {
    const { id } = parse(idParams, request.params);
    store.own(store.webhooks, id, companyOf(request), 'Webhook');
    store.webhooks.delete(id);
    return true;
  });
}
