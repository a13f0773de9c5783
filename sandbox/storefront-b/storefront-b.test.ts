import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WooCommerceRestApi } from '../../test/harness/woocommerce-official.js';
import { startReceiver, startSimulator, type Reply } from '../../test/harness/simulators.js';
import { createStorefrontBSimulator, DEMO_STORE, PLUGIN_FILE, type StorefrontBSimulator } from './simulator.js';
import { PAID_CHECK_TIMEOUT_MS } from './plugin.js';

// The fake checkout service answers whatever the current test sets.
let answer: Reply = { status: 200, json: { passthrough: true } };
let service: Awaited<ReturnType<typeof startReceiver>>;
let sim: StorefrontBSimulator;
let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  service = await startReceiver(() => answer);
  ({ sim, url, close } = await startSimulator((publicUrl) => createStorefrontBSimulator({ publicUrl, serviceUrl: () => service.url, pluginTimeoutMs: 300 })));
});
afterAll(async () => {
  await close();
  await service.close();
});
beforeEach(() => sim.reset());
afterEach(() => void (service.received.length = 0));

const store = () => `${url}/stores/demo`;
const official = () => new WooCommerceRestApi({ url: store(), consumerKey: DEMO_STORE.consumerKey, consumerSecret: DEMO_STORE.consumerSecret, version: 'wc/v3' });
const demo = () => sim.stores.get('demo')!;
const form = (fields: Record<string, string>, cookie?: string): RequestInit => ({
  method: 'POST',
  redirect: 'manual',
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
  body: new URLSearchParams(fields).toString(),
});

/** A shopper puts a tee (size L) and two totes in the cart: answers the session cookie. */
async function fillCart(): Promise<string> {
  const tee = demo().products.find((p) => p.slug === 'organic-tee')!;
  const tote = demo().products.find((p) => p.slug === 'linen-tote')!;
  const first = await fetch(`${store()}/cart/add`, form({ 'add-to-cart': String(tee.id), variation_id: String(tee.variations[2]!.id) }));
  expect(first.status).toBe(303);
  const cookie = first.headers.get('set-cookie')!.split(';')[0]!;
  await fetch(`${store()}/cart/add`, form({ 'add-to-cart': String(tote.id), quantity: '2' }, cookie));
  return cookie;
}

const checkout = (cookie: string) => fetch(`${store()}/checkout`, { method: 'POST', redirect: 'manual', headers: { cookie } });

