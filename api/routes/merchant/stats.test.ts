// Statistics and funnel against a straightforward recount: a few hundred seeded sessions of mixed outcomes,
// currencies and previews (test/harness/stats-seed.ts) — partial refunds, full refunds and held payments among them —
// another merchant's sessions beside them, and every figure of GET /api/merchant/stats and /stats/funnel recomputed
// in plain code from the rows. The stats query reads the covering index only. Also the progress endpoint the checkout
// page reports contact and shipping with.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { createTestMerchant, type TestMerchant } from '../../../test/harness/merchants.js';
import { seedCheckoutSessions } from '../../../scripts/lib/stack/stats-seed.js';
import type { CheckoutSession } from '../../../generated/prisma/client.js';
import { Prisma } from '../../../prisma/client.js';
import { statsGroupsSql } from './stats.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let stack: TestStack;
let a: TestMerchant;
let b: TestMerchant;
let rowsA: CheckoutSession[];
let rowsB: CheckoutSession[];
let n = 0;

const START = new Date('2026-10-01T00:00:00.000Z');
const HOUR = 3_600_000;

async function get(url: string, token: string) {
  const res = await stack.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
  return { status: res.statusCode, body: res.json() as Json };
}

async function progress(token: string, step: string, ip = `198.51.100.${(n++ % 200) + 1}`) {
  const res = await stack.app.inject({ method: 'POST', url: `/api/checkout/${token}/progress`, payload: { step }, remoteAddress: ip });
  return { status: res.statusCode, body: res.json() as Json, headers: res.headers };
}

beforeAll(async () => {
  stack = await startTestStack({ RATE_LIMIT_CHECKOUT_PROGRESS: '8/60' });
  a = await createTestMerchant(stack.database.db, stack.app, 'Stats A');
  b = await createTestMerchant(stack.database.db, stack.app, 'Stats B');
  // A: 480 sessions, one every hour from Oct 1 (20 days); B: 200 in the same days, which A must never see.
  const seededA = await seedCheckoutSessions(stack.database.db, { merchantId: a.id, count: 480, seed: 'stats-a', start: START, stepMs: HOUR });
  await seedCheckoutSessions(stack.database.db, { merchantId: b.id, count: 200, seed: 'stats-b', start: START, stepMs: 2 * HOUR });
  expect(seededA.sessions).toBe(480);
  rowsA = await stack.database.db.checkoutSession.findMany({ where: { merchantId: a.id } });
  rowsB = await stack.database.db.checkoutSession.findMany({ where: { merchantId: b.id } });
});
afterAll(async () => {
  await stack?.close();
});

// ---------------------------------------------------------------------------------------------------
// The recount: the definitions of the route descriptions, applied to each row in the plainest way.

/** Recovery as docs/recovery.md defines it: reminded originals, and checkouts paid after their first reminder (money kept). */
function recoveryRecount(sessions: CheckoutSession[], currencies: string[]) {
  const reminded = sessions.filter((r) => r.recoveryRemindersSent > 0 && r.recoveredFrom === null);
  const recovered = sessions.filter((r) => r.status === 'COMPLETED' && r.recoveryReminderSentAt && r.completedAt && r.completedAt > r.recoveryReminderSentAt);
  const perCurrency = currencies
    .map((currency) => {
      const paid = recovered.filter((r) => r.currency === currency);
      return { currency, orders: paid.length, amountMinor: paid.reduce((s, r) => s + (r.totalMinor ?? 0) - r.refundedMinor, 0) };
    })
    .filter((r) => r.orders > 0);
  return { remindedSessions: reminded.length, remindersSent: reminded.reduce((n, r) => n + r.recoveryRemindersSent, 0), recoveredOrders: recovered.length, recovered: perCurrency };
}

