// Exactly once, whatever happens around a paid session: duplicate, late and out-of-order webhooks, a forged
// webhook, a store that fails, a worker killed mid-order. Through HTTP and the sandboxes only; the outcomes
// are the session's status, the orders in the sandbox store, the emails in the sandbox mailbox and the
// stored webhook deliveries. Every test has a merchant, a processor account and a shop of its own.
//
// The store order's retry policy starts at 5 s and doubles: 5 failures cost 155 s of waiting (measured:
// 156 s). The stacks here start their checkout workflows with storeRetryInitialMs = 250 ms instead (the
// same policy, 20 times faster: 7.75 s).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack.js';
import { startCrashStack, type CrashStack } from '../harness/crash-stack.js';
import { signSpecWebhook as signWebhook, SPEC_SIGNATURE_HEADER as SIGNATURE_HEADER } from '../../integrations/processor/webhook.js';
import { PROCESSOR_WEBHOOK_PATH } from '../../model/connections.js';
import {
  api, control, emailsOf, expectCompletedWithOneOrderAndTwoEmails, payOnHostedPage, returnFromPaymentPage, sessionStatus, SHOPPER, startPayment,
  storefrontACheckout, storefrontAMerchant, storefrontAOrdersOf, storefrontAOrdersPath, timelineOf, unique, waitFor, type Json,
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

/** The stored deliveries of the session's webhooks, with the event id each body carries. */
async function deliveriesOf(token: string) {
  const rows = await stack.database.db.processorWebhookDelivery.findMany({ where: { sessionToken: token }, orderBy: { receivedAt: 'asc' } });
  return rows.map((r) => ({ ...r, bodyEventId: (JSON.parse(r.rawBody) as { id?: string }).id }));
}

describe('exactly once over duplicate, late and out-of-order webhooks', () => {
  it('given pending before the success, the success 10 times at once and failed after it / one order, one email each, COMPLETED; one signal per event id, the copies marked duplicate', async () => {
    const merchant = await storefrontAMerchant(stack, 'Duplicate Store');
    const token = await storefrontACheckout(stack, merchant.shop);
    const payment = await startPayment(stack, token);
    const checkoutId = payment.paymentId as string;
    let paymentId = '';

    // The processor's outbox holds every event from here on, so we choose the order they arrive in.
    expect((await control(stack.urls.processor, 'POST', 'webhooks/hold')).status).toBe(200);
    let order: string[];
    let succeeded: string;
    try {
      // The shopper pays (the processor queues payment_succeeded and invoice_paid) and never comes back to
      // the return page: only webhooks tell the session.
      await payOnHostedPage(token, payment.paymentUrl as string);
      // Whop's payment (pay_…) exists once paid: the one made through the session's checkout (ch_…).
      paymentId = ((await control(stack.urls.processor, 'GET', 'webhooks/outbox')).body.events as Json[]).find((e) => e.payload.data.checkout_configuration_id === checkoutId)!.payload.data.id as string;
      const send = async (type: string, times = 1) => {
        const sent = await control(stack.urls.processor, 'POST', 'webhooks/send', { type, objectId: paymentId, times });
        expect(sent.status, JSON.stringify(sent.body)).toBe(202);
        expect(sent.body.state).toBe('held');
        return sent.body.id as string;
      };
      // Only events the endpoint subscribed to are sent (Whop filters by the webhook's events): payment.pending
      // is one that changes nothing; the spec's spellings are the route's own test (api/routes/webhooks).
      const pending = await send('payment.pending');
      succeeded = await send('payment.succeeded', 10);
      const failed = await send('payment.failed');
      const outbox = await control(stack.urls.processor, 'GET', 'webhooks/outbox');
      const ours = (outbox.body.events as Json[]).filter((e) => e.payload.data.id === paymentId || e.payload.data.checkout_configuration_id === checkoutId);
      // The purchase's own events; membership.activated is among them but not sent to us: POST /webhooks cannot subscribe to it.
      const fromThePayment = ours.filter((e) => ![pending, succeeded, failed].includes(e.id) && e.event !== 'membership.activated').map((e) => e.id as string);
      expect(ours.filter((e) => fromThePayment.includes(e.id)).map((e) => e.event)).toEqual(['payment.succeeded']);

      // Pending first (the session is still PAYMENT_PENDING), then every success (10 concurrent copies of
      // one), then failed; each event's first delivery is answered before the next is sent.
      order = [pending, succeeded, ...fromThePayment, failed];
      const released = await control(stack.urls.processor, 'POST', 'webhooks/release', { ids: order });
      expect((released.body.released as string[]).slice(0, order.length)).toEqual(order);
    } finally {
      await control(stack.urls.processor, 'POST', 'webhooks/release', {});
    }

    const session = await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, () => storefrontAOrdersOf(merchant.shop, token).length);
    expect(session.status).toBe('COMPLETED');
    // The workflow has seen every event and settled on COMPLETED.
    const result = await stack.temporal.client.workflow.getHandle(WORKFLOWS.checkout.id(token)).result();
    expect(result).toEqual({ status: 'COMPLETED' });
    expect(await sessionStatus(stack, token)).toBe('COMPLETED');

    // The pending event before completion changed nothing, the failure after it neither: two transitions in all.
    const transitions = (await timelineOf(stack, token, 'status_changed')).map((e) => e.data as Json);
    expect(transitions.map((t) => `${t.from}→${t.to}`)).toEqual(['OPEN→PAYMENT_PENDING', 'PAYMENT_PENDING→COMPLETED']);
    expect(transitions[1]!.cause).toBe(`payment_succeeded (${succeeded})`);
    expect(await timelineOf(stack, token, 'order_created')).toHaveLength(1);

    // The 10 copies of the success went out at once, each answered 2xx on its first attempt (no retries).
    const attempts = (await control(stack.urls.processor, 'GET', `webhooks/deliveries?eventId=${succeeded}`)).body.deliveries as Json[];
    expect(attempts).toHaveLength(10);
    expect(attempts.every((a) => a.ok && a.attempt === 1)).toBe(true);

    // Stored: one signalled delivery per event id; the 9 other copies of the success marked duplicate.
    const rows = await deliveriesOf(token);
    expect(rows.every((r) => r.signatureValid && r.merchantId === merchant.id)).toBe(true);
    const byEvent = new Map<string | undefined, typeof rows>();
    for (const row of rows) byEvent.set(row.bodyEventId, [...(byEvent.get(row.bodyEventId) ?? []), row]);
    expect([...byEvent.keys()].sort()).toEqual([...order].sort());
    for (const [eventId, deliveries] of byEvent) {
      const signalled = deliveries.filter((d) => d.signalledAt !== null);
      expect(signalled, eventId).toHaveLength(1);
      expect(signalled[0]!.eventId).toBe(eventId);
      expect(signalled[0]!.rejection).toBeNull();
      const copies = deliveries.filter((d) => d.signalledAt === null);
      expect(copies, eventId).toHaveLength(eventId === succeeded ? 9 : 0);
      expect(copies.every((d) => d.rejection === 'duplicate' && d.eventId === null)).toBe(true);
    }
    // Received (first deliveries) in the order released.
    expect((await timelineOf(stack, token, 'webhook_received')).map((e) => (e.data as Json).eventId)).toEqual(order);
  });
});

