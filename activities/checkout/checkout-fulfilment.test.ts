// The activities after payment against the sandbox stores and mailbox: exactly one order per paid session
// on storefront A and B (retries, lost answers and repeated calls included), permanent refusals classified
// non-retryable and recorded, and each order email sent once, escaped, findable by its metadata.
import { randomBytes } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../test/harness/stack.js';
import { createTestMerchant } from '../../test/harness/merchants.js';
import { createSecretBox } from '../../security/secrets.js';
import { createUrlGuard } from '../../security/ssrf.js';
import { createEmailClient } from '../../integrations/email/index.js';
import { STOREFRONT_A_API_VERSION } from '../../integrations/storefront-a/client.js';
import { DEMO_SHOP } from '../../sandbox/storefront-a/simulator.js';
import type { SimOrder } from '../../sandbox/storefront-a/state.js';
import { DEMO_STORE } from '../../sandbox/storefront-b/simulator.js';
import { storefrontBAad } from '../../model/connections.js';
import { seedStorefrontAConnection } from '../../test/harness/storefront-a-seed.js';
import { checkoutReference, createFulfilmentActivities, type FulfilmentActivities } from './checkout-fulfilment.js';

type Json = Record<string, unknown>;
type Item = { productId: string; variantId: string | null; title: string; variantTitle: string | null; quantity: number; unitPrice: number; imageUrl: null };

const SHIPPING_MINOR = 490;
const OTHER_SHOP = 'revoked-shop.myshopify.com';

let stack: TestStack;
let acts: FulfilmentActivities;
let merchantA: { id: string; email: string };
let merchantB: { id: string; email: string };
let merchantRevoked: { id: string; email: string };
let aItems: { tote: Item; mug: Item };
let bItems: { tote: Item; mug: Item };

const db = () => stack.database.db;
const graphqlPathA = (shop: string) => `/shops/${shop}/admin/api/${STOREFRONT_A_API_VERSION}/graphql.json`;
const ordersPathB = `/stores/${DEMO_STORE.id}/wp-json/wc/v3/orders`;

async function getJson(url: string): Promise<Json> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

/** The shop's orders carrying this session token (the custom attribute our draft orders carry). */
async function ordersA(token: string, shop = DEMO_SHOP): Promise<SimOrder[]> {
  const { orders } = (await getJson(`${stack.urls.storefrontA}/_control/shops/${shop}`)) as { orders: SimOrder[] };
  return orders.filter((o) => o.customAttributes.some((a) => a.key === 'checkout_session_token' && a.value === token));
}
async function ordersB(token: string): Promise<Json[]> {
  const { orders } = (await getJson(`${stack.urls.storefrontB}/_control/stores/${DEMO_STORE.id}`)) as { orders: Json[] };
  return orders.filter((o) => (o.meta_data as Array<{ key: string; value: unknown }>).some((m) => m.value === token));
}

