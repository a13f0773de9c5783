// GET /api/checkout/session-bundle/:token is the checkout page's hot read, tuned for speed (one prepared
// statement, the merchant's rates and pixels kept on its row by triggers, a compiled serializer). These tests
// pin what no such shortcut may change: every read shows the session's status and entries as they are now,
// and the merchant's rates and pixels as they are now, whoever wrote them; and the answer has exactly the
// documented shape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Prisma } from '../../../prisma/client.js';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { createTestMerchant, type TestMerchant } from '../../../test/harness/merchants.js';
import { sessionBundleResponse } from '../../schemas/checkout.js';
import { newSessionToken } from '../../cart-sources.js';
import { PREVIEW_TOKEN_PREFIX } from '../../../domain/tokens.js';
import { COUNTRY_CODES } from '../../../domain/countries.js';
import { givePaidPlan } from '../../../scripts/lib/stack/billing.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let stack: TestStack;
let m: TestMerchant;
let shops = 0;
let n = 0;
const db = () => stack.database.db;
/** 1 EUR = 1.1 USD (the session's own snapshot). */
const FX = { date: '2026-11-20', rates: { USD: '1.1' } };
const ITEMS = [
  { productId: '11', variantId: '21', title: 'Linen Tote Bag', variantTitle: 'Natural', quantity: 2, unitPrice: 2490, imageUrl: 'https://cdn.example/tote.jpg' },
  { productId: '12', variantId: null, title: 'Mug', variantTitle: null, quantity: 1, unitPrice: 1020, imageUrl: null },
];

async function call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, opts: { body?: unknown; token?: string } = {}) {
  const res = await stack.app.inject({
    method, url, payload: opts.body as Json | undefined, remoteAddress: `198.51.100.${(n++ % 250) + 1}`,
    headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
  });
  return { status: res.statusCode, body: (res.body ? res.json() : {}) as Json, headers: res.headers };
}

/** Each test its own merchant, so that none depends on another's rates or pixels. */
async function shop(): Promise<TestMerchant> {
  m = await createTestMerchant(db(), stack.app, `Bundle Shop ${++shops}`);
  return m;
}

/** A USD session of 60.00 USD (as create stores one), of the test's merchant (a new one unless `sameShop`). */
async function session(opts: { sameShop?: boolean; preview?: boolean } = {}): Promise<string> {
  if (!opts.sameShop) await shop();
  const token = opts.preview ? `${PREVIEW_TOKEN_PREFIX}${newSessionToken().slice(3)}` : newSessionToken();
  await db().checkoutSession.create({
    data: { token, merchantId: m.id, platform: 'STOREFRONT_B', currency: 'USD', fxRates: FX as Prisma.InputJsonValue, items: ITEMS as Prisma.InputJsonValue, subtotalMinor: 6000 },
  });
  return token;
}

