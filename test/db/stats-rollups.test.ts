// The daily statistics rollups (docs/orders-and-stats.md, "Daily rollups") answer exactly what the queries over the
// sessions alone answer (rawStats, the definition), for any history and any range: generated histories of several
// merchants (sessions near UTC midnight, several currencies, previews, status changes, partial and full refunds made
// after later sessions, recovery reminders, upsells paid then refunded, deleted sessions) against ranges with
// arbitrary instants and local midnights of several time zones. Then: the durable rebuild repairs rollups that were
// made wrong, and the migration fills the days from before it.
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawStats, rollupStats, splitRange } from '../../api/routes/merchant/stats.js';
import { createStatsRollupsActivities } from '../../activities/stats/stats-rollups.js';
import { rebuildStatsRollupsWorkflow } from '../../workflows/stats/stats-rollups.js';
import { migrate, MIGRATIONS_DIR } from '../../prisma/migrate.js';
import { createEmptyDatabase, createTestDatabase, type TestDatabase } from '../harness/db.js';
import { connectTestTemporal, type TestTemporal } from '../harness/temporal.js';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
const BASE = Date.UTC(2026, 9, 10); // the histories fall on 2026-10-10 … 2026-10-16
const CURRENCIES = ['EUR', 'SEK', 'JPY', 'USD'] as const;
const STATUSES = ['OPEN', 'PAYMENT_PENDING', 'COD_CONFIRMED', 'COMPLETED', 'ON_HOLD', 'FAILED', 'REFUNDED', 'ABANDONED'] as const;

let database: TestDatabase;
let merchants: string[] = [];
const cleanups: Array<() => Promise<unknown> | unknown> = [];

beforeAll(async () => {
  database = await createTestDatabase();
  cleanups.push(() => database.drop());
  merchants = [];
  for (const n of [1, 2, 3]) {
    const m = await database.db.merchant.create({ data: { email: `m${n}@rollups.test`, passwordHash: 'x', shopName: `Shop ${n}`, phone: '+4912345678', slug: `rollups-${n}` } });
    merchants.push(m.id);
  }
});
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

interface SessionSpec {
  merchant: number;
  createdAt: number;
  currency: (typeof CURRENCIES)[number];
  preview: boolean;
  status: (typeof STATUSES)[number];
  milestones: number; // 0..4: none, contact, shipping, payment, cod paid
  totalMinor: number | null;
  reminders: number;
}
type Change =
  | { kind: 'status'; to: (typeof STATUSES)[number] }
  | { kind: 'partialRefund'; amount: number }
  | { kind: 'fullRefund' }
  | { kind: 'complete'; afterReminder: boolean }
  | { kind: 'remind' }
  | { kind: 'restored' }
  | { kind: 'upsell'; paid: boolean; currency: (typeof CURRENCIES)[number]; amount: number }
  | { kind: 'upsellRefund' }
  | { kind: 'total'; totalMinor: number | null }
  | { kind: 'delete' };

// Sessions cluster near UTC midnights (± a few minutes) as well as anywhere in the week.
const createdAt = fc.oneof(
  fc.integer({ min: 0, max: 7 * DAY - 1 }).map((ms) => BASE + ms),
  fc.tuple(fc.integer({ min: 0, max: 7 }), fc.integer({ min: -5 * 60_000, max: 5 * 60_000 })).map(([d, ms]) => BASE + d * DAY + ms),
);
const sessionSpec: fc.Arbitrary<SessionSpec> = fc.record({
  merchant: fc.integer({ min: 0, max: 2 }),
  createdAt,
  currency: fc.constantFrom(...CURRENCIES),
  preview: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
  status: fc.constantFrom(...STATUSES),
  milestones: fc.integer({ min: 0, max: 4 }),
  totalMinor: fc.option(fc.integer({ min: 1000, max: 90_000 }), { nil: null, freq: 5 }),
  reminders: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3 })),
});
const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ kind: fc.constant('status' as const), to: fc.constantFrom(...STATUSES) }),
  fc.record({ kind: fc.constant('partialRefund' as const), amount: fc.integer({ min: 1, max: 900 }) }),
  fc.constant({ kind: 'fullRefund' as const }),
  fc.record({ kind: fc.constant('complete' as const), afterReminder: fc.boolean() }),
  fc.constant({ kind: 'remind' as const }),
  fc.constant({ kind: 'restored' as const }),
  fc.record({ kind: fc.constant('upsell' as const), paid: fc.boolean(), currency: fc.constantFrom(...CURRENCIES), amount: fc.integer({ min: 100, max: 5000 }) }),
  fc.constant({ kind: 'upsellRefund' as const }),
  fc.record({ kind: fc.constant('total' as const), totalMinor: fc.option(fc.integer({ min: 1000, max: 90_000 }), { nil: null }) }),
  fc.constant({ kind: 'delete' as const }),
);
// A history: the sessions, then changes to them in any order (a refund days after later sessions were created).
const history = fc.array(sessionSpec, { minLength: 1, maxLength: 40 }).chain((sessions) =>
  fc.record({
    sessions: fc.constant(sessions),
    changes: fc.array(fc.tuple(fc.integer({ min: 0, max: sessions.length - 1 }), change), { maxLength: 60 }),
  }),
);

