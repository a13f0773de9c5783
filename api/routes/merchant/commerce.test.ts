// The merchant's CRUD of discount codes, order bumps, upsells and tracking pixels: what is stored and
// answered, what bad input gets (a clear { error, code } and no change), and that one merchant can neither
// see nor change another's records. (401 without a token: test/api/auth-required.test.ts, for every route.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { createTestMerchant, type TestMerchant } from '../../../test/harness/merchants.js';

let stack: TestStack;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
let a: TestMerchant;
let b: TestMerchant;
let n = 0;
/** A product picture the storefront A simulator serves (an allowed sandbox origin here, as the logo's). */
let productImage: string;

async function call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, token: string, body?: unknown) {
  const res = await stack.app.inject({
    method, url, payload: body as Json | undefined, remoteAddress: `198.51.100.${(n++ % 250) + 1}`, headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.statusCode, body: res.json() as Json };
}

beforeAll(async () => {
  stack = await startTestStack();
  a = await createTestMerchant(stack.database.db, stack.app, 'Alpha Extras');
  b = await createTestMerchant(stack.database.db, stack.app, 'Beta Extras');
  const page = await (await fetch(`${stack.urls.storefrontA}/shops/demo-shop.myshopify.com/`)).text();
  productImage = new URL(/src="([^"]+\.svg)"/.exec(page)![1]!, `${stack.urls.storefrontA}/`).toString();
});
afterAll(async () => {
  await stack?.close();
});

/** Bad input answers 400 INVALID_INPUT naming the field, and the list is as before. */
async function refused(listUrl: string, send: () => Promise<{ status: number; body: Json }>, field: string, token = a.token) {
  const before = await call('GET', listUrl, token);
  const res = await send();
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.code).toBe('INVALID_INPUT');
  expect(Object.keys(res.body.details?.fields ?? {}).join(' '), JSON.stringify(res.body)).toContain(field);
  expect((await call('GET', listUrl, token)).body).toEqual(before.body);
}

