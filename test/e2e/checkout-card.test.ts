// The promise, end to end and through HTTP only: a store cart becomes a checkout session, the shopper
// pays on the processor's page, the signed webhook completes the session, and the merchant's store gets
// exactly one order while the shopper and the merchant get one email each. Once per storefront.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack.js';
import {
  connectStorefrontBDemo, expectCompletedWithOneOrderAndTwoEmails, merchantWithProcessor, shopperPays, storefrontACheckout, storefrontAMerchant, storefrontAOrdersOf,
  storefrontBCheckout, storefrontBOrdersOf,
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
    const store = await connectStorefrontBDemo(stack, merchant);
    const simple = store.products.find((p) => p.option === undefined)!;
    const token = await storefrontBCheckout(stack, [{ productId: simple.id, quantity: 3 }]);

    const payment = await shopperPays(stack, token);
    expect(payment.totalMinor).toBe(3 * simple.price + 490);

    await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, () => storefrontBOrdersOf(store, token).length);
  });
});
