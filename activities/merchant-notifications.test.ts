// The merchant's notification emails as the notification settings decide them, in the sandbox mailbox: for each event
// (a new order, a refund, an order the store refused, a webhook endpoint disabled) enabled → one email to the chosen
// addresses, disabled → none, the same event again (a retried activity, a re-run workflow) → still one.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { startTestStack, type TestStack } from '../test/harness/stack.js';
import { createTestMerchant, type TestMerchant } from '../test/harness/merchants.js';
import { createSecretBox } from '../security/secrets.js';
import { createUrlGuard } from '../security/ssrf.js';
import { createEmailClient } from '../integrations/email/index.js';
import { createFulfilmentActivities, type FulfilmentActivities } from './checkout/checkout-fulfilment.js';
import { createMerchantWebhookActivities } from './merchant-webhooks/merchant-webhooks.js';

let stack: TestStack;
let acts: FulfilmentActivities;
let hooks: ReturnType<typeof createMerchantWebhookActivities>;

const db = () => stack.database.db;
/** What the sandbox mailbox received for this session (metadata token) or endpoint (metadata endpointId), by kind. */
const mailbox = (key: 'token' | 'endpointId', value: string, kind: string) =>
  stack.sims.email.messages({ metadataKey: key, metadataValue: value }).filter((m) => (m.Metadata.kind ?? m.Tag) === kind);

async function paidSession(merchantId: string, o: { storeOrderError?: string } = {}) {
  const token = `cs_${randomBytes(24).toString('base64url')}`;
  await db().checkoutSession.create({
    data: {
      token, merchantId, platform: 'STOREFRONT_B', status: 'COMPLETED', currency: 'EUR', fxRates: { date: '2026-11-22', rates: {} },
      items: [{ productId: '1', variantId: null, title: 'Canvas tote', variantTitle: null, quantity: 1, unitPrice: 2000, imageUrl: null }],
      subtotalMinor: 2000, email: 'ada@shopper.test',
      shippingAddress: { name: 'Ada Lovelace', line1: 'Hauptstraße 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
      shippingRateId: 'rate-standard', shippingName: 'Standard', shippingMinor: 490, totalMinor: 2490, paymentMethod: 'card',
      processorPaymentId: `pay_${randomBytes(6).toString('hex')}`, completedAt: new Date(), storeOrderNumber: '#1042', storeOrderId: o.storeOrderError ? null : 'gid-1042',
      storeOrderError: o.storeOrderError ?? null,
    },
  });
  return token;
}

async function succeededRefund(token: string, merchantId: string, amountMinor: number) {
  const row = await db().refund.create({ data: { token, merchantId, amountMinor, currency: 'EUR', origin: 'merchant', reason: 'Damaged', state: 'succeeded', storeState: 'created', succeededAt: new Date() } });
  return row.id;
}

async function settings(merchantId: string, data: Partial<{ notifyNewOrder: boolean; notifyRefund: boolean; notifyStoreOrderFailed: boolean; notifyEndpointDisabled: boolean; notificationEmails: string[] }>) {
  await db().merchant.update({ where: { id: merchantId }, data });
}

beforeAll(async () => {
  stack = await startTestStack();
  const secrets = createSecretBox(stack.config.secretsKey!);
  const email = createEmailClient({ serverToken: 'sandbox-server-token', apiUrl: stack.urls.email });
  const urlGuard = createUrlGuard({ allowedOrigins: Object.values(stack.urls) });
  acts = createFulfilmentActivities({ config: stack.config, db: db(), secrets, email, urlGuard, timeoutMs: 1_000 });
  // No workflow is started here: the endpoint email reads the database and mails.
  const temporal = { get client(): Client { throw new Error('not used'); } };
  hooks = createMerchantWebhookActivities({ db: db(), config: stack.config, secrets, urlGuard, email, temporal });
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

describe('new order', () => {
  it('given it is on (the default), one email to the account address, and a second call sends no other', async () => {
    const m = await createTestMerchant(db(), stack.app, 'Notify On');
    const token = await paidSession(m.id);
    expect((await acts.sendMerchantOrderNotification(token)).status).toBe('SENT');
    expect((await acts.sendMerchantOrderNotification(token)).status).toBe('ALREADY_SENT');
    const sent = mailbox('token', token, 'merchant_order_notification');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.To).toBe(m.email);
    expect(sent[0]!.Subject).toContain('#1042');
  });

  it('given the merchant chose addresses, the one email goes to all of them', async () => {
    const m = await createTestMerchant(db(), stack.app, 'Notify Many');
    await settings(m.id, { notificationEmails: ['ops@notify.test', 'owner@notify.test'] });
    const token = await paidSession(m.id);
    await acts.sendMerchantOrderNotification(token);
    await acts.sendMerchantOrderNotification(token);
    const sent = mailbox('token', token, 'merchant_order_notification');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.To).toBe('ops@notify.test, owner@notify.test');
    const row = await db().emailMessage.findUniqueOrThrow({ where: { idempotencyKey: `merchant_order_notification:${token}` } });
    expect(row).toMatchObject({ status: 'SENT', to: 'ops@notify.test, owner@notify.test' });
  });

  it('given it is off, nothing is sent or recorded, and the shopper\'s confirmation still goes', async () => {
    const m = await createTestMerchant(db(), stack.app, 'Notify Off');
    await settings(m.id, { notifyNewOrder: false });
    const token = await paidSession(m.id);
    expect((await acts.sendMerchantOrderNotification(token)).status).toBe('SWITCHED_OFF');
    expect(await acts.sendOrderConfirmation(token)).toMatchObject({ status: 'SENT' });
    expect(mailbox('token', token, 'merchant_order_notification')).toHaveLength(0);
    expect(mailbox('token', token, 'order_confirmation')).toHaveLength(1);
    expect(await db().emailMessage.findUnique({ where: { idempotencyKey: `merchant_order_notification:${token}` } })).toBeNull();
  });
});

describe('refund', () => {
  it('given it is off (the default), no email; switched on, one per refund, however often asked', async () => {
    const m = await createTestMerchant(db(), stack.app, 'Notify Refund');
    const token = await paidSession(m.id);
    const first = await succeededRefund(token, m.id, 1000);
    expect((await acts.sendMerchantRefundNotification(token, first)).status).toBe('SWITCHED_OFF');
    expect(mailbox('token', token, 'merchant_refund_notification')).toHaveLength(0);

    await settings(m.id, { notifyRefund: true, notificationEmails: ['refunds@notify.test'] });
    const second = await succeededRefund(token, m.id, 500);
    expect((await acts.sendMerchantRefundNotification(token, second)).status).toBe('SENT');
    expect((await acts.sendMerchantRefundNotification(token, second)).status).toBe('ALREADY_SENT');
    const sent = mailbox('token', token, 'merchant_refund_notification');
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ To: 'refunds@notify.test', Subject: 'Refund of €5.00 on order #1042' });
    expect(sent[0]!.TextBody).toContain('Reason given: Damaged');
    expect(sent[0]!.TextBody).toContain('€9.90 of the order stays paid');
  });
});

