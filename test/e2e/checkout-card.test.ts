// The promise, end to end and through HTTP only: a store cart becomes a checkout session, the shopper
// pays on the processor's page, the signed webhook completes the session, and the merchant's store gets
// exactly one order while the shopper and the merchant get one email each. Once per storefront.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack.js';
import {
  api, connectStorefrontBDemo, control, expectCompletedWithOneOrderAndTwoEmails, expectStorefrontACartEmptied, merchantWithProcessor, payOnHostedPage, sessionStatus, SHOPPER, shopperPays, startPayment, storefrontACheckout, storefrontAMerchant, storefrontAOrdersOf,
  storefrontBCheckout, storefrontBOrdersOf, timelineOf, type Json,
} from './checkout-helpers.js';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

describe('a card checkout, end to end over HTTP', () => {
  it('given a storefront A cart / create → bundle → init-payment → pay → webhook → COMPLETED → one order, two emails', async () => {
    const merchant = await storefrontAMerchant(stack, 'Alpha Store');
    const { shop } = merchant;
    const [tote, tee] = [shop.products[0]!.variants[0]!, shop.products[3]!.variants[1]!];
    const token = await storefrontACheckout(stack, shop, [{ variantId: tote.id, quantity: 2 }, { variantId: tee.id, quantity: 1 }]);

    const payment = await shopperPays(stack, token);
    expect(payment.totalMinor).toBe(2 * tote.price + tee.price + 490);

    await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, () => storefrontAOrdersOf(shop, token).length);
    const [order] = storefrontAOrdersOf(shop, token);
    expect(order!.financialStatus).toBe('PAID');
    expect(order!.total).toBe(payment.totalMinor);
    // The shopper's cart at the store is emptied once the order is placed.
    await expectStorefrontACartEmptied(stack, shop, token);
    expect((await timelineOf(stack, token, 'store_cart_emptied')).map((e) => e.data)).toEqual([{ lines: 2 }]);
  });

  it('given a storefront B cart handed over by the plugin / the same path ends in one order and two emails', async () => {
    const merchant = await merchantWithProcessor(stack, 'Beta Store');
    const store = await connectStorefrontBDemo(stack, merchant);
    const simple = store.products.find((p) => p.option === undefined)!;
    const token = await storefrontBCheckout(stack, [{ productId: simple.id, quantity: 3 }]);

    const payment = await shopperPays(stack, token);
    expect(payment.totalMinor).toBe(3 * simple.price + 490);

    await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, () => storefrontBOrdersOf(store, token).length);
  });

  it('given the processor failing while the payment starts, and on the return / 502 UPSTREAM_ERROR each time, nothing lost: the next click pays and the order comes', async () => {
    const merchant = await storefrontAMerchant(stack, 'Gamma Store');
    const token = await storefrontACheckout(stack, merchant.shop);
    const rate = (await api(stack, 'GET', `/api/checkout/session-bundle/${token}`)).body.shipping[0] as Json;
    const details = { ...SHOPPER, shippingRateId: rate.id };

    // Every attempt of the activity fails (it tries 3 times): the shopper gets an answer to act on, not a 500.
    expect((await control(stack.urls.processor, 'POST', 'faults', { mode: 'error', status: 500, count: 3, match: '/api/v1/checkout_configurations', method: 'POST' })).status).toBe(201);
    const failed = await api(stack, 'POST', `/api/checkout/${token}/init-payment`, details);
    expect(failed).toMatchObject({ status: 502, body: { code: 'UPSTREAM_ERROR', error: expect.stringContaining('The processor could not be reached') } });
    expect(await sessionStatus(stack, token)).toBe('OPEN');
    expect((await control(stack.urls.processor, 'GET', 'faults')).body.faults).toEqual([]);

    const payment = await startPayment(stack, token);
    // The success webhook waits at the processor, so pay's lookup is the only one meeting the faults below.
    expect((await control(stack.urls.processor, 'POST', 'webhooks/hold')).status).toBe(200);
    await payOnHostedPage(token, payment.paymentUrl as string);
    // Back from the payment page while the processor fails its lookups: pay says so (the page then follows the
    // session's status); the payment itself is not lost.
    expect((await control(stack.urls.processor, 'POST', 'faults', { mode: 'error', status: 503, count: 3, match: '/api/v1/payments', method: 'GET' })).status).toBe(201);
    const pay = await api(stack, 'POST', `/api/checkout/${token}/pay`);
    expect(pay).toMatchObject({ status: 502, body: { code: 'UPSTREAM_ERROR' } });
    expect((await control(stack.urls.processor, 'POST', 'webhooks/release', {})).status).toBe(200);
    await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, () => storefrontAOrdersOf(merchant.shop, token).length);
  });
});
