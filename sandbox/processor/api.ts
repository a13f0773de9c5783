// The processor's public REST API, /v1: bearer API key on every call, JSON in and out, Idempotency-Key on
// every POST, request bodies validated strictly (unknown parameters are refused, like the real platform).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { PLAN_INTERVALS } from '../../integrations/processor/schemas.js';
import { PROCESSOR_EVENTS } from '../../integrations/processor/webhook.js';
import { installIdempotency } from './idempotency.js';
import { ApiError, type Account, type ProcessorState } from './state.js';
import { amountSchema, apiErrorHandler, currencySchema, domainSchema, httpUrlSchema, metadataSchema, parse, sendApiError } from './validation.js';

const idParams = z.object({ id: z.string().min(1).max(100) });

const productBody = z.strictObject({ name: z.string().trim().min(1).max(250), description: z.string().max(5000).optional() });
const webhookBody = z.strictObject({ url: httpUrlSchema, events: z.array(z.enum(PROCESSOR_EVENTS)).min(1).optional() });
const paymentBody = z.strictObject({
  amount: amountSchema,
  currency: currencySchema,
  product_id: z.string().min(1).optional(),
  metadata: metadataSchema.optional(),
  return_url: httpUrlSchema.optional(),
  description: z.string().max(1000).optional(),
});
const paymentListQuery = z.strictObject({
  checkout_session_token: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(100),
});
const refundBody = z.strictObject({ amount: z.number().int().optional(), reason: z.string().max(500).optional() });
const walletDomainBody = z.strictObject({ domain: domainSchema });
const planBody = z.strictObject({ name: z.string().trim().min(1).max(250), amount: amountSchema, currency: currencySchema, interval: z.enum(PLAN_INTERVALS) });
const membershipBody = z.strictObject({ plan_id: z.string().min(1), metadata: metadataSchema.optional(), return_url: httpUrlSchema.optional() });

export interface ApiRoutesOptions {
  state: ProcessorState;
  /** The hosted page URL of a payment, as seen from this request. */
  pageUrl: (request: FastifyRequest) => (paymentId: string) => string;
  /** Called with the scope's idempotency store so reset can clear it. */
  onIdempotencyStore: (store: { clear(): void }) => void;
}

const list = <T>(data: T[]) => ({ object: 'list' as const, data });

export async function apiRoutes(v1: FastifyInstance, { state, pageUrl, onIdempotencyStore }: ApiRoutesOptions): Promise<void> {
  const accounts = new WeakMap<FastifyRequest, Account>();
  const account = (request: FastifyRequest): Account => {
    const found = accounts.get(request);
    if (!found) throw new ApiError(401, 'authentication_error', 'No API key provided');
    return found;
  };
  const biz = (request: FastifyRequest) => account(request).business.id;

  v1.setErrorHandler(apiErrorHandler);
  v1.setNotFoundHandler((request, reply) => sendApiError(reply, new ApiError(404, 'not_found', `Unrecognized request URL (${request.method} ${request.url})`)));

  v1.addHook('onRequest', async (request, reply) => {
    const header = request.headers.authorization;
    const key = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
    const found = key === undefined ? undefined : state.accountByKey(key);
    if (!found) {
      reply.header('www-authenticate', 'Bearer realm="processor"');
      throw new ApiError(401, 'authentication_error', header ? 'Invalid API key provided' : 'No API key provided: send Authorization: Bearer <api key>');
    }
    accounts.set(request, found);
  });
  onIdempotencyStore(installIdempotency(v1, biz));

  v1.get('/me', async (request) => account(request).business);
  v1.get('/businesses/:id', async (request) => {
    const { id } = parse(idParams, request.params);
    const business = account(request).business;
    if (id !== business.id) throw new ApiError(404, 'not_found', `No such business: '${id}'`);
    return business;
  });

  v1.post('/products', async (request, reply) => reply.code(201).send(state.createProduct(biz(request), parse(productBody, request.body))));
  v1.get('/products/:id', async (request) => state.getProduct(biz(request), parse(idParams, request.params).id));

  v1.post('/webhooks', async (request, reply) => reply.code(201).send(state.registerWebhook(biz(request), parse(webhookBody, request.body))));
  v1.get('/webhooks', async (request) => list(state.listWebhooks(biz(request)).map(({ secret: _s, business_id: _b, ...endpoint }) => endpoint)));
  v1.delete('/webhooks/:id', async (request) => {
    const { id } = parse(idParams, request.params);
    state.deleteWebhook(biz(request), id);
    return { id, deleted: true };
  });

  v1.post('/payments', async (request, reply) =>
    reply.code(201).send(state.createPayment(biz(request), parse(paymentBody, request.body), pageUrl(request))),
  );
  v1.get('/payments', async (request) => {
    const query = parse(paymentListQuery, request.query);
    return list(state.listPayments(biz(request), query.checkout_session_token).slice(0, query.limit));
  });
  v1.get('/payments/:id', async (request) => state.getPayment(biz(request), parse(idParams, request.params).id));
  v1.post('/payments/:id/refund', async (request, reply) => {
    const { amount } = parse(refundBody, request.body);
    const { refund, created } = state.refund(biz(request), parse(idParams, request.params).id, amount);
    return reply.code(created ? 201 : 200).send(refund);
  });

  v1.post('/wallet_domains', async (request, reply) => {
    const { walletDomain, created } = state.registerWalletDomain(biz(request), parse(walletDomainBody, request.body).domain);
    return reply.code(created ? 201 : 200).send(walletDomain);
  });
  v1.get('/wallet_domains', async (request) => list(state.listWalletDomains(biz(request))));

  v1.post('/plans', async (request, reply) => reply.code(201).send(state.createPlan(biz(request), parse(planBody, request.body))));
  v1.get('/plans/:id', async (request) => state.getPlan(biz(request), parse(idParams, request.params).id));

  v1.post('/memberships', async (request, reply) =>
    reply.code(201).send(state.createMembership(biz(request), parse(membershipBody, request.body), pageUrl(request))),
  );
  v1.get('/memberships/:id', async (request) => state.getMembership(biz(request), parse(idParams, request.params).id));
  v1.post('/memberships/:id/renew', async (request, reply) =>
    reply.code(201).send(state.chargeRenewal(biz(request), parse(idParams, request.params).id, pageUrl(request))),
  );
  v1.post('/memberships/:id/cancel', async (request) => state.cancelMembership(biz(request), parse(idParams, request.params).id));
}