// Ranges: arbitrary instants, whole UTC days, and local midnights of UTC+05:30, UTC-08:00 and UTC+13:45 (the API takes
// any ISO date-time with an offset).
const instant = fc.integer({ min: -DAY, max: 8 * DAY }).map((ms) => BASE + ms);
const localMidnight = fc.tuple(fc.integer({ min: -1, max: 8 }), fc.constantFrom(5.5 * HOUR, -8 * HOUR, 13.75 * HOUR, 0)).map(([d, offset]) => BASE + d * DAY - offset);
const range = fc
  .tuple(fc.oneof(instant, localMidnight), fc.oneof(instant, localMidnight))
  .filter(([a, b]) => a !== b)
  .map(([a, b]) => [new Date(Math.min(a, b)), new Date(Math.max(a, b))] as const);

const T = (ms: number) => new Date(ms).toISOString();

async function play(h: { sessions: SessionSpec[]; changes: Array<[number, Change]> }): Promise<void> {
  const db = database.db;
  const tokens: string[] = [];
  for (const s of h.sessions) {
    const token = `${s.preview ? 'prev' : 'cs'}_${randomUUID()}`;
    tokens.push(token);
    const at = (step: number) => (s.milestones >= step ? T(s.createdAt + step * 60_000) : null);
    await db.$executeRaw`
      INSERT INTO checkout_sessions (token, merchant_id, platform, status, source, currency, fx_rates, items, subtotal_minor, total_minor,
        contact_entered_at, shipping_chosen_at, payment_started_at, cod_paid_at, recovery_reminders_sent, recovery_reminder_sent_at, created_at, updated_at)
      VALUES (${token}, ${merchants[s.merchant]}::uuid, 'STOREFRONT_B', ${s.status}, ${s.preview ? 'preview' : 'store_cart'}, ${s.currency}, '{}', '[]', 1000,
        ${s.totalMinor}, ${at(1)}::timestamptz, ${at(2)}::timestamptz, ${at(3)}::timestamptz, ${at(4)}::timestamptz,
        ${s.reminders}, ${s.reminders > 0 ? T(s.createdAt + HOUR) : null}::timestamptz, ${T(s.createdAt)}::timestamptz, now())`;
  }
  for (const [i, c] of h.changes) {
    const token = tokens[i]!;
    switch (c.kind) {
      case 'status':
        await db.$executeRaw`UPDATE checkout_sessions SET status = ${c.to} WHERE token = ${token}`;
        break;
      case 'partialRefund': // money given back, days later; the order stays as it is
        await db.$executeRaw`UPDATE checkout_sessions SET refunded_minor = refunded_minor + ${c.amount}, refunded_at = now() WHERE token = ${token}`;
        break;
      case 'fullRefund':
        await db.$executeRaw`UPDATE checkout_sessions SET status = 'REFUNDED', refunded_minor = COALESCE(total_minor, refunded_minor), refunded_at = now() WHERE token = ${token}`;
        break;
      case 'complete':
        await db.$executeRaw`UPDATE checkout_sessions SET status = 'COMPLETED', payment_started_at = COALESCE(payment_started_at, created_at),
          completed_at = CASE WHEN ${c.afterReminder} THEN created_at + interval '2 hours' ELSE created_at + interval '30 minutes' END WHERE token = ${token}`;
        break;
      case 'remind':
        await db.$executeRaw`UPDATE checkout_sessions SET recovery_reminders_sent = recovery_reminders_sent + 1,
          recovery_reminder_sent_at = COALESCE(recovery_reminder_sent_at, created_at + interval '1 hour') WHERE token = ${token}`;
        break;
      case 'restored':
        await db.$executeRaw`UPDATE checkout_sessions SET recovered_from = CASE WHEN recovered_from IS NULL THEN 'cs_original' END WHERE token = ${token}`;
        break;
      case 'upsell': {
        const [row] = await db.$queryRaw<Array<{ merchant_id: string }>>`SELECT merchant_id::text FROM checkout_sessions WHERE token = ${token}`;
        if (!row) break;
        await db.$executeRaw`INSERT INTO upsell_purchases (id, token, merchant_id, upsell_id, title, product_id, amount_minor, currency, status, updated_at)
          VALUES (gen_random_uuid(), ${token}, ${row.merchant_id}::uuid, gen_random_uuid(), 'Socks', '7', ${c.amount}, ${c.currency}, ${c.paid ? 'PAID' : 'PENDING'}, now())`;
        break;
      }
      case 'upsellRefund': // the first paid upsell refunded, a pending one paid
        await db.$executeRaw`UPDATE upsell_purchases SET status = CASE status WHEN 'PAID' THEN 'REFUNDED' WHEN 'PENDING' THEN 'PAID' ELSE status END
          WHERE id = (SELECT id FROM upsell_purchases WHERE token = ${token} ORDER BY id LIMIT 1)`;
        break;
      case 'total':
        await db.$executeRaw`UPDATE checkout_sessions SET total_minor = ${c.totalMinor} WHERE token = ${token}`;
        break;
      case 'delete':
        await db.$executeRaw`DELETE FROM checkout_sessions WHERE token = ${token}`;
        break;
    }
  }
}

