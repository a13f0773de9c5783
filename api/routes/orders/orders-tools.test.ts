// The merchant's order tools over seeded orders: the CSV export (the list's filters, exactly the list's rows, quoting
// and formula guard, another merchant's orders never in it, 5,000+ orders streamed in pages within a time bound), the
// customers view (one per email whatever its case, counts and totals per currency computed here from the rows,
// search, pages, detail with the orders, scoping) and the notification settings (validation, scoping, API-key scope).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { createTestMerchant, type TestMerchant } from '../../../test/harness/merchants.js';
import { seedCheckoutSessions } from '../../../scripts/lib/stack/stats-seed.js';
import type { CheckoutSession } from '../../../generated/prisma/client.js';
import { EXPORT_COLUMNS } from './export.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let stack: TestStack;
let a: TestMerchant;
let b: TestMerchant;
let big: TestMerchant;
const START = new Date('2026-09-01T00:00:00.000Z');
const MINUTE = 60_000;
const PAID = ['COMPLETED', 'COD_CONFIRMED', 'REFUNDED', 'ON_HOLD'];

const db = () => stack.database.db;
const isOrder = (r: CheckoutSession) => r.source !== 'preview' && (r.paymentStartedAt !== null || PAID.includes(r.status));
const newestFirst = (x: CheckoutSession, y: CheckoutSession) => y.createdAt.getTime() - x.createdAt.getTime() || (y.token < x.token ? -1 : y.token > x.token ? 1 : 0);

async function get(url: string, token: string) {
  const res = await stack.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
  return res;
}

/** RFC 4180 parsing, written here apart from the writer: quoted fields, doubled quotes, CRLF records. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (c === '"') quoted = false; else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') { record.push(field); field = ''; }
    else if (c === '\r' && text[i + 1] === '\n') { record.push(field); records.push(record); record = []; field = ''; i++; }
    else field += c;
  }
  expect(field === '' && record.length === 0, 'the file ends with CRLF').toBe(true);
  return records;
}

async function exportCsv(qs: string, token = a.token) {
  const res = await get(`/api/checkout/merchant/orders/export.csv${qs ? `?${qs}` : ''}`, token);
  return { res, text: res.body };
}

/** The export's rows as objects by column; the BOM checked and removed. */
function rowsOf(text: string): Array<Record<string, string>> {
  expect(text.startsWith('\uFEFF')).toBe(true);
  const [header, ...rows] = parseCsv(text.slice(1));
  expect(header).toEqual([...EXPORT_COLUMNS]);
  for (const r of rows) expect(r).toHaveLength(EXPORT_COLUMNS.length);
  return rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!])));
}

