// A card order refunded by its merchant, end to end over HTTP: in parts (amount, reason, restock) and in full, one
// refund at the processor per request however often the button is clicked, each booked once on the store order
// (storefront A's refundCreate, storefront B's order refunds) and confirmed once to the shopper; REFUNDED once every
// unit came back (the processor's signed refund webhook, or a status sync when the webhook is lost).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack.js';
import { handoffHeaders } from '../../integrations/storefront-b/handoff.js';
import { DEMO_STORE } from '../../sandbox/storefront-b/state.js';
import {
  api, connectStorefrontBDemo, control, emailsOf, expectCompletedWithOneOrderAndTwoEmails, merchantWithProcessor, SHOPPER, shopperPays, storefrontACheckout, storefrontAMerchant, storefrontAOrdersOf,
  storefrontBCheckout, storefrontBOrdersOf, timelineOf, waitFor, type Json,
} from './checkout-helpers.js';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

const sessionRow = (token: string) => stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } });
const refund = (token: string, merchantToken: string, body?: unknown) => api(stack, 'POST', `/api/checkout/merchant/orders/${token}/refund`, body, merchantToken);
const refundMails = (token: string) => stack.sims.email.messages({ to: SHOPPER.email, tag: 'refund_confirmation', metadataKey: 'token', metadataValue: token });
const refundRows = (token: string) => stack.database.db.refund.findMany({ where: { token }, orderBy: { createdAt: 'asc' } });

/** The refunds the processor made of this payment: one payment_refunded event each (its control API lists every event). */
async function refundsAtProcessor(paymentId: string): Promise<Json[]> {
  const { body } = await control(stack.urls.processor, 'GET', 'webhooks/events');
  // Whop's refund.updated (status succeeded) about the payment paid through the session's checkout (ch_…).
  return (body.events as Json[])
    .filter((e) => e.event === 'refund.updated' && e.payload?.data?.status === 'succeeded' && (e.payload.data.payment?.id === paymentId || e.payload.data.payment?.id === paidThrough(body.events as Json[], paymentId)))
    .map((e) => ({ ...e.payload.data, status: 'refunded', amount: Math.round((e.payload.data.amount as number) * 100) }) as Json);
}

/** The payment (pay_…) made through a checkout (ch_…), from the sandbox's events. */
function paidThrough(events: Json[], checkoutId: string): string | undefined {
  return events.find((e) => e.payload?.data?.checkout_configuration_id === checkoutId)?.payload.data.id as string | undefined;
}

/** The simulator's one WooCommerce store (demo), connected once to one merchant: the storefront B tests share it, each with its own checkout. */
let woo: Promise<{ merchant: Awaited<ReturnType<typeof merchantWithProcessor>>; store: Awaited<ReturnType<typeof connectStorefrontBDemo>> }> | undefined;
const wooStore = () =>
  (woo ??= (async () => {
    const merchant = await merchantWithProcessor(stack, 'Woo Refund Store');
    return { merchant, store: await connectStorefrontBDemo(stack, merchant) };
  })());

/** A storefront A merchant whose shopper paid: COMPLETED, order on the store, both emails. */
async function paidOrder(shopName: string) {
  const merchant = await storefrontAMerchant(stack, shopName);
  const token = await storefrontACheckout(stack, merchant.shop);
  const payment = await shopperPays(stack, token);
  await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, () => storefrontAOrdersOf(merchant.shop, token).length);
  return { merchant, token, payment };
}

