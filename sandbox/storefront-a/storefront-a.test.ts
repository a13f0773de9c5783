import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createStorefrontAClient, exchangeCode } from '../../integrations/storefront-a/client.js';
import { buildAuthorizeUrl, verifyCallbackHmac } from '../../integrations/storefront-a/oauth.js';
import { parseWebhookPayload, verifyWebhookHmac, WEBHOOK_HEADERS } from '../../integrations/storefront-a/webhooks.js';
import { startReceiver, startSimulator } from '../storefront-common/testing.js';
import { createStorefrontASimulator, DEMO_APP, DEMO_SHOP, type StorefrontASimulator } from './simulator.js';

let sim: StorefrontASimulator;
let url: string;
let close: () => Promise<void>;
let template: string;

beforeAll(async () => {
  ({ sim, url, close } = await startSimulator((publicUrl) => createStorefrontASimulator({ publicUrl })));
  template = `${url}/shops/{shop}`;
});
afterAll(() => close());
beforeEach(() => sim.reset());

const REDIRECT = 'http://localhost:3000/api/auth/storefront-a/callback';
const SCOPES = ['read_products', 'read_checkouts', 'write_script_tags', 'write_orders'];
const form = (fields: Record<string, string>, cookie?: string): RequestInit => ({
  method: 'POST',
  redirect: 'manual',
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
  body: new URLSearchParams(fields).toString(),
});
const control = (path: string, body: unknown) => fetch(`${url}/_control/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** The merchant opens the authorize URL and presses Install: answers the callback URL. */
async function approveInstall(authorizeUrl: string): Promise<URL> {
  const consent = await fetch(authorizeUrl);
  expect(consent.status).toBe(200);
  const page = await consent.text();
  const fields = Object.fromEntries([...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!.replace(/&#38;/g, '&')]));
  const action = /<form method="post" action="([^"]+)"/.exec(page)![1]!;
  const res = await fetch(url + action, form({ ...fields, decision: 'install' }));
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!);
}

describe('OAuth install over HTTP', () => {
  const authorizeUrl = (overrides: Partial<Parameters<typeof buildAuthorizeUrl>[0]> = {}) =>
    buildAuthorizeUrl({ shop: DEMO_SHOP, clientId: DEMO_APP.clientId, scopes: SCOPES, redirectUri: REDIRECT, state: 'nonce-1', apiUrlTemplate: template, ...overrides });

  it('given the authorize URL, when the merchant opens it, then a consent page names the app, the access and Install/Cancel', async () => {
    const page = await (await fetch(authorizeUrl())).text();
    expect(page).toContain(`Install ${DEMO_APP.name}`);
    expect(page).toContain('Carts and checkouts');
    expect(page).toContain('View and edit <strong>Orders</strong>');
    expect(page).toMatch(/id="install-app"/);
    expect(page).toMatch(/id="cancel-install"/);
  });

  it('given Install, when the callback is verified and the code exchanged, then the token works and the code cannot be reused', async () => {
    const callback = await approveInstall(authorizeUrl());
    expect(callback.origin + callback.pathname).toBe(REDIRECT);
    expect(callback.searchParams.get('shop')).toBe(DEMO_SHOP);
    expect(callback.searchParams.get('state')).toBe('nonce-1');
    expect(verifyCallbackHmac(callback.searchParams, DEMO_APP.clientSecret, { maxAgeSeconds: 60 })).toBe(true);

    const code = callback.searchParams.get('code')!;
    const exchange = { shop: DEMO_SHOP, clientId: DEMO_APP.clientId, clientSecret: DEMO_APP.clientSecret, code, apiUrlTemplate: template };
    const { accessToken, scopes } = await exchangeCode(exchange);
    expect(scopes).toEqual(SCOPES);
    const shop = await createStorefrontAClient({ shop: DEMO_SHOP, accessToken, apiUrlTemplate: template }).getShop();
    expect(shop.myshopifyDomain).toBe(DEMO_SHOP);

    await expect(exchangeCode(exchange)).rejects.toMatchObject({ kind: 'rejected', status: 400 });
  });

  it('given a callback whose parameters were tampered with, when verified, then it fails', async () => {
    const callback = await approveInstall(authorizeUrl());
    callback.searchParams.set('shop', 'attacker.myshopify.com');
    expect(verifyCallbackHmac(callback.searchParams, DEMO_APP.clientSecret)).toBe(false);
  });

  it('given a code older than its lifetime, when exchanged, then it is refused', async () => {
    const short = await startSimulator((publicUrl) => createStorefrontASimulator({ publicUrl, authCodeTtlMs: 1 }));
    try {
      const callback = await (async () => {
        const res = await fetch(`${short.url}/shops/${DEMO_SHOP}/admin/oauth/authorize`, form({ client_id: DEMO_APP.clientId, scope: 'read_orders', redirect_uri: REDIRECT, state: 's', decision: 'install' }));
        return new URL(res.headers.get('location')!);
      })();
      await new Promise((r) => setTimeout(r, 10));
      await expect(
        exchangeCode({ shop: DEMO_SHOP, clientId: DEMO_APP.clientId, clientSecret: DEMO_APP.clientSecret, code: callback.searchParams.get('code')!, apiUrlTemplate: `${short.url}/shops/{shop}` }),
      ).rejects.toMatchObject({ kind: 'rejected' });
    } finally {
      await short.close();
    }
  });

  it('given an unknown client_id, an unknown scope or a redirect not allowed, when authorize is opened, then an error page (400) shows', async () => {
    const unknownApp = await fetch(authorizeUrl({ clientId: 'nobody-0000' }));
    expect(unknownApp.status).toBe(400);
    expect(await unknownApp.text()).toContain('client_id is invalid');
    const badScope = await fetch(authorizeUrl({ scopes: ['read_everything'] }));
    expect(badScope.status).toBe(400);
    await control('apps', { clientId: 'strict-app-01', name: 'Strict', redirectUrls: ['https://app.example/cb'] });
    const notAllowed = await fetch(authorizeUrl({ clientId: 'strict-app-01' }));
    expect(notAllowed.status).toBe(400);
    expect(await notAllowed.text()).toContain('not whitelisted');
  });

  it('given Cancel, when pressed, then the merchant lands in the admin and no code is issued', async () => {
    const res = await fetch(`${url}/shops/${DEMO_SHOP}/admin/oauth/authorize`, form({ client_id: DEMO_APP.clientId, scope: 'read_orders', redirect_uri: REDIRECT, state: 's', decision: 'cancel' }));
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toContain(`/shops/${DEMO_SHOP}/admin?install_cancelled=`);
    expect(sim.state.codes.size).toBe(0);
  });
});

describe('webhooks to the app', () => {
  it('given a webhook address, when a privacy request is sent, then it arrives signed with the app secret and a tampered body fails', async () => {
    const receiver = await startReceiver();
    try {
      const token = sim.install(DEMO_SHOP);
      await createStorefrontAClient({ shop: DEMO_SHOP, accessToken: token, apiUrlTemplate: template }).createScriptTag('https://cdn.example/x.js');
      await control(`apps/${DEMO_APP.clientId}/webhook-address`, { url: `${receiver.url}/webhooks/storefront-a/customers-redact` });
      const res = await control('webhooks/send', { shop: DEMO_SHOP, topic: 'customers/redact', customerEmail: 'ada@example.com' });
      expect(((await res.json()) as { deliveries: unknown }).deliveries).toMatchObject([{ ok: true, status: 200, topic: 'customers/redact' }]);

      const [got] = receiver.received;
      expect(got!.path).toBe('/webhooks/storefront-a/customers-redact');
      expect(got!.headers[WEBHOOK_HEADERS.topic]).toBe('customers/redact');
      expect(got!.headers[WEBHOOK_HEADERS.shopDomain]).toBe(DEMO_SHOP);
      const hmac = got!.headers[WEBHOOK_HEADERS.hmac] as string;
      expect(verifyWebhookHmac(got!.body, hmac, DEMO_APP.clientSecret)).toBe(true);
      expect(verifyWebhookHmac(got!.body.replace('ada@', 'eve@'), hmac, DEMO_APP.clientSecret)).toBe(false);
      expect(parseWebhookPayload('customers/redact', got!.body)).toMatchObject({ shop_domain: DEMO_SHOP, customer: { email: 'ada@example.com' }, orders_to_redact: [] });
    } finally {
      await receiver.close();
    }
  });

  it('given an installed app, when app/uninstalled is sent, then its tokens and script tags are gone', async () => {
    const receiver = await startReceiver();
    try {
      const token = sim.install(DEMO_SHOP);
      const c = createStorefrontAClient({ shop: DEMO_SHOP, accessToken: token, apiUrlTemplate: template });
      await c.createScriptTag('https://cdn.example/x.js');
      await control('webhooks/send', { shop: DEMO_SHOP, topic: 'app/uninstalled', address: receiver.url });
      expect(parseWebhookPayload('app/uninstalled', receiver.received[0]!.body).myshopify_domain).toBe(DEMO_SHOP);
      await expect(c.getShop()).rejects.toMatchObject({ kind: 'unauthorized' });
      expect(sim.state.shops.get(DEMO_SHOP)!.scriptTags.size).toBe(0);
    } finally {
      await receiver.close();
    }
  });

  it('given no app was ever installed, when a webhook is requested, then control answers 409', async () => {
    expect((await control('webhooks/send', { shop: DEMO_SHOP, topic: 'shop/redact' })).status).toBe(409);
  });
});

describe('demo storefront and merchant admin', () => {
  it('given a shopper adding to cart, when the cart page loads, then it has the checkout button, the cart token for scripts and the script tags', async () => {
    const token = sim.install(DEMO_SHOP);
    await createStorefrontAClient({ shop: DEMO_SHOP, accessToken: token, apiUrlTemplate: template }).createScriptTag('http://localhost:3000/script-tag.js');
    const home = await (await fetch(`${url}/shops/${DEMO_SHOP}/`)).text();
    const variantId = /name="id" value="(\d+)"/.exec(home)![1]!;

    const added = await fetch(`${url}/shops/${DEMO_SHOP}/cart/add`, form({ id: variantId, quantity: '2' }));
    expect(added.status).toBe(303);
    const cookie = added.headers.get('set-cookie')!.split(';')[0]!;
    const cartToken = cookie.split('=')[1]!;

    const cart = await (await fetch(`${url}/shops/${DEMO_SHOP}/cart`, { headers: { cookie } })).text();
    expect(cart).toMatch(/<button[^>]*id="storefront-checkout"[^>]*data-storefront-checkout/);
    expect(cart).toContain(`"cartToken":"${cartToken}"`);
    expect(cart).toContain('<script src="http://localhost:3000/script-tag.js" defer');

    const cartJs = await (await fetch(`${url}/shops/${DEMO_SHOP}/cart.js`, { headers: { cookie } })).json();
    expect(cartJs).toMatchObject({ token: cartToken, item_count: 2, items: [{ variant_id: Number(variantId), quantity: 2 }] });

    const checkout = await fetch(`${url}/shops/${DEMO_SHOP}/checkout`, { headers: { cookie } });
    expect(await checkout.text()).toContain('data-native-checkout');
  });

  it('given a shopper changing quantity to 0, when the cart loads, then it is empty and checkout leads back to it', async () => {
    const variantId = String(sim.state.shops.get(DEMO_SHOP)!.products[0]!.variants[0]!.id);
    const cookie = (await fetch(`${url}/shops/${DEMO_SHOP}/cart/add`, form({ id: variantId }))).headers.get('set-cookie')!.split(';')[0]!;
    await fetch(`${url}/shops/${DEMO_SHOP}/cart/change`, form({ id: variantId, quantity: '0' }, cookie));
    expect(await (await fetch(`${url}/shops/${DEMO_SHOP}/cart`, { headers: { cookie } })).text()).toContain('Your cart is empty');
    expect((await fetch(`${url}/shops/${DEMO_SHOP}/checkout`, { headers: { cookie }, redirect: 'manual' })).status).toBe(303);
  });

  it('given a COD order, when the merchant presses Mark as paid, then the order is paid', async () => {
    const c = createStorefrontAClient({ shop: DEMO_SHOP, accessToken: sim.install(DEMO_SHOP), apiUrlTemplate: template });
    const order = await c.createOrder({
      sessionToken: 'sess_cod', currency: 'EUR', email: 'cod@example.com',
      shippingAddress: { firstName: 'C', lastName: 'D', line1: 'Street 2', city: 'Hamburg', postalCode: '20095', countryCode: 'DE' },
      lines: [{ title: 'Custom line', quantity: 1, unitPriceMinor: 1000 }],
      shipping: { title: 'Standard', priceMinor: 0 },
      totals: { subtotalMinor: 1000, shippingMinor: 0, discountMinor: 0, totalMinor: 1000 },
      payment: { method: 'cod' },
    }, 'cod-1');
    const admin = await (await fetch(`${url}/shops/${DEMO_SHOP}/admin/orders`)).text();
    expect(admin).toContain('sess_cod');
    const action = /<form method="post" action="([^"]+mark-paid)"/.exec(admin)![1]!;
    expect((await fetch(url + action, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    expect(await c.getOrder(order.id)).toMatchObject({ paid: true, status: 'paid' });
    expect(await (await fetch(`${url}/shops/${DEMO_SHOP}/admin/orders`)).text()).not.toContain('data-mark-paid');
  });

  it('given a second shop created by control, when its storefront opens, then it sells in its own currency', async () => {
    const res = await control('shops', { shop: 'tokyo-shop.myshopify.com', currency: 'JPY', country: 'JP' });
    expect(res.status).toBe(201);
    expect(await (await fetch(`${url}/shops/tokyo-shop.myshopify.com/`)).text()).toContain('¥2,490');
    expect((await control('shops', { shop: 'not-a-shop.example' })).status).toBe(400);
    expect((await fetch(`${url}/shops/ghost.myshopify.com/`)).status).toBe(404);
  });
});
