// The checkout's side of the commercial extras, on a JPY session (no minor units, rate 162.5): order bumps,
// upsells and pixels served in the session's currency, validate-discount's totals and its one error code per
// reason (nothing stored), its dedicated rate limit, and the discount's uses at payment start and completion
// (the session activities the workflow calls: reserved under a lock, counted once).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Prisma } from '../../../prisma/client.js';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { createTestMerchant, type TestMerchant } from '../../../test/harness/merchants.js';
import { createCheckoutSessionActivities } from '../../../activities/checkout/checkout-session.js';
import { PREVIEW_TOKEN_PREFIX } from '../../../domain/tokens.js';
import { newSessionToken } from '../../cart-sources.js';

let stack: TestStack;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
let m: TestMerchant;
let other: TestMerchant;
let standardRateId: string;
let bumpId: string;
let n = 0;

const db = () => stack.database.db;
const FX = { date: '2026-11-20', rates: { JPY: '162.5', SEK: '11.1235' } };
/** 2 × 2490 yen: the cart as read from the store. */
const ITEMS = [{ productId: '11', variantId: '21', title: 'Linen Tote Bag', variantTitle: null, quantity: 2, unitPrice: 2490, imageUrl: null }];
const SHOPPER = { email: 'jane@customer.test', address: { name: 'Jane Doe', line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' } };
const yen = (amount: number) => ({ amount, currency: 'JPY' });

async function call(method: 'GET' | 'POST' | 'PATCH', url: string, opts: { body?: unknown; token?: string; ip?: string } = {}) {
  const res = await stack.app.inject({
    method, url, payload: opts.body as Json | undefined, remoteAddress: opts.ip ?? `203.0.113.${(n++ % 250) + 1}`,
    headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
  });
  return { status: res.statusCode, body: res.json() as Json, headers: res.headers };
}

async function create(kind: string, body: unknown, token = m.token): Promise<Json> {
  const res = await call('POST', `/api/merchant/${kind}`, { body, token });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** A JPY session of merchant `owner` (as create would have stored it), answering its token. */
async function session(owner = m, opts: { token?: string; status?: string; paymentMethod?: string } = {}): Promise<string> {
  const token = opts.token ?? newSessionToken();
  await db().checkoutSession.create({
    data: {
      token, merchantId: owner.id, platform: 'STOREFRONT_A', status: opts.status ?? 'OPEN', currency: 'JPY', fxRates: FX as Prisma.InputJsonValue,
      items: ITEMS as Prisma.InputJsonValue, subtotalMinor: 4980, paymentMethod: opts.paymentMethod ?? null,
    },
  });
  return token;
}

const validate = (token: string, body: Json, ip?: string) => call('POST', `/api/checkout/${token}/validate-discount`, { body, ip });

beforeAll(async () => {
  stack = await startTestStack({ RATE_LIMIT_DISCOUNT: '3/60' });
  m = await createTestMerchant(db(), stack.app, 'Tokyo Goods');
  other = await createTestMerchant(db(), stack.app, 'Other Goods');
  // 4.90 EUR × 162.5 = 796.25 → 796 yen, free from 50 EUR = 8125 yen; 12.90 EUR → 2096 yen.
  const config = await call('PATCH', '/api/merchant/config', { token: m.token, body: { shippingRates: [{ name: 'Standard', basePriceCents: 490, freeThresholdCents: 5000 }, { name: 'Express', basePriceCents: 1290 }] } });
  expect(config.status).toBe(200);
  standardRateId = (config.body.shippingRates as Json[]).find((r) => r.name === 'Standard')!.id;
  // 6.00 EUR → 975 yen.
  bumpId = (await create('order-bumps', { productId: '31', variantId: '41', title: 'Gift wrap', priceCents: 600, compareAtCents: 1000, position: 1 })).id;
  await create('order-bumps', { productId: '32', title: 'Hidden socks', priceCents: 900, active: false });
  await create('order-bumps', { productId: '33', title: 'Other shop bump', priceCents: 100 }, other.token);
  await create('discounts', { code: 'TENOFF', type: 'percentage', percentOff: 10 });
  await create('discounts', { code: 'FIVER', type: 'fixed_amount', amountOffCents: 500 });
});
afterAll(async () => {
  await stack?.close();
});

describe('what the checkout page is served', () => {
  it('given active and paused bumps / order-bumps answers the active ones of this merchant, priced in yen', async () => {
    const res = await call('GET', `/api/checkout/${await session()}/order-bumps`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      items: [{ id: bumpId, productId: '31', variantId: '41', title: 'Gift wrap', description: null, imageUrl: null, price: yen(975), compareAtPrice: yen(1625) }],
    });
    expect((await call('GET', `/api/checkout/cs_${'x'.repeat(32)}/order-bumps`))).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
  });

  it('given an upsell at 20 % off / upsells answers its price and offer price in yen', async () => {
    await create('upsells', { placement: 'post_purchase', headline: 'Add a mug', productId: '51', title: 'Ceramic Mug', priceCents: 1800, discountPercent: 20 });
    const res = await call('GET', `/api/checkout/${await session()}/upsells`);
    // 18.00 EUR × 162.5 = 2925 yen; 20 % off = 2340 yen.
    expect(res.body.items).toEqual([
      expect.objectContaining({ placement: 'post_purchase', headline: 'Add a mug', productId: '51', price: yen(2925), discountPercent: 20, offerPrice: yen(2340) }),
    ]);
    expect(res.body.oneClick).toBe(false);
  });

  it('given a checkout completed by card on the processor\'s hosted page / upsells says no one-click add (Whop keeps no card paid there), so the page shows no post-purchase offer', async () => {
    const res = await call('GET', `/api/checkout/${await session(m, { status: 'COMPLETED', paymentMethod: 'card' })}/upsells`);
    // The merchant's offers are still listed (the page may show pre_confirm ones), none promised with one click.
    expect(res.body.items.length).toBeGreaterThan(0);
    expect(res.body.oneClick).toBe(false);
  });

  it('given pixels / pixels and the session bundle answer the active ones, the session token as purchase event id; a preview gets none', async () => {
    await create('pixels', { platform: 'meta', trackingId: '123456789012345', events: ['page_view', 'purchase'] });
    await create('pixels', { platform: 'tiktok', trackingId: 'C4ABCDEF1234567890GH', events: ['purchase'], active: false });
    const token = await session();
    const expected = [{ platform: 'meta', trackingId: '123456789012345', events: ['page_view', 'purchase'] }];
    expect((await call('GET', `/api/checkout/${token}/pixels`)).body).toEqual({ items: expected, purchaseEventId: token });
    expect((await call('GET', `/api/checkout/session-bundle/${token}`)).body.pixels).toEqual(expected);

    const preview = await session(m, { token: `${PREVIEW_TOKEN_PREFIX}${'p'.repeat(32)}` });
    expect((await call('GET', `/api/checkout/${preview}/pixels`)).body).toEqual({ items: [], purchaseEventId: preview });
    expect((await call('GET', `/api/checkout/session-bundle/${preview}`)).body.pixels).toEqual([]);
  });
});

describe('validate-discount', () => {
  it('given a percentage code typed in lower case, a bump and a rate / the new totals in yen; nothing is stored', async () => {
    const token = await session();
    // Merchandise 4980 + 975 = 5955; 10 % = 595.5 → 596; Standard 796 (under the 8125 threshold).
    const res = await validate(token, { code: ' tenoff ', shippingRateId: standardRateId, orderBumpIds: [bumpId] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ code: 'TENOFF', type: 'percentage', subtotal: yen(5955), discount: yen(596), shipping: yen(796), total: yen(6155) });

    // A fixed 5.00 EUR = 812.5 → 813 yen; no rate given: no shipping in the total.
    expect((await validate(token, { code: 'FIVER' })).body).toEqual({ code: 'FIVER', type: 'fixed_amount', subtotal: yen(4980), discount: yen(813), shipping: null, total: yen(4167) });

    const row = await db().checkoutSession.findUniqueOrThrow({ where: { token } });
    expect(row).toMatchObject({ discountCode: null, discountMinor: 0, totalMinor: null, orderBumps: [] });
    expect(await db().discountRedemption.count({ where: { sessionToken: token } })).toBe(0);
  });

  it('given each reason a code does not apply / one error code per reason, 422', async () => {
    await create('discounts', { code: 'PAUSED', type: 'percentage', percentOff: 5, active: false });
    await create('discounts', { code: 'OLD', type: 'percentage', percentOff: 5, expiresAt: '2020-01-01T00:00:00Z' });
    const once = await create('discounts', { code: 'ONEUSE', type: 'percentage', percentOff: 5, usageLimit: 1 });
    await create('discounts', { code: 'BIGSPEND', type: 'fixed_amount', amountOffCents: 1000, minimumSubtotalCents: 10_000 });
    const perEmail = await create('discounts', { code: 'HELLO', type: 'percentage', percentOff: 5, oncePerEmail: true });
    // Given the one-use code used by a completed checkout, and the once-per-email code by jane.
    for (const [discountId, email] of [[once.id, 'joe@customer.test'], [perEmail.id, SHOPPER.email]]) {
      await db().discountRedemption.create({ data: { discountId, sessionToken: await session(m, { status: 'COMPLETED' }), email, amountMinor: 100, currency: 'JPY', redeemedAt: new Date() } });
    }
    const token = await session();
    const cases: Array<[Json, string]> = [
      [{ code: 'NOSUCHCODE' }, 'DISCOUNT_UNKNOWN'],
      [{ code: 'PAUSED' }, 'DISCOUNT_UNKNOWN'],
      [{ code: 'OLD' }, 'DISCOUNT_EXPIRED'],
      [{ code: 'ONEUSE' }, 'DISCOUNT_USED_UP'],
      [{ code: 'BIGSPEND' }, 'DISCOUNT_MINIMUM_NOT_MET'],
      [{ code: 'HELLO', email: 'Jane@Customer.test' }, 'DISCOUNT_ALREADY_USED'],
    ];
    for (const [body, code] of cases) {
      const res = await validate(token, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.code, JSON.stringify(body)).toBe(code);
      expect(res.body.error).toMatch(/discount code|minimum/);
    }
    // The minimum is told in the checkout's currency: 100 EUR = 16250 yen.
    expect((await validate(token, { code: 'BIGSPEND' })).body.details).toEqual({ reason: 'minimum_not_met', minimumSubtotal: yen(16_250) });
    // Another shop's code does not exist here; another email may still use HELLO.
    await create('discounts', { code: 'OTHERS', type: 'percentage', percentOff: 50 }, other.token);
    expect((await validate(token, { code: 'OTHERS' })).body.code).toBe('DISCOUNT_UNKNOWN');
    expect((await validate(token, { code: 'HELLO', email: 'joe@customer.test' })).status).toBe(200);
  });

  it('given bad input or a settled session / a clear error and nothing else', async () => {
    const token = await session();
    expect(await validate(token, {})).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT', details: { fields: { 'body.code': expect.any(String) } } } });
    expect(await validate(token, { code: 'TENOFF', orderBumpIds: ['not-a-uuid'] })).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    // A bump of another merchant, or a rate that is not this checkout's, is refused by name.
    const othersBump = (await db().orderBump.findFirstOrThrow({ where: { merchantId: other.id } })).id;
    expect(await validate(token, { code: 'TENOFF', orderBumpIds: [othersBump] })).toMatchObject({ status: 400, body: { details: { fields: { 'body.orderBumpIds': expect.stringContaining(othersBump) } } } });
    expect(await validate(token, { code: 'TENOFF', shippingRateId: 'rate_0' })).toMatchObject({ status: 400, body: { details: { fields: { 'body.shippingRateId': expect.any(String) } } } });
    expect(await validate(await session(m, { status: 'COMPLETED' }), { code: 'TENOFF' })).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
    expect(await validate(`cs_${'y'.repeat(32)}`, { code: 'TENOFF' })).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
  });

  it('given more checks from one address than its limit / 429 RATE_LIMITED with Retry-After; another address is not affected', async () => {
    const token = await session();
    const ip = '192.0.2.200';
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await validate(token, { code: `GUESS${i}` }, ip));
    expect(answers.map((a) => a.status)).toEqual([422, 422, 422, 429]);
    expect(answers[3]!.body.code).toBe('RATE_LIMITED');
    expect(Number(answers[3]!.headers['retry-after'])).toBeGreaterThan(0);
    expect((await validate(token, { code: 'TENOFF' }, '192.0.2.201')).status).toBe(200);
  });
});

describe('a discount at payment start and at completion', () => {
  const activities = () => createCheckoutSessionActivities({ db: db() });
  const details = (extra: Json = {}) => ({ ...SHOPPER, shippingRateId: standardRateId, ...extra });
  const timesUsed = async (id: string) => (await call('GET', `/api/merchant/discounts/${id}`, { token: m.token })).body.timesUsed as number;

  it('given a code and a bump / the session stores the bump line, the discount and one total; the bundle shows them', async () => {
    const token = await session();
    const quote = await activities().recordShopperDetails(token, details({ discountCode: 'tenoff', orderBumpIds: [bumpId] }));
    expect(quote).toEqual({ currency: 'JPY', subtotalMinor: 5955, shippingMinor: 796, discountMinor: 596, totalMinor: 6155 });
    const row = await db().checkoutSession.findUniqueOrThrow({ where: { token } });
    expect(row).toMatchObject({ subtotalMinor: 4980, discountCode: 'TENOFF', discountMinor: 596, shippingMinor: 796, totalMinor: 6155 });
    expect(row.orderBumps).toEqual([{ bumpId, productId: '31', variantId: '41', title: 'Gift wrap', variantTitle: null, quantity: 1, unitPrice: 975, imageUrl: null }]);
    expect((await call('GET', `/api/checkout/session-bundle/${token}`)).body.shopper).toMatchObject({ discountCode: 'TENOFF', orderBumpIds: [bumpId] });

    // Entered again without the code (after a failed payment, say): the discount and its reservation are gone.
    const again = await activities().recordShopperDetails(token, details());
    expect(again).toMatchObject({ discountMinor: 0, totalMinor: 4980 + 796 });
    expect(await db().discountRedemption.count({ where: { sessionToken: token } })).toBe(0);
  });

  it('given a code with one use left and two shoppers paying at once / exactly one gets it; an abandoned checkout frees it; completion counts once', async () => {
    const last = await create('discounts', { code: 'LASTONE', type: 'fixed_amount', amountOffCents: 200, usageLimit: 1 });
    const [first, second] = [await session(), await session()];
    const results = await Promise.allSettled([first, second].map((t) => activities().recordShopperDetails(t, details({ discountCode: 'LASTONE' }))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!;
    expect(refused.reason).toMatchObject({ type: 'DISCOUNT_USED_UP', nonRetryable: true });
    const [winner, loser] = results[0]!.status === 'fulfilled' ? [first, second] : [second, first];
    expect((await db().checkoutSession.findUniqueOrThrow({ where: { token: loser } })).totalMinor).toBeNull();
    expect(await timesUsed(last.id)).toBe(0); // held, not used

    // The winner gives up: its hold ends, the other shopper may now pay with the code.
    await activities().recordSessionStatus(winner, 'ABANDONED', 'test');
    await expect(activities().recordShopperDetails(loser, details({ discountCode: 'LASTONE' }))).resolves.toMatchObject({ discountMinor: 325 });

    // Completed, and the status written again (a retried activity): counted once.
    await activities().recordSessionStatus(loser, 'PAYMENT_PENDING', 'test');
    await activities().recordSessionStatus(loser, 'COMPLETED', 'test');
    await activities().recordSessionStatus(loser, 'COMPLETED', 'test');
    expect(await timesUsed(last.id)).toBe(1);
    // One redemption; the abandoned checkout's hold stays behind, never counted.
    const rows = await db().discountRedemption.findMany({ where: { discountId: last.id } });
    expect(rows.filter((r) => r.redeemedAt)).toEqual([expect.objectContaining({ sessionToken: loser, email: SHOPPER.email, amountMinor: 325, currency: 'JPY' })]);
    expect(rows.filter((r) => !r.redeemedAt).map((r) => r.sessionToken)).toEqual([winner]);
    // Used up for everyone else now.
    expect((await validate(await session(), { code: 'LASTONE' })).body.code).toBe('DISCOUNT_USED_UP');
  });

  it('given a once-per-email code completed by jane / jane cannot start another payment with it, joe can', async () => {
    const once = await create('discounts', { code: 'FIRSTORDER', type: 'percentage', percentOff: 15, oncePerEmail: true });
    const paid = await session();
    await activities().recordShopperDetails(paid, details({ discountCode: 'FIRSTORDER' }));
    await activities().recordSessionStatus(paid, 'COD_CONFIRMED', 'test');
    expect(await timesUsed(once.id)).toBe(1);

    const next = await session();
    await expect(activities().recordShopperDetails(next, details({ discountCode: 'FIRSTORDER' }))).rejects.toMatchObject({ type: 'DISCOUNT_ALREADY_USED' });
    await expect(activities().recordShopperDetails(next, { ...details({ discountCode: 'FIRSTORDER' }), email: 'joe@customer.test' })).resolves.toMatchObject({ discountMinor: 747 });
  });
});
