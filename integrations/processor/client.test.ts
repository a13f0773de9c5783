import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { IntegrationError, type IntegrationErrorKind } from '../errors.js';
import { createProcessorClient, type CreatePaymentInput } from './client.js';
import { startProcessor, startWebhookReceiver, type RunningProcessor, type WebhookReceiver, cardForm, postForm } from '../../test/harness/processor.js';

let processor: RunningProcessor;
let receiver: WebhookReceiver;

beforeAll(async () => {
  processor = await startProcessor({ webhookRetryDelaysMs: [] });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await processor.close();
  await receiver.close();
});
beforeEach(async () => {
  await processor.sim.reset();
});

const paymentInput = (token = 'tok_checkout_1'): CreatePaymentInput => ({
  amount: 4_990,
  currency: 'eur',
  metadata: { checkout_session_token: token },
  return_url: 'https://shop.example/thanks',
  description: 'Order from the sandbox',
});

async function errorOf(promise: Promise<unknown>): Promise<IntegrationError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(IntegrationError);
  return err as IntegrationError;
}

async function expectKind(promise: Promise<unknown>, kind: IntegrationErrorKind): Promise<IntegrationError> {
  const err = await errorOf(promise);
  expect(err.kind).toBe(kind);
  expect(err.system).toBe('processor');
  return err;
}

async function paySucceeded(paymentUrl: string): Promise<void> {
  expect((await postForm(paymentUrl, cardForm('4242424242424242'))).status).toBe(303);
}

describe('processor client: account, products, webhooks', () => {
  it('given the seeded key, when validated, then it answers the business behind it, which can be looked up by id', async () => {
    const client = processor.client();
    const business = await client.validateKey();
    expect(business).toMatchObject({ id: 'biz_sandboxdemo', object: 'business' });
    expect(await client.getBusiness(business.id)).toEqual(business);
    await expectKind(client.getBusiness('biz_someoneelse'), 'not_found');
  });

  it('given a new account made on the control plane, when its key is used, then it sees its own business only', async () => {
    const { body } = await processor.control<{ apiKey: string; businessId: string }>('POST', 'accounts', { businessName: 'Second Shop' });
    const other = processor.client({ apiKey: body.apiKey });
    expect(await other.validateKey()).toMatchObject({ id: body.businessId, name: 'Second Shop' });
    const payment = await processor.client().createPayment(paymentInput(), 'key-a');
    await expectKind(other.getPayment(payment.id), 'not_found');
    expect((await processor.control('POST', 'accounts', { apiKey: body.apiKey })).status).toBe(409);
  });

  it('given a product, a webhook registration and its removal, then each answer is typed and the list follows', async () => {
    const client = processor.client();
    const product = await client.createProduct({ name: 'Checkout', description: 'Hosted checkout' });
    expect(product).toMatchObject({ id: expect.stringMatching(/^prod_/), name: 'Checkout', description: 'Hosted checkout' });

    const endpoint = await client.registerWebhook({ url: `${receiver.url}/hook`, events: ['invoice_paid', 'payment_failed'] });
    expect(endpoint).toMatchObject({ id: expect.stringMatching(/^whk_/), events: ['invoice_paid', 'payment_failed'] });
    expect(endpoint.secret).toMatch(/^whsec_/);
    const all = await client.registerWebhook({ url: `${receiver.url}/all` });
    expect(all.events).toContain('payment_refunded');

    const listed = await client.listWebhooks();
    expect(listed.map((w) => w.id)).toEqual([endpoint.id, all.id]);
    expect(listed[0]).not.toHaveProperty('secret');
    expect(await client.deleteWebhook(endpoint.id)).toEqual({ id: endpoint.id, deleted: true });
    expect((await client.listWebhooks()).map((w) => w.id)).toEqual([all.id]);
    await expectKind(client.deleteWebhook(endpoint.id), 'not_found');
  });
});