/** A paid session of `merchantId` with the given shopper details. */
async function insertOrder(merchantId: string, o: { email: string; name: string; createdAt: Date; currency?: string; totalMinor?: number; status?: string; refundedMinor?: number; storeOrderNumber?: string }) {
  const token = `cs_${randomBytes(16).toString('hex')}`;
  const total = o.totalMinor ?? 2490;
  await db().checkoutSession.create({
    data: {
      token, merchantId, platform: 'STOREFRONT_B', status: o.status ?? 'COMPLETED', currency: o.currency ?? 'EUR', fxRates: { date: '2026-11-20', rates: {} },
      items: [{ productId: '1', variantId: null, title: 'Tote', variantTitle: null, quantity: 1, unitPrice: total - 490, imageUrl: null }],
      subtotalMinor: total - 490, shippingMinor: 490, totalMinor: total, email: o.email, refundedMinor: o.refundedMinor ?? 0,
      shippingAddress: { name: o.name, line1: 'Hauptstraße 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
      paymentMethod: 'card', paymentStartedAt: o.createdAt, completedAt: o.createdAt, createdAt: o.createdAt, storeOrderNumber: o.storeOrderNumber ?? null,
      storeOrderId: o.storeOrderNumber ? `gid-${o.storeOrderNumber}` : null,
    },
  });
  return token;
}

beforeAll(async () => {
  stack = await startTestStack();
  a = await createTestMerchant(db(), stack.app, 'Tools A');
  b = await createTestMerchant(db(), stack.app, 'Tools B');
  big = await createTestMerchant(db(), stack.app, 'Tools Big');
  await seedCheckoutSessions(db(), { merchantId: a.id, count: 240, seed: `tools-a-${a.id}`, start: START, stepMs: 10 * MINUTE, sameInstant: 2 });
  await seedCheckoutSessions(db(), { merchantId: b.id, count: 80, seed: `tools-b-${b.id}`, start: START, stepMs: 10 * MINUTE });
  await seedCheckoutSessions(db(), { merchantId: big.id, count: 10_000, seed: `tools-big-${big.id}`, start: START, stepMs: MINUTE });
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

describe('CSV export of the orders', () => {
  it('given no filter, it is exactly the list: every order of the merchant, newest first, money in major units', async () => {
    const { res, text } = await exportCsv('');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="orders-m-[a-z0-9-]+-\d{4}-\d{2}-\d{2}\.csv"$/);
    const rows = rowsOf(text);
    const expected = (await db().checkoutSession.findMany({ where: { merchantId: a.id } })).filter(isOrder).sort(newestFirst);
    expect(rows.map((r) => r.checkout_token)).toEqual(expected.map((s) => s.token));
    const first = expected[0]!;
    const row = rows[0]!;
    expect(row.status).toBe(first.status);
    expect(row.currency).toBe(first.currency);
    expect(row.created_at).toBe(first.createdAt.toISOString());
    const exp = first.currency === 'JPY' ? 0 : 2;
    expect(row.total).toBe(((first.totalMinor ?? 0) / 10 ** exp).toFixed(exp));
    expect(row.refunded).toBe((first.refundedMinor / 10 ** exp).toFixed(exp));
  });

  it('given the list\'s filters, the export has the rows the list pages through, and nothing else', async () => {
    for (const qs of ['view=orders', 'view=checkouts', 'status=REFUNDED,cod_confirmed', 'paymentMethod=cod', 'from=2026-09-01T10:00:00Z&to=2026-09-01T20:00:00Z', 'q=shopper1']) {
      const listed: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await get(`/api/checkout/merchant/orders?${qs}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, a.token);
        expect(res.statusCode).toBe(200);
        const body = res.json() as Json;
        listed.push(...body.items.map((i: Json) => i.token as string));
        cursor = body.nextCursor;
      } while (cursor);
      const { text } = await exportCsv(qs);
      expect(rowsOf(text).map((r) => r.checkout_token), qs).toEqual(listed);
      expect(listed.length, qs).toBeGreaterThan(0);
    }
  });

  it('given a bad filter, it answers INVALID_INPUT as the list does', async () => {
    for (const qs of ['status=NOPE', 'from=2026-10-02&to=2026-10-01', 'limit=5', 'view=all']) {
      const { res } = await exportCsv(qs);
      expect(res.statusCode, qs).toBe(400);
      expect(res.json()).toMatchObject({ code: 'INVALID_INPUT' });
    }
  });

  it('quotes commas, quotes and line breaks, and a formula typed as a name stays text', async () => {
    const at = new Date('2030-01-01T00:00:00.000Z');
    const t1 = await insertOrder(a.id, { email: 'csv-quote@example.test', name: 'Doe, "Jane"\nSecond line', createdAt: at, storeOrderNumber: '#5001' });
    const t2 = await insertOrder(a.id, { email: 'csv-formula@example.test', name: '=HYPERLINK("http://evil.test","x")', createdAt: new Date(at.getTime() + 1000) });
    const t3 = await insertOrder(a.id, { email: 'csv-plus@example.test', name: '+49 30 555', createdAt: new Date(at.getTime() + 2000), currency: 'JPY', totalMinor: 3500 });
    const t4 = await insertOrder(a.id, { email: 'csv-at@example.test', name: '@SUM(A1:A9)', createdAt: new Date(at.getTime() + 3000) });
    const { text } = await exportCsv('from=2030-01-01');
    expect(text).toContain('"Doe, ""Jane""\nSecond line"');
    expect(text).toContain('"\'=HYPERLINK(""http://evil.test"",""x"")"');
    const rows = rowsOf(text);
    expect(rows.map((r) => r.checkout_token)).toEqual([t4, t3, t2, t1]);
    const by = Object.fromEntries(rows.map((r) => [r.checkout_token, r]));
    expect(by[t1]!.customer_name).toBe('Doe, "Jane"\nSecond line');
    expect(by[t1]!.order).toBe('#5001');
    expect(by[t2]!.customer_name).toBe('\'=HYPERLINK("http://evil.test","x")');
    expect(by[t3]!.customer_name).toBe('\'+49 30 555');
    expect(by[t3]!).toMatchObject({ currency: 'JPY', total: '3500', shipping: '490' });
    expect(by[t4]!.customer_name).toBe('\'@SUM(A1:A9)');
    // No cell of the whole file starts a formula.
    for (const r of rowsOf((await exportCsv('')).text)) for (const v of Object.values(r)) expect(v).not.toMatch(/^[=+\-@\t\r]/);
  });

  it('never holds another merchant\'s orders, whatever the filter', async () => {
    const others = new Set((await db().checkoutSession.findMany({ where: { merchantId: { in: [b.id, big.id] } }, select: { token: true } })).map((s) => s.token));
    for (const qs of ['', 'q=shopper', 'view=checkouts']) {
      const tokens = rowsOf((await exportCsv(qs)).text).map((r) => r.checkout_token!);
      expect(tokens.length).toBeGreaterThan(0);
      expect(tokens.filter((t) => others.has(t))).toEqual([]);
    }
    // B's own export has B's orders only.
    const mine = new Set((await db().checkoutSession.findMany({ where: { merchantId: b.id }, select: { token: true } })).map((s) => s.token));
    const bTokens = rowsOf((await exportCsv('', b.token)).text).map((r) => r.checkout_token!);
    expect(bTokens.length).toBeGreaterThan(0);
    expect(bTokens.every((t) => mine.has(t))).toBe(true);
  });

  it('given 5,000+ orders, it streams them (chunked, no Content-Length) in pages, in bounded time and memory', async () => {
    const expected = (await db().checkoutSession.findMany({ where: { merchantId: big.id }, select: { token: true, createdAt: true, source: true, paymentStartedAt: true, status: true } }))
      .filter((r) => isOrder(r as CheckoutSession)).length;
    expect(expected).toBeGreaterThanOrEqual(5_000);
    const heapBefore = process.memoryUsage().heapUsed;
    let peak = heapBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
    const started = Date.now();
    const { res, text } = await exportCsv('', big.token);
    const ms = Date.now() - started;
    clearInterval(sampler);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.headers['transfer-encoding']).toBe('chunked');
    const rows = rowsOf(text);
    expect(rows).toHaveLength(expected);
    expect(new Set(rows.map((r) => r.checkout_token)).size).toBe(expected);
    // The file is ~1.5 MB; the bound leaves room for the test's own copy of it and the parser, not for the rows as objects of a whole read.
    expect(peak - heapBefore).toBeLessThan(200 * 1024 * 1024);
    expect(ms).toBeLessThan(20_000);
    console.log(`export of ${expected} orders: ${ms} ms, ${text.length} characters, heap growth ${Math.round((peak - heapBefore) / 1024 / 1024)} MB`);
  }, 60_000);

  it('is an orders:read route for API keys', async () => {
    const { ROUTE_RESOURCES } = await import('../../../domain/merchant/route-rights.js');
    expect(ROUTE_RESOURCES.orders).toContain('GET /api/checkout/merchant/orders/export.csv');
    expect((await get('/api/checkout/merchant/orders/export.csv', 'nope')).statusCode).toBe(401);
  });
});

describe('customers', () => {
  /** The customers computed here from the rows: one per lower-cased email with a paid order. */
  async function expectedCustomers(merchantId: string) {
    const rows = (await db().checkoutSession.findMany({ where: { merchantId } })).filter((r) => r.source !== 'preview' && r.email && PAID.includes(r.status));
    const by = new Map<string, { orders: number; totals: Map<string, { spent: number; refunded: number }>; first: number; last: number }>();
    for (const r of rows) {
      const email = r.email!.toLowerCase();
      const c = by.get(email) ?? { orders: 0, totals: new Map(), first: Infinity, last: -Infinity };
      c.orders++;
      const t = c.totals.get(r.currency) ?? { spent: 0, refunded: 0 };
      t.spent += r.totalMinor ?? 0;
      t.refunded += r.refundedMinor;
      c.totals.set(r.currency, t);
      c.first = Math.min(c.first, r.createdAt.getTime());
      c.last = Math.max(c.last, r.createdAt.getTime());
      by.set(email, c);
    }
    return by;
  }

  async function walk(qs: string, token = a.token, limit = 7): Promise<Json[]> {
    const all: Json[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await get(`/api/checkout/merchant/customers?limit=${limit}${qs ? `&${qs}` : ''}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, token);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as Json;
      expect(body.items.length).toBeLessThanOrEqual(limit);
      all.push(...body.items);
      cursor = body.nextCursor;
      expect(++pages).toBeLessThan(500);
    } while (cursor);
    return all;
  }

  it('lists one customer per email with a paid order: counts, totals per currency, first and last order, latest first', async () => {
    // The same person typed their email in two letter cases.
    await insertOrder(a.id, { email: 'Mixed.Case@Example.test', name: 'Grace Hopper', createdAt: new Date('2029-05-01T10:00:00Z'), currency: 'USD', totalMinor: 5000 });
    await insertOrder(a.id, { email: 'mixed.case@example.test', name: 'Grace B. Hopper', createdAt: new Date('2029-05-02T10:00:00Z'), currency: 'EUR', totalMinor: 3000, refundedMinor: 1000 });
    const expected = await expectedCustomers(a.id);
    const listed = await walk('');
    expect(listed.map((c) => c.email).sort()).toEqual([...expected.keys()].sort());
    for (let i = 1; i < listed.length; i++) expect(listed[i - 1]!.lastOrderAt >= listed[i]!.lastOrderAt).toBe(true);
    for (const c of listed) {
      const e = expected.get(c.email)!;
      expect(c.ordersCount, c.email).toBe(e.orders);
      expect(c.firstOrderAt).toBe(new Date(e.first).toISOString());
      expect(c.lastOrderAt).toBe(new Date(e.last).toISOString());
      expect(c.totals).toEqual([...e.totals.entries()].sort(([x], [y]) => (x < y ? -1 : 1)).map(([currency, t]) => ({ currency, spentMinor: t.spent, refundedMinor: t.refunded })));
      expect(c.marketingConsent).toBe('not_collected');
    }
    const grace = listed.find((c) => c.email === 'mixed.case@example.test')!;
    expect(grace).toMatchObject({ name: 'Grace B. Hopper', ordersCount: 2, totals: [{ currency: 'EUR', spentMinor: 3000, refundedMinor: 1000 }, { currency: 'USD', spentMinor: 5000, refundedMinor: 0 }] });
    expect(listed[0]!.email).toBe('csv-at@example.test');
  });

  it('searches the start of the email or a part of the name, case-insensitive', async () => {
    expect((await walk('q=MIXED.case')).map((c) => c.email)).toEqual(['mixed.case@example.test']);
    expect((await walk('q=hopper')).map((c) => c.email)).toEqual(['mixed.case@example.test']);
    const expected = [...(await expectedCustomers(a.id)).keys()].filter((e) => e.startsWith('shopper1')).sort();
    expect((await walk('q=shopper1', a.token, 5)).map((c) => c.email).sort()).toEqual(expected);
    expect(await walk('q=nobody-like-this')).toEqual([]);
  });

  it('shows one customer with their orders, any letter case in the URL, linking the order tokens', async () => {
    const res = await get(`/api/checkout/merchant/customers/${encodeURIComponent('MIXED.CASE@example.test')}`, a.token);
    expect(res.statusCode).toBe(200);
    const body = res.json() as Json;
    expect(body).toMatchObject({ email: 'mixed.case@example.test', ordersCount: 2, moreOrders: false, marketingConsent: 'not_collected' });
    const tokens = (await db().checkoutSession.findMany({ where: { merchantId: a.id, email: { equals: 'mixed.case@example.test', mode: 'insensitive' } }, orderBy: { createdAt: 'desc' } })).map((s) => s.token);
    expect(body.orders.map((o: Json) => o.token)).toEqual(tokens);
    // Every listed order opens in the order detail.
    for (const t of tokens) expect((await get(`/api/checkout/merchant/orders/${t}`, a.token)).statusCode).toBe(200);
  });

  it('never shows another merchant\'s customers', async () => {
    const onlyB = [...(await expectedCustomers(b.id)).keys()].find((e) => !(e === 'mixed.case@example.test'));
    const bList = await walk('', b.token, 50);
    expect(bList.map((c) => c.email).sort()).toEqual([...(await expectedCustomers(b.id)).keys()].sort());
    expect(bList.some((c) => c.email === 'mixed.case@example.test')).toBe(false);
    expect((await get(`/api/checkout/merchant/customers/${encodeURIComponent('mixed.case@example.test')}`, b.token)).statusCode).toBe(404);
    // Seeded emails repeat across merchants: B's view of one counts B's orders only.
    const mine = (await expectedCustomers(b.id)).get(onlyB!)!;
    const res = await get(`/api/checkout/merchant/customers/${encodeURIComponent(onlyB!)}`, b.token);
    expect((res.json() as Json).ordersCount).toBe(mine.orders);
    expect((res.json() as Json).orders.every((o: Json) => o.token)).toBe(true);
  });

  it('refuses a cursor it did not hand out, and an empty search', async () => {
    expect((await get('/api/checkout/merchant/customers?cursor=bogus', a.token)).json()).toMatchObject({ code: 'INVALID_INPUT' });
    expect((await get('/api/checkout/merchant/customers?q=', a.token)).statusCode).toBe(400);
    expect((await get('/api/checkout/merchant/customers', 'nope')).statusCode).toBe(401);
  });
});

describe('notification settings', () => {
  const put = (body: unknown, token = a.token) => stack.app.inject({ method: 'PUT', url: '/api/merchant/notifications', headers: { authorization: `Bearer ${token}` }, payload: body as Json });

  it('starts with new order, store order failed and endpoint notices on, refunds off, to the account email', async () => {
    const res = await get('/api/merchant/notifications', a.token);
    expect(res.json()).toEqual({ events: { newOrder: true, refund: false, storeOrderFailed: true, endpointDisabled: true }, recipients: [], defaultRecipient: a.email });
  });

  it('saves events and addresses (lower-cased), keeping what is left out', async () => {
    const res = await put({ events: { refund: true, newOrder: false }, recipients: [' Ops@Shop.test ', 'owner@shop.test'] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ events: { newOrder: false, refund: true, storeOrderFailed: true, endpointDisabled: true }, recipients: ['ops@shop.test', 'owner@shop.test'] });
    // An address typed twice is kept once.
    expect((await put({ recipients: ['ops@shop.test', 'OPS@shop.test', 'owner@shop.test'] })).json()).toMatchObject({ recipients: ['ops@shop.test', 'owner@shop.test'] });
    expect((await put({ events: { storeOrderFailed: false } })).json()).toMatchObject({ events: { newOrder: false, refund: true, storeOrderFailed: false }, recipients: ['ops@shop.test', 'owner@shop.test'] });
    // B is untouched.
    expect((await get('/api/merchant/notifications', b.token)).json()).toMatchObject({ events: { newOrder: true, refund: false }, recipients: [] });
  });

  it('refuses bad addresses, too many, unknown events, and changes nothing', async () => {
    const before = (await get('/api/merchant/notifications', a.token)).json() as Json;
    for (const body of [
      { recipients: ['not-an-email'] },
      { recipients: ['1@s.test', '2@s.test', '3@s.test', '4@s.test', '5@s.test', '6@s.test'] },
      { events: { sms: true } },
      { events: { refund: 'yes' } },
    ]) {
      const res = await put(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toMatchObject({ code: 'INVALID_INPUT' });
    }
    expect((await get('/api/merchant/notifications', a.token)).json()).toEqual(before);
  });
});
