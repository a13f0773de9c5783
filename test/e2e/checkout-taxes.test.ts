// The store's tax, end to end over HTTP on both storefront simulators: the page's quote shows the tax the store would
// charge for the address, init-payment charges exactly that total at the processor, and the order the store books has
// the same total (never a paid order for more than was charged).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack.js';
import {
  api, connectStorefrontBDemo, control, expectCompletedWithOneOrderAndTwoEmails, merchantWithProcessor, SHOPPER, shopperPays, storefrontACheckout, storefrontAMerchant, storefrontAOrdersOf,
  storefrontBCheckout, storefrontBOrdersOf, type Json,
} from './checkout-helpers.js';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

/** The page's quote for the shopper's address and the cheapest rate. */
async function quote(token: string, extra: Json = {}) {
  const bundle = await api(stack, 'GET', `/api/checkout/session-bundle/${token}`);
  return api(stack, 'POST', `/api/checkout/${token}/quote`, { address: SHOPPER.address, shippingRateId: bundle.body.shipping[0].id, ...extra });
}

/** What the processor simulator charged for the session (its payment's total, minor units). */
async function charged(token: string): Promise<number> {
  const row = await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } });
  const { body } = await control(stack.urls.processor, 'GET', 'webhooks/events');
  const paid = (body.events as Json[]).find((e) => e.event === 'payment.succeeded' && e.payload?.data?.metadata?.checkout_session_token === token);
  expect(paid, `a payment for ${token}`).toBeDefined();
  expect(row.processorPaymentId).not.toBeNull();
  return Math.round((paid!.payload.data.total as number) * 100);
}

describe('the store\'s tax, from the page to the order', () => {
  it('given a Shopify shop whose prices exclude a 19 % tax in DE / the quote adds it, the processor charges that total, and Shopify books the same order total, paid', async () => {
    const merchant = await storefrontAMerchant(stack, 'Taxed Shop');
    await control(stack.urls.storefrontA, 'POST', `shops/${merchant.shop.host}/taxes`, { included: false, rates: { DE: 19 } });
    const token = await storefrontACheckout(stack, merchant.shop);
    const q = await quote(token);
    expect(q.status, JSON.stringify(q.body)).toBe(200);
    const pre = q.body.subtotalMinor + q.body.shippingMinor - q.body.discountMinor;
    expect(q.body).toMatchObject({ taxesIncluded: false, taxMinor: Math.round(q.body.subtotalMinor * 0.19), totalMinor: pre + Math.round(q.body.subtotalMinor * 0.19) });
    // Nothing was stored by the quote.
    expect((await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } })).totalMinor).toBeNull();
    const payment = await shopperPays(stack, token);
    expect(payment.totalMinor).toBe(q.body.totalMinor);
    await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, () => storefrontAOrdersOf(merchant.shop, token).length);
    expect(await charged(token)).toBe(q.body.totalMinor);
    const [order] = storefrontAOrdersOf(merchant.shop, token);
    expect(order).toMatchObject({ total: q.body.totalMinor, tax: q.body.taxMinor, financialStatus: 'PAID' });
    expect(await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } })).toMatchObject({ taxMinor: q.body.taxMinor, taxesIncluded: false, totalMinor: q.body.totalMinor });
  });

  it('given a Shopify shop whose prices include the tax / the quote shows the tax inside, the total does not grow', async () => {
    const merchant = await storefrontAMerchant(stack, 'Gross Shop');
    await control(stack.urls.storefrontA, 'POST', `shops/${merchant.shop.host}/taxes`, { included: true, rates: { DE: 19 } });
    const token = await storefrontACheckout(stack, merchant.shop);
    const q = await quote(token);
    expect(q.body.taxesIncluded).toBe(true);
    expect(q.body.taxMinor).toBeGreaterThan(0);
    expect(q.body.totalMinor).toBe(q.body.subtotalMinor + q.body.shippingMinor - q.body.discountMinor);
  });

  it('given a WooCommerce store charging 19 % in DE, shipping taxed / quote, charge and the store\'s order total are one number', async () => {
    const merchant = await merchantWithProcessor(stack, 'Taxed Woo');
    const store = await connectStorefrontBDemo(stack, merchant);
    await control(stack.urls.storefrontB, 'POST', 'stores/demo/taxes', { enabled: true, rates: [{ country: 'DE', rate: 19, shipping: true }] });
    try {
      const simple = store.products.find((p) => p.option === undefined)!;
      const token = await storefrontBCheckout(stack, [{ productId: simple.id, quantity: 3 }]);
      const q = await quote(token);
      expect(q.status, JSON.stringify(q.body)).toBe(200);
      expect(q.body.taxMinor).toBeGreaterThan(0);
      const payment = await shopperPays(stack, token);
      expect(payment.totalMinor).toBe(q.body.totalMinor);
      await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, () => storefrontBOrdersOf(store, token).length);
      const [order] = storefrontBOrdersOf(store, token);
      expect(order!.total).toBe(q.body.totalMinor);
      expect(Math.round(order!.taxes.totalTax * 100)).toBe(q.body.taxMinor); // total_tax, in the store's decimals (EUR: 2)
      expect(order!.paidAt).not.toBeNull();
    } finally {
      await control(stack.urls.storefrontB, 'POST', 'stores/demo/taxes', { enabled: false });
    }
  });

  it('given bad input / the quote refuses it like init-payment and stores nothing: an unknown rate, a settled checkout', async () => {
    const merchant = await storefrontAMerchant(stack, 'Quote Errors');
    const token = await storefrontACheckout(stack, merchant.shop);
    expect(await api(stack, 'POST', `/api/checkout/${token}/quote`, { address: SHOPPER.address, shippingRateId: 'nope' })).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    expect(await api(stack, 'POST', `/api/checkout/${token}/quote`, { address: { ...SHOPPER.address, country: 'D' }, shippingRateId: 'x' })).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    const unknown = `${token.slice(0, -4)}zzzz`;
    const rate = (await api(stack, 'GET', `/api/checkout/session-bundle/${token}`)).body.shipping[0].id as string;
    expect(await api(stack, 'POST', `/api/checkout/${unknown}/quote`, { address: SHOPPER.address, shippingRateId: rate })).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    await shopperPays(stack, token);
    await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, () => storefrontAOrdersOf(merchant.shop, token).length);
    expect((await quote(token)).body).toMatchObject({ code: 'CONFLICT' });
  });
});