describe('processor client: payments and refunds', () => {
  it('given a payment request, when created, then it waits for payment on the hosted page and carries the metadata', async () => {
    const client = processor.client();
    const product = await client.createProduct({ name: 'Checkout' });
    const payment = await client.createPayment({ ...paymentInput(), product_id: product.id }, 'pay-1');
    expect(payment).toMatchObject({
      id: expect.stringMatching(/^pay_/),
      status: 'requires_payment',
      amount: 4_990,
      currency: 'EUR',
      product_id: product.id,
      metadata: { checkout_session_token: 'tok_checkout_1' },
      payment_url: `${processor.baseUrl}/pay/${payment.id}`,
    });
    expect(await client.getPayment(payment.id)).toEqual(payment);
    expect(await client.listPayments({ checkoutSessionToken: 'tok_checkout_1' })).toEqual([payment]);
    expect(await client.listPayments({ checkoutSessionToken: 'tok_other' })).toEqual([]);
  });

  it('given the same idempotency key twice, when creating a payment, then there is one payment', async () => {
    const client = processor.client();
    const first = await client.createPayment(paymentInput(), 'same-key');
    const second = await client.createPayment(paymentInput(), 'same-key');
    expect(second.id).toBe(first.id);
    expect(await client.listPayments()).toHaveLength(1);
  });

  it('given a key reused with a different body, when creating a payment, then it is a conflict and nothing is created', async () => {
    const client = processor.client();
    await client.createPayment(paymentInput(), 'reused');
    const err = await expectKind(client.createPayment({ ...paymentInput(), amount: 1 }, 'reused'), 'conflict');
    expect(err.status).toBe(409);
    expect(err.message).toContain('different parameters');
    expect(await client.listPayments()).toHaveLength(1);
  });

  it('given invalid input or an unknown product, when creating a payment, then it is rejected with the processor message', async () => {
    const client = processor.client();
    const err = await expectKind(client.createPayment({ ...paymentInput(), amount: 10.5, currency: 'XXY' }, 'bad-1'), 'rejected');
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/amount.*currency/s);
    await expectKind(client.createPayment({ ...paymentInput(), product_id: 'prod_missing' }, 'bad-2'), 'rejected');
    await expectKind(client.getPayment('pay_missing'), 'not_found');
  });

  it('given a succeeded payment, when refunded twice (same key, then a new key), then there is exactly one refund', async () => {
    const client = processor.client();
    await client.registerWebhook({ url: receiver.url, events: ['payment_refunded'] });
    const payment = await client.createPayment(paymentInput(), 'refund-me');
    await paySucceeded(payment.payment_url);

    const refund = await client.refundPayment(payment.id, 'refund-1');
    expect(refund).toMatchObject({ id: expect.stringMatching(/^re_/), payment_id: payment.id, amount: 4_990, currency: 'EUR', status: 'succeeded' });
    expect(await client.refundPayment(payment.id, 'refund-1')).toEqual(refund);
    expect(await client.refundPayment(payment.id, 'refund-2')).toEqual(refund);
    expect(await client.getPayment(payment.id)).toMatchObject({ status: 'refunded', refund_id: refund.id });

    await processor.sim.webhooks.idle();
    const { body } = await processor.control<{ events: Array<{ event: string }> }>('GET', 'webhooks/events');
    expect(body.events.filter((e) => e.event === 'payment_refunded')).toHaveLength(1);
  });

  it('given a payment that did not succeed, when refunded, then it is rejected (422) and stays as it was', async () => {
    const client = processor.client();
    const payment = await client.createPayment(paymentInput(), 'unpaid');
    const err = await expectKind(client.refundPayment(payment.id, 'refund-unpaid'), 'rejected');
    expect(err.status).toBe(422);
    expect((await client.getPayment(payment.id)).status).toBe('requires_payment');
  });

  it('given a payment moved on the control plane, when read, then the new status shows and no webhook was sent', async () => {
    const client = processor.client();
    await client.registerWebhook({ url: receiver.url });
    const payment = await client.createPayment(paymentInput(), 'silent');
    const moved = await processor.control('POST', `payments/${payment.id}/status`, { status: 'succeeded' });
    expect(moved.status).toBe(200);
    expect((await client.getPayment(payment.id)).status).toBe('succeeded');
    await processor.sim.webhooks.idle();
    expect((await processor.control<{ events: unknown[] }>('GET', 'webhooks/events')).body.events).toEqual([]);
  });
});