describe('discount codes', () => {
  it('given a lower-case code / it is stored upper-case; the same code in another case is taken for this shop only', async () => {
    const created = await call('POST', '/api/merchant/discounts', a.token, {
      code: ' welcome10 ', type: 'percentage', percentOff: 10, usageLimit: 100, oncePerEmail: true, minimumSubtotalCents: 2000, expiresAt: '2030-01-01T00:00:00Z',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String), code: 'WELCOME10', type: 'percentage', percentOff: 10, amountOffCents: null, minimumSubtotalCents: 2000, usageLimit: 100,
      oncePerEmail: true, expiresAt: '2030-01-01T00:00:00.000Z', active: true, timesUsed: 0, createdAt: expect.any(String), updatedAt: expect.any(String),
    });
    const again = await call('POST', '/api/merchant/discounts', a.token, { code: 'Welcome10', type: 'fixed_amount', amountOffCents: 500 });
    expect(again).toMatchObject({ status: 409, body: { code: 'DISCOUNT_CODE_EXISTS' } });
    const otherShop = await call('POST', '/api/merchant/discounts', b.token, { code: 'WELCOME10', type: 'fixed_amount', amountOffCents: 500 });
    expect(otherShop.status).toBe(201);

    expect((await call('GET', '/api/merchant/discounts', a.token)).body.items.map((d: Json) => d.code)).toEqual(['WELCOME10']);
    expect((await call('GET', `/api/merchant/discounts/${created.body.id}`, a.token)).body).toEqual(created.body);
  });

  it.each([
    [{ code: 'NOPCT', type: 'percentage' }, 'body.percentOff'],
    [{ code: 'PCT101', type: 'percentage', percentOff: 101 }, 'body.percentOff'],
    [{ code: 'PCT0', type: 'percentage', percentOff: 0 }, 'body.percentOff'],
    [{ code: 'BOTH', type: 'percentage', percentOff: 10, amountOffCents: 100 }, 'body.amountOffCents'],
    [{ code: 'NOAMOUNT', type: 'fixed_amount' }, 'body.amountOffCents'],
    [{ code: 'FLOAT', type: 'fixed_amount', amountOffCents: 4.5 }, 'body.amountOffCents'],
    [{ code: 'has space', type: 'fixed_amount', amountOffCents: 100 }, 'body.code'],
    [{ code: 'AB', type: 'fixed_amount', amountOffCents: 100 }, 'body.code'],
    [{ code: 'LIMIT0', type: 'fixed_amount', amountOffCents: 100, usageLimit: 0 }, 'body.usageLimit'],
    [{ code: 'WHEN', type: 'fixed_amount', amountOffCents: 100, expiresAt: 'tomorrow' }, 'body.expiresAt'],
    [{ code: 'EXTRA', type: 'fixed_amount', amountOffCents: 100, startsAt: '2030-01-01T00:00:00Z' }, 'body'],
    [{ code: 'KIND', type: 'free_shipping' }, 'body.type'],
  ])('given %j / 400 INVALID_INPUT naming the field, nothing created', async (body, field) => {
    await refused('/api/merchant/discounts', () => call('POST', '/api/merchant/discounts', a.token, body), field);
  });

  it('given a PATCH / fields not sent keep their value; a new type needs its amount; a taken code is refused', async () => {
    const { body: d } = await call('POST', '/api/merchant/discounts', a.token, { code: 'SPRING', type: 'percentage', percentOff: 15 });
    const paused = await call('PATCH', `/api/merchant/discounts/${d.id}`, a.token, { active: false, usageLimit: 5 });
    expect(paused.body).toMatchObject({ code: 'SPRING', type: 'percentage', percentOff: 15, active: false, usageLimit: 5 });

    await refused('/api/merchant/discounts', () => call('PATCH', `/api/merchant/discounts/${d.id}`, a.token, { type: 'fixed_amount' }), 'body.amountOffCents');
    const fixed = await call('PATCH', `/api/merchant/discounts/${d.id}`, a.token, { type: 'fixed_amount', amountOffCents: 750 });
    expect(fixed.body).toMatchObject({ type: 'fixed_amount', percentOff: null, amountOffCents: 750, usageLimit: 5 });

    const clash = await call('PATCH', `/api/merchant/discounts/${d.id}`, a.token, { code: 'welcome10' });
    expect(clash).toMatchObject({ status: 409, body: { code: 'DISCOUNT_CODE_EXISTS' } });
    expect((await call('GET', `/api/merchant/discounts/${d.id}`, a.token)).body.code).toBe('SPRING');

    const cleared = await call('PATCH', `/api/merchant/discounts/${d.id}`, a.token, { usageLimit: null, expiresAt: null });
    expect(cleared.body).toMatchObject({ usageLimit: null, expiresAt: null });
  });

  it('given another merchant\'s code / reading, changing and deleting it answer 404 and change nothing', async () => {
    const { body: mine } = await call('POST', '/api/merchant/discounts', a.token, { code: 'ONLYALPHA', type: 'fixed_amount', amountOffCents: 300 });
    for (const [method, body] of [['GET', undefined], ['PATCH', { amountOffCents: 1 }], ['DELETE', undefined]] as const) {
      const res = await call(method, `/api/merchant/discounts/${mine.id}`, b.token, body);
      expect(res, method).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    }
    expect((await call('GET', '/api/merchant/discounts', b.token)).body.items.map((d: Json) => d.code)).not.toContain('ONLYALPHA');
    expect((await call('GET', `/api/merchant/discounts/${mine.id}`, a.token)).body).toEqual(mine);

    expect((await call('GET', '/api/merchant/discounts/not-an-id', a.token))).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    expect(await call('DELETE', `/api/merchant/discounts/${mine.id}`, a.token)).toEqual({ status: 200, body: { deleted: true, id: mine.id } });
    expect((await call('GET', `/api/merchant/discounts/${mine.id}`, a.token)).status).toBe(404);
  });
});

