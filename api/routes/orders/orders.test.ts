// The merchant's orders: the list (cursor pagination, filters, page-size cap, scoping) over a few hundred
// seeded sessions — with partial and full refunds and held payments, whose items say so (refundedMinor, hold) —
// and one real card checkout through HTTP whose order detail must show the whole timeline:
// progress reports, details, payment, every webhook delivery with its verification, the store order and the
// emails; the same checkout in the statistics, and a preview in neither.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { createTestMerchant, type TestMerchant } from '../../../test/harness/merchants.js';
import { seedCheckoutSessions } from '../../../scripts/lib/stack/stats-seed.js';
import { DEMO_STORE } from '../../../sandbox/storefront-b/state.js';
import { PROCESSOR_WEBHOOK_PATH } from '../../../model/connections.js';
import { signSpecWebhook, SPEC_SIGNATURE_HEADER as SIGNATURE_HEADER } from '../../../integrations/processor/webhook.js';
import { createSecretBox } from '../../../security/secrets.js';
import { processorAad } from '../../../model/connections.js';
import type { CheckoutSession } from '../../../generated/prisma/client.js';
import { api, expectCompletedWithOneOrderAndTwoEmails, merchantWithProcessor, shopperPays, storefrontBCheckout, type Json } from '../../../test/e2e/checkout-helpers.js';

let stack: TestStack;
let a: TestMerchant;
let b: TestMerchant;
let rowsA: CheckoutSession[];
let tokensB: string[];

const START = new Date('2026-09-01T00:00:00.000Z');
const MINUTE = 60_000;

const isOrder = (r: CheckoutSession) => r.source !== 'preview' && (r.paymentStartedAt !== null || ['COMPLETED', 'REFUNDED', 'COD_CONFIRMED', 'ON_HOLD'].includes(r.status));
/** Newest first, ties by token descending (byte order, as the database's C collation and JS compare ASCII alike). */
const newestFirst = (x: CheckoutSession, y: CheckoutSession) => y.createdAt.getTime() - x.createdAt.getTime() || (y.token < x.token ? -1 : y.token > x.token ? 1 : 0);
const expectedOrders = (filter: (r: CheckoutSession) => boolean = () => true) => rowsA.filter((r) => isOrder(r) && filter(r)).sort(newestFirst).map((r) => r.token);

async function list(qs: string, token = a.token) {
  const res = await stack.app.inject({ method: 'GET', url: `/api/checkout/merchant/orders${qs ? `?${qs}` : ''}`, headers: { authorization: `Bearer ${token}` } });
  return { status: res.statusCode, body: res.json() as Json };
}

/** Every page of a listing, following nextCursor. */
async function walk(qs: string, pageSize: number): Promise<{ tokens: string[]; pages: number }> {
  const tokens: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await list([qs, `limit=${pageSize}`, cursor ? `cursor=${encodeURIComponent(cursor)}` : ''].filter(Boolean).join('&'));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.items.length).toBeLessThanOrEqual(pageSize);
    tokens.push(...res.body.items.map((i: Json) => i.token as string));
    cursor = res.body.nextCursor;
    pages++;
    expect(pages).toBeLessThan(100);
  } while (cursor);
  return { tokens, pages };
}