describe('processor client: wallet domains, plans and memberships', () => {
  it('given domains, when registered, then they are registered unless the control plane says pending or needs_action', async () => {
    const client = processor.client();
    expect(await client.registerWalletDomain('checkout.shop.example')).toMatchObject({ domain: 'checkout.shop.example', status: 'registered', status_message: null });
    expect((await client.registerWalletDomain('CHECKOUT.shop.example.')).domain).toBe('checkout.shop.example');

    await processor.control('POST', 'wallet_domains', { domain: 'manual.shop.example', status: 'needs_action' });
    const manual = await client.registerWalletDomain('manual.shop.example');
    expect(manual.status).toBe('needs_action');
    expect(manual.status_message).toMatch(/dashboard/);

    await processor.control('POST', 'wallet_domains', { domain: 'checkout.shop.example', status: 'pending' });
    expect((await client.listWalletDomains()).map((d) => [d.domain, d.status])).toEqual([
      ['checkout.shop.example', 'pending'],
      ['manual.shop.example', 'needs_action'],
    ]);
    await expectKind(client.registerWalletDomain('https://not a domain'), 'rejected');
  });

  it('given a plan, when a membership is paid, renewed, fails to renew and is cancelled, then its status follows', async () => {
    const client = processor.client();
    const plan = await client.createPlan({ name: 'Pro', amount: 2_900, currency: 'EUR', interval: 'month' });
    expect(plan).toMatchObject({ id: expect.stringMatching(/^plan_/), amount: 2_900, interval: 'month' });

    const membership = await client.createMembership({ plan_id: plan.id, metadata: { merchant_id: 'm_1' }, return_url: `${receiver.url}/billing` }, 'mem-1');
    expect(membership).toMatchObject({ status: 'pending', valid: false, amount: 2_900, payment_url: expect.stringContaining('/pay/pay_') });
    expect((await client.createMembership({ plan_id: plan.id, metadata: { merchant_id: 'm_1' }, return_url: `${receiver.url}/billing` }, 'mem-1')).id).toBe(membership.id);

    const res = await postForm(membership.payment_url, cardForm('4242424242424242'));
    expect(res.headers.get('location')).toBe(`${receiver.url}/billing?payment_id=${membership.latest_payment_id}&membership_id=${membership.id}`);
    const active = await client.getMembership(membership.id);
    expect(active).toMatchObject({ status: 'active', valid: true });
    expect(active.current_period_end).not.toBeNull();

    expect((await processor.control('POST', `memberships/${membership.id}/renew`, { outcome: 'succeeded' })).status).toBe(200);
    const renewed = await client.getMembership(membership.id);
    expect(renewed.current_period_end! > active.current_period_end!).toBe(true);
    expect(renewed.latest_payment_id).not.toBe(membership.latest_payment_id);

    await processor.control('POST', `memberships/${membership.id}/renew`, { outcome: 'failed' });
    expect(await client.getMembership(membership.id)).toMatchObject({ status: 'past_due', valid: false });

    expect(await client.cancelMembership(membership.id)).toMatchObject({ status: 'canceled', valid: false, canceled_at: expect.any(String) });
    expect((await client.cancelMembership(membership.id)).status).toBe('canceled');
    expect((await processor.control('POST', `memberships/${membership.id}/renew`, { outcome: 'succeeded' })).status).toBe(422);
    await expectKind(client.createMembership({ plan_id: 'plan_missing' }), 'rejected');
    await expectKind(client.getMembership('mem_missing'), 'not_found');
  });
});

describe('processor client: renewing a membership on the card on file', () => {
  it('given an active membership, when the platform charges its renewal, then it is charged once per idempotency key and fails as the control plane says', async () => {
    const client = processor.client({ apiKey: 'sk_sandbox_platform' });
    expect((await client.validateKey()).id).toBe('biz_sandboxplatform');
    const plan = await client.createPlan({ name: 'Starter', amount: 2_900, currency: 'EUR', interval: 'month' }, 'plan-starter');
    expect((await client.createPlan({ name: 'Starter', amount: 2_900, currency: 'EUR', interval: 'month' }, 'plan-starter')).id).toBe(plan.id);
    const pending = await client.createMembership({ plan_id: plan.id, metadata: { platform_billing_merchant_id: 'm_1' } }, 'mem-renew');
    await expectKind(client.renewMembership(pending.id, 'renew-too-early'), 'rejected');
    await paySucceeded(pending.payment_url);
    const active = await client.getMembership(pending.id);

    const renewal = await client.renewMembership(pending.id, 'renew-1');
    expect(renewal).toMatchObject({ status: 'succeeded', amount: 2_900, membership_id: pending.id, metadata: { platform_billing_merchant_id: 'm_1' } });
    expect((await client.renewMembership(pending.id, 'renew-1')).id).toBe(renewal.id);
    expect((await client.getMembership(pending.id)).current_period_end! > active.current_period_end!).toBe(true);

    expect((await processor.control('POST', `memberships/${pending.id}/renewal-outcome`, { outcome: 'failed' })).status).toBe(200);
    expect(await client.renewMembership(pending.id, 'renew-2')).toMatchObject({ status: 'failed', failure_reason: 'card_declined' });
    expect(await client.getMembership(pending.id)).toMatchObject({ status: 'past_due', valid: false });
    await expectKind(processor.client().renewMembership(pending.id, 'renew-3'), 'not_found');
  });
});

