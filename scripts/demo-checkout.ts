// `npm run demo` (with `npm start` running): one whole card checkout, over HTTP only, the way a merchant and a
// shopper would do it: register, connect the processor, install the storefront A app through OAuth, put
// products in a cart of a fresh sandbox shop, create the checkout, pay with the test card on the
// processor's page, wait until the order is on the store, then refund it in full and wait for REFUNDED. Prints the session's token, its workflow id
// and where to look (Temporal Web UI, sandbox store admin, mailbox).
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../config/index.js';
import { DEMO_APP } from '../sandbox/storefront-a/state.js';

const config = loadConfig();
const api = process.env.DEMO_API_URL ?? `http://localhost:${config.api.port}`;
const sandbox = config.sandbox.urls;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function call(method: string, url: string, body?: unknown, token?: string): Promise<Json> {
  const res = await fetch(url.startsWith('http') ? url : `${api}${url}`, {
    method,
    redirect: 'manual',
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const json = text ? (JSON.parse(text) as Json) : {};
  if (res.status >= 400) throw new Error(`${method} ${url} → ${res.status}: ${text}`);
  return { ...json, _status: res.status, _location: res.headers.get('location') };
}

const step = (line: string) => console.log(`• ${line}`);
const suffix = randomBytes(3).toString('hex');

const email = `demo-${suffix}@merchant.test`;
const { token } = await call('POST', '/api/auth/register', { email, password: `demo passphrase ${suffix}`, shopName: `Demo Shop ${suffix}`, phone: '+49 30 1234567' });
step(`merchant ${email} registered`);
await call('POST', '/api/merchant/processor/connect', { apiKey: 'apik_sandbox_demo' }, token);
step('processor connected (sandbox key apik_sandbox_demo)');
await call('PATCH', '/api/merchant/config', { branding: { primaryColor: '#2b59c3', accentColor: '#1d3f8f' }, shippingRates: [{ name: 'Standard', basePriceCents: 490 }, { name: 'Express', basePriceCents: 1290 }] }, token);

// A Demo account's checkouts stay in the store: buy the Starter plan on the platform's processor page first.
const { paymentUrl: planPaymentUrl } = await call('POST', '/api/platform-billing/subscribe', { planId: 'STARTER' }, token);
const planPaid = await fetch(planPaymentUrl as string, {
  method: 'POST',
  redirect: 'manual',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ card_number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123', name: 'Demo Merchant' }).toString(),
}).then(async (res) => (await res.body?.cancel(), res.status));
if (planPaid !== 303) throw new Error(`plan payment page answered ${planPaid}`);
const planDeadline = Date.now() + 60_000;
while ((await call('GET', '/api/platform-billing/current', undefined, token)).status !== 'ACTIVE') {
  if (Date.now() > planDeadline) throw new Error('the Starter plan was not activated within 60 s');
  await new Promise((r) => setTimeout(r, 300));
}
step('Starter plan paid and active (platform billing)');

// A shop of its own in the storefront A sandbox, installed through the real OAuth consent.
const shop = `demo-${suffix}.myshopify.com`;
const sandboxShop = await call('POST', `${sandbox.storefrontA}/_control/shops`, { shop });
const { installUrl } = await call('PUT', '/api/merchant/storefront-a', { shop, clientId: DEMO_APP.clientId, clientSecret: DEMO_APP.clientSecret }, token);
const authorize = new URL((await call('GET', installUrl as string))._location as string);
const consentPage = await (await fetch(authorize)).text();
const fields = Object.fromEntries([...consentPage.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!.replace(/&#38;|&amp;/g, '&')]));
const action = /<form method="post" action="([^"]+)"/.exec(consentPage)?.[1];
if (!action) throw new Error('no consent form on the authorize page');
const consent = await fetch(authorize.origin + action, {
  method: 'POST',
  redirect: 'manual',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ ...fields, decision: 'install' }).toString(),
});
await call('GET', consent.headers.get('location')!);
step(`storefront A app installed on ${shop} (Storefront API token, webhooks and the app embed's config set up)`);

// The shopper: a cart, the store's checkout button (what the app embed's script calls), the checkout.
const variants: number[] = (sandboxShop.products as Json[]).flatMap((p) => (p.variants as Json[]).map((v) => v.id as number)).slice(0, 2);
const { token: cartToken } = await call('POST', `${sandbox.storefrontA}/_control/shops/${shop}/carts`, { items: variants.map((variantId, i) => ({ variantId, quantity: i + 1 })) });
const created = await call('POST', '/api/checkout/create', { platform: 'storefront-a', shop, cartToken });
const session = created.token as string;
step(`checkout created: ${created.checkoutUrl}`);
const bundle = await call('GET', `/api/checkout/session-bundle/${session}`);
const init = await call('POST', `/api/checkout/${session}/init-payment`, {
  email: `shopper-${suffix}@customer.test`,
  address: { name: 'Jane Doe', line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
  shippingRateId: bundle.shipping[0].id,
});
step(`payment started: ${init.totalMinor} ${init.currency} minor units, page ${init.paymentUrl}`);
const paid = await fetch(init.paymentUrl as string, {
  method: 'POST',
  redirect: 'manual',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ card_number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123', name: 'Jane Doe' }).toString(),
});
if (paid.status !== 303) throw new Error(`payment page answered ${paid.status}`);
step('paid with the test card 4242 4242 4242 4242');

const deadline = Date.now() + 30_000;
let status = '';
while (Date.now() < deadline) {
  const s = await call('GET', `/api/checkout/session/${session}`);
  status = s.status as string;
  if (status === 'COMPLETED' && s.storeOrderId) break;
  await new Promise((r) => setTimeout(r, 300));
}
step(`session ${status}`);
if (status !== 'COMPLETED') process.exit(1);

// The merchant refunds the order in full: one refund at the processor, REFUNDED once its refund webhook arrives.
const refund = await call('POST', `/api/checkout/merchant/orders/${session}/refund`, {}, token);
step(`refund requested at the processor (${refund.refund?.refundId ?? 'no refund id'})`);
const refundDeadline = Date.now() + 30_000;
while (Date.now() < refundDeadline) {
  status = (await call('GET', `/api/checkout/session/${session}`)).status as string;
  if (status === 'REFUNDED') break;
  await new Promise((r) => setTimeout(r, 300));
}
step(`session ${status}`);
console.log(`
token         ${session}
workflow      checkout-${session}   (${config.temporal.uiUrl}/namespaces/${config.temporal.namespace}/workflows/checkout-${session})
store admin   ${sandbox.storefrontA}/shops/${shop}/admin/orders
mailbox       ${sandbox.email}/
replay it     npm run replay -- checkout-${session}`);
if (status !== 'REFUNDED') process.exit(1);
