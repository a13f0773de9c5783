// A card order refunded by its merchant, end to end over HTTP: full refunds only, one refund at the processor
// however often the button is clicked, REFUNDED once the processor's signed refund webhook arrives (or a
// status sync sees the refund when the webhook is lost), and one refund email to the shopper.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack.js';
import {
  api, control, emailsOf, expectCompletedWithOneOrderAndTwoEmails, SHOPPER, shopperPays, storefrontACheckout, storefrontAMerchant, storefrontAOrdersOf, timelineOf, waitFor, type Json,
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

/** A storefront A merchant whose shopper paid: COMPLETED, order on the store, both emails. */
async function paidOrder(shopName: string) {
  const merchant = await storefrontAMerchant(stack, shopName);
  const token = await storefrontACheckout(stack, merchant.shop);
  const payment = await shopperPays(stack, token);
  await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, () => storefrontAOrdersOf(merchant.shop, token).length);
  return { merchant, token, payment };
}

describe('refunding a card order, end to end over HTTP', () => {
  it('given a COMPLETED card order / refund (double-clicked) → 202 once, one refund at the processor; the webhook → REFUNDED and one refund email; later clicks are refused', async () => {
    const { merchant, token, payment } = await paidOrder('Refund Store');
    const paymentId = payment.paymentId as string;

    // Bad requests change nothing: a partial amount, another merchant's token.
    const partial = await refund(token, merchant.token, { amountMinor: payment.totalMinor - 1 });
    expect(partial).toMatchObject({ status: 422, body: { code: 'PARTIAL_REFUND_NOT_SUPPORTED' } });
    const other = await storefrontAMerchant(stack, 'Someone Else');
    expect(await refund(token, other.token)).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    expect(await refund(`cs_${'z'.repeat(32)}`, merchant.token)).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    expect((await sessionRow(token)).refundRequestedAt).toBeNull();
    expect(await refundsAtProcessor(paymentId)).toHaveLength(0);

    // The double click: one is accepted, the other refused; the processor refunds once.
    const clicks = await Promise.all([refund(token, merchant.token, { amountMinor: payment.totalMinor }), refund(token, merchant.token, {})]);
    const accepted = clicks.filter((c) => c.status === 202);
    expect(accepted, JSON.stringify(clicks)).toHaveLength(1);
    expect(accepted[0]!.body).toEqual({ status: 'COMPLETED', refund: { state: 'requested', refundId: expect.stringMatching(/^rf_/) } });
    expect(clicks.find((c) => c.status !== 202)).toMatchObject({ status: 409, body: { code: 'REFUND_ALREADY_REQUESTED' } });

    await waitFor('REFUNDED', async () => ((await sessionRow(token)).status === 'REFUNDED' ? true : undefined));
    const mails = await waitFor('the refund email', () => (refundMails(token).length ? refundMails(token) : undefined));
    expect(mails).toHaveLength(1);
    expect(mails[0]!.Subject).toContain('Refund for order');
    expect(mails[0]!.TextBody).toContain('refunded your order');

    // Later clicks: refused, the processor is not asked again.
    expect(await refund(token, merchant.token)).toMatchObject({ status: 409, body: { code: 'REFUND_ALREADY_REQUESTED', error: 'This order is already refunded' } });
    await stack.sims.processor.webhooks.idle();
    const refunds = await refundsAtProcessor(paymentId);
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ status: 'refunded', amount: payment.totalMinor });
    expect(refundMails(token)).toHaveLength(1);

    const row = await sessionRow(token);
    expect(row).toMatchObject({ status: 'REFUNDED', processorRefundId: accepted[0]!.body.refund.refundId });
    expect(row.refundedAt).not.toBeNull();
    expect((await timelineOf(stack, token, 'refund_requested'))).toHaveLength(1);
    const lastChange = (await timelineOf(stack, token, 'status_changed')).at(-1)!.data as Json;
    expect(lastChange).toMatchObject({ from: 'COMPLETED', to: 'REFUNDED', cause: expect.stringMatching(/^(payment|invoice)_refunded \(msg_/) });
    expect((await api(stack, 'GET', `/api/checkout/session/${token}`)).body.status).toBe('REFUNDED');
    // Still exactly one order on the store and the two order emails.
    expect(storefrontAOrdersOf(merchant.shop, token)).toHaveLength(1);
    expect(emailsOf(stack, token, merchant.email).toMerchant).toHaveLength(1);
  });

  it('given the refund webhook is lost / backfill-status asks the processor → REFUNDED and the refund email', async () => {
    const { merchant, token } = await paidOrder('Lost Webhook Store');
    await stack.sims.processor.webhooks.idle();
    // The next two events (payment_refunded, invoice_refunded) never leave the processor.
    expect((await control(stack.urls.processor, 'POST', 'webhooks/drop', { count: 2 })).status).toBe(200);

    // No body at all: a full refund.
    const requested = await refund(token, merchant.token);
    expect(requested.status, JSON.stringify(requested.body)).toBe(202);
    await stack.sims.processor.webhooks.idle();
    expect((await sessionRow(token)).status).toBe('COMPLETED');

    const synced = await api(stack, 'POST', `/api/checkout/merchant/orders/${token}/backfill-status`, undefined, merchant.token);
    expect(synced).toEqual({ status: 200, body: { status: 'REFUNDED', processorStatus: 'refunded', codPaidAt: null } });
    const mails = await waitFor('the refund email', () => (refundMails(token).length ? refundMails(token) : undefined));
    expect(mails).toHaveLength(1);
    expect((await timelineOf(stack, token, 'status_changed')).at(-1)!.data).toMatchObject({ to: 'REFUNDED', cause: expect.stringMatching(/^payment_refunded \(sync:/) });
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