describe('order bumps', () => {
  const bump = { productId: '1001', variantId: '2002', title: 'Gift wrap', description: 'Wrapped by hand', imageUrl: 'https://cdn.example/wrap.png', priceCents: 499, compareAtCents: 799 };

  it('given a bump / it is stored as given and listed in position order; a PATCH changes only what it sends', async () => {
    const second = await call('POST', '/api/merchant/order-bumps', a.token, { ...bump, imageUrl: null, title: 'Socks', position: 2 });
    const first = await call('POST', '/api/merchant/order-bumps', a.token, { ...bump, imageUrl: productImage, position: 1 });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toEqual({ id: expect.any(String), ...bump, imageUrl: productImage, active: true, position: 1, createdAt: expect.any(String), updatedAt: expect.any(String) });
    expect((await call('GET', '/api/merchant/order-bumps', a.token)).body.items.map((x: Json) => x.title)).toEqual(['Gift wrap', 'Socks']);

    const patched = await call('PATCH', `/api/merchant/order-bumps/${second.body.id}`, a.token, { active: false, variantId: null });
    expect(patched.body).toMatchObject({ title: 'Socks', priceCents: 499, active: false, variantId: null });
    await refused('/api/merchant/order-bumps', () => call('PATCH', `/api/merchant/order-bumps/${second.body.id}`, a.token, { compareAtCents: 100 }), 'body.compareAtCents');
    expect((await call('GET', `/api/merchant/order-bumps/${first.body.id}`, b.token)).status).toBe(404);
    expect((await call('PATCH', `/api/merchant/order-bumps/${first.body.id}`, b.token, { priceCents: 1 })).status).toBe(404);
    expect((await call('GET', `/api/merchant/order-bumps/${first.body.id}`, a.token)).body.priceCents).toBe(499);
  });

  it.each([
    [{ ...bump, productId: 'abc' }, 'body.productId'],
    [{ ...bump, imageUrl: 'http://cdn.example/wrap.png' }, 'body.imageUrl'],
    [{ ...bump, priceCents: -1 }, 'body.priceCents'],
    [{ ...bump, compareAtCents: 499 }, 'body.compareAtCents'],
    [{ ...bump, title: '' }, 'body.title'],
    [{ ...bump, price: 4.99 }, 'body'],
  ])('given %j / 400 INVALID_INPUT, nothing created', async (body, field) => {
    await refused('/api/merchant/order-bumps', () => call('POST', '/api/merchant/order-bumps', a.token, body), field);
  });
});

describe('upsells', () => {
  const upsell = { placement: 'post_purchase', headline: 'Add a second mug', productId: '1001', title: 'Ceramic Mug', priceCents: 1800, discountPercent: 20 };

  it('given an offer / it is stored with its placement and discount; bad placement or discount is refused', async () => {
    const created = await call('POST', '/api/merchant/upsells', a.token, upsell);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ ...upsell, variantId: null, description: null, imageUrl: null, active: true, position: 0 });
    const patched = await call('PATCH', `/api/merchant/upsells/${created.body.id}`, a.token, { placement: 'pre_confirm' });
    expect(patched.body).toMatchObject({ placement: 'pre_confirm', discountPercent: 20 });
    await refused('/api/merchant/upsells', () => call('POST', '/api/merchant/upsells', a.token, { ...upsell, discountPercent: 95 }), 'body.discountPercent');
    await refused('/api/merchant/upsells', () => call('POST', '/api/merchant/upsells', a.token, { ...upsell, placement: 'sidebar' }), 'body.placement');
    expect((await call('DELETE', `/api/merchant/upsells/${created.body.id}`, b.token)).status).toBe(404);
    expect((await call('DELETE', `/api/merchant/upsells/${created.body.id}`, a.token)).status).toBe(200);
    expect((await call('GET', '/api/merchant/upsells', a.token)).body.items).toEqual([]);
  });
});

describe('order bump and upsell images', () => {
  const unsafe = ['https://127.0.0.1/wrap.png', 'https://169.254.169.254/latest/meta-data', 'https://[::1]/wrap.png', 'https://10.0.0.1/wrap.png', 'https://localhost/wrap.png'];
  const kinds = [
    { list: '/api/merchant/order-bumps', body: { productId: '1001', title: 'Gift wrap', priceCents: 499 } },
    { list: '/api/merchant/upsells', body: { placement: 'pre_confirm', headline: 'One more?', productId: '1001', title: 'Ceramic Mug', priceCents: 1800 } },
  ];

  it('given an image URL on a loopback, private, link-local or metadata address / create and PATCH answer 400 naming body.imageUrl, as the logo does, and change nothing', async () => {
    for (const kind of kinds) {
      const created = await call('POST', kind.list, a.token, { ...kind.body, imageUrl: null });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      for (const imageUrl of unsafe) {
        await refused(kind.list, () => call('POST', kind.list, a.token, { ...kind.body, imageUrl }), 'body.imageUrl');
        await refused(kind.list, () => call('PATCH', `${kind.list}/${created.body.id}`, a.token, { imageUrl }), 'body.imageUrl');
      }
      const pictured = await call('PATCH', `${kind.list}/${created.body.id}`, a.token, { imageUrl: productImage });
      expect(pictured.status, JSON.stringify(pictured.body)).toBe(200);
      expect(pictured.body.imageUrl).toBe(productImage);
    }
  });

  it('given a URL that does not answer an image / it is refused too (an HTML page, a missing picture)', async () => {
    for (const kind of kinds) {
      for (const imageUrl of [`${stack.urls.storefrontA}/shops/demo-shop.myshopify.com/`, `${stack.urls.storefrontA}/shops/demo-shop.myshopify.com/cdn/products/none.svg`]) {
        await refused(kind.list, () => call('POST', kind.list, a.token, { ...kind.body, imageUrl }), 'body.imageUrl');
      }
    }
  });
});

