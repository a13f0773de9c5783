// The merchant's webhooks end to end, through HTTP and the sandboxes only: a shopper pays a checkout and the
// merchant's endpoint (the webhook receiver simulator, which verifies every delivery with `standardwebhooks`) gets
// one session.completed, however often the processor repeats its success event and when the worker is killed in
// the middle; the merchant's refund gives one session.refunded; a dispute opened and won at the processor gives
// one dispute.created and one dispute.resolved. "One" is one event and one webhook-id: the id receivers dedupe on.
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack.js';
import { startCrashStack, type CrashStack } from '../harness/crash-stack.js';
import type { ReceivedDelivery } from '../../sandbox/webhook-receiver/index.js';
import {
  api, control, expectCompletedWithOneOrderAndTwoEmails, payOnHostedPage, returnFromPaymentPage, sessionStatus, startPayment, storefrontACheckout, storefrontAMerchant,
  storefrontAOrdersOf, waitFor, type Json, type Merchant,
} from './checkout-helpers.js';
import { WORKFLOWS } from '../../domain/temporal/workflow-names.js';

const FAST_STORE_RETRIES = { checkoutWorkflowInput: { storeRetryInitialMs: 250 } };

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({}, FAST_STORE_RETRIES);
});
afterAll(async () => {
  await stack?.close();
});