beforeAll(async () => {
  stack = await startTestStack();
  a = await createTestMerchant(stack.database.db, stack.app, 'Orders A');
  b = await createTestMerchant(stack.database.db, stack.app, 'Orders B');
  // Three sessions per instant, so pages end inside a tie on created_at.
  await seedCheckoutSessions(stack.database.db, { merchantId: a.id, count: 330, seed: 'orders-a', start: START, stepMs: 10 * MINUTE, sameInstant: 3 });
  await seedCheckoutSessions(stack.database.db, { merchantId: b.id, count: 60, seed: 'orders-b', start: START, stepMs: 10 * MINUTE });
  // One paid session the store refused.
  const refused = (await stack.database.db.checkoutSession.findFirstOrThrow({ where: { merchantId: a.id, status: 'COMPLETED', source: 'store_cart' } })).token;
  await stack.database.db.checkoutSession.update({ where: { token: refused }, data: { storeOrderError: 'storefront B refused the order (HTTP 400): product 101 is out of stock.' } });
  // Shoppers who entered their details have a name on the address; paid orders on the store have its number.
  await stack.database.db.$executeRaw`
    UPDATE checkout_sessions SET shipping_address = jsonb_build_object('name', 'Shopper ' || upper(substr(token, 4, 6)), 'line1', 'Ring 1', 'city', 'Berlin', 'postalCode', '10115', 'country', 'DE')
    WHERE merchant_id = ${a.id}::uuid AND shipping_rate_id IS NOT NULL`;
  await stack.database.db.$executeRaw`
    UPDATE checkout_sessions s SET store_order_id = (6100000000000 + n.i)::text, store_order_number = '#' || (1000 + n.i)
    FROM (SELECT token, row_number() OVER (ORDER BY created_at, token) AS i FROM checkout_sessions
          WHERE merchant_id = ${a.id}::uuid AND status IN ('COMPLETED', 'REFUNDED', 'COD_CONFIRMED') AND store_order_error IS NULL) n
    WHERE s.token = n.token`;
  rowsA = await stack.database.db.checkoutSession.findMany({ where: { merchantId: a.id } });
  tokensB = (await stack.database.db.checkoutSession.findMany({ where: { merchantId: b.id }, select: { token: true } })).map((r) => r.token);
});
afterAll(async () => {
  await stack?.close();
});

