// Contract: the local Whop (sandbox/processor) answers the official SDK (@whop/sdk 0.0.42, pointed at it with
// baseURL) for every operation the service uses, and every webhook it sends is signed as Whop signs it (Whop's
// whop-sandbox notes, "verified live"): an endpoint made with webhooks.create gets only x-whop-signature
// (t=<unix>,v1=<hex HMAC-SHA256 of "t.body"> keyed with the raw `ws_…` secret), which the SDK's unwrap rejects;
// one made in the dashboard gets Standard Webhooks, which standardwebhooks and unwrap verify under Whop's key rule
// (base64 of the secret's UTF-8 bytes). A simulator that drifts from what the SDK sends or expects fails here,
// whatever our own client does.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import Whop from '@whop/sdk';
import { Webhook } from 'standardwebhooks';
import { startProcessor, startWebhookReceiver, type ReceivedWebhook, type RunningProcessor, type WebhookReceiver } from '../harness/processor.js';

let processor: RunningProcessor;
let receiver: WebhookReceiver;
const apiBase = () => `${processor.baseUrl}/api/v1`;
const sdk = (apiKey = processor.sim.defaultApiKey, opts: { maxRetries?: number; timeout?: number } = {}) =>
  new Whop({ apiKey, baseURL: apiBase(), maxRetries: opts.maxRetries ?? 0, timeout: opts.timeout ?? 5_000, webhookKey: null });
const company = () => processor.sim.defaultBusinessId;
const idem = (key: string) => ({ headers: { 'Idempotency-Key': key } });
/** Whop's documented key rule: the SDK and standardwebhooks take base64 of the secret string's bytes. */
const keyOf = (secret: string) => Buffer.from(secret, 'utf8').toString('base64');
const headersOf = (w: ReceivedWebhook) => Object.fromEntries(Object.entries(w.headers).map(([k, v]) => [k, String(v)]));

/**
 * Whop's x-whop-signature as its notes describe it (written here from them, not from our client): one t, within
 * 5 minutes, and a v1 that is the hex HMAC-SHA256 of "<t>.<body>" keyed with the raw secret.
 */