async function bundle(token: string): Promise<Json> {
  const res = await call('GET', `/api/checkout/session-bundle/${token}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const setRates = async (shippingRates: unknown[]) => {
  const res = await call('PATCH', '/api/merchant/config', { token: m.token, body: { shippingRates } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};
const quoted = (b: Json) => (b.shipping as Json[]).map((q) => `${q.name} ${q.price.amount}${q.free ? ` free:${q.reason}` : ''}`);

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

describe('the session bundle reads the session as it is now', () => {
  it('given a bundle read once / a status and entries written since (as the workflow writes them) show on the next read', async () => {
    const token = await session();
    expect(await bundle(token)).toMatchObject({ status: 'OPEN', shopper: { email: null, address: null, shippingRateId: null } });

    await db().checkoutSession.update({ where: { token }, data: { status: 'PAYMENT_PENDING', email: 'ada@shopper.test', shippingRateId: 'r1' } });
    expect(await bundle(token)).toMatchObject({ status: 'PAYMENT_PENDING', shopper: { email: 'ada@shopper.test', shippingRateId: 'r1' } });

    await db().checkoutSession.update({ where: { token }, data: { status: 'COMPLETED' } });
    expect((await bundle(token)).status).toBe('COMPLETED');
  });
});

describe('the session bundle shows the merchant\'s rates and pixels as they are now', () => {
  it('given rates replaced through the API and changed in the table / each next read quotes the new list, cheapest first, ties in the merchant\'s order', async () => {
    const token = await session();
    await setRates([
      { name: 'Express', basePriceCents: 1500 },
      { name: 'Standard A', basePriceCents: 500 },
      { name: 'Pickup', free: true, basePriceCents: 900 },
      { name: 'Standard B', basePriceCents: 500 },
      { name: 'Free over 50', basePriceCents: 800, freeThresholdCents: 5000 },
    ]);
    // 5.00 EUR = 5.50 USD; 50 EUR = 55.00 USD, under the 60.00 USD subtotal.
    expect(quoted(await bundle(token))).toEqual(['Pickup 0 free:free_rate', 'Free over 50 0 free:threshold', 'Standard A 550', 'Standard B 550', 'Express 1650']);

    await setRates([{ name: 'Standard B', basePriceCents: 500 }, { name: 'Standard A', basePriceCents: 500 }]);
    expect(quoted(await bundle(token))).toEqual(['Standard B 550', 'Standard A 550']);

    // Written straight to the table (an operator, a migration): shown as well.
    await db().shippingRate.updateMany({ where: { merchantId: m.id, name: 'Standard A' }, data: { basePriceCents: 100 } });
    expect(quoted(await bundle(token))).toEqual(['Standard A 110', 'Standard B 550']);
    await db().shippingRate.deleteMany({ where: { merchantId: m.id, name: 'Standard A' } });
    const after = await bundle(token);
    expect(quoted(after)).toEqual(['Standard B 550']);
    const [rate] = await db().shippingRate.findMany({ where: { merchantId: m.id } });
    expect((after.shipping as Json[])[0]!.id).toBe(rate!.id);
  });

  it('given pixels added, paused, changed and removed through the API / each next read shows the active ones, oldest first', async () => {
    const token = await session();
    const add = async (body: Json) => {
      const res = await call('POST', '/api/merchant/pixels', { token: m.token, body });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    };
    const patch = async (id: string, body: Json) => expect((await call('PATCH', `/api/merchant/pixels/${id}`, { token: m.token, body })).status).toBe(200);
    const pixels = async () => ((await bundle(token)).pixels as Json[]).map((p) => `${p.platform}:${p.events.join('+')}`);

    const meta = await add({ platform: 'meta', trackingId: '123456789012345', events: ['page_view'] });
    const ga4 = await add({ platform: 'ga4', trackingId: 'G-ABC1234', events: ['purchase'] });
    expect(await pixels()).toEqual(['meta:page_view', 'ga4:purchase']);

    await patch(meta, { active: false });
    expect(await pixels()).toEqual(['ga4:purchase']);
    await patch(meta, { active: true, events: ['page_view', 'purchase'] });
    expect(await pixels()).toEqual(['meta:page_view+purchase', 'ga4:purchase']);

    expect((await call('DELETE', `/api/merchant/pixels/${ga4}`, { token: m.token })).status).toBe(200);
    expect(await pixels()).toEqual(['meta:page_view+purchase']);
  });
});

describe('the session bundle\'s answer', () => {
  it('given a session with every part filled / it is exactly the documented shape: nothing undocumented, nothing missing', async () => {
    const token = await session();
    await setRates([{ name: 'Standard', basePriceCents: 500, countries: ['us', 'CA'], deliveryDays: { min: 2, max: 4 } }, { name: 'Free over 50', basePriceCents: 800, freeThresholdCents: 5000 }]);
    await db().merchant.update({ where: { id: m.id }, data: { storeCountries: ['DE', 'US'], storeCountriesReadAt: new Date() } });
    expect((await call('POST', '/api/merchant/pixels', { token: m.token, body: { platform: 'meta', trackingId: '123456789012345', events: ['page_view', 'purchase'] } })).status).toBe(201);
    await db().merchant.update({ where: { id: m.id }, data: { logoUrl: 'https://cdn.example/logo.svg', primaryColor: '#112233', checkoutTexts: { headline: 'Almost yours' }, codEnabled: true } });
    await db().merchant.update({ where: { id: m.id }, data: { storePolicies: [{ kind: 'refund', title: 'Refund policy', url: 'https://shop.example/policies/refund-policy' }], storePoliciesReadAt: new Date() } });
    const address = { name: 'Ada Shopper', line1: 'Main St 1', line2: 'Apt 2', city: 'Springfield', postalCode: '12345', country: 'US', region: 'IL', phone: '+1 217 555 0100' };
    const billing = { name: 'Ada Billing', line1: 'Ring 1', city: 'Berlin', postalCode: '10115', country: 'DE' };
    await db().checkoutSession.update({
      where: { token },
      // Stored JSON may carry more than the answer shows (a line's internal fields, a bump's price): never sent.
      data: {
        email: 'ada@shopper.test', shippingAddress: { ...address, internalNote: 'x' }, billingAddress: { ...billing, internalNote: 'y' }, discountCode: 'TENOFF', discountMinor: 600,
        items: ITEMS.map((line) => ({ ...line, storeSku: 'internal' })) as Prisma.InputJsonValue,
        orderBumps: [{ bumpId: 'b1', productId: '31', variantId: null, title: 'Gift wrap', variantTitle: null, quantity: 1, unitPrice: 660 }] as Prisma.InputJsonValue,
      },
    });

    await db().storefrontBConnection.create({
      data: { merchantId: m.id, storeUrl: `https://bundle-${shops}.shop.example/store`, consumerKeyEnc: 'sealed', consumerKeyLast4: 'abcd', consumerSecretEnc: 'sealed', connectedAt: new Date() },
    });

    const res = await call('GET', `/api/checkout/session-bundle/${token}`);

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual(sessionBundleResponse.parse(res.body));
    expect(res.body).toEqual({
      token,
      status: 'OPEN',
      currency: 'USD',
      preview: false,
      cart: { items: ITEMS, subtotal: { amount: 6000, currency: 'USD' } },
      shopName: `Bundle Shop ${shops}`,
      shopUrl: `https://bundle-${shops}.shop.example/store`,
      branding: { logoUrl: 'https://cdn.example/logo.svg', primaryColor: '#112233', accentColor: null },
      checkoutTexts: { headline: 'Almost yours' },
      codEnabled: true,
      // Recovery off (the default): no consent box.
      recoveryOptIn: null,
      storeCountries: ['DE', 'US'],
      shipping: [
        { id: expect.any(String), name: 'Free over 50', price: { amount: 0, currency: 'USD' }, free: true, reason: 'threshold', countries: null, deliveryDays: null },
        { id: expect.any(String), name: 'Standard', price: { amount: 550, currency: 'USD' }, free: false, countries: ['CA', 'US'], deliveryDays: { min: 2, max: 4 } },
      ],
      pixels: [{ platform: 'meta', trackingId: '123456789012345', events: ['page_view', 'purchase'] }],
      storePolicies: [{ kind: 'refund', title: 'Refund policy', url: 'https://shop.example/policies/refund-policy' }],
      shopper: { email: 'ada@shopper.test', address, billingAddress: billing, shippingRateId: null, discountCode: 'TENOFF', discountMinor: 600, orderBumpIds: ['b1'] },
    });
  });

  it('given a storefront A shop / the way back is its primary domain (the first origin the install recorded), else its shop host; no store: null', async () => {
    const token = await session();
    expect((await bundle(token)).shopUrl).toBeNull();
    const host = `bundle-${shops}.myshopify.com`;
    await db().checkoutSession.update({ where: { token }, data: { platform: 'STOREFRONT_A' } });
    await db().storefrontAConnection.create({ data: { merchantId: m.id, shop: host, clientId: 'client', clientSecretEnc: 'sealed', connected: true, shopOrigins: [] } });
    expect((await bundle(token)).shopUrl).toBe(`https://${host}`);
    await db().storefrontAConnection.update({ where: { merchantId: m.id }, data: { shopOrigins: [`https://www.bundle-${shops}.example`, `https://${host}`] } });
    expect((await bundle(token)).shopUrl).toBe(`https://www.bundle-${shops}.example`);
  });
});

