// Control plane of the local Whop (tests, demos; never subject to fault injection): companies and API keys,
// checkouts paid (the card saved for off-session charges when the buyer's checkout asked for it, as Whop's embedded
// checkout does with setupFutureUsage: "off_session"; a setup-mode checkout saves it without charging), the faults
// of POST /payments that Whop's docs leave open (Idempotency-Key ignored, an answer lost after the charge is made),
// payments paid or moved without any webhook (a lost delivery, for reconciliation), refunds made in the dashboard
// (with or without their webhooks), renewals Whop bills on its own, disputes opened on a paid payment (with or
// without dispute.created) and moved to a status (dispute.updated), a sale of the
// company's own that no integration made, and the webhook controls (send on demand with copies and delay, hold and
// release in any order, drop, redeliver, delivery log, secret rotation, an endpoint made in the dashboard, the event
// names POST /webhooks refuses).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { whopErrorHandler } from './api.js';
import { domainControlRoutes, type DomainStore } from './domains.js';
import { newId, TEST_CARDS, WhopError, type WhopStore } from './store.js';
import type { WebhookDispatcher } from './webhooks.js';

const idParams = z.object({ id: z.string().min(1) });
const times = z.number().int().min(1).max(50).default(1);
const accountBody = z.strictObject({
  apiKey: z.string().regex(/^[A-Za-z0-9_-]{8,128}$/, '8 to 128 letters, digits, _ or -').optional(),
  businessName: z.string().trim().min(1).max(250).optional(),
});
const payBody = z.strictObject({
  card: z.string().regex(/^\d{16}$/).refine((c) => c in TEST_CARDS, { message: 'not a test card' }).default('4242424242424242'),
  email: z.email().default('buyer@example.com'),
  /** No webhook for what this payment does (the delivery is lost): reconciliation must find it. */
  silent: z.boolean().default(false),
  /**
   * Stands for Whop's embedded checkout with `setupFutureUsage: "off_session"` (Whop's guide "Save payment methods",
   * "Save during checkout"): the card is paid and saved for the member's later off-session charges. Without it the card
   * is paid as on the hosted page in payment mode, and saved for nothing.
   */
  setupFutureUsage: z.literal('off_session').optional(),
});
const chargeFaultsBody = z.strictObject({
  ignoreIdempotencyKey: z.number().int().min(0).max(100).optional(),
  loseAnswer: z.number().int().min(0).max(100).optional(),
  loseAnswerMode: z.enum(['timeout', 'drop']).optional(),
});
const forceBody = z.strictObject({ state: z.enum(['paid', 'failed', 'refunded']) });
const renewBody = z.strictObject({ outcome: z.enum(['succeeded', 'failed']).optional() });
const disputeBody = z.strictObject({
  reason: z.string().min(1).max(200).optional(),
  /** Decimal major units, as Whop writes amounts; default the payment's total. */
  amount: z.number().positive().optional(),
  /** An inquiry (warning_…) or a chargeback (default). */
  status: z.enum(['needs_response', 'warning_needs_response']).optional(),
  /** No webhook for it (the delivery is lost): only listing the company's disputes finds it. */
  silent: z.boolean().default(false),
});
const dashboardRefundBody = z.strictObject({
  /** Decimal major units, as Whop writes amounts; default what is left of the payment. */
  amount: z.number().positive().optional(),
  /** No webhook for it (refund.created and refund.updated are lost): only listing the company's refunds finds it. */
  silent: z.boolean().default(false),
});
const disputeStatusBody = z.strictObject({ status: z.enum(['warning_needs_response', 'warning_under_review', 'warning_closed', 'needs_response', 'under_review', 'won', 'lost', 'closed', 'other']) });
const sendBody = z.strictObject({ type: z.string().min(1).max(100), objectId: z.string().min(1), times, delayMs: z.number().int().min(0).max(600_000).default(0) });
const releaseBody = z.strictObject({ ids: z.array(z.string().min(1)).optional() });
const dropBody = z.strictObject({ count: z.number().int().min(0).max(10_000) });
const redeliverBody = z.strictObject({ eventId: z.string().min(1), times });
const deliveriesQuery = z.strictObject({ eventId: z.string().min(1).optional() });
const dashboardWebhookBody = z.strictObject({
  businessId: z.string().min(1),
  url: z.url(),
  events: z.array(z.string().regex(/^[a-z_]+(\.[a-z_]+)*$/)).max(100).optional(),
});
const refusedEventsBody = z.strictObject({ events: z.array(z.string().regex(/^[a-z_]+(\.[a-z_]+)*$/)).max(100) });
const foreignSaleBody = z.strictObject({
  businessId: z.string().min(1),
  /** Decimal major units, as Whop writes prices. */
  amount: z.number().positive().max(1_000_000).default(19.99),
  currency: z.string().regex(/^[a-z]{3}$/).default('usd'),
});