async function fault(url: string, rule: Json) {
  const res = await fetch(`${url}/_control/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(rule) });
  expect(res.status).toBe(201);
}

async function insertSession(o: { merchantId: string; platform: 'STOREFRONT_A' | 'STOREFRONT_B'; items: Item[]; cod?: boolean; status?: string; name?: string; email?: string }) {
  const token = `cs_${randomBytes(24).toString('base64url')}`;
  const subtotal = o.items.reduce((n, i) => n + i.unitPrice * i.quantity, 0);
  await db().checkoutSession.create({
    data: {
      token,
      merchantId: o.merchantId,
      platform: o.platform,
      status: o.status ?? (o.cod ? 'COD_CONFIRMED' : 'COMPLETED'),
      currency: 'EUR',
      fxRates: { date: '2026-11-22', rates: { USD: '1.1562' } },
      items: o.items,
      subtotalMinor: subtotal,
      email: o.email ?? 'ada@shopper.test',
      shippingAddress: { name: o.name ?? 'Ada Lovelace', line1: 'Hauptstraße 1', line2: 'Hinterhaus', city: 'Berlin', postalCode: '10115', country: 'DE', phone: '+49 30 555' },
      shippingRateId: 'rate-standard',
      shippingName: 'Standard',
      shippingMinor: SHIPPING_MINOR,
      totalMinor: subtotal + SHIPPING_MINOR,
      paymentMethod: o.cod ? 'cod' : 'card',
      processorPaymentId: o.cod ? null : `pay_${randomBytes(6).toString('hex')}`,
      completedAt: new Date(),
    },
  });
  return token;
}

/** Calls the activity as Temporal would retry it: again after every retryable failure. */
async function retrying<T>(fn: () => Promise<T>, maxFailures = 10): Promise<{ result: T; failures: ApplicationFailure[] }> {
  const failures: ApplicationFailure[] = [];
  for (;;) {
    try {
      return { result: await fn(), failures };
    } catch (err) {
      if (!(err instanceof ApplicationFailure) || err.nonRetryable || failures.length >= maxFailures) throw err;
      failures.push(err);
    }
  }
}

async function failure(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

const events = (token: string, type: string) => db().sessionEvent.findMany({ where: { token, type } });
const mailbox = (token: string, kind: string) => stack.sims.email.messages({ metadataKey: 'token', metadataValue: token }).filter((m) => m.Metadata.kind === kind);

async function connectA(merchantId: string, shop: string): Promise<string> {
  const seeded = await seedStorefrontAConnection({ db: db(), secrets: createSecretBox(stack.config.secretsKey!), config: stack.config, sim: stack.sims.storefrontA }, merchantId, shop);
  return seeded.accessToken;
}

beforeAll(async () => {
  stack = await startTestStack();
  const secrets = createSecretBox(stack.config.secretsKey!);
  const email = createEmailClient({ serverToken: 'sandbox-server-token', apiUrl: stack.urls.email });
  acts = createFulfilmentActivities({ config: stack.config, db: db(), secrets, email, urlGuard: createUrlGuard({ allowedOrigins: Object.values(stack.urls) }), timeoutMs: 1_000 });

  merchantA = await createTestMerchant(db(), stack.app, 'Ampersand & <Co> "Shop"');
  await db().merchant.update({ where: { id: merchantA.id }, data: { logoUrl: 'https://cdn.example/logo.png?a=1&b=2', primaryColor: '#0a7cff' } });
  await connectA(merchantA.id, DEMO_SHOP);

  merchantRevoked = await createTestMerchant(db(), stack.app, 'Revoked');
  const created = await fetch(`${stack.urls.storefrontA}/_control/shops`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ shop: OTHER_SHOP }) });
  expect(created.status).toBe(201);
  const revokedToken = await connectA(merchantRevoked.id, OTHER_SHOP);
  stack.sims.storefrontA.state.tokens.delete(revokedToken);

  merchantB = await createTestMerchant(db(), stack.app, 'B Store');
  await db().storefrontBConnection.create({
    data: {
      merchantId: merchantB.id,
      storeUrl: `${stack.urls.storefrontB}/stores/${DEMO_STORE.id}`,
      consumerKeyEnc: secrets.encrypt(DEMO_STORE.consumerKey, storefrontBAad.consumerKey(merchantB.id)),
      consumerKeyLast4: DEMO_STORE.consumerKey.slice(-4),
      consumerSecretEnc: secrets.encrypt(DEMO_STORE.consumerSecret, storefrontBAad.consumerSecret(merchantB.id)),
      connectedAt: new Date(),
    },
  });

  const shopA = stack.sims.storefrontA.state.shops.get(DEMO_SHOP)!;
  const [toteA, mugA] = shopA.products;
  aItems = {
    tote: { productId: String(toteA!.id), variantId: String(toteA!.variants[0]!.id), title: toteA!.title, variantTitle: null, quantity: 1, unitPrice: toteA!.variants[0]!.price, imageUrl: null },
    mug: { productId: String(mugA!.id), variantId: String(mugA!.variants[1]!.id), title: mugA!.title, variantTitle: mugA!.variants[1]!.title, quantity: 2, unitPrice: mugA!.variants[1]!.price, imageUrl: null },
  };
  const store = stack.sims.storefrontB.stores.get(DEMO_STORE.id)!;
  const [toteB, mugB] = store.products;
  bItems = {
    tote: { productId: String(toteB!.id), variantId: null, title: toteB!.name, variantTitle: null, quantity: 1, unitPrice: toteB!.price, imageUrl: null },
    mug: { productId: String(mugB!.id), variantId: String(mugB!.variations[0]!.id), title: mugB!.name, variantTitle: mugB!.variations[0]!.title, quantity: 2, unitPrice: mugB!.variations[0]!.price, imageUrl: null },
  };
});

afterAll(async () => {
  await stack?.close();
});

describe('createStoreOrder on storefront A', () => {
  it('given a completed card session, when the order is created, then the shop has one paid order with its lines, shipping and totals, recorded on the session', async () => {
    const token = await insertSession({ merchantId: merchantA.id, platform: 'STOREFRONT_A', items: [aItems.tote, aItems.mug] });
    const result = await acts.createStoreOrder(token);
    expect(result.created).toBe(true);

    const [order, ...more] = await ordersA(token);
    expect(more).toHaveLength(0);
    expect(order).toMatchObject({
      id: Number(result.storeOrderId),
      financialStatus: 'PAID',
      currency: 'EUR',
      email: 'ada@shopper.test',
      subtotal: 6090,
      total: 6580,
      shipping: { title: 'Standard', price: 490 },
      shippingAddress: { firstName: 'Ada', lastName: 'Lovelace', address1: 'Hauptstraße 1', address2: 'Hinterhaus', city: 'Berlin', zip: '10115', countryCode: 'DE' },
    });
    expect(order!.tags).toEqual(expect.arrayContaining(['hosted-checkout', token]));
    expect(order!.lines).toMatchObject([
      { variantId: Number(aItems.tote.variantId), quantity: 1, unitPrice: 2490 },
      { variantId: Number(aItems.mug.variantId), quantity: 2, unitPrice: 1800 },
    ]);
    // The intent (the draft order) was on the session's timeline before it was completed.
    const [draft] = await events(token, 'store_order_draft');
    expect(String((draft?.data as { draftOrderId: string }).draftOrderId)).toMatch(/^gid:\/\/shopify\/DraftOrder\/\d+$/);

    const session = await db().checkoutSession.findUniqueOrThrow({ where: { token } });
    expect(session.storeOrderId).toBe(result.storeOrderId);
    const [created] = await events(token, 'order_created');
    expect(created?.data).toMatchObject({ storeOrderId: result.storeOrderId, number: order!.name, paid: true, created: true, platform: 'STOREFRONT_A' });
  });

  it('given a COD session, when the order is created, then it waits for payment (pending, not paid)', async () => {
    const token = await insertSession({ merchantId: merchantA.id, platform: 'STOREFRONT_A', items: [aItems.tote], cod: true });
    await acts.createStoreOrder(token);
    const [order] = await ordersA(token);
    expect(order).toMatchObject({ financialStatus: 'PENDING', total: 2980 });
  });

  it('given the activity runs twice or its record was lost, then the store still holds exactly one order (created true, then false)', async () => {
    const token = await insertSession({ merchantId: merchantA.id, platform: 'STOREFRONT_A', items: [aItems.mug] });
    const first = await acts.createStoreOrder(token);
    const second = await acts.createStoreOrder(token);
    expect(first.created).toBe(true);
    expect(second).toEqual({ storeOrderId: first.storeOrderId, created: false });

    // A crash after the store call, before the session recorded it: the recorded draft order leads to it.
    await db().checkoutSession.update({ where: { token }, data: { storeOrderId: null } });
    expect(await acts.createStoreOrder(token)).toEqual({ storeOrderId: first.storeOrderId, created: false });
    expect(await ordersA(token)).toHaveLength(1);
    expect(await events(token, 'order_created')).toHaveLength(2);
  });

  it('given the store fails its first 5 order calls, when the activity is retried until it succeeds, then exactly one order exists', async () => {
    const token = await insertSession({ merchantId: merchantA.id, platform: 'STOREFRONT_A', items: [aItems.tote] });
    await fault(stack.urls.storefrontA, { mode: 'error', status: 500, count: 5, match: graphqlPathA(DEMO_SHOP), method: 'POST' });
    const { result, failures } = await retrying(() => acts.createStoreOrder(token));
    expect(failures.map((f) => f.type)).toEqual(Array(5).fill('storefront-a.unavailable'));
    expect(result.created).toBe(true);
    expect(await ordersA(token)).toHaveLength(1);
  });

  it('given the answer to a draft-order call is lost after Shopify committed it, when the activity goes on, then the shop has exactly one order', async () => {
    // A transport that delivers the nth Admin mutation but loses its answer, as a reset connection would.
    const lossy = (loseNth: number) => {
      let posts = 0;
      const transport: typeof fetch = async (input, init) => {
        const res = await fetch(input, init);
        if (init?.method === 'POST' && /mutation/.test(String(init.body)) && ++posts === loseNth) throw new TypeError('fetch failed: socket hang up');
        return res;
      };
      return createFulfilmentActivities({ config: stack.config, db: db(), secrets: createSecretBox(stack.config.secretsKey!), email: createEmailClient({ serverToken: 'sandbox-server-token', apiUrl: stack.urls.email }), fetch: transport });
    };
    // 1: draftOrderCreate's answer lost (an extra open draft, never an order); 2: draftOrderComplete's answer
    // lost: the recorded draft is read back and its order is the one.
    for (const [loseNth, failuresSeen, created] of [[1, ['storefront-a.unavailable'], true], [2, [], false]] as const) {
      const token = await insertSession({ merchantId: merchantA.id, platform: 'STOREFRONT_A', items: [aItems.tote] });
      const activities = lossy(loseNth);
      const { result, failures } = await retrying(() => activities.createStoreOrder(token));
      expect(failures.map((f) => f.type)).toEqual(failuresSeen);
      expect(result.created).toBe(created);
      const orders = await ordersA(token);
      expect(orders).toHaveLength(1);
      expect(String(orders[0]!.id)).toBe(result.storeOrderId);
    }
  });

  it('given the shop throttles the app (GraphQL cost bucket empty), then the order waits for the bucket to refill and is created once', async () => {
    const token = await insertSession({ merchantId: merchantA.id, platform: 'STOREFRONT_A', items: [aItems.tote] });
    await fetch(`${stack.urls.storefrontA}/_control/shops/${DEMO_SHOP}/throttle`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ currentlyAvailable: 0, maximumAvailable: 2000, restoreRate: 20 }) });
    const started = Date.now();
    const { result, failures } = await retrying(() => acts.createStoreOrder(token));
    expect(failures).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(result.created).toBe(true);
    expect(await ordersA(token)).toHaveLength(1);
  });

  it('given a line the store does not know, then the refusal is non-retryable, creates nothing, and tells the merchant what the store said', async () => {
    const token = await insertSession({ merchantId: merchantA.id, platform: 'STOREFRONT_A', items: [{ ...aItems.tote, variantId: '999999' }] });
    const refused = await failure(acts.createStoreOrder(token));
    expect(refused).toMatchObject({ type: 'storefront-a.rejected', nonRetryable: true });
    expect(refused.message).toContain('Shopify refused the order');
    expect(await ordersA(token)).toHaveLength(0);
    expect((await db().checkoutSession.findUniqueOrThrow({ where: { token } })).storeOrderId).toBeNull();
  });

  it('given the access token was revoked at the store, then the failure is non-retryable unauthorized', async () => {
    const token = await insertSession({ merchantId: merchantRevoked.id, platform: 'STOREFRONT_A', items: [aItems.tote] });
    const refused = await failure(acts.createStoreOrder(token));
    expect(refused).toMatchObject({ type: 'storefront-a.unauthorized', nonRetryable: true });
    expect(refused.message).toContain('reconnect');
    expect(await ordersA(token, OTHER_SHOP)).toHaveLength(0);
  });

  it('given a session that was never paid, then nothing is created and the failure is non-retryable', async () => {
    const token = await insertSession({ merchantId: merchantA.id, platform: 'STOREFRONT_A', items: [aItems.tote], status: 'PAYMENT_PENDING' });
    expect(await failure(acts.createStoreOrder(token))).toMatchObject({ type: 'CONFLICT', nonRetryable: true });
    expect(await failure(acts.createStoreOrder('cs_unknown'))).toMatchObject({ type: 'NOT_FOUND', nonRetryable: true });
    expect(await ordersA(token)).toHaveLength(0);
  });
});

describe('createStoreOrder on storefront B', () => {
  it('given a completed card session, when the order is created, then the store has one paid processing order with its lines, shipping and totals', async () => {
    const token = await insertSession({ merchantId: merchantB.id, platform: 'STOREFRONT_B', items: [bItems.tote, bItems.mug] });
    const result = await acts.createStoreOrder(token);
    expect(result.created).toBe(true);
    const session = await db().checkoutSession.findUniqueOrThrow({ where: { token } });

    const [order, ...more] = await ordersB(token);
    expect(more).toHaveLength(0);
    expect(order).toMatchObject({
      id: Number(result.storeOrderId),
      status: 'processing',
      payment_method: 'hosted_checkout',
      transaction_id: session.processorPaymentId,
      currency: 'EUR',
      total: '65.80',
      shipping_total: '4.90',
      billing: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@shopper.test', country: 'DE' },
      shipping: { address_1: 'Hauptstraße 1', city: 'Berlin', postcode: '10115' },
      shipping_lines: [{ method_title: 'Standard', total: '4.90' }],
    });
    expect(order!.date_paid_gmt).not.toBeNull();
    expect(order!.line_items).toMatchObject([
      { product_id: Number(bItems.tote.productId), variation_id: 0, quantity: 1, total: '24.90' },
      { product_id: Number(bItems.mug.productId), variation_id: Number(bItems.mug.variantId), quantity: 2, total: '36.00' },
    ]);
    expect(session.storeOrderId).toBe(result.storeOrderId);
  });

  it('given a COD session, then the order is on hold, unpaid', async () => {
    const token = await insertSession({ merchantId: merchantB.id, platform: 'STOREFRONT_B', items: [bItems.tote], cod: true });
    await acts.createStoreOrder(token);
    const [order] = await ordersB(token);
    expect(order).toMatchObject({ status: 'on-hold', payment_method: 'cod', date_paid_gmt: null, total: '29.80' });
  });

  it('given the store fails its first 5 order calls, when the activity is retried, then exactly one order exists; a second run finds it', async () => {
    const token = await insertSession({ merchantId: merchantB.id, platform: 'STOREFRONT_B', items: [bItems.mug] });
    await fault(stack.urls.storefrontB, { mode: 'error', status: 500, count: 5, match: ordersPathB });
    const { result, failures } = await retrying(() => acts.createStoreOrder(token));
    expect(failures).toHaveLength(5);
    expect(result.created).toBe(true);
    expect(await acts.createStoreOrder(token)).toEqual({ storeOrderId: result.storeOrderId, created: false });
    expect(await ordersB(token)).toHaveLength(1);
  });

  it('given a product the store does not have, then the refusal is non-retryable with the store’s reason', async () => {
    const token = await insertSession({ merchantId: merchantB.id, platform: 'STOREFRONT_B', items: [{ ...bItems.tote, productId: '999999' }] });
    const refused = await failure(acts.createStoreOrder(token));
    expect(refused).toMatchObject({ type: 'storefront-b.rejected', nonRetryable: true });
    expect(refused.message).toContain('Product ID 999999 is invalid');
    expect(await ordersB(token)).toHaveLength(0);
  });
});

describe('order emails', () => {
  it('given a created order, when the confirmation is sent twice, then the shopper gets one branded, escaped email with the store’s order number', async () => {
    const mug = { ...aItems.mug, title: 'Mug <script>alert(1)</script>' };
    const token = await insertSession({ merchantId: merchantA.id, platform: 'STOREFRONT_A', items: [mug], name: 'Ada <b>Lovelace</b>' });
    await acts.createStoreOrder(token);
    const [order] = await ordersA(token);

    const first = await acts.sendOrderConfirmation(token);
    const second = await acts.sendOrderConfirmation(token);
    expect(first.status).toBe('SENT');
    expect(second).toEqual({ status: 'ALREADY_SENT', messageId: first.messageId });

    const [message, ...more] = mailbox(token, 'order_confirmation');
    expect(more).toHaveLength(0);
    expect(message).toMatchObject({ MessageID: first.messageId, To: 'ada@shopper.test', ReplyTo: merchantA.email, Tag: 'order_confirmation', Metadata: { token, kind: 'order_confirmation' } });
    expect(message!.From).toMatch(/^"Ampersand & Co Shop" </);
    expect(message!.Subject).toBe(`Order ${String(order!.name)} confirmed – Ampersand & <Co> "Shop"`);
    const html = message!.HtmlBody;
    expect(html).not.toContain('<script>');
    expect(html).toContain('Mug &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('Ada &lt;b&gt;Lovelace&lt;/b&gt;');
    expect(html).toContain('src="https://cdn.example/logo.png?a=1&amp;b=2" alt="Ampersand &amp; &lt;Co&gt; &quot;Shop&quot;"');
    expect(html).toContain('#0a7cff');
    expect(html).toContain('€40.90');
    expect(message!.TextBody).toContain('Total: €40.90');

    const row = await db().emailMessage.findUniqueOrThrow({ where: { idempotencyKey: `order_confirmation:${token}` } });
    expect(row).toMatchObject({ status: 'SENT', providerMessageId: first.messageId, merchantId: merchantA.id, to: 'ada@shopper.test' });
    expect((await events(token, 'email_sent')).map((e) => e.data)).toEqual([{ kind: 'order_confirmation', messageId: first.messageId }]);
  });

  it('given a confirmation Postmark accepted but whose worker died before recording it, when the activity is retried, then the shopper still gets one email', async () => {
    const token = await insertSession({ merchantId: merchantB.id, platform: 'STOREFRONT_B', items: [bItems.tote] });
    await acts.createStoreOrder(token);
    const first = await acts.sendOrderConfirmation(token);
    // The crash `npm run drill` caught: the message went out, the SENT write never happened.
    await db().emailMessage.update({ where: { idempotencyKey: `order_confirmation:${token}` }, data: { status: 'PENDING', providerMessageId: null, sentAt: null } });

    const retried = await new MockActivityEnvironment({ attempt: 2 }).run(acts.sendOrderConfirmation, token);
    expect(retried).toEqual({ status: 'ALREADY_SENT', messageId: first.messageId });
    expect(mailbox(token, 'order_confirmation')).toHaveLength(1);
    expect(await db().emailMessage.findUniqueOrThrow({ where: { idempotencyKey: `order_confirmation:${token}` } })).toMatchObject({ status: 'SENT', providerMessageId: first.messageId });
  });

  it('given a retried attempt whose earlier attempt never reached Postmark, then it sends the notification once', async () => {
    const token = await insertSession({ merchantId: merchantB.id, platform: 'STOREFRONT_B', items: [bItems.tote] });
    await acts.createStoreOrder(token);
    const sent = (await new MockActivityEnvironment({ attempt: 3 }).run(acts.sendMerchantOrderNotification, token)) as Awaited<ReturnType<FulfilmentActivities['sendMerchantOrderNotification']>>;
    expect(sent.status).toBe('SENT');
    expect(mailbox(token, 'merchant_order_notification').map((m) => m.MessageID)).toEqual([sent.messageId]);
  });

  it('given a created order, when the merchant notification is sent twice, then the merchant gets one email with customer, total and store order id', async () => {
    const token = await insertSession({ merchantId: merchantB.id, platform: 'STOREFRONT_B', items: [bItems.tote] });
    const { storeOrderId } = await acts.createStoreOrder(token);
    await acts.sendMerchantOrderNotification(token);
    expect((await acts.sendMerchantOrderNotification(token)).status).toBe('ALREADY_SENT');

    const [message, ...more] = mailbox(token, 'merchant_order_notification');
    expect(more).toHaveLength(0);
    expect(message).toMatchObject({ To: merchantB.email, Metadata: { token, kind: 'merchant_order_notification' } });
    // Storefront B numbers its orders "25"; people read it "#25", as the dashboard and the store's own pages show it.
    expect(message!.Subject).toBe(`New order #${storeOrderId}: €29.80 from Ada Lovelace`);
    expect(message!.TextBody).toContain(`id ${storeOrderId}`);
    expect(message!.TextBody).toContain('Customer: Ada Lovelace <ada@shopper.test>');
    expect(message!.TextBody).toContain('Paid by card: €29.80');
  });

  it('given a COD order, then the confirmation tells the shopper to pay on delivery', async () => {
    const token = await insertSession({ merchantId: merchantB.id, platform: 'STOREFRONT_B', items: [bItems.tote], cod: true });
    await acts.createStoreOrder(token);
    await acts.sendOrderConfirmation(token);
    expect(mailbox(token, 'order_confirmation')[0]?.TextBody).toContain('You pay €29.80 in cash on delivery.');
  });

  it('given the store refused the order, when the failure is recorded and the problem email sent (each twice), then the session keeps the reason once and the merchant gets one email with it', async () => {
    const token = await insertSession({ merchantId: merchantA.id, platform: 'STOREFRONT_A', items: [{ ...aItems.tote, variantId: '999999' }] });
    const refused = await failure(acts.createStoreOrder(token));
    await acts.recordStoreOrderFailure(token, refused.message);
    await acts.recordStoreOrderFailure(token, refused.message);
    const session = await db().checkoutSession.findUniqueOrThrow({ where: { token } });
    expect(session).toMatchObject({ status: 'COMPLETED', storeOrderId: null, storeOrderError: refused.message });
    expect((await events(token, 'order_failed')).map((e) => e.data)).toEqual([{ message: refused.message }]);

    expect((await acts.sendStoreOrderProblemEmail(token)).status).toBe('SENT');
    expect((await acts.sendStoreOrderProblemEmail(token)).status).toBe('ALREADY_SENT');
    const [message, ...more] = mailbox(token, 'store_order_problem');
    expect(more).toHaveLength(0);
    expect(message).toMatchObject({ To: merchantA.email, Tag: 'store_order_problem' });
    expect(message!.Subject).toBe('Action needed: an order for €29.80 could not be created in your store');
    expect(message!.TextBody).toContain(refused.message);
    expect(message!.TextBody).toContain(`Checkout session: ${token}`);

    // The shopper paid: their confirmation still goes out, under the checkout's own reference.
    await acts.sendOrderConfirmation(token);
    const confirmation = mailbox(token, 'order_confirmation')[0];
    expect(confirmation?.Subject).toContain(`Order ${checkoutReference(token)} confirmed`);
    expect(confirmation?.TextBody).not.toContain(token);
  });

  it('given an order exists, then no problem email is sent for it', async () => {
    const token = await insertSession({ merchantId: merchantB.id, platform: 'STOREFRONT_B', items: [bItems.tote] });
    await acts.createStoreOrder(token);
    expect(await failure(acts.sendStoreOrderProblemEmail(token))).toMatchObject({ type: 'CONFLICT', nonRetryable: true });
    expect(mailbox(token, 'store_order_problem')).toHaveLength(0);
  });
});

