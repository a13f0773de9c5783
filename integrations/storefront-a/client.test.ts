import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createStorefrontASimulator, DEMO_APP, DEMO_SHOP, type StorefrontASimulator } from '../../sandbox/storefront-a/simulator.js';
import { startSimulator, withRetries } from '../../sandbox/storefront-common/testing.js';
import type { StoreOrderInput } from '../storefront-common/order.js';
import { createStorefrontAClient, exchangeCode } from './client.js';

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

const client = (accessToken = sim.install(DEMO_SHOP), extra: { timeoutMs?: number; fetch?: typeof fetch } = {}) =>
  createStorefrontAClient({ shop: DEMO_SHOP, accessToken, apiUrlTemplate: template, ...extra });
const variants = () => sim.state.shops.get(DEMO_SHOP)!.products.flatMap((p) => p.variants);
const fault = (rule: Record<string, unknown>) => fetch(`${url}/_control/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(rule) });

function orderInput(overrides: Partial<StoreOrderInput> = {}): StoreOrderInput {
  const [mug] = variants().filter((v) => v.sku === 'MUG-SND');
  return {
    sessionToken: 'sess_123',
    currency: 'EUR',
    email: 'shopper@example.com',
    shippingAddress: { firstName: 'Ada', lastName: 'Lovelace', line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', countryCode: 'DE' },
    lines: [{ title: 'Ceramic Mug', variantTitle: 'Sand', quantity: 2, unitPriceMinor: 1800, productId: String(mug!.productId), variantId: String(mug!.id) }],
    shipping: { title: 'Standard', priceMinor: 490 },
    discount: { code: 'WELCOME', amountMinor: 500 },
    totals: { subtotalMinor: 3600, shippingMinor: 490, discountMinor: 500, totalMinor: 3590 },
    payment: { method: 'card', reference: 'pay_1' },
    ...overrides,
  };
}

describe('storefront A client, given an installed app', () => {
  it('when it reads the shop, then it gets the demo shop with its currency', async () => {
    expect(await client().getShop()).toMatchObject({ myshopifyDomain: DEMO_SHOP, currency: 'EUR', countryCode: 'DE', name: 'Demo Shop' });
  });

  it("when it reads a shopper's cart, then lines carry integer minor-unit prices and image URLs", async () => {
    const [tee] = variants().filter((v) => v.sku === 'TEE-L');
    const token = sim.createCart(DEMO_SHOP, [{ variantId: tee!.id, quantity: 3 }]);
    const cart = await client().getCart(token);
    expect(cart).toMatchObject({ token, currency: 'EUR', country: 'DE', subtotalMinor: 9300 });
    expect(cart.items).toEqual([
      { productId: String(tee!.productId), variantId: String(tee!.id), title: 'Organic Cotton Tee', variantTitle: 'L', quantity: 3, unitPriceMinor: 3100, imageUrl: `${url}/shops/${DEMO_SHOP}/cdn/products/organic-tee.svg` },
    ]);
    const image = await fetch(cart.items[0]!.imageUrl!);
    expect(image.headers.get('content-type')).toContain('image/svg+xml');
  });

  it('when it asks for an unknown cart, then it is not_found', async () => {
    await expect(client().getCart('nope')).rejects.toMatchObject({ kind: 'not_found', retryable: false });
  });

  it('when it manages script tags, then they are created, listed and deleted', async () => {
    const c = client();
    const tag = await c.createScriptTag('http://localhost:3000/script-tag.js');
    expect(tag).toMatchObject({ src: 'http://localhost:3000/script-tag.js', event: 'onload' });
    expect(await c.listScriptTags()).toEqual([tag]);
    await c.deleteScriptTag(tag.id);
    expect(await c.listScriptTags()).toEqual([]);
    await expect(c.deleteScriptTag(tag.id)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('when a script tag src is not https, then the platform rejects it', async () => {
    await expect(client().createScriptTag('http://evil.example/x.js')).rejects.toMatchObject({ kind: 'rejected', status: 422 });
  });

  it("when another app's script tags exist, then this app neither sees nor deletes them", async () => {
    const other = await (await fetch(`${url}/_control/apps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Other"}' })).json() as { clientId: string };
    const theirs = await client(sim.install(DEMO_SHOP, { clientId: other.clientId })).createScriptTag('https://cdn.other.example/a.js');
    expect(await client().listScriptTags()).toEqual([]);
    await expect(client().deleteScriptTag(theirs.id)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('when it creates a card order, then the shop has it paid with our session token and totals', async () => {
    const c = client();
    const order = await c.createOrder(orderInput(), 'key-1');
    expect(order).toMatchObject({ number: '#1001', status: 'paid', paid: true, currency: 'EUR', totalMinor: 3590, sessionToken: 'sess_123' });
    expect(await c.getOrder(order.id)).toEqual(order);
    const stored = sim.state.shops.get(DEMO_SHOP)!.orders.get(Number(order.id))!;
    expect(stored).toMatchObject({ email: 'shopper@example.com', subtotal: 3600, totalShipping: 490, totalDiscounts: 500, total: 3590, tags: ['checkout:sess_123'] });
    expect(stored.transactions).toMatchObject([{ kind: 'sale', status: 'success', amount: 3590, authorization: 'pay_1' }]);
  });

  it('when it creates a COD order, then it is pending until the merchant marks it paid', async () => {
    const order = await client().createOrder(orderInput({ payment: { method: 'cod' } }), 'key-cod');
    expect(order).toMatchObject({ status: 'pending', paid: false });
  });

  it('when the same idempotency key is sent twice, then one order exists and both answers are it', async () => {
    const c = client();
    const first = await c.createOrder(orderInput(), 'same-key');
    const second = await c.createOrder(orderInput({ email: 'changed@example.com' }), 'same-key');
    expect(second).toEqual(first);
    expect(sim.state.shops.get(DEMO_SHOP)!.orders.size).toBe(1);
    const third = await c.createOrder(orderInput(), 'other-key');
    expect(third.id).not.toBe(first.id);
  });

  it('when it looks an order up by session token, then it finds exactly that order or null', async () => {
    const c = client();
    await c.createOrder(orderInput({ sessionToken: 'sess_other' }), 'k1');
    const mine = await c.createOrder(orderInput(), 'k2');
    expect(await c.findOrderBySessionToken('sess_123')).toEqual(mine);
    expect(await c.findOrderBySessionToken('sess_missing')).toBeNull();
  });

  it('when it asks for an unknown order, then it is not_found', async () => {
    await expect(client().getOrder('42')).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('when the order input does not add up, then it is rejected before anything is sent', async () => {
    const bad = orderInput({ totals: { subtotalMinor: 3600, shippingMinor: 490, discountMinor: 500, totalMinor: 9999 } });
    await expect(client().createOrder(bad, 'k')).rejects.toMatchObject({ kind: 'rejected', status: undefined });
    expect(sim.state.shops.get(DEMO_SHOP)!.orders.size).toBe(0);
  });

  it('when the platform itself refuses the order (unknown variant), then it is rejected', async () => {
    const input = orderInput();
    input.lines[0]!.variantId = '123';
    await expect(client().createOrder(input, 'k')).rejects.toMatchObject({ kind: 'rejected', status: 422 });
  });
});

describe('storefront A client errors', () => {
  it('given a wrong access token, when it calls, then it is unauthorized', async () => {
    await expect(client('sfat_wrong').getShop()).rejects.toMatchObject({ kind: 'unauthorized', status: 401, retryable: false });
  });

  it('given a token without the orders scope, when it creates an order, then it is unauthorized (403)', async () => {
    const token = sim.install(DEMO_SHOP, { scopes: ['read_products'] });
    await expect(client(token).createOrder(orderInput(), 'k')).rejects.toMatchObject({ kind: 'unauthorized', status: 403 });
  });

  it('given an unknown shop, when it calls, then it is not_found', async () => {
    const c = createStorefrontAClient({ shop: 'ghost.myshopify.com', accessToken: 'x', apiUrlTemplate: template });
    await expect(c.getShop()).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('given a shop host that is not the platform\'s, when a client is made, then it is rejected', () => {
    expect(() => createStorefrontAClient({ shop: 'evil.example', accessToken: 'x', apiUrlTemplate: template })).toThrow(expect.objectContaining({ kind: 'rejected' }));
  });

  it('given the platform never answers, when it calls, then it times out (retryable)', async () => {
    await fault({ mode: 'timeout', match: '/shops/' });
    await expect(client(undefined, { timeoutMs: 300 }).getShop()).rejects.toMatchObject({ kind: 'timeout', retryable: true });
  });

  it('given a 5xx or a 429, when it calls, then it is unavailable or rate_limited (retryable)', async () => {
    await fault({ mode: 'error', status: 503, match: '/shops/' });
    await expect(client().getShop()).rejects.toMatchObject({ kind: 'unavailable', status: 503, retryable: true });
    await fault({ mode: 'error', status: 429, match: '/shops/' });
    await expect(client().getShop()).rejects.toMatchObject({ kind: 'rate_limited', retryAfterMs: 1000 });
  });

  it('given two injected 500s on order creation, when the call is retried with its key, then it succeeds with one order', async () => {
    const c = client();
    await fault({ mode: 'error', count: 2, method: 'POST', match: `/shops/${DEMO_SHOP}/admin/api/2025-01/orders` });
    const { result, attempts } = await withRetries(() => c.createOrder(orderInput(), 'retry-key'));
    expect(attempts).toBe(3);
    expect(result.paid).toBe(true);
    expect(sim.state.shops.get(DEMO_SHOP)!.orders.size).toBe(1);
  });

  it('given an answer not in the protocol shape, when it calls, then it is invalid_response', async () => {
    const malformed: typeof fetch = async () => new Response(JSON.stringify({ shop: { id: 1 } }), { status: 200 });
    await expect(client('t', { fetch: malformed }).getShop()).rejects.toMatchObject({ kind: 'invalid_response', retryable: false });
    const badPrice: typeof fetch = async () =>
      new Response(JSON.stringify({ order: { id: 1, name: '#1', financial_status: 'paid', currency: 'EUR', total_price: '1.005', created_at: 'x', note_attributes: [] } }));
    await expect(client('t', { fetch: badPrice }).getOrder('1')).rejects.toMatchObject({ kind: 'invalid_response' });
  });
});

describe('exchangeCode errors', () => {
  it('given a wrong client secret, when a code is exchanged, then it is unauthorized', async () => {
    await expect(exchangeCode({ shop: DEMO_SHOP, clientId: DEMO_APP.clientId, clientSecret: 'wrong', code: 'x', apiUrlTemplate: template })).rejects.toMatchObject({ kind: 'unauthorized' });
  });

  it('given an unknown code, when it is exchanged, then it is rejected', async () => {
    await expect(exchangeCode({ shop: DEMO_SHOP, clientId: DEMO_APP.clientId, clientSecret: DEMO_APP.clientSecret, code: 'x', apiUrlTemplate: template })).rejects.toMatchObject({ kind: 'rejected', status: 400 });
  });
});
