// The steps of the end-to-end checkout tests (checkout-card, -cod, -refund, exactly-once), one copy: the API over HTTP,
// a merchant set up as through the dashboard, the shopper's steps, the sandboxes' control APIs, and the
// outcome checks. Every merchant gets a processor account and (storefront A) a shop of its own, so the
// tests of one file never see each other's webhooks, orders or emails.
import { expect } from 'vitest';
import type { TestStack } from '../harness/stack.js';
import { consent, openCallback, openInstall, saveInputs, storefrontAStackOf } from '../harness/storefront-a-stack.js';
import { STOREFRONT_A_API_VERSION } from '../../integrations/storefront-a/client.js';
import type { SimShop } from '../../sandbox/storefront-a/state.js';
import { simOrdersOf } from '../harness/storefront-a-seed.js';
import { setAppEmbed } from '../../scripts/lib/theme-extension.js';
import { DEMO_APP } from '../../sandbox/storefront-a/simulator.js';
import { DEMO_STORE, type BOrder, type Store as StorefrontBStore } from '../../sandbox/storefront-b/state.js';
import { givePaidPlan } from '../../scripts/lib/stack/billing.js';
import { Worker } from '@temporalio/worker';
import { testWorkflowBundle } from '../harness/temporal.js';
import { WORKFLOWS } from '../../domain/temporal/workflow-names.js';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface Answer {
  status: number;
  body: Json;
}

let seq = 0;
/** Unique within the test run (names, shop hosts, emails). */
export const unique = () => `${Date.now().toString(36)}${(seq++).toString(36)}${process.pid.toString(36)}`;

