// Cash on delivery and the checkout preview, end to end over HTTP. A COD confirmation ends in exactly one
// order on the store, unpaid (storefront A: financial status pending; storefront B: on-hold), one email to
// the shopper and one to the merchant, on each storefront; when the merchant marks the order paid in the
// store's backend, a status sync brings it back. A preview shows the checkout but can never be paid.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack.js';
import {
  api, connectStorefrontBDemo, emailsOf, merchantWithProcessor, SHOPPER, storefrontACheckout, storefrontAMerchant, storefrontAOrdersOf, storefrontBCheckout,
  storefrontBOrdersOf, timelineOf, waitFor, type Json, type Merchant,
} from './checkout-helpers.js';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

const enableCod = async (merchant: Merchant) => {
  const res = await api(stack, 'PATCH', '/api/merchant/config', { codEnabled: true }, merchant.token);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};

/** The checkout page's COD path: the bundle, the cheapest rate, complete-cod. */
async function detailsFor(token: string): Promise<Json> {
  const bundle = await api(stack, 'GET', `/api/checkout/session-bundle/${token}`);
  expect(bundle.status).toBe(200);
  expect(bundle.body.codEnabled).toBe(true);
  return { ...SHOPPER, shippingRateId: bundle.body.shipping[0].id };
}

const sessionRow = (token: string) => stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } });

/** One order on the store, both emails, COD wording in them; answers the session row once the order is recorded. */
async function expectCodOrderAndTwoEmails(token: string, merchant: Merchant, ordersFor: () => number) {
  const row = await waitFor('the store order', async () => {
    const s = await sessionRow(token);
    return s.storeOrderId ? s : undefined;
  });
  expect(row).toMatchObject({ status: 'COD_CONFIRMED', paymentMethod: 'cod', storeOrderError: null, codPaidAt: null });
  expect(ordersFor()).toBe(1);
  const mails = await waitFor('both emails', () => {
    const found = emailsOf(stack, token, merchant.email);
    return found.toShopper.length && found.toMerchant.length ? found : undefined;
  });
  expect(mails.toShopper).toHaveLength(1);
  expect(mails.toMerchant).toHaveLength(1);
  expect(mails.toShopper[0]!.TextBody).toContain('in cash on delivery');
  expect(mails.toMerchant[0]!.TextBody).toContain('Cash on delivery: collect');
  return row;
}

/** The merchant clicks "Mark as paid" on the order in the store's backend (the admin page's own form). */
async function markPaidInStore(adminUrl: string, storeOrderId: string): Promise<void> {
  const page = await (await fetch(adminUrl)).text();
  const action = [...page.matchAll(/<form method="post" action="([^"]+\/mark-paid)"/g)].map((m) => m[1]!).find((a) => a.includes(`/orders/${storeOrderId}/`));
  expect(action, `no Mark as paid button for order ${storeOrderId}`).toBeDefined();
  const res = await fetch(new URL(action!, adminUrl), { method: 'POST', redirect: 'manual' });
  expect(res.status).toBe(303);
}