async function reset(): Promise<void> {
  await database.db.$executeRaw`DELETE FROM checkout_sessions`;
  // Every session gone through the triggers: what is left of the rollups sums to nothing.
  const [left] = await database.db.$queryRaw<Array<{ n: number }>>`
    SELECT (SELECT count(*) FROM merchant_stats_daily WHERE sessions <> 0 OR total_minor <> 0 OR refunded_minor <> 0 OR reminders_sent <> 0 OR recovered_minor <> 0)::int
         + (SELECT count(*) FROM merchant_upsells_daily WHERE accepted <> 0 OR amount_minor <> 0)::int AS n`;
  expect(left?.n).toBe(0);
  await database.db.$executeRaw`DELETE FROM merchant_stats_daily`;
  await database.db.$executeRaw`DELETE FROM merchant_upsells_daily`;
}

/** The rollup tables as a fresh recount from the rows would write them (zero rows dropped). */
async function rollupTables(): Promise<unknown> {
  const stats = await database.db.$queryRaw`SELECT * FROM merchant_stats_daily WHERE sessions <> 0 ORDER BY merchant_id, day, currency, status`;
  const upsells = await database.db.$queryRaw`SELECT * FROM merchant_upsells_daily WHERE accepted <> 0 ORDER BY merchant_id, day, currency`;
  return JSON.parse(JSON.stringify({ stats, upsells }, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
}

describe('splitRange', () => {
  it('given a range / it cuts it at UTC midnights into whole days and at most two edges shorter than a day', () => {
    expect(splitRange(new Date('2026-10-10T18:30:00Z'), new Date('2026-10-13T18:30:00Z'))).toEqual({
      firstDay: '2026-10-11',
      endDay: '2026-10-13',
      edges: [[new Date('2026-10-10T18:30:00Z'), new Date('2026-10-11T00:00:00Z')], [new Date('2026-10-13T00:00:00Z'), new Date('2026-10-13T18:30:00Z')]],
    });
    expect(splitRange(new Date('2026-10-10T00:00:00Z'), new Date('2026-10-12T00:00:00Z'))).toEqual({ firstDay: '2026-10-10', endDay: '2026-10-12', edges: [] });
    const inside = splitRange(new Date('2026-10-10T01:00:00Z'), new Date('2026-10-10T23:00:00Z'));
    expect(inside.firstDay).toBe(inside.endDay);
    expect(inside.edges).toEqual([[new Date('2026-10-10T01:00:00Z'), new Date('2026-10-10T23:00:00Z')]]);
  });
});

describe('daily stats rollups', () => {
  it('given generated histories of several merchants / for any range / the rollup-backed answers equal the raw queries', async () => {
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(history, fc.array(range, { minLength: 4, maxLength: 8 }), async (h, ranges) => {
        await reset();
        await play(h);
        // Always the whole week too, and a few fixed ranges in other time zones (local midnight to local midnight).
        const all: Array<readonly [Date, Date]> = [
          ...ranges,
          [new Date(BASE - DAY), new Date(BASE + 9 * DAY)],
          [new Date('2026-10-10T00:00:00+05:30'), new Date('2026-10-14T00:00:00+05:30')],
          [new Date('2026-10-11T00:00:00-08:00'), new Date('2026-10-13T00:00:00-08:00')],
        ];
        for (const merchantId of merchants) {
          for (const [from, to] of all) {
            expect(await rollupStats(database.db, merchantId, from, to), `${merchantId} ${from.toISOString()}…${to.toISOString()}`).toEqual(
              await rawStats(database.db, merchantId, from, to),
            );
            compared += 1;
          }
        }
        // The rows the triggers kept equal a recount from scratch, row for row.
        const kept = await rollupTables();
        await database.db.$queryRaw`SELECT stats_rollup_rebuild(NULL, NULL, NULL)`;
        expect(await rollupTables()).toEqual(kept);
      }),
      { numRuns: 25, seed: 20261129, endOnFailure: true },
    );
    expect(compared).toBeGreaterThan(25 * 3 * 6);
  }, 300_000);

  it('given a history with money in every figure / the comparison is not vacuous', async () => {
    await reset();
    const m = merchants[0]!;
    await play({
      sessions: [
        { merchant: 0, createdAt: BASE + 23 * HOUR + 59 * 60_000, currency: 'EUR', preview: false, status: 'COMPLETED', milestones: 3, totalMinor: 5000, reminders: 1 },
        { merchant: 0, createdAt: BASE + DAY + 60_000, currency: 'SEK', preview: false, status: 'COD_CONFIRMED', milestones: 4, totalMinor: 7000, reminders: 0 },
        { merchant: 0, createdAt: BASE + 2 * DAY, currency: 'EUR', preview: true, status: 'COMPLETED', milestones: 3, totalMinor: 9000, reminders: 0 },
      ],
      changes: [
        [0, { kind: 'complete', afterReminder: true }],
        [0, { kind: 'upsell', paid: true, currency: 'EUR', amount: 1500 }],
        [0, { kind: 'partialRefund', amount: 700 }],
        [2, { kind: 'upsell', paid: true, currency: 'EUR', amount: 1500 }],
      ],
    });
    const from = new Date(BASE - DAY);
    const to = new Date(BASE + 3 * DAY);
    const rolled = await rollupStats(database.db, m, from, to);
    expect(rolled).toEqual(await rawStats(database.db, m, from, to));
    expect(rolled.groups.map((g) => [g.currency, g.status, g.sessions, g.totalMinor, g.refundedMinor])).toEqual([['EUR', 'COMPLETED', 1, 5000, 700], ['SEK', 'COD_CONFIRMED', 1, 7000, 0]]);
    expect(rolled.upsells).toEqual([{ currency: 'EUR', accepted: 1, amountMinor: 1500 }]);
    expect(rolled.recovery).toEqual({ remindedSessions: 1, remindersSent: 1, recoveredOrders: 1, recovered: [{ currency: 'EUR', orders: 1, amountMinor: 4300 }] });
    // The EUR session, 23:59 UTC on the 10th, is 05:29 on the 11th in UTC+05:30: in that local day with the SEK one
    // (00:01 UTC on the 11th), but not in the UTC day of the 11th.
    const localFrom = new Date('2026-10-11T00:00:00+05:30');
    const localTo = new Date('2026-10-12T00:00:00+05:30');
    const local = await rollupStats(database.db, m, localFrom, localTo);
    expect(local.groups.map((g) => g.currency)).toEqual(['EUR', 'SEK']);
    expect(local).toEqual(await rawStats(database.db, m, localFrom, localTo));
    const utcDay = await rollupStats(database.db, m, new Date('2026-10-11T00:00:00Z'), new Date('2026-10-12T00:00:00Z'));
    expect(utcDay.groups.map((g) => g.currency)).toEqual(['SEK']);
  });
});

describe('deleting a merchant', () => {
  it('given a merchant with sessions, upsells and rollups / when it is deleted / its rollup rows go with it and the others stay exact', async () => {
    await reset();
    const gone = await database.db.merchant.create({ data: { email: 'gone@rollups.test', passwordHash: 'x', shopName: 'Gone', phone: '+4912345678', slug: 'rollups-gone' } });
    const all = [...merchants, gone.id];
    const saved = merchants;
    merchants = all;
    try {
      await play({
        sessions: fc.sample(sessionSpec, { numRuns: 40, seed: 11 }).map((s, i) => ({ ...s, merchant: i % 2 === 0 ? 3 : s.merchant })),
        changes: fc.sample(fc.tuple(fc.integer({ min: 0, max: 39 }), change), { numRuns: 30, seed: 12 }).filter(([, c]) => c.kind !== 'delete'),
      });
    } finally {
      merchants = saved;
    }
    await database.db.merchant.delete({ where: { id: gone.id } });
    const [left] = await database.db.$queryRaw<Array<{ n: number }>>`
      SELECT ((SELECT count(*) FROM merchant_stats_daily WHERE merchant_id = ${gone.id}::uuid) + (SELECT count(*) FROM merchant_upsells_daily WHERE merchant_id = ${gone.id}::uuid))::int AS n`;
    expect(left?.n).toBe(0);
    for (const merchantId of merchants) expect(await rollupStats(database.db, merchantId, new Date(BASE - DAY), new Date(BASE + 9 * DAY))).toEqual(await rawStats(database.db, merchantId, new Date(BASE - DAY), new Date(BASE + 9 * DAY)));
  });
});

describe('rebuildStatsRollupsWorkflow', () => {
  let temporal: TestTemporal;
  beforeAll(async () => {
    temporal = await connectTestTemporal();
    cleanups.push(() => temporal.close());
  });

  it('given rollups made wrong (a row changed, a row gone, a stray row) / when the durable job runs / they equal a recount and the raw answers again', async () => {
    await reset();
    const specs = fc.sample(sessionSpec, { numRuns: 120, seed: 7 });
    const changes = fc.sample(fc.tuple(fc.integer({ min: 0, max: 119 }), change), { numRuns: 80, seed: 8 });
    await play({ sessions: specs, changes });
    const right = await rollupTables();
    const from = new Date(BASE - DAY);
    const to = new Date(BASE + 9 * DAY);
    const m = merchants[0]!;

    await database.db.$executeRaw`UPDATE merchant_stats_daily SET sessions = sessions + 5, refunded_minor = refunded_minor + 99 WHERE ctid = (SELECT ctid FROM merchant_stats_daily WHERE merchant_id = ${m}::uuid AND sessions > 0 LIMIT 1)`;
    await database.db.$executeRaw`DELETE FROM merchant_stats_daily WHERE ctid = (SELECT ctid FROM merchant_stats_daily WHERE merchant_id = ${m}::uuid AND sessions > 0 OFFSET 1 LIMIT 1)`;
    await database.db.$executeRaw`DELETE FROM merchant_upsells_daily`;
    await database.db.$executeRaw`INSERT INTO merchant_stats_daily (merchant_id, day, currency, status, sessions) VALUES (${m}::uuid, '2026-10-12', 'CHF', 'COMPLETED', 3)`;
    expect(await rollupStats(database.db, m, from, to)).not.toEqual(await rawStats(database.db, m, from, to));

    const result = await temporal.withWorker(createStatsRollupsActivities({ db: database.db }), () =>
      temporal.client.workflow.execute(rebuildStatsRollupsWorkflow, { taskQueue: temporal.taskQueue, workflowId: `stats-rollups-${randomUUID()}`, args: [{}] }),
    );

    const [span] = await database.db.$queryRaw<Array<{ days: number }>>`
      SELECT ((max(created_at) AT TIME ZONE 'UTC')::date - (min(created_at) AT TIME ZONE 'UTC')::date + 1)::int AS days FROM checkout_sessions`;
    expect(result.days).toBe(span?.days); // every day from the first session's to the last's
    expect(await rollupTables()).toEqual(right);
    for (const merchantId of merchants) expect(await rollupStats(database.db, merchantId, from, to)).toEqual(await rawStats(database.db, merchantId, from, to));

    // One merchant over given days: the others' rows are left alone.
    await database.db.$executeRaw`UPDATE merchant_stats_daily SET sessions = sessions + 1`;
    await temporal.withWorker(createStatsRollupsActivities({ db: database.db }), () =>
      temporal.client.workflow.execute(rebuildStatsRollupsWorkflow, {
        taskQueue: temporal.taskQueue,
        workflowId: `stats-rollups-${randomUUID()}`,
        args: [{ merchantId: m, fromDay: '2026-10-01', toDay: '2026-11-01' }],
      }),
    );
    expect(await rollupStats(database.db, m, from, to)).toEqual(await rawStats(database.db, m, from, to));
    expect(await rollupStats(database.db, merchants[1]!, from, to)).not.toEqual(await rawStats(database.db, merchants[1]!, from, to));
  }, 120_000);
});

describe('migration 20261129160000_stats_daily_rollups', () => {
  it('given sessions and upsells from before it / it fills their days', async () => {
    const MIGRATION = '20261129160000_stats_daily_rollups';
    const dir = mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    for (const name of readdirSync(MIGRATIONS_DIR)) if (name.endsWith('.toml') || name < MIGRATION) cpSync(path.join(MIGRATIONS_DIR, name), path.join(dir, name), { recursive: true });
    const empty = await createEmptyDatabase();
    cleanups.push(() => empty.drop());
    await migrate(empty.url, { dir });
    const client = new pg.Client({ connectionString: empty.url });
    await client.connect();
    cleanups.push(() => client.end());
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO merchants (id, email, password_hash, shop_name, phone, slug, updated_at) VALUES (gen_random_uuid(), 'old@shop.test', 'x', 'Old', '+49301234', 'old', now()) RETURNING id`,
    );
    const merchantId = rows[0]!.id;
    await client.query(
      `INSERT INTO checkout_sessions (token, merchant_id, platform, status, source, currency, fx_rates, items, subtotal_minor, total_minor, refunded_minor, payment_started_at, created_at, updated_at)
       SELECT 'cs_old_' || i, $1, 'STOREFRONT_B', (ARRAY['COMPLETED', 'ABANDONED', 'REFUNDED'])[1 + i % 3], CASE WHEN i % 7 = 0 THEN 'preview' ELSE 'store_cart' END,
              (ARRAY['EUR', 'USD'])[1 + i % 2], '{}', '[]', 1000, 1000 + i, CASE WHEN i % 5 = 0 THEN 100 ELSE 0 END, now(), $2::timestamptz + i * interval '97 minutes', now()
       FROM generate_series(1, 200) AS i`,
      [merchantId, T(BASE)],
    );
    await client.query(
      `INSERT INTO upsell_purchases (id, token, merchant_id, upsell_id, title, product_id, amount_minor, currency, status, updated_at)
       SELECT gen_random_uuid(), 'cs_old_' || i, $1, gen_random_uuid(), 'Socks', '7', 500, 'EUR', 'PAID', now() FROM generate_series(1, 200, 3) AS i`,
      [merchantId],
    );
    await migrate(empty.url);
    const { rows: filled } = await client.query<{ sessions: string; upsells: string }>(
      `SELECT (SELECT sum(sessions) FROM merchant_stats_daily)::text AS sessions, (SELECT sum(accepted) FROM merchant_upsells_daily)::text AS upsells`,
    );
    const { rows: raw } = await client.query<{ sessions: string; upsells: string }>(
      `SELECT (SELECT count(*) FROM checkout_sessions WHERE source <> 'preview')::text AS sessions,
              (SELECT count(*) FROM upsell_purchases u JOIN checkout_sessions s USING (token) WHERE s.source <> 'preview' AND u.status = 'PAID')::text AS upsells`,
    );
    expect(filled[0]).toEqual(raw[0]);
    expect(Number(raw[0]!.sessions)).toBeGreaterThan(150);
    const { rows: perDay } = await client.query<{ diff: string }>(
      `SELECT count(*)::text AS diff FROM (
         SELECT merchant_id, (created_at AT TIME ZONE 'UTC')::date AS day, currency, status, count(*) AS n, sum(total_minor) AS t, sum(refunded_minor) AS r
         FROM checkout_sessions WHERE source <> 'preview' GROUP BY 1, 2, 3, 4
         EXCEPT SELECT merchant_id, day, currency, status, sessions, total_minor, refunded_minor FROM merchant_stats_daily) d`,
    );
    expect(perDay[0]!.diff).toBe('0');
  });
});