let ip = 0;
/** One API call (the shopper's and the merchant's calls come from changing addresses: rate limits are per IP). */
export async function api(stack: TestStack, method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: string, body?: unknown, token?: string): Promise<Answer> {
  const res = await stack.app.inject({
    method,
    url,
    payload: body as Json | undefined,
    remoteAddress: `192.0.2.${(ip++ % 250) + 1}`,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: res.statusCode, body: res.json() as Json };
}

/** A call to a simulator's control API (`/_control/...`), as a test or a demo does it. */
export async function control(simulatorUrl: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${simulatorUrl}/_control/${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

export async function waitFor<T>(what: string, read: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

export interface Merchant {
  /** The merchant's API token. */
  token: string;
  id: string;
  email: string;
  /** The merchant's own processor account key (what its dashboard acts with: a refund made there, ...). */
  processorApiKey?: string;
}

/** Plan of a test merchant: a paid one by default (a Demo merchant's checkouts pass through to the store). */
export interface MerchantOptions {
  plan?: 'demo' | string;
  /** storefrontAMerchant: the shop's currency (default EUR; the checkout converts EUR rates with the FX table). */
  currency?: string;
  /** storefrontAMerchant: the merchant turns our app embed on in the theme editor after the install (default true). */
  embed?: boolean;
  /** storefrontAMerchant: the shop's primary domain (default: its myshopify host). */
  primaryDomain?: string;
  /** storefrontAMerchant: the shop's shipping zones before the install (default: a "Rest of World" zone, every country). */
  shipsTo?: string[];
  /** storefrontAMerchant: the shop's primary language, its storefront's request.locale (default en). */
  primaryLocale?: string;
  /** storefrontAMerchant: the policies the merchant wrote before the install (Settings → Policies; default none). */
  policies?: Array<{ type: string; title?: string; body: string }>;
}

/** A merchant registered through the API, its own processor account connected, two shipping rates, on a paid plan (unless `plan: 'demo'`). */
export async function merchantWithProcessor(stack: TestStack, shopName: string, opts: MerchantOptions = {}): Promise<Merchant> {
  const account = await control(stack.urls.processor, 'POST', 'accounts', { businessName: shopName });
  expect(account.status, JSON.stringify(account.body)).toBe(201);
  const email = `owner-${unique()}@shop.test`;
  const reg = await api(stack, 'POST', '/api/auth/register', { email, password: 'correct horse battery 9', shopName, phone: '+49 30 1234567' });
  expect(reg.status, JSON.stringify(reg.body)).toBe(201);
  const token = reg.body.token as string;
  const connect = await api(stack, 'POST', '/api/merchant/processor/connect', { apiKey: account.body.apiKey }, token);
  expect(connect.status, JSON.stringify(connect.body)).toBe(200);
  const rates = await api(stack, 'PATCH', '/api/merchant/config', { shippingRates: [{ name: 'Express', basePriceCents: 1290 }, { name: 'Standard', basePriceCents: 490 }] }, token);
  expect(rates.status).toBe(200);
  const id = reg.body.merchant.id as string;
  if (opts.plan !== 'demo') await givePaidPlan(stack.database.db, id, opts.plan);
  return { token, id, email, processorApiKey: account.body.apiKey as string };
}

/** A merchant with the processor connected and a storefront A shop of its own (the demo catalogue), installed through OAuth. */
export async function storefrontAMerchant(stack: TestStack, shopName: string, opts: MerchantOptions = {}): Promise<Merchant & { shop: SimShop }> {
  const merchant = await merchantWithProcessor(stack, shopName, opts);
  const host = `e2e-${unique()}.myshopify.com`;
  const created = await control(stack.urls.storefrontA, 'POST', 'shops', { shop: host, name: shopName, ...(opts.currency ? { currency: opts.currency } : {}), ...(opts.primaryDomain ? { primaryDomain: opts.primaryDomain } : {}), ...(opts.primaryLocale ? { primaryLocale: opts.primaryLocale } : {}) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  if (opts.shipsTo) expect((await control(stack.urls.storefrontA, 'POST', `shops/${host}/ships-to`, { countries: opts.shipsTo })).status).toBe(200);
  if (opts.policies) expect((await control(stack.urls.storefrontA, 'POST', `shops/${host}/policies`, { policies: opts.policies })).status).toBe(200);
  const s = storefrontAStackOf(stack);
  const callback = await openCallback(s, await consent(await openInstall(s, await saveInputs(s, merchant.token, { shop: host }))));
  expect(callback.location, 'the install ends on the dashboard, not the connection-problem page').toContain('/dashboard?storefrontA=connected');
  if (opts.embed !== false) await setAppEmbed(stack.urls.storefrontA, host, DEMO_APP.clientId, true);
  return { ...merchant, shop: stack.sims.storefrontA.state.shops.get(host)! };
}

/** The shop's GraphQL Admin API path (for faults on the store's order calls: draft order create and complete). */
export const storefrontAOrdersPath = (shop: SimShop) => `/shops/${shop.host}/admin/api/${STOREFRONT_A_API_VERSION}/graphql.json`;

/** The orders the checkout service created in the shop for this session. */
export const storefrontAOrdersOf = simOrdersOf;

/** A shopper's cart in the shop becomes a checkout session through POST /api/checkout/create: answers its token. */
export async function storefrontACheckout(stack: TestStack, shop: SimShop, items = [{ variantId: shop.products[0]!.variants[0]!.id, quantity: 2 }, { variantId: shop.products[3]!.variants[1]!.id, quantity: 1 }]): Promise<string> {
  const cartToken = stack.sims.storefrontA.createCart(shop.host, items);
  const created = await api(stack, 'POST', '/api/checkout/create', { platform: 'storefront-a', shop: shop.host, cartToken });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const token = created.body.token as string;
  expect(created.body.checkoutUrl).toContain(`/checkout/${token}`);
  return token;
}

/** Connects the merchant to storefront B's demo store with its REST keys (as the dashboard does): answers the store. */
export async function connectStorefrontBDemo(stack: TestStack, merchant: Merchant): Promise<StorefrontBStore> {
  const connect = await api(stack, 'POST', '/api/merchant/storefront-b/connect', { storeUrl: `${stack.urls.storefrontB}/stores/demo`, consumerKey: DEMO_STORE.consumerKey, consumerSecret: DEMO_STORE.consumerSecret }, merchant.token);
  expect(connect.status, JSON.stringify(connect.body)).toBe(200);
  return stack.sims.storefrontB.stores.get('demo')!;
}

/** The shopper's click on the demo store's checkout button: the plugin calls our create and redirects. Answers the token. */
export async function storefrontBCheckout(stack: TestStack, items: { productId: number; quantity: number }[]): Promise<string> {
  const click = await fetch(`${stack.urls.storefrontB}/_control/stores/demo/checkout`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ items }),
  });
  const clicked = (await click.json()) as Json;
  expect(clicked.interception?.outcome, JSON.stringify(clicked)).not.toBe('error');
  const token = new URL(clicked.location as string).pathname.split('/').pop()!;
  expect(token).toMatch(/^cs_/);
  return token;
}

/** The orders the checkout service created in the storefront B store for this session. */
export const storefrontBOrdersOf = (store: StorefrontBStore, token: string): BOrder[] =>
  [...store.orders.values()].filter((o) => o.metaData.some((m) => m.key === '_hosted_checkout_session' && m.value === token));

export const SHOPPER = {
  email: 'jane@customer.test',
  address: { name: 'Jane Doe', line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
} as const;

/** The checkout page: the bundle, the shopper's details with the cheapest rate, init-payment (twice, as a double click). */
export async function startPayment(stack: TestStack, token: string): Promise<Json> {
  const bundle = await api(stack, 'GET', `/api/checkout/session-bundle/${token}`);
  expect(bundle.status).toBe(200);
  const cheapest = bundle.body.shipping[0];
  expect(cheapest.name).toBe('Standard');

  const details = { ...SHOPPER, shippingRateId: cheapest.id };
  const init = await api(stack, 'POST', `/api/checkout/${token}/init-payment`, details);
  expect(init.status, JSON.stringify(init.body)).toBe(200);
  // A double click gets the same payment.
  const again = await api(stack, 'POST', `/api/checkout/${token}/init-payment`, details);
  expect(again.body.paymentId).toBe(init.body.paymentId);
  return init.body;
}

/** The processor's hosted payment page, as a browser uses it: a test card that succeeds. */
/**
 * `saveCard`: the sandbox form's stand-in for Whop's embedded checkout with setupFutureUsage: "off_session" (the card is
 * also kept for off-session charges); Whop's hosted page in payment mode keeps nothing.
 */
export async function payOnHostedPage(token: string, paymentUrl: string, opts: { saveCard?: boolean } = {}): Promise<void> {
  const page = await fetch(paymentUrl);
  expect(page.status).toBe(200);
  const paid = await fetch(paymentUrl, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ card_number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123', name: 'Jane Doe', ...(opts.saveCard ? { setup_future_usage: 'off_session' } : {}) }).toString(),
  });
  expect(paid.status).toBe(303);
  expect(paid.headers.get('location')).toContain(`/checkout/${token}`);
}

/** The page's return: pay confirms with the processor (the webhook may or may not have arrived yet); answers the status. */
export async function returnFromPaymentPage(stack: TestStack, token: string): Promise<string> {
  const pay = await api(stack, 'POST', `/api/checkout/${token}/pay`);
  expect(pay.status, JSON.stringify(pay.body)).toBe(200);
  return pay.body.status as string;
}

/** The shopper's part, from the checkout URL on: bundle, details, the payment page, the return. Answers init-payment's result. */
export async function shopperPays(stack: TestStack, token: string, opts: { saveCard?: boolean } = {}): Promise<Json> {
  const payment = await startPayment(stack, token);
  await payOnHostedPage(token, payment.paymentUrl as string, opts);
  await returnFromPaymentPage(stack, token);
  return payment;
}

export const sessionStatus = async (stack: TestStack, token: string) => (await api(stack, 'GET', `/api/checkout/session/${token}`)).body.status as string;

/** The session's emails in the sandbox mailbox, to the shopper and to the merchant. */
export function emailsOf(stack: TestStack, token: string, merchantEmail: string) {
  return {
    toShopper: stack.sims.email.messages({ to: SHOPPER.email, metadataKey: 'token', metadataValue: token }),
    toMerchant: stack.sims.email.messages({ to: merchantEmail, metadataKey: 'token', metadataValue: token }),
  };
}

/** Waits until the shopper's storefront A cart behind the session is empty at the shop (the workflow empties it after the order). */
export async function expectStorefrontACartEmptied(stack: TestStack, shop: SimShop, token: string): Promise<void> {
  const cartRef = (await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } })).storeCartRef!;
  const internal = /^c1-([0-9a-f]+)\?/.exec(cartRef)![1]!;
  await waitFor('the store cart emptied', () => ((shop.carts.get(internal) ?? []).length === 0 ? true : undefined));
}

