// The processor sweep end to end (issue 35: refunds and disputes reconciled by polling, so a lost webhook cannot hide
// them): a refund made in Whop's dashboard and a dispute whose webhooks never reach us are found by the sweep
// (workflows/processor/processor-sweep.ts, run here at once instead of waiting for its Schedule) and take the path their webhook
// would: the session shows the refund and the store books it once (an upsell's charge: the upsell's purchase); the
// merchant gets one dispute.created, also when the webhook arrives late after all, and one dispute.resolved when a
// dispute recorded earlier is resolved with its dispute.updated lost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack.js';
import { api, control, expectCompletedWithOneOrderAndTwoEmails, shopperPays, storefrontACheckout, storefrontAMerchant, storefrontAOrdersOf, unique, waitFor, type Json } from './checkout-helpers.js';
import type { ProcessorSweepResult } from '../../workflows/processor/processor-sweep.js';
import { WORKFLOWS } from '../../domain/temporal/workflow-names.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

const db = () => stack.database.db;
const sessionRow = (token: string) => db().checkoutSession.findUniqueOrThrow({ where: { token } });
const refundRows = (token: string) => db().refund.findMany({ where: { token }, orderBy: { createdAt: 'asc' } });

/** One run of the sweep, as its Schedule starts it. */
function sweep(): Promise<ProcessorSweepResult> {
  return stack.temporal.client.workflow.execute('processorSweepWorkflow', { taskQueue: stack.temporal.taskQueue, workflowId: `${WORKFLOWS.processorSweep.id()}-${unique()}`, args: [{}] });
}

/** A storefront A merchant whose shopper paid: COMPLETED, its order on the store; and Whop's payment (pay_…). */
async function paidOrder(shopName: string, opts: { saveCard?: boolean } = {}) {
  const merchant = await storefrontAMerchant(stack, shopName);
  const token = await storefrontACheckout(stack, merchant.shop);
  const payment = await shopperPays(stack, token, opts);
  await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, () => storefrontAOrdersOf(merchant.shop, token).length);
  const events = (await control(stack.urls.processor, 'GET', 'webhooks/events')).body.events as Json[];
  const paymentId = events.find((e) => e.event === 'payment.succeeded' && e.payload.data.checkout_configuration_id === payment.paymentId)?.payload.data.id as string;
  expect(paymentId).toMatch(/^pay_/);
  await stack.sims.processor.webhooks.idle();
  return { merchant, token, totalMinor: payment.totalMinor as number, paymentId };
}

/** Nothing reaches us for a while: what the webhook would have done has not happened. */
const settle = () => new Promise((r) => setTimeout(r, 1500));

describe('refunds whose webhooks were lost', () => {
  it('given a COMPLETED card order refunded in part in Whop\'s dashboard, its webhooks lost / the sweep → COMPLETED with refundedMinor, booked on the store once (a second sweep changes nothing); the rest refunded likewise → REFUNDED', async () => {
    const { merchant, token, totalMinor, paymentId } = await paidOrder('Swept Refund Store');

    expect((await control(stack.urls.processor, 'POST', `payments/${paymentId}/refund`, { amount: 5, silent: true })).status).toBe(201);
    await settle();
    expect(await sessionRow(token)).toMatchObject({ status: 'COMPLETED', refundedMinor: 0 });
    expect(await refundRows(token)).toEqual([]);

    expect((await sweep()).cued).toBeGreaterThanOrEqual(1);
    await waitFor('the refund booked on the store', async () => {
      const rows = await refundRows(token);
      return rows[0]?.state === 'succeeded' && rows[0].storeState === 'created' ? rows : undefined;
    });
    expect(await sessionRow(token)).toMatchObject({ status: 'COMPLETED', refundedMinor: 500 });
    // A second sweep reads the refund again (the watermark's overlap): nothing more.
    await sweep();
    await settle();
    expect(await refundRows(token)).toEqual([expect.objectContaining({ origin: 'processor', amountMinor: 500, state: 'succeeded', storeState: 'created' })]);
    expect(storefrontAOrdersOf(merchant.shop, token)[0]!.refunds.map((r) => r.amount)).toEqual([500]);

    // The rest, in the dashboard too, its webhooks lost as well.
    expect((await control(stack.urls.processor, 'POST', `payments/${paymentId}/refund`, { silent: true })).status).toBe(201);
    await sweep();
    await waitFor('REFUNDED', async () => ((await sessionRow(token)).status === 'REFUNDED' ? true : undefined));
    await waitFor('both refunds booked', async () => ((await refundRows(token)).every((r) => r.storeState === 'created') ? true : undefined));
    expect(await sessionRow(token)).toMatchObject({ status: 'REFUNDED', refundedMinor: totalMinor });
    expect((await refundRows(token)).map((r) => r.amountMinor)).toEqual([500, totalMinor - 500]);
    expect(storefrontAOrdersOf(merchant.shop, token)[0]!.refunds.map((r) => r.amount)).toEqual([500, totalMinor - 500]);
  }, 120_000);
});

