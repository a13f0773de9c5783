// A one-click post-purchase upsell, end to end over HTTP against the Whop simulator: the shopper pays with the card
// saved for off-session charges (the sandbox's stand-in for Whop's embedded checkout with setupFutureUsage:
// "off_session"), accepts the offer, the same card is charged off session (POST /payments on the member's saved
// payment method), and the offer gets its own paid order on the store — exactly once, with one extra email, however
// often the processor repeats the upsell's webhooks, the shopper clicks, or Whop loses the charge's answer and ignores
// its Idempotency-Key. A card paid on Whop's hosted page in payment mode is not saved: nothing is charged then.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack.js';
import {
  api, connectStorefrontBDemo, control, emailsOf, expectCompletedWithOneOrderAndTwoEmails, merchantWithProcessor, shopperPays, storefrontACheckout, storefrontAMerchant, storefrontAOrdersOf,
  storefrontBCheckout, storefrontBOrdersOf, timelineOf, waitFor, type Answer, type Json,
} from './checkout-helpers.js';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({}, { checkoutWorkflowInput: { storeRetryInitialMs: 250 } });
});
afterAll(async () => {
  await stack?.close();
});

/** A storefront A merchant with a post-purchase offer (25 % off 20.00) and a checkout paid by card, its order placed. */
async function paidCheckoutWithOffer(name: string, opts: { saveCard: boolean }) {
  const merchant = await storefrontAMerchant(stack, name);
  const { shop } = merchant;
  const product = shop.products[2]!;
  const offer = await api(stack, 'POST', '/api/merchant/upsells', {
    placement: 'post_purchase', headline: 'One more', productId: String(product.id), variantId: String(product.variants[0]!.id), title: product.title, priceCents: 2000, discountPercent: 25,
  }, merchant.token);
  expect(offer.status, JSON.stringify(offer.body)).toBe(201);
  const token = await storefrontACheckout(stack, shop);
  await shopperPays(stack, token, opts);
  await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, () => storefrontAOrdersOf(shop, token).length);
  return { merchant, shop, upsellId: offer.body.id as string, token };
}