describe('the official plugin on the checkout button', () => {
  it('given the service answers a checkoutUrl, when the shopper checks out, then they are sent there (303) and the cart went to the service without prices', async () => {
    answer = { status: 201, json: { checkoutUrl: 'http://demo.localhost:3000/checkout/tok_1' } };
    const cookie = await fillCart();
    const cartPage = await (await fetch(`${store()}/cart`, { headers: { cookie } })).text();
    expect(cartPage).toMatch(/<form method="post" action="\/stores\/demo\/checkout"[^>]*>\s*<button[^>]*id="proceed-to-checkout"/);

    const res = await checkout(cookie);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('http://demo.localhost:3000/checkout/tok_1');

    const [call] = service.received;
    expect(call).toMatchObject({ method: 'POST', path: '/api/checkout/create' });
    // Signed with the connection key's secret over "<timestamp>.<body>", as the PHP plugin signs.
    const ts = call!.headers['x-hosted-checkout-timestamp'] as string;
    expect(call!.headers['x-hosted-checkout-key']).toBe(DEMO_STORE.consumerKey);
    expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(60);
    expect(call!.headers['x-hosted-checkout-signature']).toBe(`v1=${createHmac('sha256', DEMO_STORE.consumerSecret).update(`${ts}.${call!.body}`).digest('hex')}`);
    const tee = demo().products.find((p) => p.slug === 'organic-tee')!;
    const tote = demo().products.find((p) => p.slug === 'linen-tote')!;
    expect(JSON.parse(call!.body)).toEqual({
      platform: 'storefront-b',
      storeUrl: store(),
      cart: { items: [{ productId: tee.id, variationId: tee.variations[2]!.id, quantity: 1 }, { productId: tote.id, quantity: 2 }], currency: 'EUR' },
      locale: 'en_US',
      handoffId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    const list = (await (await fetch(`${url}/_control/plugin/interceptions?store=demo`)).json()) as { interceptions: unknown };
    expect(list.interceptions).toMatchObject([{ outcome: 'redirected', status: 201, checkoutUrl: 'http://demo.localhost:3000/checkout/tok_1' }]);
  });

  for (const [name, reply, outcome] of [
    ['answers passthrough', { status: 200, json: { passthrough: true } }, 'passthrough'],
    ['fails with 500', { status: 500, json: { error: 'boom' } }, 'error'],
    ['answers too slowly', { status: 200, json: { checkoutUrl: 'http://late.example/x' }, delayMs: 1_000 }, 'error'],
    ['answers a non-http checkoutUrl', { status: 200, json: { checkoutUrl: 'javascript:alert(1)' } }, 'error'],
  ] as const) {
    it(`given the service ${name}, when the shopper checks out, then they continue to the native checkout`, async () => {
      answer = reply;
      const cookie = await fillCart();
      const res = await checkout(cookie);
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/stores/demo/checkout');
      expect(await (await fetch(`${store()}/checkout`, { headers: { cookie } })).text()).toContain('data-native-checkout');
      expect(sim.interceptions).toMatchObject([{ outcome, storeId: 'demo' }]);
    });
  }

  it('given the plugin is deactivated, when the shopper checks out, then no interception happens and the REST status says so', async () => {
    await fetch(`${url}/_control/stores/demo/plugin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"active":false}' });
    const res = await checkout(await fillCart());
    expect(res.headers.get('location')).toBe('/stores/demo/checkout');
    expect(service.received).toHaveLength(0);
    const status = (await official().get('system_status', { _fields: 'active_plugins' })).data as { active_plugins: Array<{ plugin: string }> };
    expect(status.active_plugins.map((p) => p.plugin)).not.toContain(PLUGIN_FILE);
    expect((await fetch(`${store()}/wp-json/wc-hosted-checkout/v1/orders/by-session/cs_anything`)).status).toBe(404);
  });

  it('given an empty cart, when checkout is pressed, then the shopper returns to the cart and nothing is intercepted', async () => {
    const res = await fetch(`${store()}/checkout`, { method: 'POST', redirect: 'manual' });
    expect(res.headers.get('location')).toBe('/stores/demo/cart');
    expect(sim.interceptions).toHaveLength(0);
  });

  it('given the control checkout, when run, then it intercepts like a shopper click', async () => {
    answer = { status: 201, json: { checkoutUrl: 'http://demo.localhost:3000/checkout/tok_2' } };
    const tote = demo().products.find((p) => p.slug === 'linen-tote')!;
    const res = await fetch(`${url}/_control/stores/demo/checkout`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ items: [{ productId: tote.id, quantity: 1 }] }) });
    expect(await res.json()).toMatchObject({ location: 'http://demo.localhost:3000/checkout/tok_2', interception: { outcome: 'redirected' } });
  });
});

describe('the plugin empties the cart of a paid checkout (class-hosted-checkout-cart.php)', () => {
  const TOKEN = 'cs_paidPaidPaid0123456789';
  /** The service: the handoff answers the checkout; the session status answers `status`. */
  // One answer serves both calls (the fake service answers every request alike): 200 is a valid create answer too.
  const serviceWith = (status: string) => (answer = { status: 200, json: { token: TOKEN, checkoutUrl: `http://demo.localhost:3000/checkout/${TOKEN}`, status } });
  const cartPage = async (cookie: string) => (await fetch(`${store()}/cart`, { headers: { cookie } })).text();
  const asked = () => service.received.filter((r) => r.method === 'GET' && r.path === `/api/checkout/session/${TOKEN}`);

  for (const status of ['COMPLETED', 'COD_CONFIRMED', 'REFUNDED', 'ON_HOLD']) {
    it(`given a handed-over checkout that is ${status}, when the shopper opens a shop page, then the cart is empty`, async () => {
      serviceWith(status);
      const cookie = await fillCart();
      expect((await checkout(cookie)).status).toBe(303);
      expect(await cartPage(cookie)).toContain('Your cart is currently empty.');
      expect(asked()).toHaveLength(1);
      // Forgotten: later pages ask nothing.
      await cartPage(cookie);
      expect(asked()).toHaveLength(1);
    });
  }

  it('given a checkout not paid yet, when the shopper opens pages, then the cart stays and the service is asked at most once every few seconds', async () => {
    serviceWith('PAYMENT_PENDING');
    const cookie = await fillCart();
    await checkout(cookie);
    expect(await cartPage(cookie)).toContain('data-cart-total');
    expect(await cartPage(cookie)).toContain('data-cart-total');
    expect(asked()).toHaveLength(1);
    // Five seconds later (the remembered check is older) the next page asks again, and now it is paid.
    demo().handedOver.get(cookie.split('=')[1]!)!.checkedAt -= 5_000;
    serviceWith('COMPLETED');
    expect(await cartPage(cookie)).toContain('Your cart is currently empty.');
    expect(asked()).toHaveLength(2);
  });

  it('given the service is down when asked, when the shopper opens a page, then the page renders with the cart', async () => {
    const cookie = await fillCart();
    serviceWith('COMPLETED');
    await checkout(cookie);
    answer = { status: 200, json: { status: 'COMPLETED' }, delayMs: PAID_CHECK_TIMEOUT_MS + 1_000 };
    expect(await cartPage(cookie)).toContain('data-cart-total');
    // The page did not wait for the answer: it was asked, and the (late) COMPLETED would have emptied the cart.
    expect(asked()).toHaveLength(1);
    expect(demo().handedOver.has(cookie.split('=')[1]!)).toBe(true);
  });
});

describe('merchant back office', () => {
  it('given a COD order, when the merchant presses Mark as paid, then it is processing and paid', async () => {
    const tote = demo().products.find((p) => p.slug === 'linen-tote')!;
    const order = (await official().post('orders', {
      status: 'on-hold', payment_method: 'cod', payment_method_title: 'Cash on delivery', currency: 'EUR',
      billing: { first_name: 'C', last_name: 'D', address_1: 'Street 2', city: 'Hamburg', postcode: '20095', country: 'DE', email: 'cod@example.com' },
      line_items: [{ product_id: tote.id, quantity: 1 }],
      shipping_lines: [{ method_id: 'flat_rate', method_title: 'Standard', total: '4.90' }],
      meta_data: [{ key: '_hosted_checkout_session', value: 'sess_cod_b' }],
    })).data as { id: number; date_paid_gmt: string | null };
    expect(order.date_paid_gmt).toBeNull();
    const admin = await (await fetch(`${store()}/wp-admin/orders`)).text();
    expect(admin).toContain('sess_cod_b');
    const action = /<form method="post" action="([^"]+mark-paid)"/.exec(admin)![1]!;
    expect((await fetch(url + action, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    expect((await official().get(`orders/${order.id}`)).data).toMatchObject({ status: 'processing', date_paid_gmt: expect.any(String) });
  });

  it('given a new store by control, when its shop page opens, then it lists the catalogue at its currency', async () => {
    const res = await fetch(`${url}/_control/stores`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":"usd-store","currency":"USD"}' });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ storeUrl: `${url}/stores/usd-store`, consumerKey: expect.stringMatching(/^ck_/), consumerSecret: expect.stringMatching(/^cs_/) });
    expect(await (await fetch(`${url}/stores/usd-store/`)).text()).toContain('US$24.90');
  });
});

describe("a store's price decimals (woocommerce_price_num_decimals, storefront-b/money.ts)", () => {
  /** A store made by control, and the official client on it. */
  const storeIn = async (id: string, body: Record<string, unknown>) => {
    const res = await fetch(`${url}/_control/stores`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id, ...body }) });
    expect(res.status).toBe(201);
    const made = (await res.json()) as { consumerKey: string; consumerSecret: string; priceDecimals: number };
    return { made, api: new WooCommerceRestApi({ url: `${url}/stores/${id}`, consumerKey: made.consumerKey, consumerSecret: made.consumerSecret, version: 'wc/v3' }) };
  };
  const decimalsSetting = async (api: InstanceType<typeof WooCommerceRestApi>) =>
    ((await api.get('settings/general')).data as Array<{ id: string; value: string }>).find((o) => o.id === 'woocommerce_price_num_decimals')?.value;

  it.each([['JPY', '0', '2490', '2490'], ['KWD', '3', '24.9', '24.900'], ['COP', '0', '2490', '2490'], ['EUR', '2', '24.9', '24.90']] as const)(
    'given a new %s store / its settings say %s decimals, the tote costs %s and an order writes its line as %s', async (currency, decimals, price, line) => {
      const { made, api } = await storeIn(`dec-${currency.toLowerCase()}`, { currency });
      expect(made.priceDecimals).toBe(Number(decimals));
      expect(await decimalsSetting(api)).toBe(decimals);
      expect((await api.get('system_status', { _fields: 'settings' })).data.settings.number_of_decimals).toBe(Number(decimals));
      const tote = sim.stores.get(`dec-${currency.toLowerCase()}`)!.products.find((p) => p.slug === 'linen-tote')!;
      expect((await api.get(`products/${tote.id}`)).data.price).toBe(price);
      const order = (await api.post('orders', { currency, line_items: [{ product_id: tote.id, quantity: 1 }] })).data;
      expect([order.line_items[0].total, order.total]).toEqual([line, line]);
    },
  );

  it('given amounts with more decimals than the store shows / each line is rounded half away from zero, and the total adds the rounded lines', async () => {
    const { api } = await storeIn('dec-round', { currency: 'EUR' });
    const tote = sim.stores.get('dec-round')!.products.find((p) => p.slug === 'linen-tote')!;
    const order = (await api.post('orders', {
      line_items: [{ product_id: tote.id, quantity: 1, subtotal: '10.005', total: '10.005' }, { product_id: tote.id, quantity: 1, subtotal: '10.004', total: '10.004' }],
      shipping_lines: [{ method_id: 'flat_rate', method_title: 'Standard', total: '4.9' }],
    })).data;
    expect(order.line_items.map((l: { total: string }) => l.total)).toEqual(['10.01', '10.00']);
    expect([order.shipping_total, order.total]).toEqual(['4.90', '24.91']);
  });

  it('given a merchant who set 0 decimals on a EUR store / prices, order amounts and the shop page are whole euros', async () => {
    const { api } = await storeIn('dec-eur0', { currency: 'EUR', priceDecimals: 0 });
    expect(await decimalsSetting(api)).toBe('0');
    const tote = sim.stores.get('dec-eur0')!.products.find((p) => p.slug === 'linen-tote')!;
    expect((await api.get(`products/${tote.id}`)).data.price).toBe('2490');
    expect((await api.post('orders', { line_items: [{ product_id: tote.id, quantity: 1, total: '2489.5', subtotal: '2489.5' }] })).data.total).toBe('2490');
    expect(await (await fetch(`${url}/stores/dec-eur0/`)).text()).toContain('€2,490<');
  });
});