function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (!result.success) throw new WhopError(400, 'invalid_request', result.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
  return result.data;
}

export interface ControlRoutesOptions {
  store: WhopStore;
  webhooks: WebhookDispatcher;
  /** Runs `fn` with every event it causes dropped (a lost delivery). */
  silently<T>(fn: () => T): T;
  domains: DomainStore;
}

export async function controlRoutes(control: FastifyInstance, { store, webhooks, silently, domains }: ControlRoutesOptions): Promise<void> {
  control.setErrorHandler(whopErrorHandler);
  domainControlRoutes(control, domains);

  control.post('/accounts', async (request, reply) => {
    const { apiKey, businessName } = parse(accountBody, request.body);
    const account = store.createAccount({ apiKey, title: businessName });
    return reply.code(201).send({ apiKey: account.apiKey, businessId: account.company.id, businessName: account.company.title });
  });

  /**
   * A buyer pays a checkout configuration, as on its hosted page (a test card decides the outcome), or as through the
   * embedded checkout with `setupFutureUsage`. A setup-mode configuration saves the card without charging: the answer
   * is the SetupIntent (setup_intent.succeeded).
   */
  control.post('/checkout_configurations/:id/pay', async (request) => {
    const { card, email, silent, setupFutureUsage } = parse(payBody, request.body);
    const checkout = store.own(store.checkouts, parse(idParams, request.params).id, undefined, 'Checkout configuration');
    const buyer = { email, last4: card.slice(-4), outcome: TEST_CARDS[card]!.outcome };
    if (checkout.mode === 'setup') return store.setupIntentView(silent ? silently(() => store.setUp(checkout, buyer)) : store.setUp(checkout, buyer));
    if (!store.payable(checkout)) throw new WhopError(409, 'conflict', 'This checkout is already paid');
    const buy = () => store.purchase(checkout, { ...buyer, setupFutureUsage });
    return store.paymentView(silent ? silently(buy) : buy());
  });

  /** The next POST /payments ignore Idempotency-Key, or are made and lose their answer (one shot each; reset clears). */
  control.post('/payments/faults', async (request) => {
    const body = parse(chargeFaultsBody, request.body);
    Object.assign(store.chargeFaults, Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)));
    return { ...store.chargeFaults };
  });

  control.post('/payments/:id/force', async (request) =>
    store.paymentView(store.forcePayment(parse(idParams, request.params).id, parse(forceBody, request.body).state)));

  /** The next `count` refunds stay pending at the card network; one settles later without a webhook. */
  control.post('/refunds/pending', async (request) => {
    store.pendingRefunds = parse(z.object({ count: z.number().int().min(0).max(1000) }), request.body).count;
    return { pendingRefunds: store.pendingRefunds };
  });
  control.post('/refunds/:id/settle', async (request) =>
    store.refundView(store.settleRefund(parse(idParams, request.params).id, parse(z.object({ status: z.enum(['succeeded', 'failed']) }), request.body).status)));

  control.post('/memberships/:id/renew', async (request) => {
    const { membership, payment } = store.renew(parse(idParams, request.params).id, parse(renewBody, request.body).outcome);
    return { membership: store.membershipView(membership), payment: store.paymentView(payment) };
  });

  /** The shopper's bank disputes a paid payment: dispute.created (Whop learns it from the card network). */
  control.post('/payments/:id/dispute', async (request, reply) => {
    const { silent, ...input } = parse(disputeBody, request.body);
    const open = () => store.openDispute(parse(idParams, request.params).id, input);
    return reply.code(201).send(store.disputeView(silent ? silently(open) : open()));
  });

  /** The merchant refunds a payment in Whop's dashboard (all that is left, or `amount`): refund.created, refund.updated. */
  control.post('/payments/:id/refund', async (request, reply) => {
    const { amount, silent } = parse(dashboardRefundBody, request.body);
    const payment = store.own(store.payments, parse(idParams, request.params).id, undefined, 'Payment');
    const refund = () => store.refund(payment.company_id, payment.id, amount);
    return reply.code(201).send(store.paymentView(silent ? silently(refund) : refund()));
  });

  /** The dispute moves on (under_review, won, lost, closed, …): dispute.updated. */
  control.post('/disputes/:id/status', async (request) =>
    store.disputeView(store.updateDispute(parse(idParams, request.params).id, parse(disputeStatusBody, request.body).status)));

  /** Rotation: deliveries to this endpoint are signed with the old and a new secret until the next rotation. */
  control.post('/webhooks/:id/rotate', async (request) => {
    const webhook = store.own(store.webhooks, parse(idParams, request.params).id, undefined, 'Webhook');
    const previous = webhook.webhook_secret;
    webhook.webhook_secret = `ws_${newId('', 24).slice(1)}`;
    webhooks.rotating.set(webhook.id, previous);
    return { id: webhook.id, webhook_secret: webhook.webhook_secret };
  });

  /** An endpoint the merchant made in Whop's dashboard: any event name, signed with Standard Webhooks. */
  control.post('/webhooks/dashboard', async (request, reply) => {
    const { businessId, url, events } = parse(dashboardWebhookBody, request.body);
    if (!store.company(businessId)) throw new WhopError(404, 'not_found', `No such company: '${businessId}'`);
    const webhook = store.createWebhook(businessId, { url, events }, 'dashboard');
    return reply.code(201).send({ id: webhook.id, url: webhook.url, events: webhook.events, webhook_secret: webhook.webhook_secret });
  });

  /** The event names `POST /webhooks` refuses from now on (Whop's two by default; a reset restores them). */
  control.post('/webhooks/refused-events', async (request) => {
    const { events } = parse(refusedEventsBody, request.body);
    store.refusedApiEvents.clear();
    for (const name of events) store.refusedApiEvents.add(name);
    return { events: [...store.refusedApiEvents] };
  });

  /**
   * A sale of the company's own that no integration created (its own product page, another app): a plan and a paid
   * payment without anyone's metadata, with the events a purchase sends (payment.succeeded, membership.activated, …).
   */
  control.post('/payments/foreign', async (request, reply) => {
    const { businessId, amount, currency } = parse(foreignSaleBody, request.body);
    if (!store.company(businessId)) throw new WhopError(404, 'not_found', `No such company: '${businessId}'`);
    const checkout = store.createCheckout(businessId, { plan: { plan_type: 'one_time', initial_price: amount, currency, title: 'Their own product' } });
    return reply.code(201).send(store.paymentView(store.purchase(checkout, { email: 'someone@example.com', last4: '4242', outcome: 'succeed' })));
  });

  control.post('/webhooks/send', async (request, reply) => {
    const body = parse(sendBody, request.body);
    const { companyId, data } = store.eventSubject(body.objectId);
    const event = webhooks.publish(companyId, body.type, data, { times: body.times, delayMs: body.delayMs });
    return reply.code(202).send({ id: event.id, type: event.event, state: event.state, times: body.times, delayMs: body.delayMs });
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
    return reply.code(202).send({ id: event.id, type: event.event, times: copies });
  });
  control.get('/webhooks/deliveries', async (request) => ({ deliveries: webhooks.deliveries(parse(deliveriesQuery, request.query).eventId) }));
  control.get('/webhooks/events', async () => ({ events: webhooks.listEvents() }));
}