describe('a one-click post-purchase upsell', () => {
  it('given an accepted offer whose payment is refunded at the processor before its order / no order for it on the store, the reason on the purchase, the checkout untouched', async () => {
    const { merchant, shop, upsellId, token } = await paidCheckoutWithOffer('Upsell Refunded Store', { saveCard: true });
    expect((await control(stack.urls.processor, 'POST', 'webhooks/hold')).status).toBe(200);
    const accepted = await api(stack, 'POST', `/api/checkout/${token}/upsells/${upsellId}/accept`);
    const paymentId = accepted.body.paymentId as string;
    await waitFor('the upsell charge settled', async () => {
      const held = ((await control(stack.urls.processor, 'GET', 'webhooks/outbox')).body.events as Json[]).filter((e) => e.payload.data.id === paymentId && e.event === 'payment.succeeded');
      return held.length ? true : undefined;
    });
    // The merchant refunds the offer in the processor's dashboard before anything told us it was paid.
    const res = await fetch(`${stack.urls.processor}/api/v1/payments/${paymentId}/refund`, { method: 'POST', headers: { authorization: `Bearer ${merchant.processorApiKey}`, 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(200);
    await control(stack.urls.processor, 'POST', 'webhooks/release', {});
    await stack.sims.processor.webhooks.idle();
    const purchase = await waitFor('the refused upsell order', async () => {
      const row = await stack.database.db.upsellPurchase.findUniqueOrThrow({ where: { token_upsellId: { token, upsellId } } });
      return row.storeOrderError ? row : undefined;
    });
    expect(purchase).toMatchObject({ storeOrderId: null, storeOrderError: expect.stringContaining('refunded') });
    expect(storefrontAOrdersOf(shop, `${token}-upsell-${upsellId}`)).toHaveLength(0);
    expect(storefrontAOrdersOf(shop, token)).toHaveLength(1);
    expect((await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } })).status).toBe('COMPLETED');
  });

  it('given a paid checkout and an accepted offer with its webhooks delivered 4 times / two paid store orders, three emails, one charge; the stats count it', async () => {
    const merchant = await storefrontAMerchant(stack, 'Upsell Store');
    const { shop } = merchant;
    const product = shop.products[2]!;
    const offer = await api(stack, 'POST', '/api/merchant/upsells', {
      placement: 'post_purchase', headline: 'Complete the look', productId: String(product.id), variantId: String(product.variants[0]!.id), title: product.title, priceCents: 2000, discountPercent: 25,
    }, merchant.token);
    expect(offer.status, JSON.stringify(offer.body)).toBe(201);
    const upsellId = offer.body.id as string;

    const token = await storefrontACheckout(stack, shop);
    // Not paid yet: nothing can be added.
    const early = await api(stack, 'POST', `/api/checkout/${token}/upsells/${upsellId}/accept`);
    expect(early.body).toMatchObject({ code: 'UPSELL_NOT_AVAILABLE' });
    await shopperPays(stack, token, { saveCard: true });
    await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, () => storefrontAOrdersOf(shop, token).length);

    const shown = (await api(stack, 'GET', `/api/checkout/${token}/upsells`)).body.items as Json[];
    expect(shown.map((u) => [u.id, u.offerPrice])).toEqual([[upsellId, { amount: 1500, currency: 'EUR' }]]);

    // Every upsell webhook from here on is delivered 4 times.
    expect((await control(stack.urls.processor, 'POST', 'webhooks/hold')).status).toBe(200);
    const [a, b] = (await Promise.all([1, 2].map(() => api(stack, 'POST', `/api/checkout/${token}/upsells/${upsellId}/accept`)))) as [Answer, Answer];
    expect(a, JSON.stringify(a.body)).toMatchObject({ status: 200, body: { upsellId, amount: { amount: 1500, currency: 'EUR' } } });
    expect(b.body).toEqual(a.body);
    expect(['paid', 'pending']).toContain(a.body.state);
    const paymentId = a.body.paymentId as string;
    expect(paymentId).toMatch(/^pay_/);
    // Whop settles an off-session charge a moment later, then sends its webhook (held here).
    const ours = await waitFor('the upsell payment webhook', async () => {
      const held = ((await control(stack.urls.processor, 'GET', 'webhooks/outbox')).body.events as Json[]).filter((e) => e.payload.data.id === paymentId);
      return held.length ? held : undefined;
    });
    expect(ours.every((e) => e.payload.data.metadata.checkout_upsell_id === upsellId && e.payload.data.metadata.checkout_session_token === token)).toBe(true);
    for (const type of ['payment.succeeded', 'payment.succeeded']) {
      expect((await control(stack.urls.processor, 'POST', 'webhooks/send', { type, objectId: paymentId, times: 2 })).status).toBe(202);
    }
    await control(stack.urls.processor, 'POST', 'webhooks/release', {});
    await stack.sims.processor.webhooks.idle();

    // The offer's own order, paid, at the price charged, to the same address; the checkout's order untouched.
    const orders = await waitFor('the upsell order', () => {
      const found = storefrontAOrdersOf(shop, `${token}-upsell-${upsellId}`);
      return found.length ? found : undefined;
    });
    expect(orders).toHaveLength(1);
    expect(orders[0]).toMatchObject({ total: 1500, financialStatus: 'PAID' });
    expect(storefrontAOrdersOf(shop, token)).toHaveLength(1);
    // Recorded once the store answered (the store has it a moment before).
    const purchase = await waitFor('the recorded upsell order', async () => {
      const row = await stack.database.db.upsellPurchase.findUniqueOrThrow({ where: { token_upsellId: { token, upsellId } } });
      return row.storeOrderId ? row : undefined;
    });
    expect(purchase).toMatchObject({ status: 'PAID', amountMinor: 1500, processorPaymentId: paymentId, storeOrderId: expect.any(String), storeOrderError: null });
    const session = await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } });
    expect(session.status).toBe('COMPLETED');

    // Three emails in all: the confirmation and the upsell's to the shopper, the notification to the merchant.
    const mails = await waitFor('the upsell email', () => {
      const found = emailsOf(stack, token, merchant.email);
      return found.toShopper.length === 2 ? found : undefined;
    });
    expect(mails.toMerchant).toHaveLength(1);
    // The merchant's order page lists the offer with its payment and store order, and its email on the timeline.
    const detail = await api(stack, 'GET', `/api/checkout/merchant/orders/${token}`, undefined, merchant.token);
    expect(detail.body.upsells).toEqual([{
      upsellId, title: product.title, amount: 1500, currency: 'EUR', status: 'paid', failureReason: null, processorPaymentId: paymentId,
      storeOrderId: purchase.storeOrderId, storeOrderError: null, acceptedAt: expect.any(String), paidAt: expect.any(String),
    }]);
    expect((detail.body.timeline as Json[]).filter((e) => e.source === 'email' && e.type === 'upsell_confirmation')).toHaveLength(1);
    expect(mails.toShopper.map((m: Json) => m.Subject as string).sort()).toEqual([expect.stringMatching(/^Added to your order/), expect.stringMatching(/confirmed|Order/)]);
    expect(await timelineOf(stack, token, 'upsell_order_created')).toHaveLength(1);

    // Accepting again answers the same purchase and charges nothing more.
    const again = await api(stack, 'POST', `/api/checkout/${token}/upsells/${upsellId}/accept`);
    expect(again.body).toMatchObject({ upsellId, state: 'paid', paymentId });
    const charges = (await stack.database.db.sessionEvent.findMany({ where: { token, type: 'upsell_payment' } })).map((e) => (e.data as Json).to);
    expect(charges.filter((t) => t === 'PAID')).toHaveLength(1);

    // The statistics count the accepted offer apart from the checkout's revenue.
    const stats = await api(stack, 'GET', '/api/merchant/stats', undefined, merchant.token);
    expect(stats.body.upsells).toEqual([{ currency: 'EUR', accepted: 1, amountMinor: 1500 }]);
  });

  it('given a checkout paid on Whop\'s hosted page in payment mode (the card is not saved) / the offer is not promised with one click, accepting it is refused UPSELL_NOT_AVAILABLE, nothing is charged at Whop and no purchase is recorded', async () => {
    const { shop, upsellId, token } = await paidCheckoutWithOffer('Upsell Hosted Store', { saveCard: false });
    const charged = () => [...stack.sims.processor.store.payments.values()].filter((p) => p.metadata?.checkout_session_token === token);
    expect(charged()).toHaveLength(1);

    expect((await api(stack, 'GET', `/api/checkout/${token}/upsells`)).body).toMatchObject({ items: [expect.objectContaining({ id: upsellId })], oneClick: false });
    const accepted = await api(stack, 'POST', `/api/checkout/${token}/upsells/${upsellId}/accept`);
    expect(accepted, JSON.stringify(accepted.body)).toMatchObject({ status: 409, body: { code: 'UPSELL_NOT_AVAILABLE', error: expect.stringContaining('new order') } });
    expect(charged()).toHaveLength(1);
    expect(await stack.database.db.upsellPurchase.findMany({ where: { token } })).toEqual([]);
    expect(storefrontAOrdersOf(shop, `${token}-upsell-${upsellId}`)).toHaveLength(0);
  });

  it('given a saved card, Whop losing the answer of POST /payments after charging and ignoring the Idempotency-Key of the retry / the retry finds the charge by its metadata: exactly one payment at Whop, one upsell order', async () => {
    const { shop, upsellId, token } = await paidCheckoutWithOffer('Upsell Lost Answer Store', { saveCard: true });

    // No webhook tells us about the charge meanwhile: only the lookup can.
    expect((await control(stack.urls.processor, 'POST', 'webhooks/hold')).status).toBe(200);
    // The first charge is made and its answer lost (the connection drops); the keys of this and the next two are ignored.
    expect((await control(stack.urls.processor, 'POST', 'payments/faults', { loseAnswer: 1, loseAnswerMode: 'drop', ignoreIdempotencyKey: 3 })).status).toBe(200);
    const accepted = await api(stack, 'POST', `/api/checkout/${token}/upsells/${upsellId}/accept`);
    expect(accepted, JSON.stringify(accepted.body)).toMatchObject({ status: 200, body: { upsellId, amount: { amount: 1500, currency: 'EUR' } } });
    const ours = () => [...stack.sims.processor.store.payments.values()].filter((p) => p.metadata?.checkout_upsell_id === upsellId);
    expect(ours()).toHaveLength(1);
    expect(accepted.body.paymentId).toBe(ours()[0]!.id);
    await control(stack.urls.processor, 'POST', 'webhooks/release', {});
    await stack.sims.processor.webhooks.idle();

    const purchase = await waitFor('the recorded upsell order', async () => {
      const row = await stack.database.db.upsellPurchase.findUniqueOrThrow({ where: { token_upsellId: { token, upsellId } } });
      return row.storeOrderId ? row : undefined;
    });
    expect(purchase).toMatchObject({ status: 'PAID', amountMinor: 1500, processorPaymentId: ours()[0]!.id });
    expect(storefrontAOrdersOf(shop, `${token}-upsell-${upsellId}`)).toHaveLength(1);
    // Accepting again charges nothing more.
    expect((await api(stack, 'POST', `/api/checkout/${token}/upsells/${upsellId}/accept`)).body).toMatchObject({ state: 'paid', paymentId: ours()[0]!.id });
    expect(ours()).toHaveLength(1);
  });

  it('given a storefront B checkout and an accepted offer with its webhook delivered twice / the offer is its own paid WooCommerce order, found by its key, and one more email', async () => {
    const merchant = await merchantWithProcessor(stack, 'Upsell B Store');
    const store = await connectStorefrontBDemo(stack, merchant);
    const [simple, other] = store.products.filter((p) => p.option === undefined) as [(typeof store.products)[number], (typeof store.products)[number]];
    const offer = await api(stack, 'POST', '/api/merchant/upsells', {
      placement: 'post_purchase', headline: 'One more?', productId: String(other.id), title: other.name, priceCents: 1000, discountPercent: 10,
    }, merchant.token);
    expect(offer.status, JSON.stringify(offer.body)).toBe(201);
    const upsellId = offer.body.id as string;

    const token = await storefrontBCheckout(stack, [{ productId: simple.id, quantity: 1 }]);
    await shopperPays(stack, token, { saveCard: true });
    await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, () => storefrontBOrdersOf(store, token).length);

    expect((await control(stack.urls.processor, 'POST', 'webhooks/hold')).status).toBe(200);
    const accepted = await api(stack, 'POST', `/api/checkout/${token}/upsells/${upsellId}/accept`);
    expect(accepted, JSON.stringify(accepted.body)).toMatchObject({ status: 200, body: { upsellId, amount: { amount: 900, currency: 'EUR' } } });
    const paymentId = accepted.body.paymentId as string;
    await waitFor('the upsell payment webhook', async () => {
      const held = ((await control(stack.urls.processor, 'GET', 'webhooks/outbox')).body.events as Json[]).filter((e) => e.payload.data.id === paymentId);
      return held.length ? held : undefined;
    });
    expect((await control(stack.urls.processor, 'POST', 'webhooks/send', { type: 'payment.succeeded', objectId: paymentId, times: 2 })).status).toBe(202);
    await control(stack.urls.processor, 'POST', 'webhooks/release', {});
    await stack.sims.processor.webhooks.idle();

    const purchase = await waitFor('the recorded upsell order', async () => {
      const row = await stack.database.db.upsellPurchase.findUniqueOrThrow({ where: { token_upsellId: { token, upsellId } } });
      return row.storeOrderId ? row : undefined;
    });
    expect(purchase).toMatchObject({ status: 'PAID', amountMinor: 900, storeOrderError: null });
    const orders = storefrontBOrdersOf(store, `${token}-upsell-${upsellId}`);
    expect(orders).toHaveLength(1);
    expect(String(orders[0]!.id)).toBe(purchase.storeOrderId);
    expect(orders[0]).toMatchObject({ status: 'processing', total: 900 });
    expect(orders[0]!.lines.map((l) => [l.productId, l.quantity])).toEqual([[other.id, 1]]);
    expect(storefrontBOrdersOf(store, token)).toHaveLength(1);

    const mails = await waitFor('the upsell email', () => {
      const found = emailsOf(stack, token, merchant.email);
      return found.toShopper.length === 2 ? found : undefined;
    });
    expect(mails.toMerchant).toHaveLength(1);
  });
});