function recount(rows: CheckoutSession[], from: Date, to: Date) {
  const sessions = rows.filter((r) => r.source !== 'preview' && !r.token.startsWith('prev_') && r.createdAt >= from && r.createdAt < to);
  const completed = sessions.filter((r) => r.status === 'COMPLETED' || r.status === 'REFUNDED');
  const refunded = sessions.filter((r) => r.status === 'REFUNDED');
  const held = sessions.filter((r) => r.status === 'ON_HOLD');
  const cod = sessions.filter((r) => r.status === 'COD_CONFIRMED');
  const currencies = [...new Set(sessions.map((r) => r.currency))].sort();
  const total = (l: CheckoutSession[]) => l.reduce((s, r) => s + (r.totalMinor ?? 0), 0);
  const back = (l: CheckoutSession[]) => l.reduce((s, r) => s + r.refundedMinor, 0);
  const revenue = currencies
    .map((currency) => {
      const paid = sessions.filter((r) => r.status === 'COMPLETED' && r.currency === currency);
      // Money kept: each order's total less what came back of it.
      const amountMinor = paid.reduce((s, r) => s + (r.totalMinor ?? 0) - r.refundedMinor, 0);
      return {
        currency, orders: paid.length, amountMinor, averageOrderValueMinor: paid.length ? Math.round(amountMinor / paid.length) : 0,
        grossMinor: total(paid), refundedMinor: back(paid), partiallyRefundedOrders: paid.filter((r) => r.refundedMinor > 0).length,
      };
    })
    .filter((r) => r.orders > 0);
  const refunds = currencies
    .map((currency) => {
      const mine = sessions.filter((r) => r.currency === currency);
      const full = mine.filter((r) => r.status === 'REFUNDED');
      const some = mine.filter((r) => r.status === 'REFUNDED' || ((r.status === 'COMPLETED' || r.status === 'ON_HOLD') && r.refundedMinor > 0));
      return { currency, orders: some.length, amountMinor: back(some), fullyRefundedOrders: full.length, fullyRefundedMinor: back(full) };
    })
    .filter((r) => r.orders > 0);
  const heldByCurrency = currencies
    .map((currency) => {
      const list = held.filter((r) => r.currency === currency);
      return { currency, orders: list.length, amountMinor: total(list), refundedMinor: back(list) };
    })
    .filter((h) => h.orders > 0);
  const codByCurrency = currencies
    .map((currency) => {
      const list = cod.filter((r) => r.currency === currency);
      const collected = list.filter((r) => r.codPaidAt !== null);
      return { currency, orders: list.length, amountMinor: total(list), collectedOrders: collected.length, collectedAmountMinor: total(collected) };
    })
    .filter((c) => c.orders > 0);
  // The shopper paid (or confirmed cash on delivery): a held payment too.
  const ordered = (r: CheckoutSession) => ['COMPLETED', 'REFUNDED', 'COD_CONFIRMED', 'ON_HOLD'].includes(r.status);
  const reached = [
    sessions.length,
    sessions.filter((r) => r.contactEnteredAt || r.shippingChosenAt || r.paymentStartedAt || ordered(r)).length,
    sessions.filter((r) => r.shippingChosenAt || r.paymentStartedAt || ordered(r)).length,
    sessions.filter((r) => r.paymentStartedAt || ordered(r)).length,
    sessions.filter(ordered).length,
  ];
  const steps = ['created', 'contact_entered', 'shipping_chosen', 'payment_started', 'completed'].map((step, i) => ({
    step,
    sessions: reached[i],
    stepConversion: i === 0 || reached[i - 1] === 0 ? null : reached[i]! / reached[i - 1]!,
    overallConversion: reached[0] === 0 ? null : reached[i]! / reached[0]!,
  }));
  return {
    stats: {
      from: from.toISOString(),
      to: to.toISOString(),
      sessions: sessions.length,
      // Paid is money kept, in whole or in part: COMPLETED, partial refunds included.
      paidOrders: sessions.filter((r) => r.status === 'COMPLETED').length,
      completedOrders: completed.length,
      refundedOrders: refunded.length,
      partiallyRefundedOrders: sessions.filter((r) => r.status === 'COMPLETED' && r.refundedMinor > 0).length,
      codOrders: cod.length,
      heldOrders: held.length,
      conversionRate: sessions.length ? (completed.length + cod.length + held.length) / sessions.length : 0,
      revenue,
      refunds,
      held: heldByCurrency,
      cod: codByCurrency,
      // The seed has no accepted upsells (test/e2e/checkout-upsell.test.ts counts one).
      upsells: [],
      recovery: recoveryRecount(sessions, currencies),
    },
    funnel: { from: from.toISOString(), to: to.toISOString(), steps },
  };
}

