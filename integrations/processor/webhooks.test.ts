// The sandbox's outgoing webhooks as the service's endpoint sees them: retries, and the five controls
// tests use to provoke real-world delivery problems (on demand, duplicate, delay, reorder, drop).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CreatedWebhookEndpoint } from './schemas.js';
import { verifyWebhookSignature } from './signature.js';
import { cardForm, postForm, startProcessor, startWebhookReceiver, type RunningProcessor, type WebhookReceiver } from '../../test/harness/processor.js';
import type { ProcessorEventName } from './webhook.js';

let processor: RunningProcessor;
let receiver: WebhookReceiver;
let endpoint: CreatedWebhookEndpoint;

beforeAll(async () => {
  processor = await startProcessor({ webhookRetryDelaysMs: [30, 60, 90] });
});
afterAll(async () => {
  await processor.close();
});
beforeEach(async () => {
  await processor.sim.reset();
  await receiver?.close();
  receiver = await startWebhookReceiver();
  endpoint = await processor.client().registerWebhook({ url: `${receiver.url}/webhooks/processor/payment-update` });
});

const events = () => receiver.received.map((r) => r.json.event);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A payment paid on the hosted page with the given card. */
async function pay(card = '4242424242424242', token = 'tok_1') {
  const payment = await processor.client().createPayment({ amount: 1_500, currency: 'EUR', metadata: { checkout_session_token: token } }, `pay-${token}`);
  expect((await postForm(payment.payment_url, cardForm(card))).status).toBe(303);
  return payment;
}

interface Delivery {
  event_id: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  ok: boolean;
}
const deliveries = async (eventId?: string) =>
  (await processor.control<{ deliveries: Delivery[] }>('GET', `webhooks/deliveries${eventId ? `?eventId=${eventId}` : ''}`)).body.deliveries;

