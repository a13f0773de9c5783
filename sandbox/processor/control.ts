// Control plane of the processor sandbox (tests, demos): accounts, forced states, renewals, and the five
// webhook controls (send on demand with duplicates and delay, hold/reorder, drop, redeliver, delivery log).
// Never subject to fault injection (the shared frame skips /_control/).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { PAYMENT_STATUSES, WALLET_DOMAIN_STATUSES } from '../../integrations/processor/schemas.js';
import { PROCESSOR_EVENTS } from '../../integrations/processor/webhook.js';
import type { ProcessorState } from './state.js';
import { apiErrorHandler, domainSchema, parse } from './validation.js';
import type { WebhookDispatcher } from './webhooks.js';

const idParams = z.object({ id: z.string().min(1) });
const accountBody = z.strictObject({
  apiKey: z.string().regex(/^[A-Za-z0-9_-]{8,128}$/, '8 to 128 letters, digits, _ or -').optional(),
  businessName: z.string().trim().min(1).max(250).optional(),
});
const statusBody = z.strictObject({ status: z.enum(PAYMENT_STATUSES) });
const renewBody = z.strictObject({ outcome: z.enum(['succeeded', 'failed']) });
const walletDomainBody = z.strictObject({ domain: domainSchema, status: z.enum(WALLET_DOMAIN_STATUSES) });
const times = z.number().int().min(1).max(50).default(1);
const sendBody = z
  .strictObject({
    event: z.enum(PROCESSOR_EVENTS),
    /** A payment (pay_...) or, for membership events, a membership (mem_...). */
    paymentId: z.string().min(1).optional(),
    membershipId: z.string().min(1).optional(),
    times,
    delayMs: z.number().int().min(0).max(600_000).default(0),
  })
  .refine((b) => (b.paymentId === undefined) !== (b.membershipId === undefined), { message: 'give exactly one of paymentId, membershipId' });
const releaseBody = z.strictObject({ ids: z.array(z.string().min(1)).optional() });
const dropBody = z.strictObject({ count: z.number().int().min(0).max(10_000) });
const redeliverBody = z.strictObject({ eventId: z.string().min(1), times });
const deliveriesQuery = z.strictObject({ eventId: z.string().min(1).optional() });

export interface ControlRoutesOptions {
  state: ProcessorState;
  webhooks: WebhookDispatcher;
  pageUrl: (request: FastifyRequest) => (paymentId: string) => string;
}

export async function controlRoutes(control: FastifyInstance, { state, webhooks, pageUrl }: ControlRoutesOptions): Promise<void> {
  control.setErrorHandler(apiErrorHandler);

  control.post('/accounts', async (request, reply) => {
    const { apiKey, business } = state.createAccount(parse(accountBody, request.body));
    return reply.code(201).send({ apiKey, businessId: business.id, businessName: business.name });
  });

  control.post('/payments/:id/status', async (request) => state.forcePaymentStatus(parse(idParams, request.params).id, parse(statusBody, request.body).status));

  control.post('/memberships/:id/renew', async (request) =>
    state.renewMembership(parse(idParams, request.params).id, parse(renewBody, request.body).outcome, pageUrl(request)),
  );

  control.post('/memberships/:id/renewal-outcome', async (request) => {
    const { outcome } = parse(renewBody, request.body);
    const membership = state.setRenewalOutcome(parse(idParams, request.params).id, outcome);
    return { membershipId: membership.id, renewalOutcome: outcome };
  });

  control.post('/wallet_domains', async (request) => {
    const { domain, status } = parse(walletDomainBody, request.body);
    return { domain, status, updated: state.forceWalletDomainStatus(domain, status) };
  });

  control.post('/webhooks/send', async (request, reply) => {
    const body = parse(sendBody, request.body);
    const { businessId, data } = state.eventSubject((body.paymentId ?? body.membershipId)!);
    const event = webhooks.publish(businessId, body.event, data, { times: body.times, delayMs: body.delayMs });
    return reply.code(202).send({ id: event.id, event: event.event, state: event.state, times: body.times, delayMs: body.delayMs });
  });

  control.post('/webhooks/hold', async () => {
    webhooks.hold();
    return { holding: true };
  });

  control.get('/webhooks/outbox', async () => webhooks.outboxEvents());

  control.post('/webhooks/release', async (request) => ({ released: await webhooks.release(parse(releaseBody, request.body).ids) }));

  control.post('/webhooks/drop', async (request) => {
    const { count } = parse(dropBody, request.body);
    webhooks.drop(count);
    return { dropping: count };
  });

  control.post('/webhooks/redeliver', async (request, reply) => {
    const { eventId, times: copies } = parse(redeliverBody, request.body);
    const event = webhooks.redeliver(eventId, copies);
    return reply.code(202).send({ id: event.id, event: event.event, times: copies });
  });

  control.get('/webhooks/deliveries', async (request) => ({ deliveries: webhooks.deliveries(parse(deliveriesQuery, request.query).eventId) }));

  control.get('/webhooks/events', async () => ({ events: webhooks.listEvents() }));
}
