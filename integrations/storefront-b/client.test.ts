import OAuth from 'oauth-1.0a';
import { describe, expect, it, vi } from 'vitest';
import { DEMO_STORE } from '../../sandbox/storefront-b/simulator.js';
import { useStorefrontBSimulator, withRetries } from '../../test/harness/simulators.js';
import type { StoreOrderInput } from '../storefront-common/order.js';
import { createStorefrontBClient, oauthFetch, StoresWithoutRoute } from './client.js';

const b = useStorefrontBSimulator();

const storeUrl = (id = 'demo') => `${b.url}/stores/${id}`;
const client = (extra: Partial<Parameters<typeof createStorefrontBClient>[0]> = {}) =>
  createStorefrontBClient({ storeUrl: storeUrl(), consumerKey: DEMO_STORE.consumerKey, consumerSecret: DEMO_STORE.consumerSecret, lookupWindowMs: 300, lookupIntervalMs: 50, ...extra });
/** A TLS-terminating proxy in front of the store: the client speaks https, the store's PHP gets http. */
const viaTlsProxy: typeof fetch = (input, init) => fetch(String(input instanceof Request ? input.url : input).replace(/^https:/, 'http:'), init);
const setServer = (body: Record<string, unknown>) => control('stores/demo/server', body);
const demo = () => b.sim.stores.get('demo')!;
const product = (slug: string) => demo().products.find((p) => p.slug === slug)!;
const control = (path: string, body: unknown) => fetch(`${b.url}/_control/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const fault = (rule: Record<string, unknown>) => control('faults', rule);

function orderInput(overrides: Partial<StoreOrderInput> = {}): StoreOrderInput {
  const tee = product('organic-tee');
  const tote = product('linen-tote');
  return {
    sessionToken: 'sess_b_1',
    currency: 'EUR',
    email: 'shopper@example.com',
    shippingAddress: { firstName: 'Ada', lastName: 'Lovelace', line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', countryCode: 'DE' },
    lines: [
      { title: 'Organic Cotton Tee', variantTitle: 'L', quantity: 1, unitPriceMinor: 3100, productId: String(tee.id), variantId: String(tee.variations[2]!.id) },
      { title: 'Linen Tote Bag', quantity: 2, unitPriceMinor: 2490, productId: String(tote.id) },
    ],
    shipping: { title: 'Standard', priceMinor: 490, code: 'flat_rate' },
    discount: { code: 'WELCOME', amountMinor: 1000 },
    totals: { subtotalMinor: 8080, shippingMinor: 490, discountMinor: 1000, totalMinor: 7570 },
    payment: { method: 'card', reference: 'pay_9' },
    ...overrides,
  };
}

describe('storefront B client, given the demo store keys', () => {
  it('when it validates the credentials, then it learns the store URL, currency and that the plugin is active', async () => {
    expect(await client().validateCredentials()).toEqual({ storeUrl: storeUrl(), currency: 'EUR', version: '10.0.2', pluginActive: true, canWriteOrders: true });
    // The write probe (an empty batch) leaves nothing in the store.
    expect(demo().orders.size).toBe(0);
  });

  it('when it reads a simple product, then the decimal price "24.9" becomes 2490 minor units', async () => {
    const tote = product('linen-tote');
    expect(await client().getProduct(String(tote.id))).toEqual({
      id: String(tote.id), title: 'Linen Tote Bag', type: 'simple', priceMinor: 2490, currency: 'EUR', imageUrl: `${storeUrl()}/wp-content/uploads/linen-tote.svg`, variationIds: [], inStock: true,
    });
  });

  it('when it reads a variable product and a variation, then each has its exact price', async () => {
    const tee = product('organic-tee');
    const c = client();
    expect(await c.getProduct(String(tee.id))).toMatchObject({ type: 'variable', priceMinor: 2900, variationIds: tee.variations.map((v) => String(v.id)) });
    expect(await c.getVariation(String(tee.id), String(tee.variations[2]!.id))).toMatchObject({ title: 'L', priceMinor: 3100, currency: 'EUR' });
  });

  it('when the store sells in a currency without minor units, then prices convert by that currency', async () => {
    const created = await (await control('stores', { id: 'tokyo', currency: 'JPY' })).json() as { consumerKey: string; consumerSecret: string };
    const c = createStorefrontBClient({ storeUrl: storeUrl('tokyo'), ...created });
    const mug = b.sim.stores.get('tokyo')!.products.find((p) => p.slug === 'ceramic-mug')!;
    expect(await c.getVariation(String(mug.id), String(mug.variations[0]!.id))).toMatchObject({ priceMinor: 1800, currency: 'JPY' });
  });

  it('when it asks for an unknown product or variation, then it is not_found', async () => {
    await expect(client().getProduct('999')).rejects.toMatchObject({ kind: 'not_found' });
    await expect(client().getVariation(String(product('organic-tee').id), '999')).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('when it reads several products, or several variations of one product, then one list read each, by the ids asked; an id the store lacks is not in the answer', async () => {
    const tote = product('linen-tote');
    const tee = product('organic-tee');
    const paths: string[] = [];
    const c = client({ fetch: (input, init) => (paths.push(new URL(String(input instanceof Request ? input.url : input)).pathname), fetch(input, init)) });

    const products = await c.getProducts([String(tote.id), `00${tee.id}`, '999', '0']);
    const variations = await c.getVariations(String(tee.id), [String(tee.variations[2]!.id), String(tee.variations[0]!.id), '999']);

    expect([...products.keys()].sort()).toEqual([String(tote.id), `00${tee.id}`].sort());
    expect(products.get(String(tote.id))).toEqual(await c.getProduct(String(tote.id)));
    // "007" is the product 7, as WooCommerce reads an id (and as a read of /products/007 answers it).
    expect(products.get(`00${tee.id}`)).toMatchObject({ id: String(tee.id), type: 'variable' });
    expect([...variations.keys()].sort()).toEqual([String(tee.variations[2]!.id), String(tee.variations[0]!.id)].sort());
    expect(variations.get(String(tee.variations[2]!.id))).toEqual(await c.getVariation(String(tee.id), String(tee.variations[2]!.id)));
    // The store currency is read once per client, alongside the first list.
    expect(paths.slice(0, 3).sort()).toEqual(['/stores/demo/wp-json/wc/v3/data/currencies/current', '/stores/demo/wp-json/wc/v3/products', `/stores/demo/wp-json/wc/v3/products/${tee.id}/variations`].sort());
    expect(paths.filter((p) => p.endsWith('/currencies/current'))).toHaveLength(1);
  });

  it('when it reads a cart\'s prices, then one request to the plugin\'s cart-prices route answers the products, their variations and the currency, as the REST reads do', async () => {
    const tote = product('linen-tote');
    const tee = product('organic-tee');
    const paths: string[] = [];
    const c = client({ withoutCartPricesRoute: new StoresWithoutRoute(), fetch: (input, init) => (paths.push(new URL(String(input instanceof Request ? input.url : input)).pathname), fetch(input, init)) });
    const [small, large] = [String(tee.variations[0]!.id), String(tee.variations[2]!.id)];

    const prices = await c.getCartPrices([String(tote.id), `00${tee.id}`, '999', '0'], [[String(tee.id), [large, small, '999']], ['999', ['5']]]);

    expect(paths).toEqual(['/stores/demo/wp-json/wc-hosted-checkout/v1/cart-prices']);
    // The same values as the REST v3 reads, keyed by the ids as asked; an id the store lacks is absent.
    const rest = client();
    expect(prices.products).toEqual(new Map([[String(tote.id), await rest.getProduct(String(tote.id))], [`00${tee.id}`, await rest.getProduct(String(tee.id))]]));
    expect(prices.variations).toEqual(new Map([
      [String(tee.id), new Map([[large, await rest.getVariation(String(tee.id), large)], [small, await rest.getVariation(String(tee.id), small)]])],
      ['999', new Map()],
    ]));
  });

  it('when the store\'s plugin has no cart-prices route (older than 1.4.0, or not active), then the REST reads answer the same, and the next read of that store goes to them directly until the memory expires', async () => {
    const tote = product('linen-tote');
    const tee = product('organic-tee');
    const cart = [[String(tote.id), String(tee.id)], [[String(tee.id), [String(tee.variations[1]!.id)]]]] as const;
    const expected = await client({ withoutCartPricesRoute: new StoresWithoutRoute() }).getCartPrices(...cart);
    expect(await (await control('stores/demo/plugin', { version: '1.3.0' })).json()).toMatchObject({ version: '1.3.0' });
    let now = 0;
    const memory = new StoresWithoutRoute(60_000, () => now);
    const paths: string[] = [];
    const c = () => client({ withoutCartPricesRoute: memory, fetch: (input, init) => (paths.push(new URL(String(input instanceof Request ? input.url : input)).pathname.replace('/stores/demo/wp-json/', '')), fetch(input, init)) });

    expect(await c().getCartPrices(...cart)).toEqual(expected);
    expect(paths.sort()).toEqual(['wc-hosted-checkout/v1/cart-prices', 'wc/v3/data/currencies/current', 'wc/v3/products', `wc/v3/products/${tee.id}/variations`]);

    paths.length = 0;
    expect(await c().getCartPrices(...cart)).toEqual(expected);
    expect(paths.sort()).toEqual(['wc/v3/data/currencies/current', 'wc/v3/products', `wc/v3/products/${tee.id}/variations`]);

    // The merchant updates the plugin: once the memory expires, the route is asked again.
    await control('stores/demo/plugin', { version: '1.4.0' });
    now = 60_001;
    paths.length = 0;
    expect(await c().getCartPrices(...cart)).toEqual(expected);
    expect(paths).toEqual(['wc-hosted-checkout/v1/cart-prices']);

    // Deactivated: the same fallback.
    await control('stores/demo/plugin', { active: false });
    paths.length = 0;
    expect(await c().getCartPrices(...cart)).toEqual(expected);
    expect(paths[0]).toBe('wc-hosted-checkout/v1/cart-prices');
    expect(paths).toHaveLength(4);
  });

  it('when the cart-prices route fails otherwise (a wrong secret, the store down), then that is the answer: no REST reads after it', async () => {
    const tote = product('linen-tote');
    const paths: string[] = [];
    const spy: typeof fetch = (input, init) => (paths.push(new URL(String(input instanceof Request ? input.url : input)).pathname), fetch(input, init));
    const memory = new StoresWithoutRoute();
    await expect(client({ consumerSecret: 'cs_wrongwrongwrong', withoutCartPricesRoute: memory, fetch: spy }).getCartPrices([String(tote.id)], [])).rejects.toMatchObject({ kind: 'unauthorized' });
    expect(paths).toEqual(['/stores/demo/wp-json/wc-hosted-checkout/v1/cart-prices']);
    expect(memory.has(storeUrl())).toBe(false);
  });

  it('when it creates a card order, then the store has it processing and paid, with our totals and session token', async () => {
    const c = client();
    const order = await c.createOrder(orderInput(), 'key-1');
    expect(order).toMatchObject({ status: 'processing', paid: true, currency: 'EUR', totalMinor: 7570, sessionToken: 'sess_b_1' });
    expect(order.number).toBe(order.id);
    expect(await c.getOrder(order.id)).toEqual(order);
    const stored = demo().orders.get(Number(order.id))!;
    expect(stored).toMatchObject({ paymentMethod: 'hosted_checkout', transactionId: 'pay_9', billing: { email: 'shopper@example.com' } });
    // The 10.00 discount spread over the line totals in proportion (3100 : 4980), no fee line, our code in meta.
    expect(stored.lines.map((l) => [l.subtotal, l.total])).toEqual([[3100, 2717], [4980, 4363]]);
    expect(stored.feeLines).toEqual([]);
    expect(stored.metaData.map((m) => [m.key, m.value])).toEqual([['_hosted_checkout_session', 'sess_b_1'], ['_hosted_checkout_discount_code', 'WELCOME'], ['_hosted_checkout_discount_amount', '10.00']]);
    expect((await (await fetch(`${b.url}/_control/stores/demo`)).json() as { orders: Array<{ discount_total: string }> }).orders[0]!.discount_total).toBe('10.00');
  });

  it('when it refunds an order in part (a line restocked) and then the rest, then the store books both, api_refund off; a refund whose answer was lost is found by its meta, never made twice; too much is refused for good', async () => {
    const c = client({ timeoutMs: 300 });
    const order = await c.createOrder(orderInput({ sessionToken: 'sess_b_refund' }), 'k');
    const refundId = '11111111-1111-4111-8111-111111111111';
    const first = await c.refundOrder(order.id, { refundId, amountMinor: 1000, currency: 'EUR', reason: 'damaged', lines: [{ line: 0, quantity: 1 }], restock: true });
    expect(first).toMatchObject({ amountMinor: 1000, orderStatus: 'processing', created: true });
    const stored = demo().orders.get(Number(order.id))!;
    expect(stored.refunds[0]).toMatchObject({ amount: 1000, reason: 'damaged', refundedPayment: false, restocked: true, lines: [{ lineId: stored.lines[0]!.id, quantity: 1 }] });
    expect(await c.refundOrder(order.id, { refundId, amountMinor: 1000, currency: 'EUR', reason: 'damaged', lines: [{ line: 0, quantity: 1 }], restock: true })).toMatchObject({ id: first.id, created: false });
    await setServer({ commitThenTimeout: 1 });
    const rest = { refundId: '22222222-2222-4222-8222-222222222222', amountMinor: 6570, currency: 'EUR', reason: null, lines: [], restock: false };
    expect(await c.refundOrder(order.id, rest)).toMatchObject({ amountMinor: 6570, orderStatus: 'refunded', created: false });
    expect(stored.refunds).toHaveLength(2);
    await expect(c.refundOrder(order.id, { ...rest, refundId: '33333333-3333-4333-8333-333333333333', amountMinor: 1 })).rejects.toMatchObject({ kind: 'rejected', message: expect.stringContaining('Invalid refund amount') });
  });

  it('when the store charges tax (19 % in DE, shipping taxed), then calculateTaxes quotes the tax and total WooCommerce then books on the order; with taxes off, none', async () => {
    const c = client();
    expect(await c.calculateTaxes(orderInput({ sessionToken: 'sess_b_tax_0' }))).toEqual({ taxMinor: 0, taxesIncluded: false, totalMinor: 7570 });
    await control('stores/demo/taxes', { enabled: true, rates: [{ country: 'DE', rate: 19, shipping: true }] });
    try {
      const input = orderInput({ sessionToken: 'sess_b_tax_1' });
      const quoted = await c.calculateTaxes(input);
      expect(quoted).toMatchObject({ taxesIncluded: false, taxMinor: expect.any(Number) });
      expect(quoted.taxMinor).toBeGreaterThan(0);
      const charged = { ...input, totals: { ...input.totals, taxMinor: quoted.taxMinor, totalMinor: quoted.totalMinor } };
      const order = await c.createOrder(charged, 'k-tax');
      expect(order.totalMinor).toBe(quoted.totalMinor);
      // Another country has no rate: no tax.
      const abroad = orderInput({ sessionToken: 'sess_b_tax_2', shippingAddress: { ...input.shippingAddress, countryCode: 'US', region: 'NY', postalCode: '10001' } });
      expect(await c.calculateTaxes(abroad)).toMatchObject({ taxMinor: 0, totalMinor: 7570 });
    } finally {
      await control('stores/demo/taxes', { enabled: false });
    }
  });

  it('when it creates an order with nothing to pay (total 0), then it is paid with no gateway, and a free order with a total is refused before any call', async () => {
    const free = { shipping: { title: 'Pickup', priceMinor: 0 }, discount: { code: 'FREE100', amountMinor: 8080 }, totals: { subtotalMinor: 8080, shippingMinor: 0, discountMinor: 8080, totalMinor: 0 }, payment: { method: 'free' as const } };
    const order = await client().createOrder(orderInput({ ...free, sessionToken: 'sess_b_free' }), 'free');
    expect(order).toMatchObject({ status: 'processing', paid: true, totalMinor: 0 });
    expect(demo().orders.get(Number(order.id))).toMatchObject({ paymentMethod: '', paymentMethodTitle: 'No payment needed' });
    await expect(client().createOrder(orderInput({ sessionToken: 'sess_b_free2', payment: { method: 'free' } }), 'free2')).rejects.toMatchObject({ kind: 'rejected' });
  });

  it('when it creates a COD order, then it is on-hold and unpaid', async () => {
    expect(await client().createOrder(orderInput({ payment: { method: 'cod' } }), 'cod')).toMatchObject({ status: 'on-hold', paid: false });
  });

  it('when the same session is created twice, then the second call finds the first order (no idempotency key is sent)', async () => {
    const sent: string[] = [];
    const c = client({ fetch: (input, init) => (sent.push(JSON.stringify(init?.headers ?? {})), fetch(input, init)) });
    const first = await c.createOrder(orderInput(), 'same');
    expect(await c.createOrder(orderInput(), 'same')).toMatchObject({ id: first.id, paid: true, totalMinor: 7570 });
    expect(demo().orders.size).toBe(1);
    expect(sent.join()).not.toMatch(/idempotency/i);
  });

  it('when it looks an order up by session token, then the exact token matches, a prefix does not', async () => {
    const c = client();
    await c.createOrder(orderInput({ sessionToken: 'sess_b_10' }), 'a');
    const mine = await c.createOrder(orderInput(), 'b');
    expect(await c.findOrderBySessionToken('sess_b_1')).toEqual(mine);
    expect(await c.findOrderBySessionToken('sess_b_2')).toBeNull();
    await expect(c.findOrderBySessionToken('sess b')).rejects.toMatchObject({ kind: 'rejected' });
  });

  it('when an order line has no store product, then it is rejected before sending', async () => {
    const input = orderInput();
    delete input.lines[1]!.productId;
    await expect(client().createOrder(input, 'k')).rejects.toMatchObject({ kind: 'rejected' });
  });

  it('when the plugin is not active, then no order is created (it could not be found again) and the merchant is told', async () => {
    await control('stores/demo/plugin', { active: false });
    await expect(client().createOrder(orderInput(), 'k')).rejects.toMatchObject({ kind: 'rejected', message: expect.stringContaining('plugin is not active') });
    expect(demo().orders.size).toBe(0);
  });

  it('when it asks for an unknown order, then it is not_found', async () => {
    await expect(client().getOrder('4242')).rejects.toMatchObject({ kind: 'not_found' });
  });
});

describe('storefront B client authentication, as WooCommerce decides it', () => {
  it('given an http store, when it calls, then it signs with OAuth 1.0a in the query string and sends no Authorization', async () => {
    const seen: string[] = [];
    const c = client({ fetch: (input, init) => (seen.push(`${String(input)} ${JSON.stringify(init?.headers)}`), fetch(input, init)) });
    await c.validateCredentials();
    expect(seen[0]).toMatch(/[?&]oauth_signature_method=HMAC-SHA256&/);
    expect(seen[0]).toMatch(/oauth_nonce=[A-Za-z0-9]{32}/);
    expect(seen[0]).not.toMatch(/authorization/i);
  });

  it('given an https store behind a TLS proxy with HTTPS=on (is_ssl), when it calls, then Basic auth is accepted', async () => {
    await setServer({ isSsl: true });
    const c = client({ storeUrl: storeUrl().replace('http:', 'https:'), fetch: viaTlsProxy });
    expect(await c.validateCredentials()).toMatchObject({ storeUrl: storeUrl().replace('http:', 'https:'), pluginActive: true });
  });

  it('given an https store whose PHP does not know it is https (TLS offload), when it calls, then the merchant learns why', async () => {
    const c = client({ storeUrl: storeUrl().replace('http:', 'https:'), fetch: viaTlsProxy });
    await expect(c.validateCredentials()).rejects.toMatchObject({ kind: 'unauthorized', message: expect.stringContaining("$_SERVER['HTTPS'] = 'on'") });
  });

  it('given an https store reached by an http URL, when it signs for http, then the signature does not match', async () => {
    await setServer({ isSsl: true });
    await expect(client().validateCredentials()).rejects.toMatchObject({ kind: 'unauthorized', remote: { message: 'Invalid signature - provided signature does not match.' } });
  });

  it('given the pinned nonce and timestamp, when it signs, then the signature is the official client\'s vector', async () => {
    const nonce = vi.spyOn(OAuth.prototype, 'getNonce').mockReturnValue('kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgm');
    const time = vi.spyOn(OAuth.prototype, 'getTimeStamp').mockReturnValue(1700000000);
    try {
      let sent = '';
      const signed = oauthFetch(async (input) => ((sent = String(input)), new Response('{}')), 'ck_4f1c2e0b9a7d6e5f4c3b2a1908f7e6d5c4b3a291', 'cs_0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b');
      await signed('http://shop.example.com/wp-json/wc/v3/products?include=11%2C12&per_page=100');
      expect(new URL(sent).searchParams.get('oauth_signature')).toBe('g/PgSZ+oCol7cyryLuUmDIJ7L489tzbGfbJ76wSojI4=');
      expect(new URL(sent).searchParams.get('include')).toBe('11,12');
    } finally {
      nonce.mockRestore();
      time.mockRestore();
    }
  });
});

describe('storefront B client errors', () => {
  it('given a wrong key or secret, when it calls, then it is unauthorized', async () => {
    await expect(client({ consumerKey: 'ck_wrong' }).validateCredentials()).rejects.toMatchObject({ kind: 'unauthorized', status: 401 });
    await expect(client({ consumerSecret: 'cs_wrong' }).getProduct('10')).rejects.toMatchObject({ kind: 'unauthorized' });
  });

  it('given a read-only key, when it validates, then it learns the key cannot write orders (and an order create is unauthorized)', async () => {
    const key = await (await control('stores/demo/keys', { permissions: 'read' })).json() as { consumerKey: string; consumerSecret: string };
    const c = client(key);
    await expect(c.validateCredentials()).resolves.toMatchObject({ currency: 'EUR', canWriteOrders: false });
    await expect(c.createOrder(orderInput(), 'k')).rejects.toMatchObject({ kind: 'unauthorized' });
    expect(demo().orders.size).toBe(0);
  });

  it('given an unknown store, when it calls, then it is not_found', async () => {
    await expect(client({ storeUrl: storeUrl('nowhere') }).validateCredentials()).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('given a store installed at the domain root, when it calls, then the path is /wp-json/… (never //wp-json, which WooCommerce signs as /wc/v3/…)', async () => {
    // The simulator serves its stores under /stores/<id>; a root store is what the real WooCommerce tier runs (test/real/).
    const paths: string[] = [];
    const recording: typeof fetch = async (input) => {
      const url = new URL(String(input));
      paths.push(url.pathname);
      return url.pathname.endsWith('/batch') ? Response.json([]) : Response.json({ environment: { home_url: url.origin, version: '10.0.2' }, settings: { currency: 'EUR' }, active_plugins: [] });
    };
    for (const storeUrl of ['http://shop.example', 'http://shop.example/', 'https://shop.example//']) {
      const c = createStorefrontBClient({ storeUrl, consumerKey: 'ck_x', consumerSecret: 'cs_x', fetch: recording });
      expect(c.storeUrl).toBe(storeUrl.startsWith('https') ? 'https://shop.example' : 'http://shop.example');
      await c.validateCredentials();
    }
    expect(new Set(paths)).toEqual(new Set(['/wp-json/wc/v3/system_status', '/wp-json/wc/v3/orders/batch']));
  });

  it('given a store URL that is not http(s), when a client is made, then it is rejected', () => {
    expect(() => client({ storeUrl: 'ftp://store.example' })).toThrow(expect.objectContaining({ kind: 'rejected' }));
  });

  it('given the store never answers, when it calls, then it times out', async () => {
    await fault({ mode: 'timeout', match: '/stores/demo/wp-json' });
    await expect(client({ timeoutMs: 300 }).validateCredentials()).rejects.toMatchObject({ kind: 'timeout', retryable: true });
  });

  it('given a 5xx, when it calls, then it is unavailable', async () => {
    await fault({ mode: 'error', status: 502 });
    await expect(client().validateCredentials()).rejects.toMatchObject({ kind: 'unavailable', status: 502, retryable: true });
  });

  it('given two injected 500s, when order creation is retried, then it succeeds once', async () => {
    await fault({ mode: 'error', count: 2, method: 'POST', match: '/stores/demo/wp-json/wc/v3/orders' });
    const c = client();
    const { result, attempts } = await withRetries(() => c.createOrder(orderInput(), 'retry'));
    expect(attempts).toBe(3);
    expect(result.paid).toBe(true);
    expect(demo().orders.size).toBe(1);
  });

  it('given a failed currency lookup, when the product is read again, then the lookup is retried', async () => {
    await fault({ mode: 'error', match: '/stores/demo/wp-json/wc/v3/data/currencies' });
    const c = client();
    await expect(c.getProduct(String(product('linen-tote').id))).rejects.toMatchObject({ kind: 'unavailable' });
    await expect(c.getProduct(String(product('linen-tote').id))).resolves.toMatchObject({ priceMinor: 2490 });
  });

  it('given answers not in the protocol shape or prices finer than the currency, when it calls, then it is invalid_response', async () => {
    const answer = (body: unknown): typeof fetch => async (input) =>
      new Response(JSON.stringify(String(input).includes('currencies') ? { code: 'EUR' } : body));
    await expect(client({ fetch: answer({ environment: {} }) }).validateCredentials()).rejects.toMatchObject({ kind: 'invalid_response' });
    const fine = { id: 1, name: 'x', type: 'simple', price: '1.005', stock_status: 'instock', images: [], variations: [] };
    await expect(client({ fetch: answer(fine) }).getProduct('1')).rejects.toMatchObject({ kind: 'invalid_response' });
  });
});