describe('createStoreRefund on storefront A', () => {
  /** The service's database, whose first `checkoutSession.update` (in a transaction or not) is lost, as a dropped connection. */
  function losingFirstSessionUpdate() {
    let lost = false;
    const wrap = <T extends object>(client: T): T =>
      new Proxy(client, {
        get(target, prop, receiver) {
          const value: unknown = Reflect.get(target, prop, receiver);
          if (prop === '$transaction') return (fn: (tx: object) => Promise<unknown>, opts?: unknown) => (value as (f: (tx: object) => Promise<unknown>, o?: unknown) => Promise<unknown>).call(target, (tx) => fn(wrap(tx)), opts);
          if (prop === 'checkoutSession') {
            const model = value as Record<string, unknown>;
            return new Proxy(model, {
              get(m, p) {
                const fn = m[p as string];
                if (p === 'update' && !lost) return () => ((lost = true), Promise.reject(new Error('Connection terminated unexpectedly')));
                return typeof fn === 'function' ? (fn as (...a: unknown[]) => unknown).bind(m) : fn;
              },
            });
          }
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
    return wrap(db());
  }

  it('given the write after the store booked the refund is lost, when the activity is retried, then the order shows the store\'s refunded status and the store holds one refund', async () => {
    // The shop's cost bucket full again (the throttling test above drains it and slows its refill).
    const full = await fetch(`${stack.urls.storefrontA}/_control/shops/${DEMO_SHOP}/throttle`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ currentlyAvailable: 2000 }) });
    expect(full.status).toBe(200);
    const token = await insertSession({ merchantId: merchantA.id, platform: 'STOREFRONT_A', items: [aItems.tote, aItems.mug] });
    await acts.createStoreOrder(token);
    const refund = await db().refund.create({ data: { token, merchantId: merchantA.id, amountMinor: aItems.tote.unitPrice, currency: 'EUR', origin: 'merchant', state: 'succeeded', lines: [{ line: 0, quantity: 1 }], succeededAt: new Date() } });
    const flaky = createFulfilmentActivities({ config: stack.config, db: losingFirstSessionUpdate() as ReturnType<typeof db>, secrets: createSecretBox(stack.config.secretsKey!), email: createEmailClient({ serverToken: 'sandbox-server-token', apiUrl: stack.urls.email }), urlGuard: createUrlGuard({ allowedOrigins: Object.values(stack.urls) }), timeoutMs: 1_000 });

    // Retried as Temporal would, through whatever else fails meanwhile (an earlier test may leave the shop throttled).
    const errors: string[] = [];
    let retried: Awaited<ReturnType<typeof flaky.createStoreRefund>> | undefined;
    for (let attempt = 0; attempt < 20 && !retried; attempt++) {
      try {
        retried = await flaky.createStoreRefund(token, refund.id);
      } catch (err) {
        errors.push((err as Error).message);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    expect(errors, errors.join(' / ')).toContain('Connection terminated unexpectedly');

    expect(retried!.state).toBe('created');
    const [order] = await ordersA(token);
    expect(order!.refunds).toHaveLength(1);
    expect(order!.financialStatus).toBe('PARTIALLY_REFUNDED');
    // The page stops following once the refund reads booked: by then the order must read the store's new status.
    expect((await db().checkoutSession.findUniqueOrThrow({ where: { token } })).storeOrderStatus).toBe('partially_refunded');
    expect(await db().refund.findUniqueOrThrow({ where: { id: refund.id } })).toMatchObject({ storeState: 'created', storeRefundId: retried!.storeRefundId });
  });
});