describe('cash on delivery, end to end over HTTP', () => {
  it('given a storefront A cart and COD enabled / complete-cod (double-clicked) → COD_CONFIRMED, one pending order, two emails; marked paid in the store → reflected after backfill-status', async () => {
    const merchant = await storefrontAMerchant(stack, 'Cod Alpha');
    await enableCod(merchant);
    const { shop } = merchant;
    const token = await storefrontACheckout(stack, shop);
    const details = await detailsFor(token);

    // A double click: both answer the same confirmation.
    const [first, second] = await Promise.all([
      api(stack, 'POST', `/api/checkout/${token}/complete-cod`, details),
      api(stack, 'POST', `/api/checkout/${token}/complete-cod`, details),
    ]);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(first.body).toMatchObject({ status: 'COD_CONFIRMED', currency: 'EUR' });

    const row = await expectCodOrderAndTwoEmails(token, merchant, () => storefrontAOrdersOf(shop, token).length);
    const [order] = storefrontAOrdersOf(shop, token);
    expect(order).toMatchObject({ id: Number(row.storeOrderId), financialStatus: 'PENDING', total: first.body.totalMinor });
    expect(row.totalMinor).toBe(first.body.totalMinor);

    // Once more, after the run has ended: the same answer, still one order.
    const late = await api(stack, 'POST', `/api/checkout/${token}/complete-cod`, details);
    expect(late).toEqual({ status: 200, body: first.body });
    expect(storefrontAOrdersOf(shop, token)).toHaveLength(1);
    expect((await api(stack, 'GET', `/api/checkout/session/${token}`)).body.status).toBe('COD_CONFIRMED');

    // Not paid yet: the sync says so and records nothing.
    const before = await api(stack, 'POST', `/api/checkout/merchant/orders/${token}/backfill-status`, undefined, merchant.token);
    expect(before).toEqual({ status: 200, body: { status: 'COD_CONFIRMED', processorStatus: null, codPaidAt: null } });

    await markPaidInStore(`${stack.urls.storefrontA}/shops/${shop.host}/admin/orders`, row.storeOrderId!);
    const after = await api(stack, 'POST', `/api/checkout/merchant/orders/${token}/backfill-status`, undefined, merchant.token);
    expect(after.status, JSON.stringify(after.body)).toBe(200);
    expect(after.body).toMatchObject({ status: 'COD_CONFIRMED', codPaidAt: expect.any(String) });
    const paid = await sessionRow(token);
    expect(paid.codPaidAt?.toISOString()).toBe(after.body.codPaidAt);
    expect((await timelineOf(stack, token, 'cod_paid')).map((e) => e.data)).toEqual([{ storeOrderId: row.storeOrderId, storeStatus: 'paid' }]);
    // A second sync changes nothing.
    expect((await api(stack, 'POST', `/api/checkout/merchant/orders/${token}/backfill-status`, undefined, merchant.token)).body.codPaidAt).toBe(after.body.codPaidAt);
    expect(await timelineOf(stack, token, 'cod_paid')).toHaveLength(1);

    // A COD order is not paid through the processor: it cannot be refunded there.
    const refund = await api(stack, 'POST', `/api/checkout/merchant/orders/${token}/refund`, {}, merchant.token);
    expect(refund).toMatchObject({ status: 409, body: { code: 'NOT_REFUNDABLE' } });
    expect((await sessionRow(token)).refundRequestedAt).toBeNull();
    expect(emailsOf(stack, token, merchant.email).toShopper).toHaveLength(1);
  });

  it('given a storefront B cart handed over by the plugin / complete-cod → one on-hold order and two emails; marked paid in the back office → reflected after backfill-status', async () => {
    const merchant = await merchantWithProcessor(stack, 'Cod Beta');
    await enableCod(merchant);
    const store = await connectStorefrontBDemo(stack, merchant);
    const simple = store.products.find((p) => p.option === undefined)!;
    const token = await storefrontBCheckout(stack, [{ productId: simple.id, quantity: 2 }]);

    const cod = await api(stack, 'POST', `/api/checkout/${token}/complete-cod`, await detailsFor(token));
    expect(cod.status, JSON.stringify(cod.body)).toBe(200);
    expect(cod.body).toEqual({ status: 'COD_CONFIRMED', totalMinor: 2 * simple.price + 490, currency: 'EUR' });

    const ordersOf = () => storefrontBOrdersOf(store, token);
    const row = await expectCodOrderAndTwoEmails(token, merchant, () => ordersOf().length);
    expect(ordersOf()[0]).toMatchObject({ id: Number(row.storeOrderId), status: 'on-hold', paymentMethod: 'cod', paidAt: null, total: cod.body.totalMinor });

    await markPaidInStore(`${stack.urls.storefrontB}/stores/demo/wp-admin/orders`, row.storeOrderId!);
    const synced = await api(stack, 'POST', `/api/checkout/merchant/orders/${token}/backfill-status`, undefined, merchant.token);
    expect(synced.status, JSON.stringify(synced.body)).toBe(200);
    expect(synced.body).toMatchObject({ status: 'COD_CONFIRMED', processorStatus: null, codPaidAt: expect.any(String) });
    expect((await timelineOf(stack, token, 'cod_paid')).map((e) => e.data)).toEqual([{ storeOrderId: row.storeOrderId, storeStatus: 'processing' }]);
  });

  it('given a COD order whose store the merchant disconnected / backfill-status answers 409 CONFLICT saying to reconnect, not a 5xx', async () => {
    const merchant = await storefrontAMerchant(stack, 'Cod Gamma');
    await enableCod(merchant);
    const token = await storefrontACheckout(stack, merchant.shop);
    expect((await api(stack, 'POST', `/api/checkout/${token}/complete-cod`, await detailsFor(token))).status).toBe(200);
    await expectCodOrderAndTwoEmails(token, merchant, () => storefrontAOrdersOf(merchant.shop, token).length);

    const disconnect = await stack.app.inject({ method: 'DELETE', url: '/api/merchant/storefront-a', headers: { authorization: `Bearer ${merchant.token}` } });
    expect(disconnect.statusCode, disconnect.body).toBe(200);
    const sync = await api(stack, 'POST', `/api/checkout/merchant/orders/${token}/backfill-status`, undefined, merchant.token);
    expect(sync).toMatchObject({ status: 409, body: { code: 'CONFLICT', error: expect.stringContaining('reconnect') } });
    expect((await sessionRow(token)).codPaidAt).toBeNull();
  });

  it('given a merchant without COD / complete-cod is refused with COD_NOT_ENABLED and nothing changes', async () => {
    const merchant = await storefrontAMerchant(stack, 'No Cod Store');
    const token = await storefrontACheckout(stack, merchant.shop);
    const bundle = await api(stack, 'GET', `/api/checkout/session-bundle/${token}`);
    const res = await api(stack, 'POST', `/api/checkout/${token}/complete-cod`, { ...SHOPPER, shippingRateId: bundle.body.shipping[0].id });
    expect(res).toMatchObject({ status: 409, body: { code: 'COD_NOT_ENABLED' } });
    expect(await sessionRow(token)).toMatchObject({ status: 'OPEN', email: null, paymentMethod: null, totalMinor: null });
    expect(storefrontAOrdersOf(merchant.shop, token)).toHaveLength(0);
  });

  it('given bad details or a card payment in progress / complete-cod answers INVALID_INPUT or CONFLICT and makes no order', async () => {
    const merchant = await storefrontAMerchant(stack, 'Cod Gamma');
    await enableCod(merchant);
    const token = await storefrontACheckout(stack, merchant.shop);
    const details = await detailsFor(token);

    const bad = await api(stack, 'POST', `/api/checkout/${token}/complete-cod`, { ...details, email: 'not-an-email' });
    expect(bad).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    const rate = await api(stack, 'POST', `/api/checkout/${token}/complete-cod`, { ...details, shippingRateId: 'no-such-rate' });
    expect(rate).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    expect((await sessionRow(token)).status).toBe('OPEN');

    const init = await api(stack, 'POST', `/api/checkout/${token}/init-payment`, details);
    expect(init.status, JSON.stringify(init.body)).toBe(200);
    const cod = await api(stack, 'POST', `/api/checkout/${token}/complete-cod`, details);
    expect(cod).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
    expect(cod.body.error).toContain('card payment');
    expect(await sessionRow(token)).toMatchObject({ status: 'PAYMENT_PENDING', paymentMethod: 'card' });
    expect(storefrontAOrdersOf(merchant.shop, token)).toHaveLength(0);

    const unknown = await api(stack, 'POST', `/api/checkout/cs_${'x'.repeat(32)}/complete-cod`, details);
    expect(unknown).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
  });
});