describe('store order failed', () => {
  it('given it is on, one problem email; given it is off, none', async () => {
    const on = await createTestMerchant(db(), stack.app, 'Notify Store On');
    const t1 = await paidSession(on.id, { storeOrderError: 'WooCommerce refused the order: product gone' });
    await acts.sendStoreOrderProblemEmail(t1);
    await acts.sendStoreOrderProblemEmail(t1);
    expect(mailbox('token', t1, 'store_order_problem')).toHaveLength(1);

    const off = await createTestMerchant(db(), stack.app, 'Notify Store Off');
    await settings(off.id, { notifyStoreOrderFailed: false });
    const t2 = await paidSession(off.id, { storeOrderError: 'WooCommerce refused the order: product gone' });
    expect((await acts.sendStoreOrderProblemEmail(t2)).status).toBe('SWITCHED_OFF');
    expect(mailbox('token', t2, 'store_order_problem')).toHaveLength(0);
  });
});

describe('webhook endpoint disabled', () => {
  async function endpoint(m: TestMerchant) {
    const id = randomUUID();
    await db().webhookEndpoint.create({ data: { id, merchantId: m.id, url: 'https://hooks.example.test/in', secretEnc: 'sealed', enabled: false, disabledReason: 'failing' } });
    return id;
  }

  it('given it is on, one notice to the chosen addresses per disable, even when the step runs twice', async () => {
    const m = await createTestMerchant(db(), stack.app, 'Notify Hooks On');
    await settings(m.id, { notificationEmails: ['dev@notify.test'] });
    const id = await endpoint(m);
    const failingSince = Date.now() - 5 * 24 * 3600_000;
    expect((await hooks.sendWebhookEndpointEmail({ endpointId: id, failingSince, step: 'disable' }))?.status).toBe('SENT');
    expect((await hooks.sendWebhookEndpointEmail({ endpointId: id, failingSince, step: 'disable' }))?.status).toBe('ALREADY_SENT');
    const sent = stack.sims.email.messages({ metadataKey: 'endpointId', metadataValue: id });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.To).toBe('dev@notify.test');
  });

  it('given it is off, no notice', async () => {
    const m = await createTestMerchant(db(), stack.app, 'Notify Hooks Off');
    await settings(m.id, { notifyEndpointDisabled: false });
    const id = await endpoint(m);
    expect((await hooks.sendWebhookEndpointEmail({ endpointId: id, failingSince: Date.now(), step: 'disable' }))?.status).toBe('SWITCHED_OFF');
    expect(stack.sims.email.messages({ metadataKey: 'endpointId', metadataValue: id })).toHaveLength(0);
  });
});