describe('the session bundle\'s store policies', () => {
  it('given policies never read / none; once the store\'s are kept / each with its title and page, in the kept order, on every status', async () => {
    const token = await session();
    expect((await bundle(token)).storePolicies).toEqual([]);

    const policies = [
      { kind: 'refund', title: 'Refund policy', url: 'https://www.shop.example/policies/refund-policy' },
      { kind: 'privacy', title: 'Datenschutzerklärung', url: 'https://www.shop.example/policies/privacy-policy' },
    ];
    await db().merchant.update({ where: { id: m.id }, data: { storePolicies: policies, storePoliciesReadAt: new Date() } });
    expect((await bundle(token)).storePolicies).toEqual(policies);

    // The success page shows them too: the bundle of a completed session carries them.
    await db().checkoutSession.update({ where: { token }, data: { status: 'COMPLETED' } });
    expect((await bundle(token)).storePolicies).toEqual(policies);
    // Another merchant's session shows its own (none).
    expect((await bundle(await session())).storePolicies).toEqual([]);
  });
});

describe('the session bundle\'s shipping zones', () => {
  const served = (b: Json) => ({ store: b.storeCountries, ...Object.fromEntries((b.shipping as Json[]).map((q) => [q.name, q.countries])) });

  it('given rates with their own countries and a rate following the store / each lists where it ships, the store\'s countries once read', async () => {
    const token = await session();
    await setRates([{ name: 'DHL', basePriceCents: 490, countries: ['DE', 'AT'] }, { name: 'World', basePriceCents: 2990 }]);

    // A rate following the store says null; the store's countries are said once. Never read: every country (null), as before zones.
    expect(served(await bundle(token))).toEqual({ store: null, DHL: ['AT', 'DE'], World: null });

    await db().merchant.update({ where: { id: m.id }, data: { storeCountries: ['DE', 'FR'], storeCountriesReadAt: new Date() } });
    expect(served(await bundle(token))).toEqual({ store: ['DE', 'FR'], DHL: ['AT', 'DE'], World: null });

    // A store that ships everywhere is every country again; one that ships nowhere, none.
    await db().merchant.update({ where: { id: m.id }, data: { storeCountries: [...COUNTRY_CODES] } });
    expect((await bundle(token)).storeCountries).toBeNull();
    await db().merchant.update({ where: { id: m.id }, data: { storeCountries: [] } });
    expect((await bundle(token)).storeCountries).toEqual([]);
  });
});