describe('checkout preview', () => {
  it('given a merchant / POST /api/merchant/preview → a prev_ session with two placeholder products and the merchant\'s rates, its URL on the checkout origin, and no way to pay', async () => {
    const merchant = await storefrontAMerchant(stack, 'Preview Store');
    await enableCod(merchant);
    const created = await api(stack, 'POST', '/api/merchant/preview', undefined, merchant.token);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const token = created.body.token as string;
    expect(token).toMatch(/^prev_[A-Za-z0-9_-]{32}$/);
    const me = await api(stack, 'GET', '/api/merchant/me', undefined, merchant.token);
    expect(created.body.previewUrl).toBe(`${me.body.checkoutOrigin}/checkout/${token}`);

    const merchantRow = await stack.database.db.merchant.findUniqueOrThrow({ where: { id: merchant.id } });
    expect(merchantRow.previewOpenedAt).not.toBeNull();

    const bundle = await api(stack, 'GET', `/api/checkout/session-bundle/${token}`);
    expect(bundle.status).toBe(200);
    expect(bundle.body).toMatchObject({ token, preview: true, status: 'OPEN', currency: 'EUR', shopName: 'Preview Store' });
    expect(bundle.body.cart.items).toHaveLength(2);
    expect(bundle.body.cart.subtotal).toEqual({ amount: 2900 + 2 * 1450, currency: 'EUR' });
    expect(bundle.body.shipping.map((r: Json) => r.name)).toEqual(['Standard', 'Express']);

    const details = { ...SHOPPER, shippingRateId: bundle.body.shipping[0].id };
    for (const [path, body] of [['init-payment', details], ['pay', undefined], ['complete-cod', details]] as const) {
      const res = await api(stack, 'POST', `/api/checkout/${token}/${path}`, body);
      expect(res, path).toMatchObject({ status: 409, body: { code: 'PREVIEW_SESSION' } });
    }
    expect(await sessionRow(token)).toMatchObject({ source: 'preview', status: 'OPEN', email: null, totalMinor: null, paymentMethod: null });
    // No workflow owns a preview: nothing can happen to it.
    await expect(stack.temporal.client.workflow.getHandle(`checkout-${token}`).describe()).rejects.toThrow(/not found/i);

    // Never an order, never something to refund or sync.
    const orders = await api(stack, 'GET', '/api/checkout/merchant/orders', undefined, merchant.token);
    expect(orders.status, JSON.stringify(orders.body)).toBe(200);
    expect(orders.body.items.map((o: Json) => o.token)).not.toContain(token);
    for (const action of ['refund', 'backfill-status']) {
      const res = await api(stack, 'POST', `/api/checkout/merchant/orders/${token}/${action}`, undefined, merchant.token);
      expect(res, action).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    }
  });

  it('given many previews / only the newest ten are kept, and without a session token there is none', async () => {
    const merchant = await merchantWithProcessor(stack, 'Preview Many');
    const tokens: string[] = [];
    for (let i = 0; i < 12; i++) tokens.push((await api(stack, 'POST', '/api/merchant/preview', undefined, merchant.token)).body.token as string);
    const kept = await stack.database.db.checkoutSession.findMany({ where: { merchantId: merchant.id, source: 'preview' }, select: { token: true } });
    expect(kept.map((k) => k.token).sort()).toEqual(tokens.slice(-10).sort());

    const unauthenticated = await api(stack, 'POST', '/api/merchant/preview');
    expect(unauthenticated).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED' } });
  });
});