describe('webhook delivery', () => {
  it('given a paid payment, when delivered, then each event is signed over its exact bytes with the endpoint secret', async () => {
    const payment = await pay();
    const got = await receiver.waitFor(2);
    expect(events().sort()).toEqual(['invoice_paid', 'payment_succeeded']);
    for (const webhook of got) {
      expect(webhook.headers['content-type']).toBe('application/json');
      expect(verifyWebhookSignature(endpoint.secret, webhook.rawBody, webhook.headers['x-processor-signature'] as string)).toBe(true);
      expect(webhook.json).toMatchObject({ id: expect.stringMatching(/^evt_/), data: { id: payment.id, status: 'succeeded', amount: 1_500, currency: 'EUR', metadata: { checkout_session_token: 'tok_1' } } });
    }
  });

  it('given a receiver that fails twice, when an event is delivered, then it is retried with backoff and attempt 3 (same event id and bytes) succeeds', async () => {
    await processor.client().deleteWebhook(endpoint.id);
    endpoint = await processor.client().registerWebhook({ url: receiver.url, events: ['payment_succeeded'] });
    receiver.respondWith(500, 500);
    await pay();
    await receiver.waitFor(3, 2_000);
    const [a, b, c] = receiver.received;
    expect([a, b, c].map((r) => r!.headers['x-processor-delivery-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set([a, b, c].map((r) => r!.json.id)).size).toBe(1);
    expect(b!.rawBody.equals(a!.rawBody) && c!.rawBody.equals(a!.rawBody)).toBe(true);
    expect((await deliveries(a!.json.id)).map((d) => d.status_code)).toEqual([500, 500, 200]);
  });

  it('given a receiver that keeps failing or is unreachable, then delivery gives up after the configured retries', async () => {
    await processor.client().deleteWebhook(endpoint.id);
    await processor.client().registerWebhook({ url: 'http://127.0.0.1:1/unreachable', events: ['payment_succeeded'] });
    await processor.client().registerWebhook({ url: receiver.url, events: ['payment_succeeded'] });
    receiver.respondWith(500, 500, 500, 500, 500);
    await pay();
    await processor.sim.webhooks.idle();
    const log = await deliveries();
    expect(log.filter((d) => d.error !== null).map((d) => d.attempt)).toEqual([1, 2, 3, 4]);
    expect(log.filter((d) => d.status_code === 500).map((d) => d.attempt)).toEqual([1, 2, 3, 4]);
    expect(receiver.received).toHaveLength(4);
  });

  it('given an endpoint subscribed to some events, then it receives only those', async () => {
    await processor.client().deleteWebhook(endpoint.id);
    await processor.client().registerWebhook({ url: receiver.url, events: ['payment_failed'] });
    await pay('4000000000000002');
    await processor.sim.webhooks.idle();
    expect(events()).toEqual(['payment_failed']);
  });

  it("given another account's payment, then this account's endpoint hears nothing of it", async () => {
    const { body } = await processor.control<{ apiKey: string }>('POST', 'accounts', {});
    const other = processor.client({ apiKey: body.apiKey });
    const payment = await other.createPayment({ amount: 100, currency: 'USD', metadata: { checkout_session_token: 'x' } }, 'k');
    await postForm(payment.payment_url, cardForm('4242424242424242'));
    await processor.sim.webhooks.idle();
    expect(receiver.received).toEqual([]);
  });
});

describe('webhook controls', () => {
  it('deliver on demand: given a payment, when any event is requested, then it arrives with the payment as it is now', async () => {
    const payment = await pay();
    await receiver.waitFor(2);
    for (const event of ['payment.refunded', 'invoice_payment_failed'] satisfies ProcessorEventName[]) {
      const res = await processor.control<{ id: string }>('POST', 'webhooks/send', { event, paymentId: payment.id });
      expect(res.status).toBe(202);
    }
    await receiver.waitFor(4);
    expect(events().slice(2).sort()).toEqual(['invoice_payment_failed', 'payment.refunded']);
    expect(receiver.received[3]!.json.data).toMatchObject({ id: payment.id, status: 'succeeded', metadata: { checkout_session_token: 'tok_1' } });
    expect((await processor.control('POST', 'webhooks/send', { event: 'invoice_paid', paymentId: 'pay_nope' })).status).toBe(404);
    expect((await processor.control('POST', 'webhooks/send', { event: 'not_an_event', paymentId: payment.id })).status).toBe(400);
  });

  it('duplicate: given times: 3, then three concurrent copies with one event id arrive; redeliver sends the same bytes again', async () => {
    const payment = await pay();
    await receiver.waitFor(2);
    const { body } = await processor.control<{ id: string }>('POST', 'webhooks/send', { event: 'invoice_paid', paymentId: payment.id, times: 3 });
    const copies = (await receiver.waitFor(5)).slice(2);
    expect(copies.map((c) => c.json.id)).toEqual([body.id, body.id, body.id]);

    expect((await processor.control('POST', 'webhooks/redeliver', { eventId: body.id, times: 2 })).status).toBe(202);
    const again = (await receiver.waitFor(7)).slice(5);
    expect(again.every((c) => c.rawBody.equals(copies[0]!.rawBody))).toBe(true);
    expect((await processor.control('POST', 'webhooks/redeliver', { eventId: 'evt_nope' })).status).toBe(404);
  });

  it('delay: given delayMs, then the event arrives no earlier than that', async () => {
    const payment = await pay();
    await receiver.waitFor(2);
    const started = Date.now();
    await processor.control('POST', 'webhooks/send', { event: 'payment_failed', paymentId: payment.id, delayMs: 250 });
    await sleep(100);
    expect(receiver.received).toHaveLength(2);
    await receiver.waitFor(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('reorder: given held events, when released in a chosen order, then they arrive in that order and later events flow again', async () => {
    expect((await processor.control('POST', 'webhooks/hold')).body).toEqual({ holding: true });
    const payment = await pay();
    await processor.control('POST', 'webhooks/send', { event: 'payment_refunded', paymentId: payment.id });
    await sleep(50);
    expect(receiver.received).toEqual([]);

    const { body: outbox } = await processor.control<{ holding: boolean; events: Array<{ id: string; event: string }> }>('GET', 'webhooks/outbox');
    expect(outbox.holding).toBe(true);
    expect(outbox.events.map((e) => e.event)).toEqual(['payment_succeeded', 'invoice_paid', 'payment_refunded']);
    const [succeeded, paid, refunded] = outbox.events.map((e) => e.id);

    const { body } = await processor.control<{ released: string[] }>('POST', 'webhooks/release', { ids: [refunded, paid] });
    expect(body.released).toEqual([refunded, paid, succeeded]);
    expect(events()).toEqual(['payment_refunded', 'invoice_paid', 'payment_succeeded']);

    await processor.control('POST', 'webhooks/send', { event: 'invoice_paid', paymentId: payment.id });
    await receiver.waitFor(4);
    expect((await processor.control<{ events: unknown[] }>('GET', 'webhooks/outbox')).body.events).toEqual([]);
    expect((await processor.control('POST', 'webhooks/release', { ids: ['evt_unknown'] })).status).toBe(404);
  });

  it('drop: given a drop count of 1, then the next event is lost, the one after arrives, and the lost one can be redelivered', async () => {
    expect((await processor.control('POST', 'webhooks/drop', { count: 1 })).body).toEqual({ dropping: 1 });
    await pay();
    await receiver.waitFor(1);
    await processor.sim.webhooks.idle();
    expect(events()).toEqual(['invoice_paid']);

    const { body } = await processor.control<{ events: Array<{ id: string; event: string; state: string }> }>('GET', 'webhooks/events');
    const dropped = body.events.find((e) => e.event === 'payment_succeeded')!;
    expect(dropped.state).toBe('dropped');
    expect(await deliveries(dropped.id)).toEqual([]);

    await processor.control('POST', 'webhooks/redeliver', { eventId: dropped.id });
    await receiver.waitFor(2);
    expect(events()).toEqual(['invoice_paid', 'payment_succeeded']);
  });

  it('given a reset, then holding, drop counts, events and the delivery log are gone and the seeded key works again', async () => {
    await processor.control('POST', 'webhooks/hold');
    await processor.control('POST', 'webhooks/drop', { count: 5 });
    await pay();
    await processor.control('POST', 'reset');
    expect((await processor.control('GET', 'webhooks/outbox')).body).toEqual({ holding: false, dropping: 0, events: [] });
    expect(await deliveries()).toEqual([]);
    expect((await processor.client().validateKey()).id).toBe('biz_sandboxdemo');
    expect(await processor.client().listWebhooks()).toEqual([]);
  });
});

describe('membership webhooks', () => {
  it('given a membership, when paid, renewed, failing to renew and cancelled, then the platform-billing events arrive in turn', async () => {
    const client = processor.client();
    const plan = await client.createPlan({ name: 'Pro', amount: 2_900, currency: 'EUR', interval: 'month' });
    const membership = await client.createMembership({ plan_id: plan.id, metadata: { merchant_id: 'm_1' } }, 'mem');

    await postForm(membership.payment_url, cardForm('4242424242424242'));
    await receiver.waitFor(4);
    expect(events()).toEqual(expect.arrayContaining(['payment_succeeded', 'invoice_paid', 'membership_activated', 'membership_went_valid']));
    const activated = receiver.received.find((r) => r.json.event === 'membership_activated')!;
    expect(activated.json.data).toMatchObject({ id: membership.id, status: 'active', plan_id: plan.id, metadata: { merchant_id: 'm_1' } });

    await processor.control('POST', `memberships/${membership.id}/renew`, { outcome: 'succeeded' });
    await receiver.waitFor(6);
    expect(events().slice(4).sort()).toEqual(['invoice_paid', 'payment_succeeded']);
    const renewal = receiver.received[5]!.json.data;
    expect(renewal).toMatchObject({ membership_id: membership.id, status: 'succeeded', amount: 2_900 });
    expect(renewal.id).not.toBe(membership.latest_payment_id);

    await processor.control('POST', `memberships/${membership.id}/renew`, { outcome: 'failed' });
    await receiver.waitFor(9);
    expect(events().slice(6).sort()).toEqual(['invoice_payment_failed', 'membership_went_invalid', 'payment_failed']);

    await processor.control('POST', `memberships/${membership.id}/renew`, { outcome: 'succeeded' });
    await receiver.waitFor(12);
    expect(events().slice(9).sort()).toEqual(['invoice_paid', 'membership_went_valid', 'payment_succeeded']);

    await client.cancelMembership(membership.id);
    await receiver.waitFor(13);
    expect(receiver.received[12]!.json).toMatchObject({ event: 'membership_went_invalid', data: { id: membership.id, status: 'canceled' } });

    expect((await processor.control('POST', 'webhooks/send', { event: 'membership_went_valid', membershipId: membership.id })).status).toBe(202);
    await receiver.waitFor(14);
  });
});
