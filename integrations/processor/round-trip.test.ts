// The round trip the service depends on, over real HTTP end to end: a payment with the session token in
// its metadata is created, the customer pays on the hosted test page (GET the page, POST its form, follow
// the redirect), and the signed webhook reaches the merchant endpoint, where the service's own
// verifyWebhookSignature accepts it and rejects a tampered copy.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CreatedWebhookEndpoint, Payment } from './schemas.js';
import { verifyWebhookSignature } from './signature.js';
import { cardForm, postForm, startProcessor, startWebhookReceiver, type RunningProcessor, type WebhookReceiver } from '../../test/harness/processor.js';
import { webhookPayloadSchema } from './webhook.js';

let processor: RunningProcessor;
let receiver: WebhookReceiver;
let endpoint: CreatedWebhookEndpoint;

beforeAll(async () => {
  processor = await startProcessor({ webhookRetryDelaysMs: [20] });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await processor.close();
  await receiver.close();
});
beforeEach(async () => {
  await processor.sim.reset();
  receiver.received.length = 0;
  receiver.visits.length = 0;
  endpoint = await processor.client().registerWebhook({ url: `${receiver.url}/webhooks/processor/payment-update` });
});

async function createPayment(token: string, returnUrl: string | null = `${receiver.url}/checkout/${token}/return`): Promise<Payment> {
  return processor.client().createPayment(
    { amount: 12_345, currency: 'EUR', metadata: { checkout_session_token: token }, description: 'Order #1001', ...(returnUrl ? { return_url: returnUrl } : {}) },
    `create-${token}`,
  );
}