describe('refunds of an upsell\'s charge whose webhooks were lost', () => {
  it('given a paid post-purchase offer with its own store order, its charge refunded in Whop\'s dashboard and the webhooks lost / the sweep → the offer REFUNDED on the order page, the checkout and its own order untouched; a second sweep changes nothing', async () => {
    // The card saved for off-session charges (the sandbox's stand-in for Whop's embedded checkout), as in checkout-upsell.test.ts.
    const { merchant, token, totalMinor } = await paidOrder('Swept Upsell Refund Store', { saveCard: true });
    const product = merchant.shop.products[2]!;
    const offer = await api(stack, 'POST', '/api/merchant/upsells', {
      placement: 'post_purchase', headline: 'One more', productId: String(product.id), variantId: String(product.variants[0]!.id), title: product.title, priceCents: 2000, discountPercent: 25,
    }, merchant.token);
    expect(offer.status, JSON.stringify(offer.body)).toBe(201);
    const upsellId = offer.body.id as string;
    const accepted = await api(stack, 'POST', `/api/checkout/${token}/upsells/${upsellId}/accept`);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    const upsellPaymentId = accepted.body.paymentId as string;
    expect(upsellPaymentId).toMatch(/^pay_/);
    const purchase = () => db().upsellPurchase.findUniqueOrThrow({ where: { token_upsellId: { token, upsellId } } });
    await waitFor('the offer\'s own store order', async () => ((await purchase()).storeOrderId ? true : undefined));
    await stack.sims.processor.webhooks.idle();

    // The merchant refunds the offer in Whop's dashboard; refund.created and refund.updated never reach us.
    expect((await control(stack.urls.processor, 'POST', `payments/${upsellPaymentId}/refund`, { silent: true })).status).toBe(201);
    await settle();
    expect(await purchase()).toMatchObject({ status: 'PAID' });

    expect((await sweep()).cued).toBeGreaterThanOrEqual(1);
    await waitFor('the offer REFUNDED', async () => ((await purchase()).status === 'REFUNDED' ? true : undefined));
    const detail = await api(stack, 'GET', `/api/checkout/merchant/orders/${token}`, undefined, merchant.token);
    expect(detail.body.upsells).toEqual([expect.objectContaining({ upsellId, status: 'refunded', processorPaymentId: upsellPaymentId, amount: 1500 })]);
    // The checkout's own payment was not refunded: its session, refunds and store order are as they were.
    expect(await sessionRow(token)).toMatchObject({ status: 'COMPLETED', refundedMinor: 0, totalMinor });
    expect(await refundRows(token)).toEqual([]);
    expect(storefrontAOrdersOf(merchant.shop, token)[0]!.refunds).toEqual([]);

    // Read again by the next sweep (the watermark's overlap): one change on the timeline, still.
    await sweep();
    await settle();
    const changes = (await db().sessionEvent.findMany({ where: { token, type: 'upsell_payment' } })).map((e) => (e.data as Json).to);
    expect(changes.filter((to) => to === 'REFUNDED')).toHaveLength(1);
  }, 120_000);
});

