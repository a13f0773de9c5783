// The promise, end to end and through HTTP only: a store cart becomes a checkout session, the shopper
// pays on the processor's page, the signed webhook completes the session, and the merchant's store gets
// exactly one order while the shopper and the merchant get one email each. Once per storefront.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack.js';
import { DEMO_STORE } from '../../sandbox/storefront-b/state.js';
import {
  api, expectCompletedWithOneOrderAndTwoEmails, merchantWithProcessor, shopperPays, storefrontACheckout, storefrontAMerchant, storefrontAOrdersOf, type Json,
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
    expect(order!.financialStatus).toBe('paid');
    expect(order!.total).toBe(payment.totalMinor);
  });

  it('given a storefront B cart handed over by the plugin / the same path ends in one order and two emails', async () => {
    const merchant = await merchantWithProcessor(stack, 'Beta Store');
    const connect = await api(stack, 'POST', '/api/merchant/storefront-b/connect', { storeUrl: `${stack.urls.storefrontB}/stores/demo`, consumerKey: DEMO_STORE.consumerKey, consumerSecret: DEMO_STORE.consumerSecret }, merchant.token);
    expect(connect.status, JSON.stringify(connect.body)).toBe(200);

    const store = stack.sims.storefrontB.stores.get('demo')!;
    const simple = store.products.find((p) => p.option === undefined)!;
    // The shopper's click on the store's checkout button; the plugin calls our create and redirects.
    const click = await fetch(`${stack.urls.storefrontB}/_control/stores/demo/checkout`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ productId: simple.id, quantity: 3 }] }),
    });
    const clicked = (await click.json()) as Json;
    expect(clicked.interception?.outcome, JSON.stringify(clicked)).not.toBe('error');
    const token = new URL(clicked.location as string).pathname.split('/').pop()!;
    expect(token).toMatch(/^cs_/);

    const payment = await shopperPays(stack, token);
    expect(payment.totalMinor).toBe(3 * simple.price + 490);

    const ordersForToken = () => [...store.orders.values()].filter((o) => o.metaData.some((m) => m.key === 'checkout_session_token' && m.value === token)).length;
    await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, ordersForToken);
  });
});