describe('processor client: errors', () => {
  it('given a wrong key, when any call is made, then it is unauthorized (the service maps this to INVALID_PROCESSOR_KEY)', async () => {
    const err = await expectKind(processor.client({ apiKey: 'sk_wrong' }).validateKey(), 'unauthorized');
    expect(err.status).toBe(401);
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('Invalid API key');
  });

  it('given a slow processor and a short client time-out, then it is a timeout (→ PROCESSOR_TIMEOUT)', async () => {
    await processor.control('POST', 'faults', { mode: 'slow', delayMs: 300, match: '/v1/me' });
    const err = await expectKind(processor.client({ timeoutMs: 100 }).validateKey(), 'timeout');
    expect(err.retryable).toBe(true);
  });

  it('given a processor that never answers, then it is a timeout', async () => {
    await processor.control('POST', 'faults', { mode: 'timeout', match: '/v1/me' });
    await expectKind(processor.client({ timeoutMs: 100 }).validateKey(), 'timeout');
  });

  it('given a 500, then it is unavailable and retryable', async () => {
    await processor.control('POST', 'faults', { mode: 'error', status: 500 });
    const err = await expectKind(processor.client().validateKey(), 'unavailable');
    expect(err).toMatchObject({ status: 500, retryable: true });
  });

  it('given a 429, then it is rate_limited with the Retry-After delay', async () => {
    await processor.control('POST', 'faults', { mode: 'error', status: 429 });
    const err = await expectKind(processor.client().createProduct({ name: 'x' }), 'rate_limited');
    expect(err.retryAfterMs).toBe(1_000);
  });

  it('given a processor that is not listening, then it is unavailable', async () => {
    const client = createProcessorClient({ apiKey: 'sk', baseUrl: 'http://127.0.0.1:1', timeoutMs: 2_000 });
    await expectKind(client.validateKey(), 'unavailable');
  });

  it('given an answer that is not in the protocol shape, then it is invalid_response', async () => {
    const bodies: Record<string, string> = { '/v1/me': '{"id":42,"object":"business"}', '/v1/payments/pay_1': '' };
    const server = createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(bodies[req.url ?? ''] ?? '{}'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const client = createProcessorClient({ apiKey: 'sk', baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
      const err = await expectKind(client.validateKey(), 'invalid_response');
      expect(err.retryable).toBe(false);
      await expectKind(client.getPayment('pay_1'), 'invalid_response');
      await expectKind(client.listWalletDomains(), 'invalid_response');
    } finally {
      server.close();
    }
  });

  it('given two injected 500s, when the caller retries retryable errors with the same idempotency key, then the third try creates exactly one payment', async () => {
    await processor.control('POST', 'faults', { mode: 'error', status: 500, count: 2, match: '/v1/payments', method: 'POST' });
    const client = processor.client();
    const errors: string[] = [];
    let payment;
    for (let attempt = 1; attempt <= 5 && !payment; attempt++) {
      try {
        payment = await client.createPayment(paymentInput(), 'retry-key');
      } catch (err) {
        if (!(err instanceof IntegrationError) || !err.retryable) throw err;
        errors.push(err.kind);
      }
    }
    expect(errors).toEqual(['unavailable', 'unavailable']);
    expect(payment?.status).toBe('requires_payment');
    expect(await client.listPayments()).toHaveLength(1);
  });

  it('given a create that timed out on the client but completed on the processor, when retried with the same key, then it answers that payment', async () => {
    await processor.control('POST', 'faults', { mode: 'slow', delayMs: 250, match: '/v1/payments', method: 'POST' });
    await expectKind(processor.client({ timeoutMs: 50 }).createPayment(paymentInput(), 'slow-key'), 'timeout');
    await new Promise((r) => setTimeout(r, 400));
    const client = processor.client();
    const payment = await client.createPayment(paymentInput(), 'slow-key');
    expect((await client.listPayments()).map((p) => p.id)).toEqual([payment.id]);
  });
});