describe('a forged webhook', () => {
  it('given a success event for a pending payment with a bad signature (or none) / 401, stored for audit, nothing else changes', async () => {
    const merchant = await storefrontAMerchant(stack, 'Forged Store');
    const token = await storefrontACheckout(stack, merchant.shop);
    const payment = await startPayment(stack, token);
    const body = JSON.stringify({
      id: `evt_forged${unique()}`,
      event: 'payment_succeeded',
      created_at: new Date().toISOString(),
      data: { id: payment.paymentId, status: 'succeeded', amount: payment.totalMinor, currency: payment.currency, metadata: { checkout_session_token: token } },
    });
    const post = (headers: Record<string, string>) =>
      fetch(`${stack.apiUrl}${PROCESSOR_WEBHOOK_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

    const wrongSecret = await post({ [SIGNATURE_HEADER]: signWebhook('whsec_not_the_merchants_secret_0123', body) });
    expect(wrongSecret.status).toBe(401);
    expect(((await wrongSecret.json()) as Json).code).toBe('INVALID_SIGNATURE');
    const unsigned = await post({});
    expect(unsigned.status).toBe(401);
    expect(((await unsigned.json()) as Json).code).toBe('INVALID_SIGNATURE');

    // Both stored as received, verified false, never signalled.
    const rows = await deliveriesOf(token);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({ signatureValid: false, rejection: 'bad_signature', eventId: null, signalledAt: null, event: 'payment_succeeded', merchantId: merchant.id, rawBody: body });
    }
    // Nothing else: the session is still pending, its workflow got no signal, no order, no email.
    expect(await sessionStatus(stack, token)).toBe('PAYMENT_PENDING');
    const history = await stack.temporal.client.workflow.getHandle(WORKFLOWS.checkout.id(token)).fetchHistory();
    expect(history.events?.filter((e) => e.workflowExecutionSignaledEventAttributes)).toEqual([]);
    expect(await timelineOf(stack, token, 'webhook_received')).toEqual([]);
    expect(await timelineOf(stack, token, 'status_changed')).toHaveLength(1); // OPEN → PAYMENT_PENDING
    expect(storefrontAOrdersOf(merchant.shop, token)).toEqual([]);
    const mails = emailsOf(stack, token, merchant.email);
    expect([...mails.toShopper, ...mails.toMerchant]).toEqual([]);
  });
});

describe('a store that fails', () => {
  it('given the store fails its first 5 order calls / the workflow retries and the session still ends in exactly one order', async () => {
    const merchant = await storefrontAMerchant(stack, 'Flaky Store');
    const token = await storefrontACheckout(stack, merchant.shop);
    // The store prices the order (its tax) at init-payment; it fails from the moment the shopper is on the payment page.
    const payment = await startPayment(stack, token);
    const fault = await control(stack.urls.storefrontA, 'POST', 'faults', { mode: 'error', status: 500, count: 5, match: storefrontAOrdersPath(merchant.shop) });
    expect(fault.status).toBe(201);

    await payOnHostedPage(token, payment.paymentUrl as string);
    await returnFromPaymentPage(stack, token);
    const t0 = Date.now();
    await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, () => storefrontAOrdersOf(merchant.shop, token).length, 60_000);
    console.log(`[exactly-once] the store order, 5 failed calls later: ${Date.now() - t0} ms after pay`);

    // All 5 failures were served, and the order was created once, by the attempt after them.
    expect((await control(stack.urls.storefrontA, 'GET', 'faults')).body.faults).toEqual([]);
    const created = await timelineOf(stack, token, 'order_created');
    expect(created).toHaveLength(1);
    expect((created[0]!.data as Json).created).toBe(true);
    expect(await timelineOf(stack, token, 'order_failed')).toEqual([]);
  });
});

describe('a store that is down when the shopper pays', () => {
  it('given the store down / the session reads COMPLETED with its store order pending (session API, orders list and detail); once the store answers, created with its id', async () => {
    const merchant = await storefrontAMerchant(stack, 'Down Store');
    const token = await storefrontACheckout(stack, merchant.shop);
    const storeDown = async () => expect((await control(stack.urls.storefrontA, 'POST', 'faults', { mode: 'error', status: 503, count: 1000, match: storefrontAOrdersPath(merchant.shop) })).status).toBe(201);
    const views = async () => {
      const [session, list, detail] = await Promise.all([
        api(stack, 'GET', `/api/checkout/session/${token}`),
        api(stack, 'GET', `/api/checkout/merchant/orders?q=${token}`, undefined, merchant.token),
        api(stack, 'GET', `/api/checkout/merchant/orders/${token}`, undefined, merchant.token),
      ]);
      return { session: session.body, listed: list.body.items[0] as Json, detail: detail.body };
    };
    try {
      // Down before the shopper pays: the store cannot price the order (its tax), so nothing is charged; the page says try again.
      await storeDown();
      const processorCheckouts = stack.sims.processor.store.checkouts.size;
      const bundle = await api(stack, 'GET', `/api/checkout/session-bundle/${token}`);
      const refused = await api(stack, 'POST', `/api/checkout/${token}/init-payment`, { ...SHOPPER, shippingRateId: bundle.body.shipping[0].id });
      expect(refused).toMatchObject({ status: 502, body: { code: 'UPSTREAM_ERROR' } });
      expect((await views()).session).toMatchObject({ status: 'OPEN', storeOrder: null });
      expect(stack.sims.processor.store.checkouts.size).toBe(processorCheckouts);
      // Back for the price, down again once the shopper is on the payment page.
      await control(stack.urls.storefrontA, 'DELETE', 'faults');
      const payment = await startPayment(stack, token);
      await storeDown();
      await payOnHostedPage(token, payment.paymentUrl as string);
      await returnFromPaymentPage(stack, token);
      await waitFor('COMPLETED', async () => ((await sessionStatus(stack, token)) === 'COMPLETED' ? true : undefined));

      const paid = await views();
      expect(paid.session).toMatchObject({ status: 'COMPLETED', storeOrder: { state: 'pending', id: null } });
      expect(paid.session.storeOrderId).toBeUndefined();
      for (const order of [paid.listed, paid.detail]) expect(order).toMatchObject({ status: 'COMPLETED', storeOrderId: null, storeOrderError: false, storeOrder: { state: 'pending', id: null, number: null, error: null } });
      expect(storefrontAOrdersOf(merchant.shop, token)).toEqual([]);
    } finally {
      await control(stack.urls.storefrontA, 'DELETE', 'faults');
    }

    const row = await waitFor('the store order', async () => (await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } })).storeOrderId ?? undefined, 60_000);
    const done = await views();
    expect(done.session).toMatchObject({ status: 'COMPLETED', storeOrderId: row, storeOrder: { state: 'created', id: row } });
    for (const order of [done.listed, done.detail]) expect(order).toMatchObject({ storeOrderId: row, storeOrder: { state: 'created', id: row, error: null } });
    expect(storefrontAOrdersOf(merchant.shop, token)).toHaveLength(1);
  });
});

/** `promise`, or an error naming `what` after `ms`. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('a worker killed right after the store call', () => {
  // A stack of its own without an in-process worker: its task queue is served only by worker processes
  // this test starts and kills.
  let crash: CrashStack;
  beforeAll(async () => {
    crash = await startCrashStack(FAST_STORE_RETRIES);
  });
  afterAll(async () => {
    await crash?.close();
  });

  it('given SIGKILL after the store created the order, before the activity returned / a new worker finds that order through its recorded draft order: still exactly one order, one email each', async () => {
    const first = await crash.startWorker(true);
    const merchant = await storefrontAMerchant(crash, 'Crash Store');
    const token = await storefrontACheckout(crash, merchant.shop);
    const payment = await startPayment(crash, token);
    // The shopper pays; the webhook completes the session and the worker creates the order at the store.
    await payOnHostedPage(token, payment.paymentUrl as string);
    await within(30_000, 'the store order create', first.storeOrderCreated);
    expect(await first.kill('SIGKILL')).toBe('SIGKILL');
    const killedAt = Date.now();

    // The store has the order; the service never heard back: nothing recorded on the session.
    expect(storefrontAOrdersOf(merchant.shop, token)).toHaveLength(1);
    expect((await crash.database.db.checkoutSession.findUniqueOrThrow({ where: { token } })).storeOrderId).toBeNull();
    expect(await timelineOf(crash, token, 'order_created')).toEqual([]);

    // A new worker: the activity times out (startToClose 30 s), is retried there, and finds the order.
    await crash.startWorker(false);
    expect(await returnFromPaymentPage(crash, token)).toBe('COMPLETED');
    const session = await expectCompletedWithOneOrderAndTwoEmails(crash, token, merchant.email, () => storefrontAOrdersOf(merchant.shop, token).length, 120_000);
    console.log(`[exactly-once] the order recorded ${Date.now() - killedAt} ms after the kill`);
    const [order] = storefrontAOrdersOf(merchant.shop, token);
    expect(session.storeOrderId).toBe(String(order!.id));
    const recorded = await timelineOf(crash, token, 'order_created');
    expect(recorded).toHaveLength(1);
    expect((recorded[0]!.data as Json).created).toBe(false); // found through its recorded draft order, not created again
  }, 180_000);
});