/** The merchant's endpoint at a new receiver endpoint, made through the API; the receiver verifies with the secret it answered. */
async function merchantEndpoint(s: TestStack, merchant: Merchant, receiver: Json = {}) {
  const at = await control(s.urls.webhookReceiver, 'POST', 'endpoints', receiver);
  expect(at.status).toBe(201);
  const created = await api(s, 'POST', '/api/merchant/webhooks/endpoints', { url: at.body.url }, merchant.token);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const patched = await fetch(`${s.urls.webhookReceiver}/_control/endpoints/${at.body.id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ secrets: [created.body.secret] }) });
  expect(patched.status).toBe(200);
  return { receiverId: at.body.id as string, endpointId: created.body.id as string };
}

/** What the receiver got of `type`, for this session (or dispute), parsed. */
function receivedOf(s: TestStack, receiverId: string, type: string, match: (data: Json) => boolean): Array<ReceivedDelivery & { json: Json }> {
  return s.sims.webhookReceiver.deliveries(receiverId).map((d) => ({ ...d, json: JSON.parse(d.body) as Json })).filter((d) => d.json.type === type && match(d.json.data));
}

/** Exactly one event of `type` arrived (as many POSTs as it took, all with one webhook-id and body), verified. */
async function expectOneEvent(s: TestStack, receiverId: string, type: string, match: (data: Json) => boolean) {
  const got = await waitFor(`${type} at the receiver`, () => {
    const found = receivedOf(s, receiverId, type, match);
    return found.length ? found : undefined;
  }, 90_000);
  // Anything more would arrive within moments: a duplicate emission starts its delivery at once.
  await new Promise((r) => setTimeout(r, 1500));
  const all = receivedOf(s, receiverId, type, match);
  expect(new Set(all.map((d) => d.webhookId)).size, `${type}: one webhook-id`).toBe(1);
  expect(new Set(all.map((d) => d.json.id)).size, `${type}: one event id`).toBe(1);
  expect(all.every((d) => d.verified), `${type}: verified by standardwebhooks`).toBe(true);
  return got[0]!;
}

/** Whop's payment (pay_…) made through the session's checkout configuration (ch_…). */
async function paymentOf(s: TestStack, checkoutId: string): Promise<string> {
  return waitFor('the payment', async () => {
    const events = (await control(s.urls.processor, 'GET', 'webhooks/events')).body.events as Json[];
    return events.find((e) => e.event === 'payment.succeeded' && e.payload.data.checkout_configuration_id === checkoutId)?.payload.data.id as string | undefined;
  });
}

describe('session events', () => {
  it('given a paid checkout whose success event the processor sends 6 times / one session.completed, verified, with the order\'s fields; then the refund gives one session.refunded', async () => {
    const merchant = await storefrontAMerchant(stack, 'Hooked Store');
    const { receiverId } = await merchantEndpoint(stack, merchant);
    const token = await storefrontACheckout(stack, merchant.shop);
    const payment = await startPayment(stack, token);
    await payOnHostedPage(token, payment.paymentUrl as string);
    const paymentId = await paymentOf(stack, payment.paymentId as string);
    // The processor repeats itself: five more copies of payment.succeeded, all at once.
    expect((await control(stack.urls.processor, 'POST', 'webhooks/send', { type: 'payment.succeeded', objectId: paymentId, times: 5 })).status).toBe(202);
    expect(await returnFromPaymentPage(stack, token)).toBe('COMPLETED');

    const completed = await expectOneEvent(stack, receiverId, 'session.completed', (d) => d.token === token);
    expect(completed.json).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      type: 'session.completed',
      data: { token, status: 'COMPLETED', currency: 'EUR', total_minor: payment.totalMinor, payment_method: 'card', customer_email: 'jane@customer.test', processor_payment_id: payment.paymentId },
    });
    expect(completed.webhookId).toMatch(/^msg_/);
    expect(await stack.database.db.merchantEvent.count({ where: { factKey: `session.completed:${token}` } })).toBe(1);
    const listed = await api(stack, 'GET', `/api/merchant/webhooks/deliveries?eventType=session.completed`, undefined, merchant.token);
    expect(listed.body.items.map((d: Json) => d.id)).toEqual([completed.webhookId]);

    const refund = await api(stack, 'POST', `/api/checkout/merchant/orders/${token}/refund`, {}, merchant.token);
    expect(refund.status, JSON.stringify(refund.body)).toBe(202);
    await waitFor('REFUNDED', async () => (await sessionStatus(stack, token)) === 'REFUNDED' || undefined);
    const refunded = await expectOneEvent(stack, receiverId, 'session.refunded', (d) => d.token === token);
    expect(refunded.json.data).toMatchObject({ status: 'REFUNDED', refunded_at: expect.any(String) });
    expect(receivedOf(stack, receiverId, 'session.completed', (d) => d.token === token)).toHaveLength(1);
  }, 120_000);

  it('given an endpoint filtering on session.refunded only / a completed checkout sends it nothing', async () => {
    const merchant = await storefrontAMerchant(stack, 'Filtered Store');
    const at = await control(stack.urls.webhookReceiver, 'POST', 'endpoints', {});
    expect((await api(stack, 'POST', '/api/merchant/webhooks/endpoints', { url: at.body.url, eventTypes: ['session.refunded'] }, merchant.token)).status).toBe(201);
    const token = await storefrontACheckout(stack, merchant.shop);
    const payment = await startPayment(stack, token);
    await payOnHostedPage(token, payment.paymentUrl as string);
    expect(await returnFromPaymentPage(stack, token)).toBe('COMPLETED');
    await waitFor('the event', async () => (await stack.database.db.merchantEvent.count({ where: { factKey: `session.completed:${token}` } })) === 1 || undefined);
    await new Promise((r) => setTimeout(r, 1000));
    expect(stack.sims.webhookReceiver.deliveries(at.body.id as string)).toEqual([]);
    expect(await stack.database.db.webhookDelivery.count({ where: { merchantId: merchant.id } })).toBe(0);
  }, 90_000);
});

describe('dispute events', () => {
  it('given a dispute opened on a paid checkout (its event delivered 3 times) and won / one dispute.created and one dispute.resolved, each naming the session', async () => {
    const merchant = await storefrontAMerchant(stack, 'Disputed Store');
    const { receiverId } = await merchantEndpoint(stack, merchant);
    const token = await storefrontACheckout(stack, merchant.shop);
    const payment = await startPayment(stack, token);
    await payOnHostedPage(token, payment.paymentUrl as string);
    expect(await returnFromPaymentPage(stack, token)).toBe('COMPLETED');
    const paymentId = await paymentOf(stack, payment.paymentId as string);

    const opened = await control(stack.urls.processor, 'POST', `payments/${paymentId}/dispute`, { reason: 'product_not_received' });
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    const disputeId = opened.body.id as string;
    const createdAtProcessor = await waitFor('dispute.created sent', async () =>
      ((await control(stack.urls.processor, 'GET', 'webhooks/events')).body.events as Json[]).find((e) => e.event === 'dispute.created' && e.payload.data.id === disputeId));
    expect((await control(stack.urls.processor, 'POST', 'webhooks/redeliver', { eventId: createdAtProcessor.id, times: 2 })).status).toBe(202);
    const created = await expectOneEvent(stack, receiverId, 'dispute.created', (d) => d.dispute_id === disputeId);
    expect(created.json.data).toEqual({
      dispute_id: disputeId, status: 'needs_response', amount_minor: payment.totalMinor, currency: 'EUR', reason: 'product_not_received', session_token: token, processor_payment_id: paymentId,
    });

    expect((await control(stack.urls.processor, 'POST', `disputes/${disputeId}/status`, { status: 'under_review' })).status).toBe(200);
    expect((await control(stack.urls.processor, 'POST', `disputes/${disputeId}/status`, { status: 'won' })).status).toBe(200);
    const resolved = await expectOneEvent(stack, receiverId, 'dispute.resolved', (d) => d.dispute_id === disputeId);
    expect(resolved.json.data).toMatchObject({ status: 'won', session_token: token });
    expect(receivedOf(stack, receiverId, 'dispute.created', (d) => d.dispute_id === disputeId)).toHaveLength(1);
    // Every delivery of the processor's dispute events is stored, verified; the session itself is untouched.
    const stored = await stack.database.db.processorWebhookDelivery.findMany({ where: { merchantId: merchant.id, event: { startsWith: 'dispute.' } } });
    expect(stored.length).toBe(5);
    expect(stored.every((d) => d.signatureValid)).toBe(true);
    expect(stored.filter((d) => d.rejection === 'duplicate')).toHaveLength(2);
    expect(await sessionStatus(stack, token)).toBe('COMPLETED');
  }, 120_000);
});

describe('a worker killed in the middle', () => {
  // A stack without an in-process worker: its task queue is served only by worker processes this test starts and kills.
  let crash: CrashStack;
  beforeAll(async () => {
    crash = await startCrashStack(FAST_STORE_RETRIES);
  });
  afterAll(async () => {
    await crash?.close();
  });

  it('given SIGKILL while the order is at the store and the webhook POST is unanswered / a new worker finishes both: one session.completed, one webhook-id', async () => {
    const first = await crash.startWorker(true);
    const merchant = await storefrontAMerchant(crash, 'Killed Hook Store');
    // The receiver answers slowly: the delivery's POST is in flight when the worker dies.
    const { receiverId, endpointId } = await merchantEndpoint(crash, merchant, { delayMs: 10_000 });
    const token = await storefrontACheckout(crash, merchant.shop);
    const payment = await startPayment(crash, token);
    await payOnHostedPage(token, payment.paymentUrl as string);
    await Promise.race([first.storeOrderCreated, new Promise((_, reject) => setTimeout(() => reject(new Error('no store order within 30 s')), 30_000))]);
    await waitFor('the POST in flight', () => crash.sims.webhookReceiver.deliveries(receiverId).length > 0 || undefined, 10_000);
    expect(await first.kill('SIGKILL')).toBe('SIGKILL');
    const killedAt = Date.now();
    // Killed with the POST unanswered: nothing recorded of the attempt.
    expect(await crash.database.db.webhookDelivery.findFirstOrThrow({ where: { endpointId } })).toMatchObject({ status: 'pending', attempts: 0 });
    await fetch(`${crash.urls.webhookReceiver}/_control/endpoints/${receiverId}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ delayMs: 0 }) });

    await crash.startWorker(false);
    await expectCompletedWithOneOrderAndTwoEmails(crash, token, merchant.email, () => storefrontAOrdersOf(merchant.shop, token).length, 120_000);
    // The unanswered attempt times out and is retried: the same webhook-id again until one is answered.
    await waitFor('a succeeded delivery', async () => (await crash.database.db.webhookDelivery.findFirst({ where: { endpointId, status: 'succeeded' } })) ?? undefined, 120_000);
    const completed = await expectOneEvent(crash, receiverId, 'session.completed', (d) => d.token === token);
    expect(await crash.database.db.merchantEvent.count({ where: { factKey: `session.completed:${token}` } })).toBe(1);
    expect(await crash.database.db.webhookDelivery.findMany({ where: { endpointId }, select: { id: true } })).toEqual([{ id: completed.webhookId }]);
    const posts = receivedOf(crash, receiverId, 'session.completed', (d) => d.token === token).length;
    console.log(`[merchant-webhooks] the delivery succeeded ${Date.now() - killedAt} ms after the kill, after ${posts} POSTs of the one session.completed`);
    // At least once: the attempt the kill cut off was made again, with the same webhook-id (checked above).
    expect(posts).toBeGreaterThanOrEqual(2);
    // The dead worker's attempt was given up on its missed heartbeats, not after the whole start-to-close time-out.
    const history = await crash.temporal.client.workflow.getHandle(WORKFLOWS.merchantWebhookDelivery.id(completed.webhookId!)).fetchHistory();
    // (A retried activity's start event carries the failure of the try before it.)
    const retriedAfter = (history.events ?? []).flatMap((e) => {
      const started = e.activityTaskStartedEventAttributes;
      return started && (started.attempt ?? 1) > 1 ? [started.lastFailure?.timeoutFailureInfo?.timeoutType] : [];
    });
    expect(retriedAfter).toEqual([proto.temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_HEARTBEAT]);
  }, 240_000);
});