describe('the orders list', () => {
  it('given more orders than a page / the pages, followed by cursor, give every order once, newest first', async () => {
    const expected = expectedOrders();
    expect(expected.length).toBeGreaterThan(120);
    const { tokens, pages } = await walk('', 25);
    expect(tokens).toEqual(expected);
    expect(pages).toBe(Math.ceil(expected.length / 25));
  });

  it('given no limit / 25 items; a limit over 100 / capped at 100; a limit that is not a positive whole number / 400', async () => {
    expect((await list('')).body.items).toHaveLength(25);
    const capped = await list('limit=500');
    expect(capped.status).toBe(200);
    expect(capped.body.items).toHaveLength(100);
    expect(capped.body.items.map((i: Json) => i.token)).toEqual(expectedOrders().slice(0, 100));
    for (const bad of ['limit=0', 'limit=-3', 'limit=abc', 'limit=2.5']) {
      const res = await list(bad);
      expect(res.status, bad).toBe(400);
      expect(res.body.code).toBe('INVALID_INPUT');
    }
  });

  it('given a list item / it carries the order fields, the store refusal flag and COD collection', async () => {
    const refused = rowsA.find((r) => r.storeOrderError)!;
    const page = await list(`q=${refused.token.slice(0, 12)}`);
    expect(page.body.items).toHaveLength(1);
    expect(page.body.items[0]).toEqual({
      token: refused.token,
      status: 'COMPLETED',
      email: refused.email,
      customerName: `Shopper ${refused.token.slice(3, 9).toUpperCase()}`,
      totals: { currency: refused.currency, subtotalMinor: refused.subtotalMinor, shippingMinor: 490, discountMinor: 0, totalMinor: refused.totalMinor },
      paymentMethod: 'card',
      storeOrderId: null,
      storeOrderError: true,
      storeOrder: { state: 'failed', id: null, number: null, error: 'storefront B refused the order (HTTP 400): product 101 is out of stock.' },
      codPaid: false,
      refundedMinor: refused.refundedMinor,
      hold: null,
      createdAt: refused.createdAt.toISOString(),
      paymentStartedAt: refused.paymentStartedAt!.toISOString(),
      completedAt: refused.completedAt!.toISOString(),
    });
    const collected = rowsA.find((r) => r.status === 'COD_CONFIRMED' && r.codPaidAt)!;
    const cod = await list(`q=${collected.token}`);
    expect(cod.body.items[0]).toMatchObject({ status: 'COD_CONFIRMED', paymentMethod: 'cod', codPaid: true, completedAt: null, storeOrderError: false });
  });

  it('given orders refunded in part, in full, and payments on hold, in several currencies / each item says what came back and why a payment is held', async () => {
    const storeRows = rowsA.filter(isOrder);
    const partial = storeRows.filter((r) => r.status === 'COMPLETED' && r.refundedMinor > 0);
    const full = storeRows.filter((r) => r.status === 'REFUNDED');
    const held = storeRows.filter((r) => r.status === 'ON_HOLD');
    for (const list of [partial, full, held]) expect(new Set(list.map((r) => r.currency)).size).toBeGreaterThanOrEqual(2);
    const items = new Map<string, Json>();
    let cursor: string | null = null;
    do {
      const res = await list(['view=orders', 'limit=100', cursor ? `cursor=${encodeURIComponent(cursor)}` : ''].filter(Boolean).join('&'));
      for (const item of res.body.items as Json[]) items.set(item.token as string, item);
      cursor = res.body.nextCursor;
    } while (cursor);
    expect([...items.keys()]).toEqual(expectedOrders((r) => ['COMPLETED', 'REFUNDED', 'COD_CONFIRMED', 'ON_HOLD'].includes(r.status)));
    for (const row of partial) {
      // Still COMPLETED (paid: the rest is kept), with what came back: the dashboard says "Partially refunded".
      expect(items.get(row.token), row.token).toMatchObject({ status: 'COMPLETED', refundedMinor: row.refundedMinor, hold: null, totals: { currency: row.currency, totalMinor: row.totalMinor } });
      expect(row.refundedMinor).toBeLessThan(row.totalMinor!);
    }
    for (const row of full) expect(items.get(row.token), row.token).toMatchObject({ status: 'REFUNDED', refundedMinor: row.totalMinor, hold: null });
    for (const row of held) {
      expect(items.get(row.token), row.token).toMatchObject({ status: 'ON_HOLD', refundedMinor: row.refundedMinor, hold: { reason: row.holdReason, message: row.holdMessage }, storeOrder: null });
    }
    // A paid order without refunds says 0, and no hold.
    const plain = storeRows.find((r) => r.status === 'COMPLETED' && r.refundedMinor === 0)!;
    expect(items.get(plain.token)).toMatchObject({ refundedMinor: 0, hold: null });
    // The dashboard's "On hold" link: the held payments only, every one of them, newest first.
    expect((await walk('status=ON_HOLD', 10)).tokens).toEqual(expectedOrders((r) => r.status === 'ON_HOLD'));
    // The other merchant's held payments and refunds are theirs only.
    const ofB = await list('status=ON_HOLD&limit=100', b.token);
    expect(ofB.body.items.length).toBeGreaterThan(0);
    expect(ofB.body.items.every((i: Json) => tokensB.includes(i.token) && i.hold !== null)).toBe(true);
    expect((await list('status=ON_HOLD&limit=100')).body.items.some((i: Json) => tokensB.includes(i.token))).toBe(false);
    // The detail says the same.
    const one = await stack.app.inject({ method: 'GET', url: `/api/checkout/merchant/orders/${held[0]!.token}`, headers: { authorization: `Bearer ${a.token}` } });
    expect(one.json()).toMatchObject({ status: 'ON_HOLD', refundedMinor: held[0]!.refundedMinor, hold: { reason: held[0]!.holdReason, message: held[0]!.holdMessage } });
  });

  it('given the two views / paid orders and unpaid checkouts are apart, together the whole list; a status outside the view matches nothing', async () => {
    const paid = expectedOrders((r) => ['COMPLETED', 'REFUNDED', 'COD_CONFIRMED', 'ON_HOLD'].includes(r.status));
    const unpaid = expectedOrders((r) => ['PAYMENT_PENDING', 'FAILED', 'ABANDONED'].includes(r.status));
    expect(paid.length).toBeGreaterThan(20);
    expect(unpaid.length).toBeGreaterThan(5);
    expect((await walk('view=orders', 40)).tokens).toEqual(paid);
    expect((await walk('view=checkouts', 40)).tokens).toEqual(unpaid);
    expect([...paid, ...unpaid].sort()).toEqual(expectedOrders().sort());
    expect((await walk('view=orders&status=REFUNDED', 40)).tokens).toEqual(expectedOrders((r) => r.status === 'REFUNDED'));
    expect((await list('view=orders&status=FAILED')).body.items).toEqual([]);
    const bad = await list('view=unpaid');
    expect([bad.status, bad.body.code]).toEqual([400, 'INVALID_INPUT']);
  });

  it('given paid orders with their store numbers / each item says its number and its customer\'s name; an unpaid checkout has neither number nor store order', async () => {
    const page = await list('view=orders&limit=100');
    for (const item of page.body.items as Json[]) {
      const row = rowsA.find((r) => r.token === item.token)!;
      expect(item.customerName).toBe(`Shopper ${row.token.slice(3, 9).toUpperCase()}`);
      // A held payment has no store order: paid, but held before its order.
      if (row.status === 'ON_HOLD') expect([item.storeOrder, item.storeOrderId]).toEqual([null, null]);
      else if (!row.storeOrderError) expect(item.storeOrder).toEqual({ state: 'created', id: row.storeOrderId, number: row.storeOrderNumber, error: null });
    }
    const unpaid = await list('view=checkouts&limit=100');
    for (const item of unpaid.body.items as Json[]) expect([item.storeOrder, item.storeOrderId]).toEqual([null, null]);
  });

  it('given a search by order number / with or without "#", and by its start', async () => {
    const one = rowsA.find((r) => r.storeOrderNumber === '#1012')!;
    for (const q of ['#1012', '1012']) expect((await list(`q=${encodeURIComponent(q)}`)).body.items.map((i: Json) => i.token), q).toEqual([one.token]);
    const starting = expectedOrders((r) => r.storeOrderNumber?.startsWith('#101') ?? false);
    expect(starting).toHaveLength(10);
    expect((await walk(`q=${encodeURIComponent('#101')}`, 100)).tokens).toEqual(starting);
  });

  it('given status filters / one status, several (comma or repeated), each paginated', async () => {
    const paid = expectedOrders((r) => r.status === 'COMPLETED' || r.status === 'REFUNDED');
    expect((await walk('status=COMPLETED,REFUNDED', 20)).tokens).toEqual(paid);
    expect((await walk('status=COMPLETED&status=refunded', 20)).tokens).toEqual(paid);
    expect((await walk('status=FAILED', 10)).tokens).toEqual(expectedOrders((r) => r.status === 'FAILED'));
    // Sessions that never reached payment are not orders, whatever the filter says.
    expect((await list('status=OPEN')).body.items).toEqual([]);
    const bad = await list('status=COMPLETED,SHIPPED');
    expect([bad.status, bad.body.code]).toEqual([400, 'INVALID_INPUT']);
    expect(bad.body.error).toContain('SHIPPED');
  });

  it('given a date range / orders created in [from, to) only', async () => {
    const from = new Date(START.getTime() + 200 * MINUTE);
    const to = new Date(START.getTime() + 500 * MINUTE);
    const qs = `from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(to.toISOString())}`;
    const { tokens } = await walk(qs, 7);
    expect(tokens).toEqual(expectedOrders((r) => r.createdAt >= from && r.createdAt < to));
    expect(tokens.length).toBeGreaterThan(10);
    const backwards = await list(`from=${encodeURIComponent(to.toISOString())}&to=${encodeURIComponent(from.toISOString())}`);
    expect([backwards.status, backwards.body.code]).toEqual([400, 'INVALID_INPUT']);
  });

  it('given a payment method / card or COD orders only', async () => {
    expect((await walk('paymentMethod=cod', 50)).tokens).toEqual(expectedOrders((r) => r.paymentMethod === 'cod'));
    expect((await walk('paymentMethod=card&status=PAYMENT_PENDING,FAILED', 50)).tokens).toEqual(
      expectedOrders((r) => r.paymentMethod === 'card' && ['PAYMENT_PENDING', 'FAILED'].includes(r.status)),
    );
    expect((await list('paymentMethod=cash')).status).toBe(400);
  });

  it('given a search / by the start of the email (any case) or of the token; LIKE wildcards are literal', async () => {
    const byEmail = expectedOrders((r) => r.email?.startsWith('shopper12') ?? false);
    expect(byEmail.length).toBeGreaterThan(0);
    expect((await walk('q=SHOPPER12', 100)).tokens).toEqual(byEmail);
    const one = rowsA.find((r) => isOrder(r))!;
    expect((await list(`q=${one.token.slice(0, 10)}`)).body.items.map((i: Json) => i.token)).toEqual([one.token]);
    expect((await list(`q=${encodeURIComponent(one.email!)}`)).body.items.map((i: Json) => i.email)).toEqual(expect.arrayContaining([one.email]));
    for (const wild of ['%', 'c_', '_s', 'shopper%40']) expect((await list(`q=${encodeURIComponent(wild)}`)).body.items, wild).toEqual([]);
  });

  it('given another merchant\'s orders and previews / they never appear, and their detail is 404', async () => {
    const { tokens } = await walk('', 100);
    expect(tokens.some((t) => tokensB.includes(t))).toBe(false);
    expect(tokens.some((t) => t.startsWith('prev_'))).toBe(false);
    const ofB = await list('limit=100', b.token);
    expect(ofB.body.items.length).toBeGreaterThan(0);
    expect(ofB.body.items.every((i: Json) => tokensB.includes(i.token))).toBe(true);
    const foreign = await stack.database.db.checkoutSession.findFirstOrThrow({ where: { merchantId: b.id, status: 'COMPLETED', source: 'store_cart' } });
    const res = await stack.app.inject({ method: 'GET', url: `/api/checkout/merchant/orders/${foreign.token}`, headers: { authorization: `Bearer ${a.token}` } });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'No such order', code: 'NOT_FOUND' });
    const own = await stack.app.inject({ method: 'GET', url: `/api/checkout/merchant/orders/${foreign.token}`, headers: { authorization: `Bearer ${b.token}` } });
    expect(own.statusCode).toBe(200);
    // A session that never reached payment, a preview, a malformed token: the same answer.
    const open = rowsA.find((r) => r.status === 'OPEN' && r.source === 'store_cart')!;
    const preview = rowsA.find((r) => r.source === 'preview' && r.status === 'COMPLETED')!;
    for (const token of [open.token, preview.token, 'cs_nope']) {
      const r = await stack.app.inject({ method: 'GET', url: `/api/checkout/merchant/orders/${token}`, headers: { authorization: `Bearer ${a.token}` } });
      expect([r.statusCode, r.json().code], token).toEqual([404, 'NOT_FOUND']);
    }
  });

  it('given processor deliveries naming an order / only those verified for its merchant show, unverified ones to nobody, repeats as one line', async () => {
    const db = stack.database.db;
    const ofA = rowsA.find((r) => r.status === 'COMPLETED' && r.source === 'store_cart' && r.storeOrderError === null)!;
    const ofB = await db.checkoutSession.findFirstOrThrow({ where: { merchantId: b.id, status: 'COMPLETED', source: 'store_cart' } });
    const at = (s: number) => new Date(Date.parse('2026-09-02T10:00:00.000Z') + s * 1000);
    const row = (sessionToken: string, merchantId: string | null, signatureValid: boolean, s: number, more: { event?: string; rejection?: string | null; eventId?: string; applied?: boolean } = {}) => ({
      sessionToken, merchantId, signatureValid, receivedAt: at(s), event: more.event ?? 'payment.succeeded', rejection: more.rejection ?? null,
      eventId: more.eventId ?? null, signalledAt: more.applied ? at(s) : null, rawBody: '{}',
    });
    await db.processorWebhookDelivery.createMany({
      data: [
        // A's payment, verified with A's secret and applied, then two redeliveries of it.
        row(ofA.token, a.id, true, 0, { eventId: `evt_a_${ofA.token}`, applied: true }),
        row(ofA.token, a.id, true, 30, { rejection: 'duplicate' }),
        row(ofA.token, a.id, true, 90, { rejection: 'duplicate' }),
        // Twenty copies signed by other merchants on the shared account, and a forgery: verified for nobody.
        ...Array.from({ length: 20 }, (_, i) => row(ofA.token, a.id, false, 1 + i, { rejection: 'bad_signature' })),
        row(ofA.token, null, false, 40, { event: 'payment.refunded', rejection: 'bad_signature' }),
        // A delivery verified for A that names B's order: A's, never on B's order.
        row(ofB.token, a.id, true, 5, { eventId: `evt_a_names_b_${ofB.token}`, applied: true, event: 'refund.updated' }),
        // B's own delivery on B's order, and an unverified one there.
        row(ofB.token, b.id, true, 6, { eventId: `evt_b_${ofB.token}`, applied: true }),
        row(ofB.token, b.id, false, 7, { rejection: 'bad_signature' }),
      ],
    });
    const detail = async (token: string, bearer: string) => {
      const res = await stack.app.inject({ method: 'GET', url: `/api/checkout/merchant/orders/${token}`, headers: { authorization: `Bearer ${bearer}` } });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as Json).timeline.filter((e: Json) => e.source === 'webhook') as Json[];
    };

    const onA = await detail(ofA.token, a.token);
    expect(onA.map((e) => [e.type, e.data.rejection, e.data.applied, e.count, e.at, e.lastAt])).toEqual([
      ['payment.succeeded', null, true, 1, at(0).toISOString(), at(0).toISOString()],
      ['payment.succeeded', 'duplicate', false, 2, at(30).toISOString(), at(90).toISOString()],
    ]);
    expect(onA.every((e) => e.data.signatureValid === true)).toBe(true);

    const onB = await detail(ofB.token, b.token);
    expect(onB.map((e) => [e.type, e.data.eventId, e.count])).toEqual([['payment.succeeded', `evt_b_${ofB.token}`, 1]]);
    // Still stored, every one of them.
    expect(await db.processorWebhookDelivery.count({ where: { sessionToken: ofA.token } })).toBe(24);
    expect(await db.processorWebhookDelivery.count({ where: { sessionToken: ofB.token } })).toBe(3);
  });

  it('given a cursor that is not one / 400 INVALID_INPUT', async () => {
    for (const cursor of ['garbage', Buffer.from('["x","y"]').toString('base64url'), Buffer.from('{}').toString('base64url')]) {
      const res = await list(`cursor=${cursor}`);
      expect([res.status, res.body.code]).toEqual([400, 'INVALID_INPUT']);
    }
    expect((await list('merchantId=' + b.id)).status).toBe(400);
  });
});

