import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signWebhook as signWebhookBody } from '../../../sandbox/storefront-a/webhooks.js';
import { REDACTED } from '../../../activities/storefront-a/privacy.js';
import { pathAllowsTopic } from './storefront-a.js';
import {
  call, createMerchant, DEMO_APP, DEMO_SHOP, installThroughOAuth, simControl, useStorefrontAStack,
} from '../../../test/harness/storefront-a-stack.js';

const s = useStorefrontAStack(async (s) => {
  await s.stack.database.db.storefrontAWebhook.deleteMany();
  await fetch(`${s.stack.urls.email}/_control/messages`, { method: 'DELETE' });
});

const db = () => s.stack.database.db;
const BETA_SHOP = 'beta-shop.myshopify.com';

/** Has the platform post a webhook to our app's endpoint; answers the delivery as the simulator saw it. */
async function platformSends(topic: string, opts: { shop?: string; customerEmail?: string; path?: string } = {}) {
  const res = await simControl(s, 'webhooks/send', {
    shop: opts.shop ?? DEMO_SHOP,
    topic,
    clientId: DEMO_APP.clientId,
    address: `${s.url}${opts.path ?? '/webhooks/storefront-a/events'}`,
    ...(opts.customerEmail ? { customerEmail: opts.customerEmail } : {}),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.deliveries as Delivery[])[0]!;
}
type Delivery = { id: string; status: number | null; ok: boolean; body: string; headers: Record<string, string> };

/** Shopify retries a delivery (it failed, or its answer came too late): the same event under a new webhook id. */
async function platformRetries(delivery: Delivery): Promise<Delivery> {
  const res = await simControl(s, `webhooks/deliveries/${delivery.id}/retry`, {});
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.delivery as Delivery;
}

/** Waits for the processing workflow of a delivery and answers the stored row. */
async function processed(deliveryId: string) {
  await s.stack.temporal.client.workflow.getHandle(`storefront-a-webhook-${deliveryId}`).result();
  return db().storefrontAWebhook.findUniqueOrThrow({ where: { deliveryId } });
}

/** Posts a webhook to us directly, signed with `secret` (the demo app's unless told). */
function post(topic: string, body: unknown, opts: { secret?: string; shop?: string; id?: string; eventId?: string; path?: string; hmac?: string } = {}) {
  const raw = JSON.stringify(body);
  return s.app.inject({
    method: 'POST',
    url: opts.path ?? '/webhooks/storefront-a',
    payload: raw,
    headers: {
      'content-type': 'application/json',
      'x-shopify-topic': topic,
      'x-shopify-shop-domain': opts.shop ?? DEMO_SHOP,
      'x-shopify-hmac-sha256': opts.hmac ?? signWebhookBody(raw, opts.secret ?? DEMO_APP.clientSecret),
      'x-shopify-webhook-id': opts.id ?? randomUUID(),
      'x-shopify-api-version': '2026-10',
      ...(opts.eventId ? { 'x-shopify-event-id': opts.eventId } : {}),
    },
  });
}

let emailN = 0;
async function emailTo(merchantId: string, to: string, subject = 'Your order', kind = 'order_confirmed') {
  return db().emailMessage.create({ data: { idempotencyKey: `test-${emailN++}-${randomUUID()}`, merchantId, kind, to, subject, status: 'SENT', sentAt: new Date() } });
}

describe('the path and the topic header', () => {
  it('accept the one webhook address for any topic, and a path naming the header\'s topic in either spelling', () => {
    expect(pathAllowsTopic('', 'shop/redact')).toBe(true);
    expect(pathAllowsTopic('events', 'shop/redact')).toBe(true);
    expect(pathAllowsTopic('customers/redact', 'customers/redact')).toBe(true);
    expect(pathAllowsTopic('customers-redact', 'customers/redact')).toBe(true);
    expect(pathAllowsTopic('app/uninstalled', 'shop/redact')).toBe(false);
  });
});

describe('app/uninstalled', () => {
  it('given a connected shop / when the platform sends app/uninstalled / then we answer 200, record it, and the connection flag goes false with the token deleted', async () => {
    const m = await createMerchant(s);
    await installThroughOAuth(s, m.token);
    const delivery = await platformSends('app/uninstalled', { path: '/webhooks/storefront-a/app/uninstalled' });
    expect(delivery).toMatchObject({ status: 200, ok: true });

    const row = await processed(delivery.id);
    expect(row).toMatchObject({ shop: DEMO_SHOP, topic: 'app/uninstalled', hmacValid: true, merchantId: m.id });
    expect(row.processedAt).toBeInstanceOf(Date);
    const conn = await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: m.id } });
    expect(conn).toMatchObject({ connected: false, accessTokenEnc: null, scopes: null, scriptTagId: null });
    expect(conn.uninstalledAt).toBeInstanceOf(Date);
    const view = await call(s, 'GET', '/api/merchant/storefront-a', { token: m.token });
    expect(view.body).toMatchObject({ connected: false });
    expect(typeof view.body.uninstalledAt).toBe('string');
  });

  it('given a webhook whose HMAC is wrong / then 401 INVALID_SIGNATURE, it is recorded as invalid, and nothing changes', async () => {
    const m = await createMerchant(s);
    await installThroughOAuth(s, m.token);
    const before = await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: m.id } });
    const id = randomUUID();
    const payload = { id: 1, name: 'Demo Shop', email: 'x@y.z', domain: DEMO_SHOP, myshopify_domain: DEMO_SHOP };
    for (const opts of [{ secret: 'sfa_secret_forged_00000000000000' }, { hmac: 'not-base64' }, { hmac: '' }]) {
      const res = await post('app/uninstalled', payload, { id, ...opts });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ code: 'INVALID_SIGNATURE' });
    }
    const rows = await db().storefrontAWebhook.findMany();
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row).toMatchObject({ hmacValid: false, topic: 'app/uninstalled', shop: DEMO_SHOP, deliveryId: null, processedAt: null });
      expect(row.payload).toMatchObject({ unverified: true, deliveryId: id });
    }
    expect(await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: m.id } })).toEqual(before);
    // The forgeries did not take the delivery id: the real delivery with that id is still acted on.
    const real = await post('app/uninstalled', payload, { id });
    expect(real.statusCode).toBe(200);
    expect((await processed(id)).hmacValid).toBe(true);
    expect((await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: m.id } })).connected).toBe(false);
  });

  it('given a body changed after signing / then 401 and no effect', async () => {
    const m = await createMerchant(s);
    await installThroughOAuth(s, m.token);
    const signed = JSON.stringify({ shop_id: 1, shop_domain: DEMO_SHOP });
    const res = await s.app.inject({
      method: 'POST',
      url: '/webhooks/storefront-a',
      payload: JSON.stringify({ shop_id: 1, shop_domain: DEMO_SHOP, extra: 1 }),
      headers: { 'content-type': 'application/json', 'x-shopify-topic': 'shop/redact', 'x-shopify-shop-domain': DEMO_SHOP, 'x-shopify-hmac-sha256': signWebhookBody(signed, DEMO_APP.clientSecret), 'x-shopify-api-version': '2026-10', 'x-shopify-webhook-id': randomUUID() },
    });
    expect(res.statusCode).toBe(401);
    expect(await db().storefrontAConnection.count({ where: { merchantId: m.id } })).toBe(1);
  });

  it('given a shop we do not know / then 401 and the delivery is recorded without a merchant', async () => {
    const res = await post('app/uninstalled', { id: 1 }, { shop: 'unknown-shop.myshopify.com' });
    expect(res.statusCode).toBe(401);
    expect(await db().storefrontAWebhook.findFirstOrThrow()).toMatchObject({ hmacValid: false, merchantId: null, shop: 'unknown-shop.myshopify.com' });
  });

  it('given the same delivery twice / then both are answered 200, it is recorded once and acted on once', async () => {
    const m = await createMerchant(s);
    await installThroughOAuth(s, m.token);
    const id = randomUUID();
    const payload = { id: 1, name: 'Demo Shop', email: 'x@y.z', domain: DEMO_SHOP, myshopify_domain: DEMO_SHOP };
    const first = await post('app/uninstalled', payload, { id });
    expect(first.json()).toMatchObject({ received: true, duplicate: false });
    const row = await processed(id);
    const second = await post('app/uninstalled', payload, { id });
    expect(second.statusCode).toBe(200);
    expect(second.json()).toMatchObject({ received: true, duplicate: true, id: row.id });
    expect(await db().storefrontAWebhook.count()).toBe(1);
    expect((await db().storefrontAWebhook.findUniqueOrThrow({ where: { id: row.id } })).processedAt).toEqual(row.processedAt);
  });

  it('given one event delivered again under a new webhook id (same X-Shopify-Event-Id) / then it is a duplicate of the first, acted on once; the same event id on another topic is not', async () => {
    const m = await createMerchant(s);
    await installThroughOAuth(s, m.token);
    const eventId = randomUUID();
    const payload = { shop_id: 1, shop_domain: DEMO_SHOP };
    const first = await post('shop/update', payload, { eventId });
    expect(first.json()).toMatchObject({ received: true, duplicate: false });
    const retry = await post('shop/update', payload, { eventId });
    expect(retry.statusCode).toBe(200);
    expect(retry.json()).toMatchObject({ received: true, duplicate: true, id: first.json().id });
    const otherTopic = await post('domains/update', payload, { eventId });
    expect(otherTopic.json()).toMatchObject({ duplicate: false });
    expect(await db().storefrontAWebhook.count({ where: { hmacValid: true } })).toBe(2);
    expect(await db().storefrontAWebhook.findUniqueOrThrow({ where: { id: first.json().id } })).toMatchObject({ eventId, topic: 'shop/update' });
  });

  it('given a signed delivery whose path names another topic, an unknown topic, or a malformed payload / then 400 INVALID_INPUT, recorded, no effect', async () => {
    const m = await createMerchant(s);
    await installThroughOAuth(s, m.token);
    const payload = { id: 1, name: 'Demo Shop', email: 'x@y.z', domain: DEMO_SHOP, myshopify_domain: DEMO_SHOP };
    const cases = [
      await post('app/uninstalled', payload, { path: '/webhooks/storefront-a/shop/redact' }),
      await post('orders/create', payload),
      await post('app/uninstalled', { nope: true }),
    ];
    for (const res of cases) {
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'INVALID_INPUT' });
    }
    const rows = await db().storefrontAWebhook.findMany();
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row.result).toMatchObject({ error: expect.any(String) });
    expect((await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: m.id } })).connected).toBe(true);
  });
});