function whopSignatureMatches(secret: string, body: string, header: string): boolean {
  const parts = header.split(',').map((p) => p.split('='));
  const t = parts.filter(([k]) => k === 't').map(([, v]) => v!);
  if (t.length !== 1 || Math.abs(Date.now() / 1000 - Number(t[0])) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t[0]}.${body}`).digest();
  return parts.filter(([k]) => k === 'v1').some(([, v]) => /^[0-9a-f]{64}$/.test(v!) && timingSafeEqual(Buffer.from(v!, 'hex'), expected));
}

/**
 * Every delivery the receiver got is signed as Whop signs an endpoint made with webhooks.create: x-whop-signature
 * with the secret, no Standard Webhooks headers, so the SDK's unwrap refuses it.
 */
function expectAllVerified(secret: string) {
  expect(receiver.received.length).toBeGreaterThan(0);
  for (const w of receiver.received) {
    const body = w.rawBody.toString('utf8');
    expect(w.headers['webhook-signature']).toBeUndefined();
    expect(w.headers['webhook-id']).toBeUndefined();
    expect(whopSignatureMatches(secret, body, String(w.headers['x-whop-signature']))).toBe(true);
    expect(() => sdk().webhooks.unwrap(body, { headers: headersOf(w), key: keyOf(secret) })).toThrow();
  }
}

/** Every delivery verifies as from a dashboard-made endpoint: standardwebhooks and the SDK's unwrap, no x-whop-signature. */
function expectAllVerifiedStandard(secret: string) {
  expect(receiver.received.length).toBeGreaterThan(0);
  for (const w of receiver.received) {
    const body = w.rawBody.toString('utf8');
    expect(w.headers['x-whop-signature']).toBeUndefined();
    expect(new Webhook(keyOf(secret)).verify(body, headersOf(w))).toMatchObject({ id: w.headers['webhook-id'], api_version: 'v1' });
    expect(sdk().webhooks.unwrap(body, { headers: headersOf(w), key: keyOf(secret) })).toHaveProperty('type');
  }
}

/** An endpoint made in Whop's dashboard (the simulator's control plane stands for the merchant's clicks). */
async function dashboardWebhook(events?: string[]) {
  const made = await processor.control<{ id: string; webhook_secret: string }>('POST', 'webhooks/dashboard', { businessId: company(), url: `${receiver.url}/wh`, ...(events ? { events } : {}) });
  expect(made.status).toBe(201);
  return made.body;
}

/**
 * Pays a purchase_url like a browser: the page, then the card form; answers the redirect. `saveCard`: the form's stand-in
 * for Whop's embedded checkout with setupFutureUsage: "off_session" (the hosted page itself saves nothing).
 */
async function payOnPage(purchaseUrl: string, card = '4242 4242 4242 4242', opts: { saveCard?: boolean } = {}): Promise<URL> {
  expect((await fetch(purchaseUrl)).status).toBe(200);
  const paid = await fetch(purchaseUrl, {
    method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email: 'jane@example.com', card_number: card, expiry: '12/34', cvc: '123', ...(opts.saveCard ? { setup_future_usage: 'off_session' } : {}) }).toString(),
  });
  expect(paid.status).toBe(303);
  return new URL(paid.headers.get('location')!, purchaseUrl);
}

/** A member with a card saved for off-session charges (paid with the embed's stand-in), and the product it bought. */
async function savedCard(): Promise<{ member: string; method: string; product: string }> {
  const product = await sdk().products.create({ title: 'Checkout', account_id: company() });
  const checkout = await sdk().checkoutConfigurations.create({ plan: { product_id: product.id, initial_price: 10, currency: 'usd' } });
  const paid = await processor.control<{ member: { id: string }; payment_method: { id: string } }>('POST', `checkout_configurations/${checkout.id}/pay`, { setupFutureUsage: 'off_session' });
  return { member: paid.body.member.id, method: paid.body.payment_method.id, product: product.id };
}

beforeAll(async () => {
  processor = await startProcessor({ webhookRetryDelaysMs: [50, 100] });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await processor?.close();
});
beforeEach(async () => {
  await processor.sim.reset();
  receiver.received.length = 0;
});

describe('the official SDK against the local Whop', () => {
  it('accounts.me() is the key check: the Business ID of the key; a wrong key is the SDK\'s AuthenticationError', async () => {
    const me = await sdk().accounts.me();
    expect(me).toMatchObject({ id: company(), title: expect.any(String) });
    expect(me.id).toMatch(/^biz_/);
    await expect(sdk('apik_wrong_key_123').accounts.me()).rejects.toBeInstanceOf(Whop.AuthenticationError);
  });

  it('products.create with an Idempotency-Key answers the same product again (Idempotent-Replayed), another body with it is a 400', async () => {
    const first = await sdk().products.create({ title: 'Checkout', account_id: company(), visibility: 'hidden' }, idem('product-1'));
    expect(first.id).toMatch(/^prod_/);
    const { data, response } = await sdk().products.create({ title: 'Checkout', account_id: company(), visibility: 'hidden' }, idem('product-1')).withResponse();
    expect(data.id).toBe(first.id);
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    await expect(sdk().products.create({ title: 'Other', account_id: company() }, idem('product-1'))).rejects.toBeInstanceOf(Whop.BadRequestError);
    expect((await sdk().products.retrieve(first.id)).title).toBe('Checkout');
  });

  it('webhooks.create answers webhook_secret once (list and retrieve never show it); webhooks.delete answers true', async () => {
    const created = await sdk().webhooks.create({ url: `${receiver.url}/wh`, events: ['payment.succeeded'], resource_id: company(), api_version: 'v1' });
    expect(created.id).toMatch(/^hook_/);
    expect(created.webhook_secret).toMatch(/^ws_/);
    const page = await sdk().webhooks.list({ company_id: company() });
    expect(page.data.map((w) => w.id)).toEqual([created.id]);
    expect(page.data[0]).not.toHaveProperty('webhook_secret');
    expect(await sdk().webhooks.delete(created.id)).toBe(true);
    await expect(sdk().webhooks.retrieve(created.id)).rejects.toBeInstanceOf(Whop.NotFoundError);
  });

  it('a card checkout: checkoutConfigurations.create → purchase_url → paid → redirect with payment_id, payment.succeeded signed, payments.list/retrieve in decimals', async () => {
    const hook = await sdk().webhooks.create({ url: `${receiver.url}/wh`, events: ['payment.succeeded', 'payment.pending'], resource_id: company(), api_version: 'v1' });
    const product = await sdk().products.create({ title: 'Checkout', account_id: company(), visibility: 'hidden' });
    const checkout = await sdk().checkoutConfigurations.create({
      plan: { product_id: product.id, plan_type: 'one_time', initial_price: 59.98, currency: 'eur', visibility: 'hidden', title: 'Order' },
      metadata: { checkout_session_token: 'cs_contract' },
      redirect_url: 'https://shop.example/checkout/cs_contract',
    }, idem('checkout-cs_contract-1'));
    expect(checkout.id).toMatch(/^ch_/);
    expect(checkout.plan).toMatchObject({ plan_type: 'one_time', initial_price: 59.98, currency: 'eur' });
    expect(checkout.purchase_url).toBe(`${processor.baseUrl}/checkout/${checkout.plan!.id}/?session=${checkout.id}`);

    const back = await payOnPage(checkout.purchase_url!);
    expect(back.origin + back.pathname).toBe('https://shop.example/checkout/cs_contract');
    expect(back.searchParams.get('checkout_status')).toBe('success');
    const paymentId = back.searchParams.get('payment_id')!;

    const page = await sdk().payments.list({ company_id: company(), checkout_configuration_ids: [checkout.id] });
    expect(page.data.map((p) => p.id)).toEqual([paymentId]);
    const payment = await sdk().payments.retrieve(paymentId);
    expect(payment).toMatchObject({ status: 'paid', substatus: 'succeeded', total: 59.98, currency: 'eur', checkout_configuration_id: checkout.id, metadata: { checkout_session_token: 'cs_contract' } });
    expect(payment.member?.id).toMatch(/^mber_/);
    expect(payment.payment_method?.id).toMatch(/^payt_/);

    const [delivery] = await receiver.waitFor(1);
    expect(delivery!.json).toMatchObject({ type: 'payment.succeeded', api_version: 'v1', id: expect.stringMatching(/^msg_/), data: { id: paymentId, metadata: { checkout_session_token: 'cs_contract' } } });
    expectAllVerified(hook.webhook_secret);
  });

  it("checkoutConfigurations.create with payment_method_configuration (wallets switched off): create and retrieve answer it as sent; without one it is null (Whop's defaults); a malformed one is the SDK's BadRequestError", async () => {
    const plan = { plan_type: 'one_time' as const, initial_price: 12, currency: 'eur' as const };
    const walletsOff = { disabled: ['apple_pay', 'google_pay'], enabled: [], include_platform_defaults: true };
    const off = await sdk().checkoutConfigurations.create({ plan, metadata: { checkout_session_token: 'cs_pm' }, redirect_url: 'https://shop.example/pm', payment_method_configuration: walletsOff });
    expect(off.payment_method_configuration).toEqual(walletsOff);
    expect((await sdk().checkoutConfigurations.retrieve(off.id)).payment_method_configuration).toEqual(walletsOff);

    const defaults = await sdk().checkoutConfigurations.create({ plan, redirect_url: 'https://shop.example/pm' });
    expect(defaults.payment_method_configuration).toBeNull();
    expect((await sdk().checkoutConfigurations.retrieve(defaults.id)).payment_method_configuration).toBeNull();

    await expect(sdk().checkoutConfigurations.create({ plan, payment_method_configuration: { disabled: ['Apple Pay'], enabled: [], include_platform_defaults: true } })).rejects.toBeInstanceOf(Whop.BadRequestError);
  });

  it('payments.refund answers the Payment, refunded in full; a second full refund is the SDK\'s BadRequestError; refund.* events verify', async () => {
    const hook = await sdk().webhooks.create({ url: `${receiver.url}/wh`, events: ['refund.created', 'refund.updated'], resource_id: company() });
    const checkout = await sdk().checkoutConfigurations.create({ plan: { plan_type: 'one_time', initial_price: 10, currency: 'usd' }, metadata: { checkout_session_token: 'cs_r' }, redirect_url: 'https://shop.example/r' });
    const paymentId = (await payOnPage(checkout.purchase_url!)).searchParams.get('payment_id')!;
    const refunded = await sdk().payments.refund(paymentId, {}, idem('refund-cs_r'));
    expect(refunded).toMatchObject({ id: paymentId, status: 'paid', substatus: 'refunded', refunded_amount: 10, refundable: false });
    expect(refunded.refunds?.[0]).toMatchObject({ id: expect.stringMatching(/^rf_/), amount: 10, status: 'succeeded' });
    // The same key replays the first answer; without it, Whop refuses a second refund.
    expect((await sdk().payments.refund(paymentId, {}, idem('refund-cs_r'))).id).toBe(paymentId);
    await expect(sdk().payments.refund(paymentId, {})).rejects.toBeInstanceOf(Whop.BadRequestError);
    const events = await receiver.waitFor(2);
    expect(events.map((e) => e.json.type)).toEqual(['refund.created', 'refund.updated']);
    expect(events[1]!.json).toMatchObject({ data: { status: 'succeeded', payment: { id: paymentId, metadata: { checkout_session_token: 'cs_r' } } } });
    expectAllVerified(hook.webhook_secret);
  });

  it('partial refunds: payments.refund with partial_amount leaves the payment paid, partially_refunded, refundable; refunds.list({ payment_id }) lists each with its amount; more than is left is refused (4xx)', async () => {
    const checkout = await sdk().checkoutConfigurations.create({ plan: { plan_type: 'one_time', initial_price: 54.7, currency: 'eur' }, metadata: { checkout_session_token: 'cs_p' }, redirect_url: 'https://shop.example/p' });
    const paymentId = (await payOnPage(checkout.purchase_url!)).searchParams.get('payment_id')!;
    const first = await sdk().payments.refund(paymentId, { partial_amount: 1 }, idem('refund-p-1'));
    expect(first).toMatchObject({ id: paymentId, status: 'paid', substatus: 'partially_refunded', refunded_amount: 1, refundable: true });
    const second = await sdk().payments.refund(paymentId, { partial_amount: 3.7 }, idem('refund-p-2'));
    expect(second).toMatchObject({ substatus: 'partially_refunded', refunded_amount: 4.7 });
    await expect(sdk().payments.refund(paymentId, { partial_amount: 50.01 })).rejects.toMatchObject({ status: expect.toSatisfy((s: number) => s >= 400 && s < 500) });

    const refunds = await sdk().refunds.list({ payment_id: paymentId });
    expect(refunds.data.map((r) => [r.amount, r.currency, r.status, r.payment?.id])).toEqual([[3.7, 'eur', 'succeeded', paymentId], [1, 'eur', 'succeeded', paymentId]]);
    expect(await sdk().refunds.retrieve(refunds.data[1]!.id)).toMatchObject({ id: refunds.data[1]!.id, amount: 1 });
    // The rest refunds it in full.
    expect(await sdk().payments.refund(paymentId, {}, idem('refund-p-3'))).toMatchObject({ substatus: 'refunded', refunded_amount: 54.7, refundable: false });
    expect((await sdk().refunds.list({ payment_id: paymentId })).data.map((r) => r.amount)).toEqual([50, 3.7, 1]);
  });

  it('disputes: dispute.created and dispute.updated as the SDK types them (unwrap verifies each, to a dashboard endpoint), a final status; disputes.retrieve answers the Dispute', async () => {
    const hook = await dashboardWebhook(['dispute.created', 'dispute.updated']);
    const checkout = await sdk().checkoutConfigurations.create({ plan: { plan_type: 'one_time', initial_price: 24.5, currency: 'eur' }, metadata: { checkout_session_token: 'cs_d' }, redirect_url: 'https://shop.example/d' });
    const paymentId = (await payOnPage(checkout.purchase_url!)).searchParams.get('payment_id')!;
    const opened = await processor.control<{ id: string }>('POST', `payments/${paymentId}/dispute`, { reason: 'fraudulent' });
    expect(opened.status).toBe(201);
    expect((await processor.control('POST', `disputes/${opened.body.id}/status`, { status: 'lost' })).status).toBe(200);
    const events = await receiver.waitFor(2);
    expectAllVerifiedStandard(hook.webhook_secret);
    const unwrapped = events.map((e) => sdk().webhooks.unwrap(e.rawBody.toString('utf8'), { headers: headersOf(e), key: keyOf(hook.webhook_secret) }));
    expect(unwrapped.map((e) => e.type)).toEqual(['dispute.created', 'dispute.updated']);
    const [created, updated] = unwrapped;
    if (created?.type !== 'dispute.created' || updated?.type !== 'dispute.updated') throw new Error('not dispute events');
    // Typed by the SDK: Dispute's fields (src/resources/disputes.ts), the payment without our metadata, the company it names.
    expect(created.data).toMatchObject({ id: opened.body.id, amount: 24.5, currency: 'eur', reason: 'fraudulent', status: 'needs_response', payment: { id: paymentId }, company: { id: company() } });
    expect(created.company_id).toBe(company());
    expect(updated.data.status).toBe('lost');
    const retrieved = await sdk().disputes.retrieve(opened.body.id);
    expect(retrieved).toMatchObject({ id: opened.body.id, status: 'lost', payment: { id: paymentId } });
    // Only an existing payment can be disputed (a checkout configuration is not one).
    const unpaid = await sdk().checkoutConfigurations.create({ plan: { plan_type: 'one_time', initial_price: 5, currency: 'eur' } });
    expect((await processor.control('POST', `payments/${unpaid.id}/dispute`, {})).status).toBe(404);
  });

  it('payments.create charges a method saved with setupFutureUsage off_session: listed by paymentMethods.list({ member_id }), a Payment at once, payment.succeeded after', async () => {
    const hook = await sdk().webhooks.create({ url: `${receiver.url}/wh`, events: ['payment.succeeded', 'payment.failed'], resource_id: company() });
    const product = await sdk().products.create({ title: 'Checkout', account_id: company() });
    const checkout = await sdk().checkoutConfigurations.create({ plan: { product_id: product.id, plan_type: 'one_time', initial_price: 20, currency: 'usd' }, metadata: { checkout_session_token: 'cs_u' }, redirect_url: 'https://shop.example/r' });
    const first = await sdk().payments.retrieve((await payOnPage(checkout.purchase_url!, undefined, { saveCard: true })).searchParams.get('payment_id')!);
    await receiver.waitFor(1);
    const saved = await sdk().paymentMethods.list({ member_id: first.member!.id });
    expect(saved.data).toEqual([expect.objectContaining({ id: first.payment_method!.id, typename: 'CardPaymentMethod', payment_method_type: 'card', card: expect.objectContaining({ last4: '4242' }) })]);
    expect((await sdk().paymentMethods.list({ company_id: company() })).data.map((m) => m.id)).toEqual([first.payment_method!.id]);
    expect(await sdk().paymentMethods.retrieve(first.payment_method!.id, { member_id: first.member!.id })).toMatchObject({ id: first.payment_method!.id });

    const upsell = await sdk().payments.create({
      company_id: company(), member_id: first.member!.id, payment_method_id: first.payment_method!.id,
      plan: { currency: 'usd', plan_type: 'one_time', initial_price: 9.5, product_id: product.id, visibility: 'hidden' },
      metadata: { checkout_session_token: 'cs_u', upsell_offer_id: 'up_1' },
    }, idem('upsell-cs_u-up_1'));
    expect(upsell).toMatchObject({ total: 9.5, currency: 'usd', metadata: { upsell_offer_id: 'up_1' } });
    expect(upsell.status).not.toBe('paid');
    const [, settled] = await receiver.waitFor(2);
    expect(settled!.json).toMatchObject({ type: 'payment.succeeded', data: { id: upsell.id, total: 9.5 } });
    expect((await sdk().payments.retrieve(upsell.id)).status).toBe('paid');
    // Another member's method is refused.
    await expect(sdk().payments.create({ company_id: company(), member_id: first.member!.id, payment_method_id: 'payt_nope', plan_id: first.plan!.id })).rejects.toBeInstanceOf(Whop.BadRequestError);
    expectAllVerified(hook.webhook_secret);
  });

  it('a card paid on the hosted page in payment mode is not saved: paymentMethods.list is empty for the member and payments.create with it is the SDK\'s BadRequestError in Whop\'s error shape, nothing charged', async () => {
    const product = await sdk().products.create({ title: 'Checkout', account_id: company() });
    const checkout = await sdk().checkoutConfigurations.create({ plan: { product_id: product.id, plan_type: 'one_time', initial_price: 20, currency: 'usd' }, metadata: { checkout_session_token: 'cs_h' }, redirect_url: 'https://shop.example/r' });
    const first = await sdk().payments.retrieve((await payOnPage(checkout.purchase_url!)).searchParams.get('payment_id')!);
    // The payment shows the card it was paid with, all the same.
    expect(first.payment_method?.id).toMatch(/^payt_/);
    expect((await sdk().paymentMethods.list({ member_id: first.member!.id })).data).toEqual([]);
    await expect(sdk().paymentMethods.retrieve(first.payment_method!.id, { member_id: first.member!.id })).rejects.toBeInstanceOf(Whop.NotFoundError);
    const refused = await sdk().payments.create({
      company_id: company(), member_id: first.member!.id, payment_method_id: first.payment_method!.id,
      plan: { currency: 'usd', plan_type: 'one_time', initial_price: 9.5, product_id: product.id }, metadata: { checkout_session_token: 'cs_h' },
    }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Whop.BadRequestError);
    expect((refused as InstanceType<typeof Whop.BadRequestError>).error).toMatchObject({ error: { type: 'invalid_request', message: expect.stringContaining('not saved') } });
    expect((await sdk().payments.list({ company_id: company() })).data.map((p) => p.id)).toEqual([first.id]);
    // Both filters at once are refused, as the SDK documents ("either this or member_id, not both").
    await expect(sdk().paymentMethods.list({ member_id: first.member!.id, company_id: company() })).rejects.toBeInstanceOf(Whop.BadRequestError);
  });

  it('a setup-mode checkout saves the card without charging: setup_intent.succeeded with the configuration\'s metadata, the method listed and chargeable', async () => {
    const hook = await sdk().webhooks.create({ url: `${receiver.url}/wh`, events: ['setup_intent.succeeded'], resource_id: company() });
    const product = await sdk().products.create({ title: 'Checkout', account_id: company() });
    const setup = await sdk().checkoutConfigurations.create({ mode: 'setup', metadata: { customer: 'c_1' }, redirect_url: 'https://shop.example/r' });
    expect(setup).toMatchObject({ mode: 'setup', plan: null });
    const paid = await processor.control<{ id: string; status: string; member: { id: string }; payment_method: { id: string } }>('POST', `checkout_configurations/${setup.id}/pay`, { email: 'sam@example.com' });
    expect(paid.body).toMatchObject({ status: 'succeeded', checkout_configuration: { id: setup.id }, metadata: { customer: 'c_1' } });
    const [delivery] = await receiver.waitFor(1);
    expect(delivery!.json).toMatchObject({ type: 'setup_intent.succeeded', data: { id: paid.body.id, payment_method: { id: paid.body.payment_method.id } } });
    expectAllVerified(hook.webhook_secret);
    expect((await sdk().payments.list({ company_id: company() })).data).toEqual([]);
    expect((await sdk().paymentMethods.list({ member_id: paid.body.member.id })).data.map((m) => m.id)).toEqual([paid.body.payment_method.id]);
    const charge = await sdk().payments.create({ company_id: company(), member_id: paid.body.member.id, payment_method_id: paid.body.payment_method.id, plan: { currency: 'usd', initial_price: 5, product_id: product.id } });
    expect(charge).toMatchObject({ total: 5, member: { id: paid.body.member.id } });
  });

  it('payments.list filters by product_ids and created_after / created_before (how a charge whose answer was lost is found again); a malformed timestamp is a 400', async () => {
    const [a, b] = [await sdk().products.create({ title: 'A' }), await sdk().products.create({ title: 'B' })];
    const pay = async (productId: string, token: string) => {
      const c = await sdk().checkoutConfigurations.create({ plan: { product_id: productId, initial_price: 3, currency: 'usd' }, metadata: { checkout_session_token: token } });
      return (await processor.control<{ id: string; created_at: string }>('POST', `checkout_configurations/${c.id}/pay`, {})).body;
    };
    const old = await pay(a.id, 'cs_old');
    await new Promise((r) => setTimeout(r, 5));
    const between = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 5));
    const recent = await pay(a.id, 'cs_new');
    await pay(b.id, 'cs_other');
    expect((await sdk().payments.list({ company_id: company(), product_ids: [a.id] })).data.map((p) => p.id)).toEqual([recent.id, old.id]);
    const since = await sdk().payments.list({ company_id: company(), product_ids: [a.id], created_after: between });
    expect(since.data.map((p) => [p.id, p.metadata])).toEqual([[recent.id, { checkout_session_token: 'cs_new' }]]);
    expect((await sdk().payments.list({ company_id: company(), product_ids: [a.id], created_before: between })).data.map((p) => p.id)).toEqual([old.id]);
    await expect(sdk().payments.list({ company_id: company(), created_after: 'yesterday' })).rejects.toBeInstanceOf(Whop.BadRequestError);
  });

  it('currencies: a plan or checkout in a currency outside Whop\'s enum (ISK, UAH: ISO codes all the same) is the SDK\'s BadRequestError; an enum member in any case is taken', async () => {
    const product = await sdk().products.create({ title: 'Checkout', account_id: company(), visibility: 'hidden' });
    // The SDK types currency as its enum; a store's ISO code reaches it as a plain string.
    const foreign = (code: string) => code as 'eur';
    await expect(sdk().plans.create({ account_id: company(), product_id: product.id, plan_type: 'one_time', initial_price: 10, currency: foreign('isk') })).rejects.toBeInstanceOf(Whop.BadRequestError);
    await expect(sdk().checkoutConfigurations.create({ plan: { product_id: product.id, plan_type: 'one_time', initial_price: 10, currency: foreign('uah') } })).rejects.toBeInstanceOf(Whop.BadRequestError);
    expect((await sdk().plans.create({ account_id: company(), product_id: product.id, plan_type: 'one_time', initial_price: 10, currency: foreign('KWD') })).currency).toBe('kwd');
  });

  it('plan billing: plans.create (renewal) → checkout with plan_id → membership active; Whop renews; memberships.list/retrieve/cancel', async () => {
    const hook = await sdk().webhooks.create({ url: `${receiver.url}/wh`, resource_id: company() });
    const product = await sdk().products.create({ title: 'Platform', account_id: company() });
    const plan = await sdk().plans.create({ account_id: company(), product_id: product.id, plan_type: 'renewal', initial_price: 0, renewal_price: 29, billing_period: 30, currency: 'eur', visibility: 'hidden' });
    expect(plan).toMatchObject({ plan_type: 'renewal', renewal_price: 29, billing_period: 30, currency: 'eur' });
    const checkout = await sdk().checkoutConfigurations.create({ plan_id: plan.id, metadata: { platform_billing_merchant_id: 'm_1' }, redirect_url: 'https://app.example/billing' });
    const paymentId = (await payOnPage(checkout.purchase_url!)).searchParams.get('payment_id')!;
    const payment = await sdk().payments.retrieve(paymentId);
    expect(payment).toMatchObject({ total: 29, billing_reason: 'subscription_create' });
    const membership = await sdk().memberships.retrieve(payment.membership!.id);
    expect(membership).toMatchObject({ status: 'active', metadata: { platform_billing_merchant_id: 'm_1' }, plan: { id: plan.id } });

    await processor.control('POST', `memberships/${membership.id}/renew`, { outcome: 'succeeded' });
    const renewed = await sdk().memberships.retrieve(membership.id);
    expect(renewed.renewal_period_end! > membership.renewal_period_end!).toBe(true);
    expect((await sdk().memberships.list({ company_id: company(), plan_ids: [plan.id] })).data.map((m) => m.id)).toEqual([membership.id]);

    const canceled = await sdk().memberships.cancel(membership.id, { cancellation_mode: 'at_period_end' });
    expect(canceled).toMatchObject({ status: 'active', cancel_at_period_end: true });
    expect((await sdk().memberships.cancel(membership.id, { cancellation_mode: 'immediate' })).status).toBe('canceled');
    const types = (await receiver.waitFor(5)).map((w) => w.json.type);
    expect(types).toEqual(expect.arrayContaining(['payment.succeeded', 'membership.activated', 'membership.cancel_at_period_end_changed', 'membership.deactivated']));
    expectAllVerified(hook.webhook_secret);
  });

  it('a membership\'s life as plan billing follows it: a declined renewal (payment.failed, membership.deactivated past_due), the retry that pays (payment.succeeded subscription_cycle, membership.activated), an immediate cancel (membership.deactivated canceled): each delivery verifies and carries the checkout\'s metadata', async () => {
    const hook = await sdk().webhooks.create({ url: `${receiver.url}/wh`, resource_id: company(), api_version: 'v1' });
    const product = await sdk().products.create({ title: 'Platform', account_id: company() });
    const plan = await sdk().plans.create({ account_id: company(), product_id: product.id, plan_type: 'renewal', initial_price: 0, renewal_price: 29, billing_period: 30, currency: 'eur' });
    const checkout = await sdk().checkoutConfigurations.create({ plan_id: plan.id, metadata: { platform_billing_merchant_id: 'm_2' }, redirect_url: 'https://app.example/billing' });
    const membershipId = (await sdk().payments.retrieve((await payOnPage(checkout.purchase_url!)).searchParams.get('payment_id')!)).membership!.id;
    await receiver.waitFor(2);
    receiver.received.length = 0;
    const metadata = { platform_billing_merchant_id: 'm_2' };

    await processor.control('POST', `memberships/${membershipId}/renew`, { outcome: 'failed' });
    const declined = await receiver.waitFor(2);
    expect(declined.map((w) => w.json)).toEqual([
      expect.objectContaining({ type: 'payment.failed', data: expect.objectContaining({ billing_reason: 'subscription_cycle', substatus: 'failed', metadata, membership: expect.objectContaining({ id: membershipId, status: 'past_due' }) }) }),
      expect.objectContaining({ type: 'membership.deactivated', data: expect.objectContaining({ id: membershipId, status: 'past_due', metadata }) }),
    ]);
    expect((await sdk().memberships.retrieve(membershipId)).status).toBe('past_due');

    await processor.control('POST', `memberships/${membershipId}/renew`, { outcome: 'succeeded' });
    const retried = (await receiver.waitFor(4)).slice(2);
    expect(retried.map((w) => w.json)).toEqual([
      expect.objectContaining({ type: 'payment.succeeded', data: expect.objectContaining({ billing_reason: 'subscription_cycle', status: 'paid', metadata, membership: expect.objectContaining({ id: membershipId, status: 'active' }) }) }),
      expect.objectContaining({ type: 'membership.activated', data: expect.objectContaining({ id: membershipId, status: 'active', metadata }) }),
    ]);

    expect((await sdk().memberships.cancel(membershipId, { cancellation_mode: 'immediate' })).status).toBe('canceled');
    const [ended] = (await receiver.waitFor(5)).slice(4);
    expect(ended!.json).toMatchObject({ type: 'membership.deactivated', data: { id: membershipId, status: 'canceled', metadata } });
    expectAllVerified(hook.webhook_secret);
  });

  it('lists are { data, page_info } with cursors; the SDK\'s auto-pagination ends on end_cursor null', async () => {
    for (let i = 0; i < 5; i++) await sdk().products.create({ title: `P${i}` }).then((p) => sdk().checkoutConfigurations.create({ plan: { product_id: p.id, initial_price: 1 + i, currency: 'usd' } })).then((c) => processor.control('POST', `checkout_configurations/${c.id}/pay`, {}));
    const first = await sdk().payments.list({ company_id: company(), first: 2 });
    expect(first.data).toHaveLength(2);
    expect(first.page_info.end_cursor).toEqual(expect.any(String));
    expect(first.page_info).toMatchObject({ has_next_page: true, has_previous_page: false });
    const all = [];
    for await (const p of sdk().payments.list({ company_id: company(), first: 2 })) all.push(p.id);
    expect(new Set(all).size).toBe(5);
  });
});

describe('Whop on a live account (issue 35 items 1, 2, 5)', () => {
  it('webhooks.create refuses membership.activated and membership.deactivated with a 400 in Whop\'s error shape naming them; the other names, and no list at all, are taken', async () => {
    for (const refused of [['membership.activated'], ['payment.succeeded', 'membership.deactivated']] as const) {
      const err = await sdk().webhooks.create({ url: `${receiver.url}/wh`, events: [...refused], resource_id: company(), api_version: 'v1' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Whop.BadRequestError);
      const body = (err as InstanceType<typeof Whop.BadRequestError>).error as { error: { type: string; message: string } };
      expect(body.error).toMatchObject({ type: expect.any(String), message: expect.stringContaining(refused.at(-1)!) });
    }
    expect((await sdk().webhooks.list({ company_id: company() })).data).toHaveLength(0);
    const taken = await sdk().webhooks.create({ url: `${receiver.url}/wh`, events: ['payment.succeeded', 'membership.cancel_at_period_end_changed', 'invoice.paid'], resource_id: company(), api_version: 'v1' });
    expect(taken.events).toEqual(['payment.succeeded', 'membership.cancel_at_period_end_changed', 'invoice.paid']);
    expect((await sdk().webhooks.create({ url: `${receiver.url}/all`, resource_id: company() })).id).toMatch(/^hook_/);
    // A name refused from now on (the control plane's fault), as Whop might one day.
    await processor.control('POST', 'webhooks/refused-events', { events: ['dispute.updated'] });
    await expect(sdk().webhooks.create({ url: `${receiver.url}/wh`, events: ['dispute.updated'], resource_id: company() })).rejects.toMatchObject({ status: 400, error: { error: { message: expect.stringContaining('dispute.updated') } } });
  });

  it('an endpoint made with webhooks.create gets x-whop-signature only (unwrap rejects it); one made in the dashboard gets Standard Webhooks (unwrap verifies it); both carry the same body', async () => {
    const api = await sdk().webhooks.create({ url: `${receiver.url}/wh`, events: ['payment.succeeded'], resource_id: company(), api_version: 'v5' });
    const checkout = await sdk().checkoutConfigurations.create({ plan: { plan_type: 'one_time', initial_price: 12.5, currency: 'usd' }, metadata: { checkout_session_token: 'cs_sig' }, redirect_url: 'https://shop.example/s' });
    await payOnPage(checkout.purchase_url!);
    const [viaApi] = await receiver.waitFor(1);
    expect(String(viaApi!.headers['x-whop-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expectAllVerified(api.webhook_secret);
    // Keyed with the raw secret string: not with its base64-decoded form.
    expect(whopSignatureMatches(Buffer.from(api.webhook_secret, 'base64').toString('latin1'), viaApi!.rawBody.toString('utf8'), String(viaApi!.headers['x-whop-signature']))).toBe(false);

    await sdk().webhooks.delete(api.id);
    receiver.received.length = 0;
    const dashboard = await dashboardWebhook(['payment.succeeded', 'membership.activated']);
    const again = await sdk().checkoutConfigurations.create({ plan: { plan_type: 'one_time', initial_price: 12.5, currency: 'usd' }, metadata: { checkout_session_token: 'cs_sig2' }, redirect_url: 'https://shop.example/s' });
    await payOnPage(again.purchase_url!);
    const got = await receiver.waitFor(2);
    expect(got.map((w) => w.json.type)).toEqual(['payment.succeeded', 'membership.activated']);
    expectAllVerifiedStandard(dashboard.webhook_secret);
    expect(Object.keys(got[0]!.json).sort()).toEqual(Object.keys(viaApi!.json).sort());
  });

  it('a sale of the company\'s own (no checkout of ours): payment.succeeded reaches the company\'s endpoint without anyone\'s metadata, naming the company', async () => {
    const hook = await sdk().webhooks.create({ url: `${receiver.url}/wh`, events: ['payment.succeeded'], resource_id: company(), api_version: 'v1' });
    const sale = await processor.control<{ id: string; total: number; metadata: unknown }>('POST', 'payments/foreign', { businessId: company(), amount: 42 });
    expect(sale.status).toBe(201);
    expect(sale.body).toMatchObject({ total: 42, status: 'paid' });
    const [delivery] = await receiver.waitFor(1);
    expect(delivery!.json).toMatchObject({ type: 'payment.succeeded', company_id: company(), data: { id: sale.body.id, company: { id: company() } } });
    const metadata = (delivery!.json.data as { metadata?: Record<string, unknown> | null }).metadata;
    expect(metadata ?? {}).not.toHaveProperty('checkout_session_token');
    expect((await sdk().payments.retrieve(sale.body.id)).status).toBe('paid');
    expectAllVerified(hook.webhook_secret);
  });
});

describe('the company lists the processor sweep reads (issue 35: a lost webhook cannot hide a refund or a dispute)', () => {
  const tick = () => new Promise((r) => setTimeout(r, 5));

  it('given refunds made in the dashboard without their webhooks / refunds.list({ company_id, created_after, direction: asc }) lists them oldest first, strictly after, paged by cursor; another company is refused', async () => {
    const hook = await sdk().webhooks.create({ url: `${receiver.url}/wh`, events: ['refund.created', 'refund.updated'], resource_id: company() });
    const paid = async (price: number) => {
      const checkout = await sdk().checkoutConfigurations.create({ plan: { plan_type: 'one_time', initial_price: price, currency: 'eur' }, metadata: { checkout_session_token: `cs_${price}` }, redirect_url: 'https://shop.example/r' });
      return (await payOnPage(checkout.purchase_url!)).searchParams.get('payment_id')!;
    };
    const [a, b] = [await paid(10), await paid(20)];
    const refunded = [];
    for (const [paymentId, amount] of [[a, 1], [b, 2], [a, 3]] as const) {
      await tick();
      expect((await processor.control('POST', `payments/${paymentId}/refund`, { amount, silent: true })).status).toBe(201);
      refunded.push(amount);
    }
    // Silent: no refund.* delivery left for the endpoint.
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.received).toEqual([]);

    const all = await sdk().refunds.list({ company_id: company(), created_after: '2000-01-01T00:00:00.000Z', direction: 'asc' });
    expect(all.data.map((r) => [r.amount, r.payment?.id, r.status])).toEqual([[1, a, 'succeeded'], [2, b, 'succeeded'], [3, a, 'succeeded']]);
    // Strictly after: the first one's created_at leaves it out.
    const after = await sdk().refunds.list({ company_id: company(), created_after: all.data[0]!.created_at, direction: 'asc' });
    expect(after.data.map((r) => r.amount)).toEqual([2, 3]);
    // Paged: one at a time, the cursor carries on with the same filter; the last page has no cursor.
    const first = await sdk().refunds.list({ company_id: company(), created_after: '2000-01-01T00:00:00.000Z', direction: 'asc', first: 2 });
    expect(first.data.map((r) => r.amount)).toEqual([1, 2]);
    expect(first.page_info).toMatchObject({ has_next_page: true, end_cursor: expect.any(String) });
    const second = await sdk().refunds.list({ company_id: company(), created_after: '2000-01-01T00:00:00.000Z', direction: 'asc', first: 2, after: first.page_info.end_cursor! });
    expect(second.data.map((r) => r.amount)).toEqual([3]);
    expect(second.page_info).toMatchObject({ has_next_page: false, end_cursor: null });
    // Newest first by default.
    expect((await sdk().refunds.list({ company_id: company() })).data.map((r) => r.amount)).toEqual([3, 2, 1]);
    await expect(sdk().refunds.list({ company_id: 'biz_someoneelse' })).rejects.toBeInstanceOf(Whop.PermissionDeniedError);
    expect(hook.id).toMatch(/^hook_/);
  });

  it('given disputes, one without its dispute.created / disputes.list({ company_id, created_after, direction: asc }) lists both as the SDK types them; company_id is required', async () => {
    const hook = await sdk().webhooks.create({ url: `${receiver.url}/wh`, events: ['dispute.created', 'dispute.updated'], resource_id: company() });
    const checkout = await sdk().checkoutConfigurations.create({ plan: { plan_type: 'one_time', initial_price: 30, currency: 'eur' }, metadata: { checkout_session_token: 'cs_dl' }, redirect_url: 'https://shop.example/d' });
    const paymentId = (await payOnPage(checkout.purchase_url!)).searchParams.get('payment_id')!;
    const heard = await processor.control<{ id: string }>('POST', `payments/${paymentId}/dispute`, { reason: 'fraudulent' });
    await receiver.waitFor(1);
    expectAllVerified(hook.webhook_secret);
    await tick();
    const lost = await processor.control<{ id: string }>('POST', `payments/${paymentId}/dispute`, { reason: 'duplicate', amount: 5, silent: true });
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.received).toHaveLength(1);

    const listed = await sdk().disputes.list({ company_id: company(), created_after: '2000-01-01T00:00:00.000Z', direction: 'asc', first: 100 });
    expect(listed.data.map((d) => [d.id, d.amount, d.currency, d.status, d.reason, d.payment?.id, d.company?.id])).toEqual([
      [heard.body.id, 30, 'eur', 'needs_response', 'fraudulent', paymentId, company()],
      [lost.body.id, 5, 'eur', 'needs_response', 'duplicate', paymentId, company()],
    ]);
    expect(listed.data.every((d) => typeof d.created_at === 'string')).toBe(true);
    const later = await sdk().disputes.list({ company_id: company(), created_after: listed.data[0]!.created_at!, direction: 'asc' });
    expect(later.data.map((d) => d.id)).toEqual([lost.body.id]);
    expect((await sdk().disputes.list({ company_id: company() })).data.map((d) => d.id)).toEqual([lost.body.id, heard.body.id]);
    await expect(sdk().disputes.list({} as Whop.DisputeListParams)).rejects.toBeInstanceOf(Whop.BadRequestError);
    await expect(sdk().disputes.list({ company_id: 'biz_someoneelse' })).rejects.toBeInstanceOf(Whop.PermissionDeniedError);
  });
});

describe('faults the SDK reacts to', () => {
  it('429 carries Retry-After and Whop\'s body: RateLimitError without retries, success after the SDK\'s own retry', async () => {
    await processor.control('POST', 'faults', { mode: 'error', status: 429, count: 1, match: '/api/v1/accounts/me' });
    const err = await sdk().accounts.me().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Whop.RateLimitError);
    expect((err as InstanceType<typeof Whop.RateLimitError>).headers.get('retry-after')).toBe('1');
    expect((err as InstanceType<typeof Whop.RateLimitError>).error).toMatchObject({ error: { type: 'rate_limit_exceeded' } });
    await processor.control('POST', 'faults', { mode: 'error', status: 503, count: 1, match: '/api/v1/accounts/me' });
    expect((await sdk(undefined, { maxRetries: 2 }).accounts.me()).id).toBe(company());
  });

  it('a time-out is the SDK\'s APIConnectionTimeoutError; 5xx its InternalServerError', async () => {
    await processor.control('POST', 'faults', { mode: 'timeout', count: 1, match: '/api/v1/payments' });
    await expect(sdk(undefined, { timeout: 300 }).payments.list({ company_id: company() })).rejects.toBeInstanceOf(Whop.APIConnectionTimeoutError);
    await processor.control('POST', 'faults', { mode: 'error', status: 500, count: 1, match: '/api/v1/payments' });
    await expect(sdk().payments.list({ company_id: company() })).rejects.toBeInstanceOf(Whop.InternalServerError);
  });

  it('POST /payments, Idempotency-Key honoured (the default): the same key answers the same payment; with the key ignored (one shot) a second charge is made', async () => {
    const { member, method, product } = await savedCard();
    const charge = () => sdk().payments.create({ company_id: company(), member_id: member, payment_method_id: method, plan: { currency: 'usd', initial_price: 4, product_id: product }, metadata: { k: 'v' } }, idem('upsell-key-1'));
    const first = await charge();
    expect((await charge()).id).toBe(first.id);
    expect((await processor.control('POST', 'payments/faults', { ignoreIdempotencyKey: 1 })).body).toMatchObject({ ignoreIdempotencyKey: 1 });
    const second = await charge();
    expect(second.id).not.toBe(first.id);
    // One shot: the key is honoured again (and still answers the first payment).
    expect((await charge()).id).toBe(first.id);
    expect((await sdk().payments.list({ company_id: company(), product_ids: [product] })).data.filter((p) => p.metadata?.k === 'v')).toHaveLength(2);
  });

  it('POST /payments whose answer is lost: the charge is made, the SDK times out (or the connection drops); payments.list by product and creation time finds it with its metadata, and a retry with the key answers it', async () => {
    const { member, method, product } = await savedCard();
    const since = new Date(Date.now() - 1000).toISOString();
    const body = { company_id: company(), member_id: member, payment_method_id: method, plan: { currency: 'usd' as const, initial_price: 7, product_id: product }, metadata: { checkout_session_token: 'cs_l', checkout_upsell_id: 'up_l' } };
    await processor.control('POST', 'payments/faults', { loseAnswer: 1 });
    await expect(sdk(undefined, { timeout: 300 }).payments.create(body, idem('upsell-cs_l-up_l'))).rejects.toBeInstanceOf(Whop.APIConnectionTimeoutError);
    const made = (await sdk().payments.list({ company_id: company(), product_ids: [product], created_after: since })).data.filter((p) => p.metadata?.checkout_upsell_id === 'up_l');
    expect(made).toHaveLength(1);
    // One shot; the answer was stored, so the same key answers the same payment.
    expect((await sdk().payments.create(body, idem('upsell-cs_l-up_l'))).id).toBe(made[0]!.id);

    await processor.control('POST', 'payments/faults', { loseAnswer: 1, loseAnswerMode: 'drop' });
    const dropped = await sdk().payments.create({ ...body, metadata: { checkout_upsell_id: 'up_d' } }, idem('upsell-d')).catch((e: unknown) => e);
    expect(dropped).toBeInstanceOf(Whop.APIConnectionError);
    expect((await sdk().payments.list({ company_id: company(), product_ids: [product] })).data.filter((p) => p.metadata?.checkout_upsell_id === 'up_d')).toHaveLength(1);
  });

  it('duplicates, reordering, redelivery and secret rotation (a dashboard endpoint): every delivery still verifies (with either secret while rotating)', async () => {
    const hook = await dashboardWebhook(['payment.succeeded', 'membership.activated']);
    await processor.control('POST', 'webhooks/hold');
    const checkout = await sdk().checkoutConfigurations.create({ plan: { initial_price: 5, currency: 'usd' } });
    await payOnPage(checkout.purchase_url!);
    const outbox = (await processor.control<{ events: Array<{ id: string; event: string }> }>('GET', 'webhooks/outbox')).body.events;
    expect(outbox.map((e) => e.event)).toEqual(['payment.succeeded', 'membership.activated']);
    await processor.control('POST', 'webhooks/release', { ids: [outbox[1]!.id, outbox[0]!.id] });
    await processor.control('POST', 'webhooks/redeliver', { eventId: outbox[0]!.id, times: 2 });
    const got = await receiver.waitFor(4);
    expect(got.map((w) => w.json.id)).toEqual([outbox[1]!.id, outbox[0]!.id, outbox[0]!.id, outbox[0]!.id]);
    expectAllVerifiedStandard(hook.webhook_secret);

    const rotated = (await processor.control<{ webhook_secret: string }>('POST', `webhooks/${hook.id}/rotate`)).body.webhook_secret;
    receiver.received.length = 0;
    await processor.control('POST', 'webhooks/redeliver', { eventId: outbox[0]!.id });
    const [both] = await receiver.waitFor(1);
    expect(String(both!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expectAllVerifiedStandard(hook.webhook_secret);
    expectAllVerifiedStandard(rotated);
  });

  it('a failing endpoint gets Whop\'s retries, each attempt signed afresh', async () => {
    const hook = await sdk().webhooks.create({ url: `${receiver.url}/wh`, events: ['payment.succeeded'], resource_id: company() });
    receiver.respondWith(500, 503);
    const checkout = await sdk().checkoutConfigurations.create({ plan: { initial_price: 5, currency: 'usd' } });
    await payOnPage(checkout.purchase_url!);
    const got = await receiver.waitFor(3);
    expect(got.map((w) => w.status)).toEqual([500, 503, 200]);
    expect(new Set(got.map((w) => w.json.id)).size).toBe(1);
    expectAllVerified(hook.webhook_secret);
  });
});