describe('one order, end to end', () => {
  it('given a real card checkout with progress reports, a forged webhook and a preview / the detail shows the whole timeline, and stats count the checkout only', async () => {
    const merchant = await merchantWithProcessor(stack, 'Timeline Store');
    const connect = await api(stack, 'POST', '/api/merchant/storefront-b/connect', { storeUrl: `${stack.urls.storefrontB}/stores/demo`, consumerKey: DEMO_STORE.consumerKey, consumerSecret: DEMO_STORE.consumerSecret }, merchant.token);
    expect(connect.status, JSON.stringify(connect.body)).toBe(200);
    const store = stack.sims.storefrontB.stores.get('demo')!;
    const simple = store.products.find((p) => p.variations.length === 0)!;
    // The shopper's click in the store: the plugin hands the cart over, signed.
    const token = await storefrontBCheckout(stack, [{ productId: simple.id, quantity: 2 }]);

    // The page reports the steps as the shopper goes; then pays.
    expect((await api(stack, 'POST', `/api/checkout/${token}/progress`, { step: 'contact_entered' })).body).toEqual({ recorded: true });
    expect((await api(stack, 'POST', `/api/checkout/${token}/progress`, { step: 'shipping_chosen' })).body).toEqual({ recorded: true });
    const payment = await shopperPays(stack, token);
    const ordersFor = () => [...store.orders.values()].filter((o) => o.metaData.some((m) => m.key === '_hosted_checkout_session' && m.value === token)).length;
    const row = await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, ordersFor);

    // A forged delivery claiming this session: refused, and on the timeline as such.
    const forged = JSON.stringify({ id: 'evt_forged_1', event: 'payment.refunded', data: { id: payment.paymentId, metadata: { checkout_session_token: token } } });
    const refused = await stack.app.inject({ method: 'POST', url: PROCESSOR_WEBHOOK_PATH, headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: 'ab'.repeat(32) }, payload: forged });
    expect(refused.statusCode).toBe(401);
    // A Whop account shared with another merchant: Whop sends the payment to every endpoint on it, each copy signed with that
    // endpoint's secret. The other merchant's copies name this session and verify for no merchant of it (401, stored).
    const other = await merchantWithProcessor(stack, 'Shared Account Neighbour');
    const secretOf = async (merchantId: string) => {
      const c = await stack.database.db.processorConnection.findUniqueOrThrow({ where: { merchantId } });
      return createSecretBox(stack.config.secretsKey!).decrypt(c.webhookSecretEnc!, processorAad.webhookSecret(merchantId));
    };
    const applied = await stack.database.db.processorWebhookDelivery.findFirstOrThrow({ where: { sessionToken: token, signatureValid: true, signalledAt: { not: null } } });
    // The event's own bytes, as Whop re-sends them.
    const copy = applied.rawBody;
    const post = async (secret: string) => (await stack.app.inject({ method: 'POST', url: PROCESSOR_WEBHOOK_PATH, headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signSpecWebhook(secret, copy) }, payload: copy })).statusCode;
    const neighbours = await secretOf(other.id);
    expect([await post(neighbours), await post(neighbours), await post(neighbours)]).toEqual([401, 401, 401]);
    // Whop's retries of the applied event, signed with this merchant's secret: answered, applied once.
    const own = await secretOf(merchant.id);
    expect([await post(own), await post(own)]).toEqual([200, 200]);

    // A preview of the same merchant: neither an order nor a session in the statistics.
    const preview = await api(stack, 'POST', '/api/merchant/preview', {}, merchant.token);
    expect(preview.status, JSON.stringify(preview.body)).toBeLessThan(300);

    const listed = await api(stack, 'GET', '/api/checkout/merchant/orders', undefined, merchant.token);
    expect(listed.body.items.map((i: Json) => i.token)).toEqual([token]);
    expect(listed.body.items[0]).toMatchObject({
      status: 'COMPLETED', paymentMethod: 'card', storeOrderId: row.storeOrderId, storeOrderError: false, email: 'jane@customer.test', customerName: 'Jane Doe',
      storeOrder: { state: 'created', id: row.storeOrderId, number: row.storeOrderNumber, error: null },
    });
    expect(row.storeOrderNumber).toBeTruthy();
    // Found by the number the store gave it.
    expect((await api(stack, 'GET', `/api/checkout/merchant/orders?q=${encodeURIComponent(row.storeOrderNumber!)}`, undefined, merchant.token)).body.items.map((i: Json) => i.token)).toEqual([token]);
    expect(listed.body.items[0].totals).toMatchObject({ totalMinor: payment.totalMinor, currency: payment.currency });
    const previewDetail = await api(stack, 'GET', `/api/checkout/merchant/orders/${preview.body.token}`, undefined, merchant.token);
    expect(previewDetail.status).toBe(404);

    const detail = await api(stack, 'GET', `/api/checkout/merchant/orders/${token}`, undefined, merchant.token);
    expect(detail.status, JSON.stringify(detail.body)).toBe(200);
    expect(detail.body).toMatchObject({
      token,
      status: 'COMPLETED',
      platform: 'storefront-b',
      items: [{ title: simple.name, quantity: 2, unitPrice: simple.price, orderBump: false }],
      shippingAddress: { name: 'Jane Doe', city: 'Berlin', country: 'DE' },
      shippingName: 'Standard',
      processorPaymentId: payment.paymentId,
      storeOrderErrorMessage: null,
    });
    const timeline = detail.body.timeline as Json[];
    const at = timeline.map((e) => Date.parse(e.at));
    expect(at).toEqual([...at].sort((x, y) => x - y));
    const kinds = timeline.map((e) => `${e.source}:${e.type}`);
    const first = (k: string) => kinds.indexOf(k);
    for (const k of ['session:created', 'session:contact_entered', 'session:shipping_chosen', 'session:details_entered', 'session:payment_started', 'session:order_created', 'email:order_confirmation', 'email:merchant_order_notification']) {
      expect(kinds, k).toContain(k);
    }
    expect(first('session:created')).toBe(0);
    expect(first('session:contact_entered')).toBeLessThan(first('session:details_entered'));
    expect(first('session:details_entered')).toBeLessThan(first('session:payment_started'));
    const statusChanges = timeline.filter((e) => e.type === 'status_changed').map((e) => [e.data.from, e.data.to]);
    expect(statusChanges).toEqual([['OPEN', 'PAYMENT_PENDING'], ['PAYMENT_PENDING', 'COMPLETED']]);
    expect(first('session:order_created')).toBeGreaterThan(kinds.findIndex((k) => k === 'session:status_changed' && timeline[kinds.indexOf(k)]!.data.to === 'COMPLETED'));

    const webhooks = timeline.filter((e) => e.source === 'webhook');
    const valid = webhooks.filter((w) => w.data.signatureValid);
    expect(valid.map((w) => w.type)).toEqual(expect.arrayContaining(['payment.succeeded']));
    expect(valid.filter((w) => w.data.rejection === null).every((w) => w.data.applied === true)).toBe(true);
    // The forged delivery and the copies signed by the other merchant on the shared account: stored as evidence, shown to nobody.
    expect(webhooks.filter((w) => !w.data.signatureValid)).toEqual([]);
    expect(JSON.stringify(timeline)).not.toContain('signature invalid');
    const stored = await stack.database.db.processorWebhookDelivery.findMany({ where: { sessionToken: token, signatureValid: false }, orderBy: { receivedAt: 'asc' } });
    expect(stored.map((d) => [d.event, d.rejection])).toEqual([['payment.refunded', 'bad_signature'], ...Array.from({ length: 3 }, () => [applied.event, 'bad_signature'])]);
    // The two redeliveries of the applied event: one line with its count and first and last time.
    const redeliveries = webhooks.filter((w) => w.data.rejection === 'duplicate');
    expect(redeliveries).toHaveLength(1);
    expect(redeliveries[0]).toMatchObject({ type: applied.event, count: 2, summary: expect.stringContaining('a redelivery') });
    expect(Date.parse(redeliveries[0]!.lastAt)).toBeGreaterThanOrEqual(Date.parse(redeliveries[0]!.at));
    expect(webhooks.filter((w) => w.data.applied === true && w.data.rejection === null)).toEqual([expect.objectContaining({ count: 1, data: expect.objectContaining({ eventId: applied.eventId }) })]);
    expect(timeline.some((e) => e.type === 'webhook_received')).toBe(false);

    const emails = timeline.filter((e) => e.source === 'email');
    expect(emails.map((e) => [e.type, e.data.status, e.data.to])).toEqual(expect.arrayContaining([
      ['order_confirmation', 'SENT', 'jane@customer.test'],
      ['merchant_order_notification', 'SENT', merchant.email],
    ]));
    expect(emails).toHaveLength(2);
    expect(JSON.stringify(detail.body)).not.toContain('raw');

    // The same checkout in the statistics (default range: the last 30 days); the preview nowhere.
    const stats = await api(stack, 'GET', '/api/merchant/stats', undefined, merchant.token);
    expect(stats.body).toMatchObject({
      sessions: 1,
      paidOrders: 1,
      completedOrders: 1,
      refundedOrders: 0,
      codOrders: 0,
      conversionRate: 1,
      revenue: [{ currency: payment.currency, orders: 1, amountMinor: payment.totalMinor, averageOrderValueMinor: payment.totalMinor }],
      cod: [],
    });
    const funnel = await api(stack, 'GET', '/api/merchant/stats/funnel', undefined, merchant.token);
    expect(funnel.body.steps.map((s: Json) => [s.step, s.sessions, s.stepConversion])).toEqual([
      ['created', 1, null],
      ['contact_entered', 1, 1],
      ['shipping_chosen', 1, 1],
      ['payment_started', 1, 1],
      ['completed', 1, 1],
    ]);
  });
});
