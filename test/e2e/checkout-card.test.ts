// The promise, end to end and through HTTP only: a store cart becomes a checkout session, the shopper
// pays on the processor's page, the signed webhook completes the session, and the merchant's store gets
// exactly one order while the shopper and the merchant get one email each. Once per storefront.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack.js';
import { installThroughOAuth, storefrontAStackOf } from '../../api/test/storefront-a-stack.js';
import { DEMO_SHOP } from '../../sandbox/storefront-a/simulator.js';
import { DEMO_STORE } from '../../sandbox/storefront-b/state.js';

let stack: TestStack;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

let ip = 0;
async function api(method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: string, body?: unknown, token?: string): Promise<{ status: number; body: Json }> {
  const res = await stack.app.inject({
    method,
    url,
    payload: body as Json | undefined,
    remoteAddress: `192.0.2.${(ip++ % 250) + 1}`,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: res.statusCode, body: res.json() as Json };
}

/** A merchant registered through the API, with the processor connected and two shipping rates. */
async function merchantWithProcessor(shopName: string): Promise<{ token: string; id: string; email: string }> {
  const email = `owner-${Date.now()}-${ip}@shop.test`;
  const reg = await api('POST', '/api/auth/register', { email, password: 'correct horse battery 9', shopName, phone: '+49 30 1234567' });
  expect(reg.status).toBe(201);
  const token = reg.body.token as string;
  const connect = await api('POST', '/api/merchant/processor/connect', { apiKey: 'sk_sandbox_demo' }, token);
  expect(connect.status, JSON.stringify(connect.body)).toBe(200);
  const rates = await api('PATCH', '/api/merchant/config', { shippingRates: [{ name: 'Express', basePriceCents: 1290 }, { name: 'Standard', basePriceCents: 490 }] }, token);
  expect(rates.status).toBe(200);
  return { token, id: reg.body.merchant.id as string, email };
}

/** The shopper's part, from the checkout URL on: bundle, details, the payment page, the return. */
async function shopperPays(token: string): Promise<Json> {
  const bundle = await api('GET', `/api/checkout/session-bundle/${token}`);
  expect(bundle.status).toBe(200);
  const cheapest = bundle.body.shipping[0];
  expect(cheapest.name).toBe('Standard');

  const init = await api('POST', `/api/checkout/${token}/init-payment`, {
    email: 'jane@customer.test',
    address: { name: 'Jane Doe', line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
    shippingRateId: cheapest.id,
  });
  expect(init.status, JSON.stringify(init.body)).toBe(200);
  // A double click gets the same payment.
  const again = await api('POST', `/api/checkout/${token}/init-payment`, {
    email: 'jane@customer.test',
    address: { name: 'Jane Doe', line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
    shippingRateId: cheapest.id,
  });
  expect(again.body.paymentId).toBe(init.body.paymentId);

  // The hosted payment page, as a browser would use it.
  const page = await fetch(init.body.paymentUrl as string);
  expect(page.status).toBe(200);
  const paid = await fetch(init.body.paymentUrl as string, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ card_number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123', name: 'Jane Doe' }).toString(),
  });
  expect(paid.status).toBe(303);
  expect(paid.headers.get('location')).toContain(`/checkout/${token}`);

  // The page's return: pay confirms with the processor (the webhook may or may not have arrived yet).
  const pay = await api('POST', `/api/checkout/${token}/pay`);
  expect(pay.status).toBe(200);
  return init.body;
}

async function waitFor<T>(what: string, read: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function expectCompletedWithOneOrderAndTwoEmails(token: string, merchantEmail: string, ordersFor: () => number) {
  await waitFor('COMPLETED', async () => ((await api('GET', `/api/checkout/session/${token}`)).body.status === 'COMPLETED' ? true : undefined));
  const row = await waitFor('the store order', async () => {
    const s = await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } });
    return s.storeOrderId ? s : undefined;
  });
  expect(row.storeOrderError).toBeNull();
  expect(ordersFor()).toBe(1);
  const mails = await waitFor('both emails', () => {
    const toShopper = stack.sims.email.messages({ to: 'jane@customer.test', metadataKey: 'token', metadataValue: token });
    const toMerchant = stack.sims.email.messages({ to: merchantEmail, metadataKey: 'token', metadataValue: token });
    return toShopper.length && toMerchant.length ? { toShopper, toMerchant } : undefined;
  });
  expect(mails.toShopper).toHaveLength(1);
  expect(mails.toMerchant).toHaveLength(1);
  // Late duplicates of the success events change nothing.
  await stack.sims.processor.webhooks.idle();
  expect(ordersFor()).toBe(1);
}

describe('a card checkout, end to end over HTTP', () => {
  it('given a storefront A cart / create → bundle → init-payment → pay → webhook → COMPLETED → one order, two emails', async () => {
    const merchant = await merchantWithProcessor('Alpha Store');
    await installThroughOAuth(storefrontAStackOf(stack), merchant.token);

    const shop = stack.sims.storefrontA.state.shops.get(DEMO_SHOP)!;
    const [tote, tee] = [shop.products[0]!.variants[0]!, shop.products[3]!.variants[1]!];
    const cartToken = stack.sims.storefrontA.createCart(DEMO_SHOP, [{ variantId: tote.id, quantity: 2 }, { variantId: tee.id, quantity: 1 }]);

    const created = await api('POST', '/api/checkout/create', { platform: 'storefront-a', shop: DEMO_SHOP, cartToken });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const token = created.body.token as string;
    expect(created.body.checkoutUrl).toContain(`/checkout/${token}`);

    const payment = await shopperPays(token);
    expect(payment.totalMinor).toBe(2 * tote.price + tee.price + 490);

    const ordersForToken = () => [...shop.orders.values()].filter((o) => o.tags.includes(`checkout:${token}`)).length;
    await expectCompletedWithOneOrderAndTwoEmails(token, merchant.email, ordersForToken);
    const order = [...shop.orders.values()].find((o) => o.tags.includes(`checkout:${token}`))!;
    expect(order.financialStatus).toBe('paid');
    expect(order.total).toBe(payment.totalMinor);
  });

  it('given a storefront B cart handed over by the plugin / the same path ends in one order and two emails', async () => {
    const merchant = await merchantWithProcessor('Beta Store');
    const connect = await api('POST', '/api/merchant/storefront-b/connect', { storeUrl: `${stack.urls.storefrontB}/stores/demo`, consumerKey: DEMO_STORE.consumerKey, consumerSecret: DEMO_STORE.consumerSecret }, merchant.token);
    expect(connect.status, JSON.stringify(connect.body)).toBe(200);

    const store = stack.sims.storefrontB.stores.get('demo')!;
    const simple = store.products.find((p) => p.option === undefined)!;
    // The shopper's click on the store's checkout button; the plugin calls our create and redirects.
    const click = await fetch(`${stack.urls.storefrontB}/_control/stores/demo/checkout`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ productId: simple.id, quantity: 3 }] }),
    });
    const clicked = (await click.json()) as Json;
    expect(clicked.interception?.outcome, JSON.stringify(clicked)).not.toBe('error');
    const token = new URL(clicked.location as string).pathname.split('/').pop()!;
    expect(token).toMatch(/^cs_/);

    const payment = await shopperPays(token);
    expect(payment.totalMinor).toBe(3 * simple.price + 490);

    const ordersForToken = () => [...store.orders.values()].filter((o) => o.metaData.some((m) => m.key === 'checkout_session_token' && m.value === token)).length;
    await expectCompletedWithOneOrderAndTwoEmails(token, merchant.email, ordersForToken);
  });
});