/** Loads the hosted page like a browser and answers its HTML and the absolute URL its (first) form posts to. */
async function openPage(url: string): Promise<{ status: number; html: string; action: string }> {
  const res = await fetch(url);
  const html = await res.text();
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1] ?? '';
  return { status: res.status, html, action: new URL(action.replace(/&#38;/g, '&'), url).toString() };
}

const statusOf = async (id: string) => (await processor.client().getPayment(id)).status;

describe('payment round trip', () => {
  it('given a payment, when paid with the success card on the hosted page, then the customer returns to the shop and a verifiable signed webhook arrives', async () => {
    const payment = await createPayment('tok_roundtrip');

    const page = await openPage(payment.payment_url);
    expect(page.status).toBe(200);
    expect(page.html).toContain('€123.45');
    expect(page.html).toContain('name="card_number"');
    expect(page.action).toBe(payment.payment_url);

    const submitted = await postForm(page.action, cardForm('4242 4242 4242 4242', '12/39', '123'));
    expect(submitted.status).toBe(303);
    const location = submitted.headers.get('location')!;
    expect(location).toBe(`${receiver.url}/checkout/tok_roundtrip/return?payment_id=${payment.id}`);
    expect((await fetch(location)).status).toBe(200);
    expect(receiver.visits).toEqual([`/checkout/tok_roundtrip/return?payment_id=${payment.id}`]);

    const webhooks = await receiver.waitFor(2);
    for (const webhook of webhooks) {
      const signature = webhook.headers['x-processor-signature'] as string;
      expect(verifyWebhookSignature(endpoint.secret, webhook.rawBody, signature)).toBe(true);
      const payload = webhookPayloadSchema.parse(JSON.parse(webhook.rawBody.toString('utf8')));
      expect(payload.data).toMatchObject({ id: payment.id, status: 'succeeded', metadata: { checkout_session_token: 'tok_roundtrip' } });

      const tampered = Buffer.from(webhook.rawBody.toString('utf8').replace('tok_roundtrip', 'tok_attacker'));
      expect(verifyWebhookSignature(endpoint.secret, tampered, signature)).toBe(false);
      expect(verifyWebhookSignature('whsec_not_the_secret', webhook.rawBody, signature)).toBe(false);
    }
    expect(webhooks.map((w) => w.json.event).sort()).toEqual(['invoice_paid', 'payment_succeeded']);

    const paid = await processor.client().getPayment(payment.id);
    expect(paid).toMatchObject({ status: 'succeeded', card_last4: '4242', paid_at: expect.any(String) });
    expect(JSON.stringify(paid)).not.toContain('4242424242424242');

    const after = await openPage(payment.payment_url);
    expect(after.html).toContain('data-status="succeeded"');
    expect((await postForm(payment.payment_url, cardForm('4242424242424242'))).status).toBe(409);
    expect(await receiver.waitFor(2)).toHaveLength(2);
  });

  it('given the decline card, when paid, then the page shows the decline, the shop is not visited, and payment_failed arrives', async () => {
    const payment = await createPayment('tok_declined');
    const page = await openPage(payment.payment_url);
    const submitted = await postForm(page.action, cardForm('4000000000000002'));
    expect(submitted.status).toBe(303);
    const shown = await openPage(new URL(submitted.headers.get('location')!, payment.payment_url).toString());
    expect(shown.html).toContain('data-status="failed"');
    expect(shown.html).toContain('card declined');

    const webhooks = await receiver.waitFor(2);
    expect(webhooks.map((w) => w.json.event).sort()).toEqual(['invoice_payment_failed', 'payment_failed']);
    expect(webhooks.every((w) => verifyWebhookSignature(endpoint.secret, w.rawBody, w.headers['x-processor-signature'] as string))).toBe(true);
    expect(await processor.client().getPayment(payment.id)).toMatchObject({ status: 'failed', failure_reason: 'card_declined', card_last4: '0002' });
    expect(receiver.visits).toEqual([]);
  });

  it('given the authentication card, when paid, then an authenticate step comes first and Complete finishes the payment', async () => {
    const payment = await createPayment('tok_3ds');
    const submitted = await postForm((await openPage(payment.payment_url)).action, cardForm('4000002500003155'));
    expect(submitted.status).toBe(303);

    const challenge = await openPage(new URL(submitted.headers.get('location')!, payment.payment_url).toString());
    expect(challenge.html).toContain('>Complete</button>');
    expect(challenge.action).toBe(`${payment.payment_url}/authenticate`);
    expect(await statusOf(payment.id)).toBe('requires_action');
    await processor.sim.webhooks.idle();
    expect(receiver.received).toEqual([]);

    const completed = await postForm(challenge.action, new URLSearchParams({ action: 'complete' }));
    expect(completed.status).toBe(303);
    expect(completed.headers.get('location')).toBe(`${receiver.url}/checkout/tok_3ds/return?payment_id=${payment.id}`);
    expect(await statusOf(payment.id)).toBe('succeeded');
    expect((await receiver.waitFor(2)).map((w) => w.json.event).sort()).toEqual(['invoice_paid', 'payment_succeeded']);
  });

  it('given the authentication card, when authentication fails, then the payment fails', async () => {
    const payment = await createPayment('tok_3ds_fail');
    await postForm(payment.payment_url, cardForm('4000002500003155'));
    expect((await postForm(`${payment.payment_url}/authenticate`, new URLSearchParams({ action: 'fail' }))).status).toBe(303);
    expect(await processor.client().getPayment(payment.id)).toMatchObject({ status: 'failed', failure_reason: 'authentication_failed' });
    expect((await receiver.waitFor(2)).map((w) => w.json.event).sort()).toEqual(['invoice_payment_failed', 'payment_failed']);
  });

  it('given no return URL, when paid, then the hosted page itself shows the success', async () => {
    const payment = await createPayment('tok_no_return', null);
    const submitted = await postForm(payment.payment_url, cardForm('4242424242424242'));
    expect(submitted.headers.get('location')).toBe(`/pay/${payment.id}`);
    expect((await openPage(payment.payment_url)).html).toContain('Payment succeeded');
  });

  it('given invalid card details or a non-test card, when submitted, then the form comes back with the error and the payment is untouched', async () => {
    const payment = await createPayment('tok_invalid');
    const cases: Array<[URLSearchParams, number, string]> = [
      [cardForm('4242424242424241'), 400, 'card number is invalid'],
      [cardForm('4242424242424242', '13/30'), 400, 'expiration date is invalid'],
      [cardForm('4242424242424242', '01/20'), 400, 'in the past'],
      [cardForm('4242424242424242', '12/39', '1'), 400, 'security code'],
      [cardForm('5555555555554444'), 402, 'use one of the test cards'],
    ];
    for (const [form, status, message] of cases) {
      const res = await postForm(payment.payment_url, form);
      expect(res.status).toBe(status);
      expect(await res.text()).toContain(message);
    }
    expect(await statusOf(payment.id)).toBe('requires_payment');
    expect((await fetch(`${processor.baseUrl}/pay/pay_unknown`)).status).toBe(404);
  });

  it('given a description with markup, when the page renders, then it is escaped', async () => {
    const payment = await processor.client().createPayment(
      { amount: 100, currency: 'EUR', metadata: { checkout_session_token: 't' }, description: '<script>alert(1)</script>' },
      'xss',
    );
    const { html } = await openPage(payment.payment_url);
    expect(html).not.toContain('<script>');
    expect(html).toContain('&#60;script&#62;');
  });
});