describe('the session bundle\'s cash on delivery follows the plan in force', () => {
  it('given COD switched on / Growth offers it; after a downgrade to Starter it is not offered, and back on Growth it is again', async () => {
    const token = await session();
    expect((await call('PATCH', '/api/merchant/config', { token: m.token, body: { codEnabled: true } })).status).toBe(200);
    expect((await bundle(token)).codEnabled).toBe(true);

    // As the subscription workflow leaves a plan change: the row says Starter, the merchant's setting is untouched.
    await givePaidPlan(db(), m.id, 'STARTER');
    expect((await bundle(token)).codEnabled).toBe(false);
    expect((await db().merchant.findUniqueOrThrow({ where: { id: m.id } })).codEnabled).toBe(true);

    await givePaidPlan(db(), m.id, 'GROWTH');
    expect((await bundle(token)).codEnabled).toBe(true);
  });

  it('given Demo with COD set up / a live session does not offer it, a preview shows it', async () => {
    const token = await session();
    await db().merchant.update({ where: { id: m.id }, data: { codEnabled: true } });
    await db().platformSubscription.update({ where: { merchantId: m.id }, data: { planId: 'FREE', status: 'DEMO' } });
    const preview = await session({ sameShop: true, preview: true });

    expect((await bundle(token)).codEnabled).toBe(false);
    expect((await bundle(preview)).codEnabled).toBe(true);
  });
});