describe('statistics and funnel', () => {
  it('given a seed of mixed outcomes, currencies and previews / the seed has all of them (so the recount can tell)', () => {
    const statuses = new Set(rowsA.map((r) => r.status));
    for (const s of ['OPEN', 'ABANDONED', 'FAILED', 'PAYMENT_PENDING', 'COMPLETED', 'REFUNDED', 'COD_CONFIRMED', 'ON_HOLD']) expect(statuses).toContain(s);
    expect(new Set(rowsA.map((r) => r.currency)).size).toBeGreaterThanOrEqual(4);
    // Money given back in several currencies: paid orders refunded in part, orders refunded in full, held payments refunded in part.
    const store = rowsA.filter((r) => r.source !== 'preview');
    expect(new Set(store.filter((r) => r.status === 'COMPLETED' && r.refundedMinor > 0).map((r) => r.currency)).size).toBeGreaterThanOrEqual(2);
    expect(new Set(store.filter((r) => r.status === 'REFUNDED').map((r) => r.currency)).size).toBeGreaterThanOrEqual(2);
    expect(new Set(store.filter((r) => r.status === 'ON_HOLD').map((r) => r.currency)).size).toBeGreaterThanOrEqual(2);
    expect(store.filter((r) => r.status === 'ON_HOLD' && r.refundedMinor > 0).length).toBeGreaterThan(0);
    expect(store.filter((r) => r.status === 'ON_HOLD' && r.refundedMinor === 0).length).toBeGreaterThan(0);
    // The other merchant has all of it too (so counting theirs would show).
    for (const s of ['COMPLETED', 'REFUNDED', 'ON_HOLD']) expect(rowsB.some((r) => r.status === s && r.source !== 'preview'), s).toBe(true);
    expect(rowsB.some((r) => r.status === 'COMPLETED' && r.refundedMinor > 0)).toBe(true);
    expect(rowsA.filter((r) => r.source === 'preview').length).toBeGreaterThan(5);
    expect(rowsA.filter((r) => r.status === 'COMPLETED' && !r.contactEnteredAt).length).toBeGreaterThan(0);
    expect(rowsA.filter((r) => r.status === 'COD_CONFIRMED' && r.codPaidAt).length).toBeGreaterThan(0);
    // Recovery: paid after the first reminder (recovered), paid before it (not), and reminded but never paid.
    const reminded = store.filter((r) => r.recoveryReminderSentAt);
    expect(reminded.filter((r) => r.status === 'COMPLETED' && r.completedAt! > r.recoveryReminderSentAt!).length).toBeGreaterThan(0);
    expect(reminded.filter((r) => r.status === 'COMPLETED' && r.completedAt! < r.recoveryReminderSentAt!).length).toBeGreaterThan(0);
    expect(reminded.filter((r) => r.status === 'ABANDONED').length).toBeGreaterThan(0);
  });

  const ranges: Array<[string, string, Date, Date]> = [
    ['the whole seed', 'from=2026-10-01&to=2026-10-21', new Date('2026-10-01T00:00:00Z'), new Date('2026-10-21T00:00:00Z')],
    ['a window given as date-times with an offset', `from=${encodeURIComponent('2026-10-05T12:00:00+02:00')}&to=${encodeURIComponent('2026-10-09T07:30:00.000Z')}`, new Date('2026-10-05T10:00:00Z'), new Date('2026-10-09T07:30:00Z')],
    ['a single day', 'from=2026-10-12&to=2026-10-13', new Date('2026-10-12T00:00:00Z'), new Date('2026-10-13T00:00:00Z')],
  ];

  for (const [what, qs, from, to] of ranges) {
    it(`given ${what} / stats and funnel equal the recount from the rows`, async () => {
      const expected = recount(rowsA, from, to);
      expect(expected.stats.sessions).toBeGreaterThan(10);
      const stats = await get(`/api/merchant/stats?${qs}`, a.token);
      expect(stats.status, JSON.stringify(stats.body)).toBe(200);
      expect(stats.body).toEqual(expected.stats);
      const funnel = await get(`/api/merchant/stats/funnel?${qs}`, a.token);
      expect(funnel.status).toBe(200);
      expect(funnel.body).toEqual(expected.funnel);
    });
  }

  it('given the whole seed / previews and the other merchant\'s sessions are not counted, and the funnel never grows', async () => {
    const { body } = await get('/api/merchant/stats?from=2026-10-01&to=2026-10-21', a.token);
    const all = rowsA.filter((r) => r.createdAt < new Date('2026-10-21T00:00:00Z'));
    expect(body.sessions).toBe(all.filter((r) => r.source !== 'preview').length);
    expect(body.sessions).toBeLessThan(all.length);
    expect(body.revenue.map((r: Json) => r.currency)).toEqual(['EUR', 'JPY', 'SEK', 'USD']);
    const funnel = await get('/api/merchant/stats/funnel?from=2026-10-01&to=2026-10-21', a.token);
    const counts = funnel.body.steps.map((s: Json) => s.sessions as number);
    expect(counts).toEqual([...counts].sort((x, y) => y - x));
    expect(counts[4]).toBe(body.completedOrders + body.codOrders + body.heldOrders);
    // The totals and their breakdown agree after refunds: paid + refunded are the completed orders, paid the revenue's.
    expect(body.refundedOrders).toBeGreaterThan(0);
    expect(body.partiallyRefundedOrders).toBeGreaterThan(0);
    expect(body.heldOrders).toBeGreaterThan(0);
    expect(body.paidOrders + body.refundedOrders).toBe(body.completedOrders);
    expect(body.revenue.reduce((n: number, r: Json) => n + r.orders, 0)).toBe(body.paidOrders);
    for (const r of body.revenue as Json[]) expect(r.amountMinor, r.currency).toBe(r.grossMinor - r.refundedMinor);
    // Partial refunds are taken off revenue: it is less than the paid orders' totals.
    expect((body.revenue as Json[]).some((r) => r.refundedMinor > 0 && r.amountMinor < r.grossMinor)).toBe(true);
    // Every refund the processor confirmed on the range's sessions, per currency, whatever became of the session.
    const storeRows = all.filter((r) => r.source !== 'preview');
    for (const r of body.refunds as Json[]) expect(r.amountMinor, r.currency).toBe(storeRows.filter((x) => x.currency === r.currency).reduce((n, x) => n + x.refundedMinor, 0));

    // The other merchant sees theirs only: its own recount, nothing of A's refunds or holds.
    const ofB = await get('/api/merchant/stats?from=2026-10-01&to=2026-10-21', b.token);
    expect(ofB.body).toEqual(recount(rowsB, new Date('2026-10-01T00:00:00Z'), new Date('2026-10-21T00:00:00Z')).stats);
    expect(ofB.body.sessions).toBeGreaterThan(0);
    expect(ofB.body.sessions).toBeLessThan(200);
    expect(ofB.body.sessions).not.toBe(body.sessions);
    expect(ofB.body.heldOrders).not.toBe(body.heldOrders);
  });

  it('given the stats query / it reads the covering index only (checkout_sessions_stats_idx holds every column it reads)', async () => {
    const db = stack.database.db;
    // As autovacuum leaves the table after a load: the visibility map set, the statistics fresh. VACUUM cannot mark a
    // page all-visible while an older snapshot is open (a workflow's transaction still finishing): until every page
    // is, an index-only scan costs heap reads and the planner rightly takes another index. So vacuum until it is.
    for (let i = 0; ; i++) {
      await db.$executeRawUnsafe('VACUUM ANALYZE checkout_sessions');
      const [rel] = await db.$queryRaw<Array<{ pages: number; visible: number }>>`SELECT relpages AS pages, relallvisible AS visible FROM pg_class WHERE relname = 'checkout_sessions'`;
      if (rel && rel.visible >= rel.pages) break;
      if (i === 50) throw new Error(`checkout_sessions: ${rel?.visible} of ${rel?.pages} pages all-visible after 50 vacuums`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // A few hundred rows are cheaper to read whole: without the table to read, the planner shows whether the index
    // alone answers (Index Only Scan) or must visit the rows for a column it lacks (Index Scan).
    const plan = await db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe('SET LOCAL enable_seqscan = off');
      await tx.$executeRawUnsafe('SET LOCAL enable_bitmapscan = off');
      const rows = await tx.$queryRaw<Array<{ 'QUERY PLAN': string }>>(Prisma.sql`EXPLAIN ${statsGroupsSql(a.id, new Date('2026-10-01T00:00:00Z'), new Date('2026-10-21T00:00:00Z'))}`);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
    expect(plan).toMatch(/Index Only Scan using checkout_sessions_stats_idx on checkout_sessions/);
  });

  it('given a range without sessions / zeros, empty lists, and no conversion to report', async () => {
    const stats = await get('/api/merchant/stats?from=2025-01-01&to=2025-02-01', a.token);
    expect(stats.body).toMatchObject({ sessions: 0, paidOrders: 0, completedOrders: 0, partiallyRefundedOrders: 0, codOrders: 0, heldOrders: 0, conversionRate: 0, revenue: [], refunds: [], held: [], cod: [] });
    const funnel = await get('/api/merchant/stats/funnel?from=2025-01-01&to=2025-02-01', a.token);
    expect(funnel.body.steps.every((s: Json) => s.sessions === 0 && s.stepConversion === null && s.overallConversion === null)).toBe(true);
  });

  it('given no range / the last 30 days up to now', async () => {
    const before = Date.now();
    const { status, body } = await get('/api/merchant/stats', a.token);
    expect(status).toBe(200);
    const to = Date.parse(body.to);
    expect(to).toBeGreaterThanOrEqual(before - 1000);
    expect(to - Date.parse(body.from)).toBe(30 * 24 * HOUR);
  });

  it('given a bad range / 400 INVALID_INPUT naming the parameter', async () => {
    for (const qs of ['from=2026-10-10&to=2026-10-01', 'from=2026-10-01&to=2026-10-01', 'from=2024-01-01&to=2026-01-01', 'from=yesterday', 'to=2026-13-01', 'merchantId=x']) {
      for (const path of ['/api/merchant/stats', '/api/merchant/stats/funnel']) {
        const res = await get(`${path}?${qs}`, a.token);
        expect(res.status, `${path}?${qs}`).toBe(400);
        expect(res.body.code).toBe('INVALID_INPUT');
      }
    }
  });

  it('given no token / 401', async () => {
    const res = await stack.app.inject({ method: 'GET', url: '/api/merchant/stats' });
    expect(res.statusCode).toBe(401);
  });
});

describe('checkout progress (the page reports contact and shipping)', () => {
  const openSession = () => rowsA.find((r) => r.status === 'OPEN' && r.source !== 'preview' && !r.contactEnteredAt && !r.shippingChosenAt && !r.paymentStartedAt)!;

  it('given an open session / each step is recorded once, on the timeline and in the funnel', async () => {
    const s = openSession();
    const day = s.createdAt.toISOString().slice(0, 10);
    const next = new Date(Date.parse(`${day}T00:00:00Z`) + 24 * HOUR).toISOString().slice(0, 10);
    const before = (await get(`/api/merchant/stats/funnel?from=${day}&to=${next}`, a.token)).body.steps as Json[];

    expect((await progress(s.token, 'contact_entered')).body).toEqual({ recorded: true });
    expect((await progress(s.token, 'contact_entered')).body).toEqual({ recorded: false });
    expect((await progress(s.token, 'shipping_chosen')).body).toEqual({ recorded: true });
    const again = await Promise.all([progress(s.token, 'shipping_chosen'), progress(s.token, 'shipping_chosen')]);
    expect(again.map((r) => r.body.recorded)).toEqual([false, false]);

    const events = await stack.database.db.sessionEvent.findMany({ where: { token: s.token, type: { in: ['contact_entered', 'shipping_chosen'] } } });
    expect(events.map((e) => e.type).sort()).toEqual(['contact_entered', 'shipping_chosen']);
    const row = await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token: s.token } });
    expect(row.contactEnteredAt).not.toBeNull();
    expect(row.shippingChosenAt).not.toBeNull();
    expect(row.status).toBe('OPEN');

    const after = (await get(`/api/merchant/stats/funnel?from=${day}&to=${next}`, a.token)).body.steps as Json[];
    expect(after.map((x) => x.sessions)).toEqual(before.map((x, i) => x.sessions + (i === 1 || i === 2 ? 1 : 0)));
  });

  it('given concurrent reports of one step / it is recorded once', async () => {
    const s = rowsA.filter((r) => r.status === 'OPEN' && r.source !== 'preview' && !r.contactEnteredAt)[3]!;
    const answers = await Promise.all(Array.from({ length: 6 }, () => progress(s.token, 'contact_entered')));
    expect(answers.filter((r) => r.body.recorded === true)).toHaveLength(1);
    expect(await stack.database.db.sessionEvent.count({ where: { token: s.token, type: 'contact_entered' } })).toBe(1);
  });

  it('given shipping reported before contact / both steps count (milestones are cumulative)', async () => {
    const s = rowsA.filter((r) => r.status === 'OPEN' && r.source !== 'preview' && !r.contactEnteredAt)[5]!;
    expect((await progress(s.token, 'shipping_chosen')).body).toEqual({ recorded: true });
    const row = await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token: s.token } });
    expect(row.contactEnteredAt).toEqual(row.shippingChosenAt);
    expect(row.shippingChosenAt).not.toBeNull();
    // Contact reported afterwards: already reached, nothing new.
    expect((await progress(s.token, 'contact_entered')).body).toEqual({ recorded: false });
  });

  it('given a preview or a finished session / nothing is recorded', async () => {
    const preview = rowsA.find((r) => r.source === 'preview' && !r.contactEnteredAt)!;
    expect((await progress(preview.token, 'contact_entered')).body).toEqual({ recorded: false });
    const abandoned = rowsA.find((r) => r.status === 'ABANDONED' && !r.contactEnteredAt && r.source !== 'preview')!;
    expect((await progress(abandoned.token, 'contact_entered')).body).toEqual({ recorded: false });
    expect(await stack.database.db.sessionEvent.count({ where: { token: { in: [preview.token, abandoned.token] }, type: 'contact_entered' } })).toBe(0);
  });

  it('given bad input / 404 for an unknown token, 400 for another step or extra fields', async () => {
    const unknown = await progress(`cs_${'x'.repeat(32)}`, 'contact_entered');
    expect([unknown.status, unknown.body.code]).toEqual([404, 'NOT_FOUND']);
    expect((await progress('not-a-token', 'contact_entered')).status).toBe(404);
    const s = openSession();
    for (const body of [{ step: 'payment_started' }, { step: 'contact_entered', email: 'x@y.z' }, {}]) {
      const res = await stack.app.inject({ method: 'POST', url: `/api/checkout/${s.token}/progress`, payload: body, remoteAddress: '198.51.100.250' });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().code).toBe('INVALID_INPUT');
    }
  });

  it('given more reports than the dedicated limit from one address / 429 RATE_LIMITED with Retry-After', async () => {
    const s = openSession();
    const answers = [];
    for (let i = 0; i < 9; i++) answers.push(await progress(s.token, 'contact_entered', '203.0.113.77'));
    expect(answers.slice(0, 8).every((r) => r.status === 200)).toBe(true);
    expect([answers[8]!.status, answers[8]!.body.code]).toEqual([429, 'RATE_LIMITED']);
    expect(answers[8]!.headers['retry-after']).toBeDefined();
  });
});