/** The session's timeline events of one type, oldest first. */
export const timelineOf = (stack: TestStack, token: string, type: string) =>
  stack.database.db.sessionEvent.findMany({ where: { token, type }, orderBy: { at: 'asc' } });

/** COMPLETED, exactly one order in the store, one email to the shopper and one to the merchant, also once every webhook is through. */
export async function expectCompletedWithOneOrderAndTwoEmails(stack: TestStack, token: string, merchantEmail: string, ordersFor: () => number, timeoutMs = 30_000) {
  await waitFor('COMPLETED', async () => ((await sessionStatus(stack, token)) === 'COMPLETED' ? true : undefined), timeoutMs);
  const row = await waitFor('the store order', async () => {
    const s = await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } });
    return s.storeOrderId ? s : undefined;
  }, timeoutMs);
  expect(row.storeOrderError).toBeNull();
  expect(ordersFor()).toBe(1);
  const mails = await waitFor('both emails', () => {
    const found = emailsOf(stack, token, merchantEmail);
    return found.toShopper.length && found.toMerchant.length ? found : undefined;
  }, timeoutMs);
  expect(mails.toShopper).toHaveLength(1);
  expect(mails.toMerchant).toHaveLength(1);
  // Late duplicates of the success events change nothing.
  await stack.sims.processor.webhooks.idle();
  expect(ordersFor()).toBe(1);
  expect(emailsOf(stack, token, merchantEmail).toShopper).toHaveLength(1);
  await expectHistoryReplays(stack, token);
  return row;
}

/**
 * The session's workflow history, as far as it goes, replays against the same code: a worker restarted at any point
 * resumes the run (local activities in flight at once, or a command that depends on timing, would fail here).
 */
export async function expectHistoryReplays(stack: TestStack, token: string) {
  const history = await stack.temporal.client.workflow.getHandle(WORKFLOWS.checkout.id(token)).fetchHistory();
  await expect(Worker.runReplayHistory({ workflowBundle: testWorkflowBundle() }, history, WORKFLOWS.checkout.id(token))).resolves.toBeUndefined();
}