describe('privacy requests (docs/privacy.md)', () => {
  async function twoMerchants() {
    const a = await createMerchant(s);
    await installThroughOAuth(s, a.token);
    const b = await createMerchant(s);
    // Another merchant, another shop, who also emailed ada.
    await simControl(s, 'shops', { shop: BETA_SHOP });
    await emailTo(b.id, 'ada@example.com', 'Beta order');
    await emailTo(a.id, 'ada@example.com', 'Order #1001');
    await emailTo(a.id, 'ADA@example.com', 'Order #1002 shipped');
    await emailTo(a.id, 'bob@example.com', 'Order #1003');
    await emailTo(a.id, a.email, 'Reset your password', 'password_reset');
    return { a, b };
  }

  it('given customers/data_request / then the customer\'s data held for that shop is stored as the result and emailed to the merchant, and nothing of another merchant is included', async () => {
    const { a } = await twoMerchants();
    const delivery = await platformSends('customers/data_request', { customerEmail: 'ada@example.com' });
    expect(delivery.status).toBe(200);
    const row = await processed(delivery.id);
    const result = row.result as { customer: { email: string }; data: { email_messages: Array<{ subject: string; to: string }> }; reportEmailId: string };
    expect(result.customer.email).toBe('ada@example.com');
    expect(result.data.email_messages.map((e) => e.subject).sort()).toEqual(['Order #1001', 'Order #1002 shipped']);

    const report = await db().emailMessage.findUniqueOrThrow({ where: { id: result.reportEmailId } });
    expect(report).toMatchObject({ merchantId: a.id, to: a.email, kind: 'privacy_data_request', status: 'SENT' });
    const mail = (await (await fetch(`${s.stack.urls.email}/_control/messages?to=${encodeURIComponent(a.email)}`)).json()) as { messages: Array<{ TextBody: string; Tag: string }> };
    expect(mail.messages).toHaveLength(1);
    expect(mail.messages[0]!.Tag).toBe('privacy_data_request');
    expect(mail.messages[0]!.TextBody).toContain('Order #1002 shipped');
    expect(mail.messages[0]!.TextBody).not.toContain('Beta order');
  });

  it('given a data request Shopify retries (same X-Shopify-Event-Id, new X-Shopify-Webhook-Id) / then it is recorded once, acted on once, and the merchant gets one email', async () => {
    const { a } = await twoMerchants();
    const first = await platformSends('customers/data_request', { customerEmail: 'ada@example.com' });
    const row = await processed(first.id);
    const retried = await platformRetries(first);
    expect(retried).toMatchObject({ status: 200, body: first.body });
    expect(retried.id).not.toBe(first.id);
    expect(retried.headers['x-shopify-event-id']).toBe(first.headers['x-shopify-event-id']);

    expect(await db().storefrontAWebhook.findMany({ where: { topic: 'customers/data_request' } })).toEqual([expect.objectContaining({ id: row.id, eventId: first.headers['x-shopify-event-id'] })]);
    expect(await db().emailMessage.count({ where: { merchantId: a.id, kind: 'privacy_data_request' } })).toBe(1);
    const mail = (await (await fetch(`${s.stack.urls.email}/_control/messages?to=${encodeURIComponent(a.email)}`)).json()) as { messages: unknown[] };
    expect(mail.messages).toHaveLength(1);
  });

  it('given a captured data request replayed later under fresh X-Shopify-Event-Id and -Webhook-Id headers (only the body is signed) / then it is a new delivery but the same request: no second email', async () => {
    const { a } = await twoMerchants();
    const first = await platformSends('customers/data_request', { customerEmail: 'ada@example.com' });
    await processed(first.id);
    const replayId = randomUUID();
    const replay = await s.app.inject({
      method: 'POST', url: '/webhooks/storefront-a/events', payload: first.body,
      headers: { ...first.headers, 'x-shopify-webhook-id': replayId, 'x-shopify-event-id': randomUUID() },
    });
    expect(replay.statusCode, replay.body).toBe(200);
    expect(replay.json()).toMatchObject({ duplicate: false });
    await processed(replayId);

    expect(await db().storefrontAWebhook.count({ where: { topic: 'customers/data_request', hmacValid: true } })).toBe(2);
    expect(await db().emailMessage.count({ where: { merchantId: a.id, kind: 'privacy_data_request' } })).toBe(1);
    const mail = (await (await fetch(`${s.stack.urls.email}/_control/messages?to=${encodeURIComponent(a.email)}`)).json()) as { messages: unknown[] };
    expect(mail.messages).toHaveLength(1);
  });

  it('given customers/redact / then that customer\'s emails of that shop are erased, and no one else\'s', async () => {
    const { a, b } = await twoMerchants();
    const request = await processed((await platformSends('customers/data_request', { customerEmail: 'ada@example.com' })).id);
    const delivery = await platformSends('customers/redact', { customerEmail: 'ada@example.com' });
    const row = await processed(delivery.id);
    expect(row.result).toMatchObject({ redacted: { email_messages: 2, privacy_exports: 1 } });

    const mine = await db().emailMessage.findMany({ where: { merchantId: a.id, kind: 'order_confirmed' }, orderBy: { createdAt: 'asc' } });
    expect(mine.map((e) => e.to)).toEqual([REDACTED, REDACTED, 'bob@example.com']);
    expect(mine.filter((e) => e.to === REDACTED).every((e) => e.subject === REDACTED)).toBe(true);
    expect((await db().emailMessage.findFirstOrThrow({ where: { merchantId: b.id } })).to).toBe('ada@example.com');
    // The export we made for her data request is erased too.
    expect((await db().storefrontAWebhook.findUniqueOrThrow({ where: { id: request.id } })).result).toEqual({ redacted: true });
  });

  it('given shop/redact / then the shop\'s connection, tokens and shopper emails are erased; the merchant\'s own account mail stays', async () => {
    const { a, b } = await twoMerchants();
    await db().oAuthState.create({ data: { state: randomUUID(), merchantId: a.id, shop: DEMO_SHOP, expiresAt: new Date(Date.now() + 60_000) } });
    const states = await db().oAuthState.count({ where: { merchantId: a.id } });
    const delivery = await platformSends('shop/redact');
    const row = await processed(delivery.id);
    expect(row.result).toMatchObject({ deleted: { storefront_a_connections: 1, oauth_states: states }, redacted: { email_messages: 3 } });

    expect(await db().storefrontAConnection.count({ where: { merchantId: a.id } })).toBe(0);
    expect(await db().oAuthState.count({ where: { merchantId: a.id } })).toBe(0);
    expect(await db().merchant.findUniqueOrThrow({ where: { id: a.id } })).toMatchObject({ shopDomain: null, storePlatform: null });
    const mine = await db().emailMessage.findMany({ where: { merchantId: a.id } });
    expect(mine.filter((e) => e.kind === 'order_confirmed').every((e) => e.to === REDACTED)).toBe(true);
    expect(mine.find((e) => e.subject === 'Reset your password')?.to).toBe(a.email);
    expect((await db().emailMessage.findFirstOrThrow({ where: { merchantId: b.id } })).to).toBe('ada@example.com');
    // The merchant account itself stays: they can connect a shop again.
    expect((await call(s, 'GET', '/api/merchant/storefront-a', { token: a.token })).status).toBe(404);
  });
});