describe('refunding a card order, end to end over HTTP', () => {
  it('given a COMPLETED card order (storefront A) / a partial refund with a line restocked, double-clicked → one refund at the processor and one on the store order; the rest → REFUNDED; each emailed once; later clicks refused', async () => {
    const { merchant, token, payment } = await paidOrder('Refund Store');
    const paymentId = payment.paymentId as string;
    const total = payment.totalMinor as number;

    // Bad requests change nothing: more than the total, a line the order does not have, another merchant's token.
    expect(await refund(token, merchant.token, { amountMinor: total + 1 })).toMatchObject({ status: 422, body: { code: 'REFUND_EXCEEDS_BALANCE', details: { refundableMinor: total } } });
    expect(await refund(token, merchant.token, { lines: [{ line: 9, quantity: 1 }] })).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    expect(await refund(token, merchant.token, { lines: [{ line: 0, quantity: 3 }] })).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    expect(await refund(token, merchant.token, { reason: 'a\u0000b' })).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    const other = await storefrontAMerchant(stack, 'Someone Else');
    expect(await refund(token, other.token)).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    expect(await refund(`cs_${'z'.repeat(32)}`, merchant.token)).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    expect((await sessionRow(token)).refundRequestedAt).toBeNull();
    expect(await refundsAtProcessor(paymentId)).toHaveLength(0);

    // One of the two units of the first line comes back, restocked; the merchant says why. The double click: one refund.
    const body = { lines: [{ line: 0, quantity: 1 }], restock: true, reason: 'Arrived scratched' };
    const clicks = await Promise.all([refund(token, merchant.token, body), refund(token, merchant.token, body)]);
    const accepted = clicks.filter((c) => c.status === 202);
    const lineValue = (await sessionRow(token)).items as Json[];
    const partialAmount = lineValue[0]!.unitPrice as number;
    // Both may pass (two refunds of one unit each are both within the total): then each is its own refund.
    expect(accepted.length, JSON.stringify(clicks)).toBeGreaterThanOrEqual(1);
    expect(accepted[0]!.body).toEqual({ status: 'COMPLETED', refund: { state: 'requested', id: expect.any(String), refundId: expect.stringMatching(/^rf_/), amountMinor: partialAmount, currency: 'EUR' } });
    await stack.sims.processor.webhooks.idle();
    await waitFor('the partial refunds on the store', async () => ((await refundRows(token)).every((r) => r.storeState === 'created') ? true : undefined));
    const partialRows = await refundRows(token);
    expect(partialRows).toHaveLength(accepted.length);
    const [order] = storefrontAOrdersOf(merchant.shop, token);
    expect(order).toMatchObject({ financialStatus: 'PARTIALLY_REFUNDED' });
    expect(order!.refunds.map((r) => [r.amount, r.lines])).toEqual(partialRows.map(() => [partialAmount, [{ lineIndex: 0, quantity: 1, restockType: 'CANCEL' }]]));
    expect(order!.refunds[0]!.note).toContain('Arrived scratched');
    expect((await sessionRow(token))).toMatchObject({ status: 'COMPLETED', refundedMinor: partialAmount * accepted.length, storeOrderStatus: 'partially_refunded' });
    const partialMails = await waitFor('the partial refund email', () => (refundMails(token).length === accepted.length ? refundMails(token) : undefined));
    expect(partialMails[0]!.Subject).toMatch(/^Partial refund of /);
    expect(partialMails[0]!.TextBody).toContain('Arrived scratched');

    // The rest, without a body: REFUNDED once the processor confirms it (its signed webhook).
    const rest = await refund(token, merchant.token);
    expect(rest.status, JSON.stringify(rest.body)).toBe(202);
    expect(rest.body.refund.amountMinor).toBe(total - partialAmount * accepted.length);
    await waitFor('REFUNDED', async () => ((await sessionRow(token)).status === 'REFUNDED' ? true : undefined));
    await waitFor('every refund on the store', async () => ((await refundRows(token)).every((r) => r.storeState === 'created') ? true : undefined));
    expect(storefrontAOrdersOf(merchant.shop, token)[0]).toMatchObject({ financialStatus: 'REFUNDED' });
    const mails = await waitFor('every refund email', () => (refundMails(token).length === accepted.length + 1 ? refundMails(token) : undefined));
    expect(mails.filter((m) => /^Refund of /.test(m.Subject))).toHaveLength(1);

    // Later clicks: refused, the processor is not asked again.
    expect(await refund(token, merchant.token)).toMatchObject({ status: 409, body: { code: 'REFUND_ALREADY_REQUESTED', error: 'This order is already refunded in full' } });
    await stack.sims.processor.webhooks.idle();
    const refunds = await refundsAtProcessor(paymentId);
    expect(refunds.map((r) => r.amount).sort()).toEqual((await refundRows(token)).map((r) => r.amountMinor).sort());
    expect(refundMails(token)).toHaveLength(accepted.length + 1);
    expect(storefrontAOrdersOf(merchant.shop, token)[0]!.refunds).toHaveLength(accepted.length + 1);

    const row = await sessionRow(token);
    expect(row).toMatchObject({ status: 'REFUNDED', refundedMinor: total, storeOrderStatus: 'refunded' });
    expect(row.refundedAt).not.toBeNull();
    expect(await timelineOf(stack, token, 'refund_requested')).toHaveLength(accepted.length + 1);
    expect((await api(stack, 'GET', `/api/checkout/session/${token}`)).body.status).toBe('REFUNDED');
    // Still exactly one order on the store and the two order emails.
    expect(storefrontAOrdersOf(merchant.shop, token)).toHaveLength(1);
    expect(emailsOf(stack, token, merchant.email).toMerchant).toHaveLength(1);
  });

  it('given a COMPLETED card order (storefront B) / a partial refund, then the rest → both booked on the WooCommerce order (api_refund off), REFUNDED there and here', async () => {
    const { merchant, store } = await wooStore();
    const simple = store.products.find((p) => p.option === undefined)!;
    const token = await storefrontBCheckout(stack, [{ productId: simple.id, quantity: 2 }]);
    const payment = await shopperPays(stack, token);
    await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, () => storefrontBOrdersOf(store, token).length);
    const first = await refund(token, merchant.token, { amountMinor: 100, reason: 'Late delivery' });
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    await waitFor('the partial refund on the store', async () => ((await refundRows(token))[0]?.storeState === 'created' ? true : undefined));
    const [order] = storefrontBOrdersOf(store, token);
    expect(order!.refunds).toEqual([expect.objectContaining({ amount: 100, reason: 'Late delivery', refundedPayment: false })]);
    expect(order!.status).toBe('processing');
    expect(await refund(token, merchant.token, {})).toMatchObject({ status: 202 });
    await waitFor('REFUNDED', async () => ((await sessionRow(token)).status === 'REFUNDED' ? true : undefined));
    await waitFor('the rest on the store', async () => ((await refundRows(token)).every((r) => r.storeState === 'created') ? true : undefined));
    expect(order!.refunds.map((r) => r.amount)).toEqual([100, (payment.totalMinor as number) - 100]);
    expect(order!.status).toBe('refunded');
    expect(await sessionRow(token)).toMatchObject({ refundedMinor: payment.totalMinor, storeOrderStatus: 'refunded' });
  });

  it('given a refund the merchant makes in the Shopify admin / refunds/create → the money goes back through the processor once (redelivered: still once), the store order is not refunded twice, the shopper is emailed', async () => {
    const { merchant, token, payment } = await paidOrder('Admin Refund Store');
    const [order] = storefrontAOrdersOf(merchant.shop, token);
    const form = new URLSearchParams({ amount: '5.00', reason: 'Goodwill' });
    const res = await fetch(`${stack.urls.storefrontA}/shops/${merchant.shop.host}/admin/orders/${order!.id}/refund`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
    expect(res.status).toBe(303);
    await waitFor('the refund at the processor', async () => ((await refundRows(token))[0]?.state === 'succeeded' ? true : undefined));
    // Shopify redelivers the webhook: nothing more happens.
    const delivery = stack.sims.storefrontA.deliveries.find((d) => d.topic === 'refunds/create' && d.shop === merchant.shop.host)!;
    const again = await fetch(delivery.address!, { method: 'POST', headers: delivery.headers, body: delivery.body });
    expect(again.status).toBe(200);
    await stack.sims.processor.webhooks.idle();
    const mails = await waitFor('the refund email', () => (refundMails(token).length ? refundMails(token) : undefined));
    expect(mails).toHaveLength(1);
    expect(await refundRows(token)).toEqual([expect.objectContaining({ origin: 'store', amountMinor: 500, state: 'succeeded', storeState: 'created', storeRefundId: String(order!.refunds[0]!.id), reason: 'Goodwill' })]);
    expect(order!.refunds).toHaveLength(1);
    expect(await refundsAtProcessor(payment.paymentId as string)).toEqual([expect.objectContaining({ amount: 500 })]);
    expect(await sessionRow(token)).toMatchObject({ status: 'COMPLETED', refundedMinor: 500 });
  });

  it('given a refund the merchant makes in wp-admin (our plugin\'s gateway) / POST /webhooks/storefront-b/refunds → bad signature 401, unknown order 404, the refund once at the processor (repeated: duplicate), more than is left refused', async () => {
    const { merchant, store } = await wooStore();
    const simple = store.products.find((p) => p.option === undefined)!;
    const token = await storefrontBCheckout(stack, [{ productId: simple.id, quantity: 2 }]);
    const payment = await shopperPays(stack, token);
    await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, () => storefrontBOrdersOf(store, token).length);
    const [order] = storefrontBOrdersOf(store, token);
    const storeUrl = `${stack.urls.storefrontB}/stores/demo`;
    const send = async (body: Json, secret: string = DEMO_STORE.consumerSecret) => {
      const raw = JSON.stringify(body);
      const res = await stack.app.inject({ method: 'POST', url: '/webhooks/storefront-b/refunds', headers: handoffHeaders(DEMO_STORE.consumerKey, secret, raw), payload: raw });
      return { status: res.statusCode, body: res.json<Json>() };
    };
    const forged = await send({ storeUrl, orderId: order!.id, refundId: 9001, amount: '5.00', reason: 'Goodwill' }, 'cs_not_the_secret');
    expect(forged).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED' } });
    expect(await send({ storeUrl, orderId: 987654, refundId: 9001, amount: '5.00' })).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    expect(await refundRows(token)).toEqual([]);
    const first = await send({ storeUrl, orderId: order!.id, refundId: 9001, amount: '5.00', reason: 'Goodwill' });
    expect(first, JSON.stringify(first.body)).toMatchObject({ status: 202, body: { accepted: true, token, amountMinor: 500, duplicate: false } });
    const again = await send({ storeUrl, orderId: order!.id, refundId: 9001, amount: '5.00', reason: 'Goodwill' });
    expect(again, JSON.stringify(again.body)).toMatchObject({ status: 202, body: { accepted: true, amountMinor: 500, duplicate: true } });
    await waitFor('the refund at the processor', async () => ((await refundRows(token))[0]?.state === 'succeeded' ? true : undefined));
    const tooMuch = await send({ storeUrl, orderId: order!.id, refundId: 9002, amount: String((payment.totalMinor as number) / 100) });
    expect(tooMuch, JSON.stringify(tooMuch.body)).toMatchObject({ status: 422, body: { code: 'REFUND_EXCEEDS_BALANCE' } });
    await stack.sims.processor.webhooks.idle();
    expect(await refundRows(token)).toEqual([expect.objectContaining({ origin: 'store', amountMinor: 500, state: 'succeeded', storeState: 'created', storeRefundId: '9001', reason: 'Goodwill' })]);
    expect(await refundsAtProcessor(payment.paymentId as string)).toEqual([expect.objectContaining({ amount: 500 })]);
    // The refund is WooCommerce's own: it is not booked on the order again.
    expect(order!.refunds).toEqual([]);
    expect(await sessionRow(token)).toMatchObject({ status: 'COMPLETED', refundedMinor: 500 });
  });

  it('given a refund the card network confirms later and whose webhook is lost / backfill-status asks the processor → REFUNDED and the refund email', async () => {
    const { merchant, token } = await paidOrder('Lost Webhook Store');
    await stack.sims.processor.webhooks.idle();
    // The refund stays pending at the processor, and the events about it never leave.
    expect((await control(stack.urls.processor, 'POST', 'refunds/pending', { count: 1 })).status).toBe(200);
    expect((await control(stack.urls.processor, 'POST', 'webhooks/drop', { count: 2 })).status).toBe(200);

    // No body at all: a full refund.
    const requested = await refund(token, merchant.token);
    expect(requested.status, JSON.stringify(requested.body)).toBe(202);
    await stack.sims.processor.webhooks.idle();
    await waitFor('the refund recorded as pending', async () => ((await refundRows(token))[0]?.processorRefundId ? true : undefined));
    expect((await sessionRow(token)).status).toBe('COMPLETED');
    const pending = (await refundRows(token))[0]!;
    expect(pending).toMatchObject({ state: 'requested', storeState: 'pending' });
    // The network confirms it; nobody tells us.
    expect((await control(stack.urls.processor, 'POST', `refunds/${pending.processorRefundId}/settle`, { status: 'succeeded' })).status).toBe(200);

    const synced = await api(stack, 'POST', `/api/checkout/merchant/orders/${token}/backfill-status`, undefined, merchant.token);
    expect(synced).toEqual({ status: 200, body: { status: 'REFUNDED', processorStatus: 'refunded', codPaidAt: null } });
    const mails = await waitFor('the refund email', () => (refundMails(token).length ? refundMails(token) : undefined));
    expect(mails).toHaveLength(1);
    // The sync, or the run's own look right after the request if it came after the settle: either way no webhook was needed.
    const change = (await timelineOf(stack, token, 'status_changed')).at(-1)!.data as Json;
    expect(change, JSON.stringify(change)).toMatchObject({ to: 'REFUNDED' });
    expect(change.cause).not.toMatch(/\(msg_/);
  });

  it('given orders that are not completed card payments / refund answers NOT_REFUNDABLE; backfill-status of another merchant\'s order answers NOT_FOUND', async () => {
    const merchant = await storefrontAMerchant(stack, 'Open Store');
    const token = await storefrontACheckout(stack, merchant.shop);
    expect(await refund(token, merchant.token)).toMatchObject({ status: 409, body: { code: 'NOT_REFUNDABLE' } });
    const other = await storefrontAMerchant(stack, 'Other Store');
    expect(await api(stack, 'POST', `/api/checkout/merchant/orders/${token}/backfill-status`, undefined, other.token)).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    expect(await refund(token, merchant.token, { amountMinor: -5 })).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    expect(await refund(token, merchant.token, { amount: 5 })).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    expect((await sessionRow(token)).status).toBe('OPEN');
  });
});