describe('disputes whose webhooks were lost', () => {
  it('given a dispute opened on a paid order, its dispute.created lost / the sweep → the merchant\'s dispute.created once, naming the session; a second sweep and the webhook arriving late after all → still once', async () => {
    const { merchant, token, totalMinor, paymentId } = await paidOrder('Swept Dispute Store');
    const opened = await control(stack.urls.processor, 'POST', `payments/${paymentId}/dispute`, { reason: 'product_not_received', silent: true });
    expect(opened.status).toBe(201);
    const disputeId = opened.body.id as string;
    const disputeEvents = () => db().merchantEvent.findMany({ where: { merchantId: merchant.id, type: 'dispute.created' } });
    await settle();
    expect(await disputeEvents()).toEqual([]);

    await sweep();
    const [event] = await waitFor('the merchant\'s dispute.created', async () => {
      const found = await disputeEvents();
      return found.length ? found : undefined;
    });
    expect(event!.factKey).toBe(`dispute.created:${disputeId}`);
    expect((event!.payload as Json).data).toMatchObject({ dispute_id: disputeId, status: 'needs_response', amount_minor: totalMinor, currency: 'EUR', reason: 'product_not_received', session_token: token, processor_payment_id: paymentId });

    await sweep();
    // Whop's delivery after all, late: verified and stored, and recorded once.
    const late = await control(stack.urls.processor, 'POST', 'webhooks/send', { type: 'dispute.created', objectId: disputeId });
    expect(late.status).toBe(202);
    await stack.sims.processor.webhooks.idle();
    await waitFor('the late delivery stored', async () =>
      (await db().processorWebhookDelivery.count({ where: { merchantId: merchant.id, event: 'dispute.created', signatureValid: true } })) > 0 || undefined);
    await settle();
    expect((await disputeEvents()).map((e) => e.id)).toEqual([event!.id]);
    // The session itself is untouched by a dispute.
    expect((await sessionRow(token)).status).toBe('COMPLETED');
  }, 120_000);

  it('given a dispute recorded from its webhook, then won with its dispute.updated lost / the sweep reads it again (at most hourly) → the merchant\'s dispute.resolved once; never read again once final; a dispute older than the follow window is not read', async () => {
    const { merchant, token, paymentId } = await paidOrder('Swept Dispute Resolution Store');
    const eventsOf = (type: string) => db().merchantEvent.findMany({ where: { merchantId: merchant.id, type }, orderBy: { createdAt: 'asc' } });
    const opened = await control(stack.urls.processor, 'POST', `payments/${paymentId}/dispute`, { reason: 'fraudulent' });
    expect(opened.status).toBe(201);
    const disputeId = opened.body.id as string;
    await waitFor('the merchant\'s dispute.created from the webhook', async () => ((await eventsOf('dispute.created')).length ? true : undefined));
    const check = () => db().processorDisputeCheck.findUnique({ where: { disputeId } });

    // The first sweep reads it: still open.
    const first = await sweep();
    expect(first.disputesRead).toBeGreaterThanOrEqual(1);
    expect(await check()).toMatchObject({ merchantId: merchant.id, status: 'needs_response' });
    // Later disputes of the company have moved the list's watermark past this one: the list will not show it again.
    await db().processorSweepWatermark.updateMany({ where: { merchantId: merchant.id, kind: 'disputes' }, data: { sweptTo: new Date(Date.now() + 60_000) } });

    // The bank decides for the merchant; Whop's dispute.updated is lost.
    expect((await control(stack.urls.processor, 'POST', 'webhooks/drop', { count: 1 })).status).toBe(200);
    expect((await control(stack.urls.processor, 'POST', `disputes/${disputeId}/status`, { status: 'won' })).status).toBe(200);
    await stack.sims.processor.webhooks.idle();
    await settle();
    expect(await eventsOf('dispute.resolved')).toEqual([]);

    // Read within the hour: not read again yet.
    await sweep();
    await settle();
    expect(await eventsOf('dispute.resolved')).toEqual([]);
    expect(await check()).toMatchObject({ status: 'needs_response' });

    // An hour later.
    await db().processorDisputeCheck.update({ where: { disputeId }, data: { checkedAt: new Date(Date.now() - 61 * 60_000) } });
    await sweep();
    const [resolved] = await waitFor('the merchant\'s dispute.resolved', async () => {
      const found = await eventsOf('dispute.resolved');
      return found.length ? found : undefined;
    });
    expect(resolved!.factKey).toBe(`dispute.resolved:${disputeId}`);
    expect((resolved!.payload as Json).data).toMatchObject({ dispute_id: disputeId, status: 'won', session_token: token, processor_payment_id: paymentId });
    const final = await check();
    expect(final).toMatchObject({ status: 'won' });

    // Final: never read again (even when due), and Whop's delivery arriving late after all records nothing more.
    await db().processorDisputeCheck.update({ where: { disputeId }, data: { checkedAt: new Date(Date.now() - 61 * 60_000) } });
    const before = (await check())!.checkedAt;
    await sweep();
    expect((await check())!.checkedAt).toEqual(before);
    expect((await control(stack.urls.processor, 'POST', 'webhooks/send', { type: 'dispute.updated', objectId: disputeId })).status).toBe(202);
    await stack.sims.processor.webhooks.idle();
    await settle();
    expect((await eventsOf('dispute.resolved')).map((e) => e.id)).toEqual([resolved!.id]);
    expect((await eventsOf('dispute.created')).map((e) => e.factKey)).toEqual([`dispute.created:${disputeId}`]);

    // A dispute recorded longer ago than the sweep follows one (180 days): lost is not read, and its row goes.
    const old = await paidOrder('Swept Old Dispute Store');
    const oldDispute = (await control(stack.urls.processor, 'POST', `payments/${old.paymentId}/dispute`, {})).body.id as string;
    await waitFor('the old dispute recorded', async () => ((await db().merchantEvent.count({ where: { factKey: `dispute.created:${oldDispute}` } })) > 0 || undefined));
    await sweep();
    expect(await db().processorDisputeCheck.findUnique({ where: { disputeId: oldDispute } })).toMatchObject({ status: 'needs_response' });
    await db().processorSweepWatermark.updateMany({ where: { merchantId: old.merchant.id, kind: 'disputes' }, data: { sweptTo: new Date(Date.now() + 60_000) } });
    const longAgo = new Date(Date.now() - 181 * 24 * 3600_000);
    await db().merchantEvent.updateMany({ where: { factKey: `dispute.created:${oldDispute}` }, data: { createdAt: longAgo } });
    await db().processorDisputeCheck.update({ where: { disputeId: oldDispute }, data: { openedAt: longAgo, checkedAt: new Date(Date.now() - 61 * 60_000) } });
    expect((await control(stack.urls.processor, 'POST', 'webhooks/drop', { count: 1 })).status).toBe(200);
    expect((await control(stack.urls.processor, 'POST', `disputes/${oldDispute}/status`, { status: 'lost' })).status).toBe(200);
    await stack.sims.processor.webhooks.idle();
    await sweep();
    await settle();
    expect(await db().merchantEvent.count({ where: { factKey: `dispute.resolved:${oldDispute}` } })).toBe(0);
    expect(await db().processorDisputeCheck.findUnique({ where: { disputeId: oldDispute } })).toBeNull();
  }, 180_000);
});