describe('tracking pixels', () => {
  it('given ids in each platform\'s format / they are stored with their events; the same pixel twice is refused', async () => {
    const meta = await call('POST', '/api/merchant/pixels', a.token, { platform: 'meta', trackingId: '123456789012345', events: ['page_view', 'purchase'] });
    expect(meta.status, JSON.stringify(meta.body)).toBe(201);
    expect(meta.body).toMatchObject({ platform: 'meta', trackingId: '123456789012345', events: ['page_view', 'purchase'], active: true });
    const ga4 = await call('POST', '/api/merchant/pixels', a.token, { platform: 'ga4', trackingId: 'G-AB12CD34EF', events: ['begin_checkout', 'add_payment_info', 'purchase'] });
    expect(ga4.status).toBe(201);
    const twice = await call('POST', '/api/merchant/pixels', a.token, { platform: 'meta', trackingId: '123456789012345', events: ['purchase'] });
    expect(twice).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });

    const patched = await call('PATCH', `/api/merchant/pixels/${ga4.body.id}`, a.token, { events: ['purchase'], active: false });
    expect(patched.body).toMatchObject({ platform: 'ga4', events: ['purchase'], active: false });
    await refused('/api/merchant/pixels', () => call('PATCH', `/api/merchant/pixels/${ga4.body.id}`, a.token, { trackingId: 'UA-1234-1' }), 'body.trackingId');
    expect((await call('GET', '/api/merchant/pixels', b.token)).body.items).toEqual([]);
  });

  it.each([
    [{ platform: 'meta', trackingId: 'G-AB12CD34EF', events: ['purchase'] }, 'body.trackingId'],
    [{ platform: 'tiktok', trackingId: 'lowercase-code', events: ['purchase'] }, 'body.trackingId'],
    [{ platform: 'ga4', trackingId: 'G-AB12CD34EF', events: [] }, 'body.events'],
    [{ platform: 'ga4', trackingId: 'G-AB12CD34EF', events: ['purchase', 'purchase'] }, 'body.events'],
    [{ platform: 'ga4', trackingId: 'G-AB12CD34EF', events: ['add_to_cart'] }, 'body.events'],
    [{ platform: 'myspace', trackingId: '1', events: ['purchase'] }, 'body.platform'],
  ])('given %j / 400 INVALID_INPUT, nothing stored', async (body, field) => {
    await refused('/api/merchant/pixels', () => call('POST', '/api/merchant/pixels', a.token, body), field);
  });
});

describe('the OpenAPI document', () => {
  it('describes every commerce route with its request and response shapes', async () => {
    const doc = (await stack.app.inject({ method: 'GET', url: '/docs/json' })).json() as {
      paths: Record<string, Record<string, { summary?: string; requestBody?: unknown; responses?: Record<string, unknown> }>>;
      components: { schemas: Record<string, unknown> };
    };
    const routes: Array<[string, string, boolean]> = [];
    for (const kind of ['discounts', 'order-bumps', 'upsells', 'pixels']) {
      routes.push([`/api/merchant/${kind}`, 'get', false], [`/api/merchant/${kind}`, 'post', true], [`/api/merchant/${kind}/{id}`, 'get', false]);
      routes.push([`/api/merchant/${kind}/{id}`, 'patch', true], [`/api/merchant/${kind}/{id}`, 'delete', false]);
    }
    routes.push(['/api/checkout/{token}/validate-discount', 'post', true], ['/api/checkout/{token}/order-bumps', 'get', false], ['/api/checkout/{token}/upsells', 'get', false], ['/api/checkout/{token}/pixels', 'get', false]);
    for (const [path, method, hasBody] of routes) {
      const op = doc.paths[path]?.[method];
      expect(op?.summary, `${method} ${path}`).toBeTruthy();
      expect(Boolean(op?.requestBody), `${method} ${path} body`).toBe(hasBody);
      expect(Object.keys(op?.responses ?? {}).some((s) => s.startsWith('2')), `${method} ${path} 2xx`).toBe(true);
    }
    for (const name of ['DiscountCode', 'DiscountValidation', 'OrderBump', 'OrderBumpOffer', 'Upsell', 'UpsellOffer', 'TrackingPixel', 'CheckoutPixels', 'PixelConfig']) {
      expect(doc.components.schemas, name).toHaveProperty(name);
    }
  });
});
