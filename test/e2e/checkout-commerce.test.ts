// A discount code and an order bump, end to end over HTTP in a currency without minor units: a storefront A
// shop selling in JPY (the merchant's EUR prices converted at 162.5 yen), the shopper ticks a bump, enters a
// code, pays on the processor's page; the store's order carries the bump line, the discount and the total
// that was charged, and the code is counted once however often the processor repeats its webhooks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack.js';
import {
  api, control, emailsOf, expectCompletedWithOneOrderAndTwoEmails, payOnHostedPage, returnFromPaymentPage, SHOPPER, storefrontACheckout, storefrontAMerchant,
  storefrontAOrdersOf, timelineOf, waitFor, type Json,
} from './checkout-helpers.js';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
  await stack.database.db.fxRate.upsert({
    where: { currency: 'JPY' },
    create: { currency: 'JPY', rate: '162.5', rateDate: new Date('2026-11-20'), source: 'test' },
    update: { rate: '162.5' },
  });
});
afterAll(async () => {
  await stack?.close();
});

describe('a discount and an order bump in a non-EUR checkout, end to end', () => {
  it('given a JPY shop, a 10 % code and a gift-wrap bump / the paid store order has the bump line, the discount and the charged total; the code counts once', async () => {
    const merchant = await storefrontAMerchant(stack, 'Tokyo Store', { currency: 'JPY' });
    const { shop } = merchant;
    const [tote, tee, notebook] = [shop.products[0]!, shop.products[3]!, shop.products[4]!];
    expect(shop.currency).toBe('JPY');

    // The merchant's extras, through the dashboard API: a 6.00 EUR bump of the shop's notebook set, a 10 % code.
    const bump = await api(stack, 'POST', '/api/merchant/order-bumps', { productId: String(notebook.id), variantId: String(notebook.variants[0]!.id), title: 'Add a notebook set', priceCents: 600 }, merchant.token);
    expect(bump.status, JSON.stringify(bump.body)).toBe(201);
    const code = await api(stack, 'POST', '/api/merchant/discounts', { code: 'tokyo10', type: 'percentage', percentOff: 10, usageLimit: 100 }, merchant.token);
    expect(code.status, JSON.stringify(code.body)).toBe(201);

    // Cart: 2 × tote (2490 yen) + 1 × tee M (2900 yen) = 7880 yen, read from the store.
    const token = await storefrontACheckout(stack, shop, [{ variantId: tote.variants[0]!.id, quantity: 2 }, { variantId: tee.variants[1]!.id, quantity: 1 }]);
    const bundle = await api(stack, 'GET', `/api/checkout/session-bundle/${token}`);
    expect(bundle.body).toMatchObject({ currency: 'JPY', cart: { subtotal: { amount: 7880, currency: 'JPY' } } });
    const standard = (bundle.body.shipping as Json[]).find((r) => r.name === 'Standard')!;
    expect(standard.price).toEqual({ amount: 796, currency: 'JPY' }); // 4.90 EUR × 162.5 = 796.25

    const offers = await api(stack, 'GET', `/api/checkout/${token}/order-bumps`);
    expect(offers.body.items).toEqual([expect.objectContaining({ id: bump.body.id, price: { amount: 975, currency: 'JPY' } })]); // 6.00 EUR

    // The page checks the code: merchandise 7880 + 975 = 8855; 10 % = 885.5 → 886; + 796 shipping = 8765.
    const checked = await api(stack, 'POST', `/api/checkout/${token}/validate-discount`, { code: 'Tokyo10', email: SHOPPER.email, shippingRateId: standard.id, orderBumpIds: [bump.body.id] });
    expect(checked.body).toEqual({
      code: 'TOKYO10', type: 'percentage', subtotal: { amount: 8855, currency: 'JPY' }, discount: { amount: 886, currency: 'JPY' }, shipping: { amount: 796, currency: 'JPY' }, total: { amount: 8765, currency: 'JPY' },
    });

    // init-payment charges exactly that (a double click gets the same payment).
    const details = { ...SHOPPER, shippingRateId: standard.id, discountCode: 'tokyo10', orderBumpIds: [bump.body.id] };
    const init = await api(stack, 'POST', `/api/checkout/${token}/init-payment`, details);
    expect(init.status, JSON.stringify(init.body)).toBe(200);
    expect(init.body).toMatchObject({ totalMinor: 8765, currency: 'JPY' });
    expect((await api(stack, 'POST', `/api/checkout/${token}/init-payment`, details)).body.paymentId).toBe(init.body.paymentId);

    await payOnHostedPage(token, init.body.paymentUrl as string);
    await returnFromPaymentPage(stack, token);
    await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, () => storefrontAOrdersOf(shop, token).length);

    // The store's order: the cart lines, the bump as a line at its converted price, the code, the charged total.
    const [order] = storefrontAOrdersOf(shop, token);
    expect(order).toMatchObject({ currency: 'JPY', financialStatus: 'PAID', subtotal: 8855, shipping: { price: 796 }, discount: { amount: 886 }, total: 8765 });
    expect(order!.lines.map((l) => [l.variantId, l.quantity, l.unitPrice])).toEqual([
      [tote.variants[0]!.id, 2, 2490],
      [tee.variants[1]!.id, 1, 2900],
      [notebook.variants[0]!.id, 1, 975],
    ]);
    expect(order!.discount).toEqual({ title: 'TOKYO10', amount: 886 });
    // The shopper's confirmation shows the discount line.
    expect(emailsOf(stack, token, merchant.email).toShopper[0]!.TextBody).toContain('Discount (TOKYO10): −¥886');

    // The processor repeats every event of the payment three more times: still one use, one order.
    const received = await stack.database.db.processorWebhookDelivery.findMany({ where: { sessionToken: token, signatureValid: true, rejection: null } });
    const eventIds = received.map((d) => d.eventId!).filter(Boolean);
    expect(eventIds.length).toBeGreaterThan(0);
    for (const eventId of eventIds) expect((await control(stack.urls.processor, 'POST', 'webhooks/redeliver', { eventId, times: 3 })).status).toBeLessThan(300);
    await stack.sims.processor.webhooks.idle();
    const duplicates = await stack.database.db.processorWebhookDelivery.count({ where: { sessionToken: token, rejection: 'duplicate' } });
    expect(duplicates).toBeGreaterThanOrEqual(3 * eventIds.length);

    const used = await api(stack, 'GET', `/api/merchant/discounts/${code.body.id}`, undefined, merchant.token);
    expect(used.body.timesUsed).toBe(1);
    expect(await stack.database.db.discountRedemption.count({ where: { discountId: code.body.id } })).toBe(1);
    expect(storefrontAOrdersOf(shop, token)).toHaveLength(1);
  });

  it('given a 100 % code and free shipping / init-payment completes the checkout without the processor: a paid order at 0 on the store, both emails, no refund', async () => {
    const merchant = await storefrontAMerchant(stack, 'Giveaway Store');
    const { shop } = merchant;
    const setup = await api(stack, 'PATCH', '/api/merchant/config', { shippingRates: [{ name: 'Pickup', basePriceCents: 0 }] }, merchant.token);
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    const code = await api(stack, 'POST', '/api/merchant/discounts', { code: 'free100', type: 'percentage', percentOff: 100, usageLimit: 5 }, merchant.token);
    expect(code.status, JSON.stringify(code.body)).toBe(201);
    const token = await storefrontACheckout(stack, shop, [{ variantId: shop.products[0]!.variants[0]!.id, quantity: 1 }]);
    const pickup = (await api(stack, 'GET', `/api/checkout/session-bundle/${token}`)).body.shipping[0] as Json;
    const details = { ...SHOPPER, shippingRateId: pickup.id, discountCode: 'FREE100' };

    const checked = await api(stack, 'POST', `/api/checkout/${token}/validate-discount`, { code: 'FREE100', email: SHOPPER.email, shippingRateId: pickup.id });
    expect(checked.body.total).toEqual({ amount: 0, currency: 'EUR' });

    // Nothing to charge: no processor payment, the shopper goes back to the checkout page, confirmed.
    const init = await api(stack, 'POST', `/api/checkout/${token}/init-payment`, details);
    expect(init, JSON.stringify(init.body)).toMatchObject({ status: 200, body: { status: 'COMPLETED', paymentId: null, totalMinor: 0, currency: 'EUR' } });
    expect(init.body.paymentUrl).toMatch(new RegExp(`/checkout/${token}$`));
    // A double click answers the same.
    expect((await api(stack, 'POST', `/api/checkout/${token}/init-payment`, details)).body).toEqual(init.body);
    expect(await timelineOf(stack, token, 'payment_started')).toHaveLength(0);
    expect(await timelineOf(stack, token, 'nothing_to_pay')).toHaveLength(1);
    const row = await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, () => storefrontAOrdersOf(shop, token).length);
    expect(row).toMatchObject({ paymentMethod: 'free', totalMinor: 0, processorPaymentId: null });
    const [order] = storefrontAOrdersOf(shop, token);
    expect(order).toMatchObject({ total: 0, financialStatus: 'PAID', discount: { amount: shop.products[0]!.variants[0]!.price }, shipping: { price: 0 } });
    expect(emailsOf(stack, token, merchant.email).toShopper[0]!.TextBody).toContain('nothing to pay');
    expect((await api(stack, 'GET', `/api/merchant/discounts/${code.body.id}`, undefined, merchant.token)).body.timesUsed).toBe(1);

    // The merchant sees it as a free order, and cannot refund what was never paid.
    const listed = await api(stack, 'GET', '/api/checkout/merchant/orders?paymentMethod=free', undefined, merchant.token);
    expect(listed.body.items.map((o: Json) => [o.token, o.paymentMethod])).toEqual([[token, 'free']]);
    const refund = await api(stack, 'POST', `/api/checkout/merchant/orders/${token}/refund`, {}, merchant.token);
    expect(refund.body).toMatchObject({ code: 'NOT_REFUNDABLE', error: expect.stringContaining('nothing to refund') });
  });

  it('given a 100 % code and free shipping / cash on delivery still places the order at 0', async () => {
    const merchant = await storefrontAMerchant(stack, 'Giveaway COD Store');
    const { shop } = merchant;
    expect((await api(stack, 'PATCH', '/api/merchant/config', { shippingRates: [{ name: 'Pickup', basePriceCents: 0 }], codEnabled: true }, merchant.token)).status).toBe(200);
    expect((await api(stack, 'POST', '/api/merchant/discounts', { code: 'free100', type: 'percentage', percentOff: 100 }, merchant.token)).status).toBe(201);
    const token = await storefrontACheckout(stack, shop, [{ variantId: shop.products[0]!.variants[0]!.id, quantity: 1 }]);
    const pickup = (await api(stack, 'GET', `/api/checkout/session-bundle/${token}`)).body.shipping[0] as Json;
    const cod = await api(stack, 'POST', `/api/checkout/${token}/complete-cod`, { ...SHOPPER, shippingRateId: pickup.id, discountCode: 'FREE100' });
    expect(cod, JSON.stringify(cod.body)).toMatchObject({ status: 200, body: { status: 'COD_CONFIRMED' } });
    const [order] = await waitFor('the store order', () => storefrontAOrdersOf(shop, token).length ? storefrontAOrdersOf(shop, token) : undefined);
    expect(order).toMatchObject({ total: 0, shipping: { price: 0 } });
  });
});
