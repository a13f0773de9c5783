// Statistics for a big merchant: N checkout sessions (`npm run bench -- stats <N>`, default 100k; ~3.6 timeline events
// each) of one merchant, beside 20k of another, seeded in real PostgreSQL with one INSERT … SELECT over generate_series
// (scripts/lib/stack/stats-seed.ts; the rollup triggers run on every row), then VACUUM ANALYZE as autovacuum would do after
// such a load. Measured over real loopback HTTP, one request at a time, interleaved one for one with the baseline: GET
// /api/merchant/stats and /stats/funnel over the merchant's whole year (the worst case; whole UTC days from the daily
// rollups, the two partial days from the sessions) and over the last 30 days (the dashboard's default), and the first
// page of the orders list. Baseline: a bare Fastify route in the same process doing one primary-key read through the
// same Prisma client (what any JWT route pays anyway). Also: the former raw queries' time over the year (in process),
// whether the rollups answer what they answer, what a status write pays with and without the trigger, and the time of
// one merchant's rebuild. EXPLAIN shows the plan of the raw stats query. Target at 1M: year and funnel p50 < 100 ms,
// p99 < 250 ms.
import http from 'node:http';
import Fastify from 'fastify';
import pg from 'pg';
import { Client, Connection } from '@temporalio/client';
import { buildApp } from '../../api/app.js';
import { rawStats, rollupStats, statsGroupsSql } from '../../api/routes/merchant/stats.js';
import { loadConfig } from '../../config/index.js';
import { createDb, Prisma } from '../../prisma/client.js';
import { migrate } from '../../prisma/migrate.js';
import { startPostgres } from '../lib/stack/postgres.js';
import { atBenchExit } from './stack.js';
import { seedCheckoutSessions } from '../lib/stack/stats-seed.js';
import { percentile } from './load.js';

const DAY_MS = 24 * 60 * 60 * 1000;

function get(agent: http.Agent, url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const t0 = performance.now();
    const req = http.request({ agent, method: 'GET', host: u.hostname, port: u.port, path: u.pathname + u.search, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`${url} answered ${res.statusCode}: ${Buffer.concat(chunks).toString('utf8').slice(0, 200)}`));
        else resolve(performance.now() - t0);
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

export async function benchStats(opts: { sessions?: number; others?: number; rounds?: number } = {}): Promise<Record<string, number>> {
  const sessions = opts.sessions ?? 100_000;
  const others = opts.others ?? 20_000;
  const rounds = opts.rounds ?? 60;
  const postgres = await startPostgres();
  const stopPostgres = atBenchExit(postgres.stop);
  const connection = Connection.lazy({ address: '127.0.0.1:1' }); // no Temporal on these routes: never dialled
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let db: ReturnType<typeof createDb> | undefined;
  const closers: Array<() => Promise<unknown>> = [];
  try {
    const admin = new pg.Client({ connectionString: postgres.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE checkout_bench_stats');
    await admin.end();
    const url = postgres.url('checkout_bench_stats');
    await migrate(url);
    db = createDb(url, { max: 4 });
    const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', JWT_SECRET: 'bench-secret-bench-secret-bench-secret-00', SECRETS_KEY: Buffer.alloc(32, 1).toString('base64'), SANDBOX_ENABLED: 'false' });
    const merchant = await db.merchant.create({ data: { email: 'big@bench.test', passwordHash: 'x', shopName: 'Big Store', phone: '+4912345678', slug: 'big-store' } });
    const other = await db.merchant.create({ data: { email: 'other@bench.test', passwordHash: 'x', shopName: 'Other', phone: '+4912345678', slug: 'other-store' } });

    // A year of sessions ending now; the other merchant's interleaved in the same index.
    const now = Date.now();
    const span = 360 * DAY_MS;
    const t0 = performance.now();
    const seeded = await seedCheckoutSessions(db, { merchantId: merchant.id, count: sessions, seed: 'bench-big', start: new Date(now - span), stepMs: Math.floor(span / sessions) });
    await seedCheckoutSessions(db, { merchantId: other.id, count: others, seed: 'bench-other', start: new Date(now - span), stepMs: Math.floor(span / others) });
    const seedMs = performance.now() - t0;
    await db.$executeRawUnsafe('VACUUM ANALYZE checkout_sessions');
    await db.$executeRawUnsafe('VACUUM ANALYZE session_events');

    const app = await buildApp({ config, db, temporal: { client: new Client({ connection }), connection }, logger: false });
    const apiUrl = await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => app.close());
    const auth = { authorization: `Bearer ${await app.issueSessionToken({ merchantId: merchant.id, shopDomain: '' })}` };

    const bare = Fastify({ logger: false });
    const readMerchant = db.merchant;
    bare.get<{ Params: { id: string } }>('/bare/merchant/:id', async (request) => readMerchant.findUniqueOrThrow({ where: { id: request.params.id }, select: { id: true, slug: true } }));
    const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => bare.close());

    const year = `from=${encodeURIComponent(new Date(now - 365 * DAY_MS).toISOString())}&to=${encodeURIComponent(new Date(now + 60_000).toISOString())}`;
    const targets = {
      statsYear: `${apiUrl}/api/merchant/stats?${year}`,
      funnelYear: `${apiUrl}/api/merchant/stats/funnel?${year}`,
      stats30d: `${apiUrl}/api/merchant/stats`,
      ordersPage: `${apiUrl}/api/checkout/merchant/orders`,
      bare: `${bareUrl}/bare/merchant/${merchant.id}`,
    };
    const timings = Object.fromEntries(Object.keys(targets).map((k) => [k, [] as number[]])) as Record<keyof typeof targets, number[]>;
    for (let i = 0; i < 5; i++) for (const url of Object.values(targets)) await get(agent, url, auth); // warm-up, not measured
    for (let i = 0; i < rounds; i++) {
      // Interleaved, the order rotating each round, so drift and caches fall on all alike.
      const names = Object.keys(targets) as Array<keyof typeof targets>;
      for (let j = 0; j < names.length; j++) {
        const name = names[(i + j) % names.length]!;
        timings[name].push(await get(agent, targets[name], auth));
      }
    }

    // The plan of the stats query over the whole year (indexOnlyScan: 1 when it is an index-only scan of checkout_sessions_stats_idx).
    const from = new Date(now - 365 * DAY_MS);
    const to = new Date(now + 60_000);
    const plan = await db.$queryRaw<Array<{ 'QUERY PLAN': string }>>(Prisma.sql`EXPLAIN (ANALYZE, BUFFERS) ${statsGroupsSql(merchant.id, from, to)}`);
    const planText = plan.map((r) => r['QUERY PLAN']).join('\n');
    console.log(`  [plan]\n${planText.split('\n').map((l) => `    ${l}`).join('\n')}`);
    const rolled = await rollupStats(db, merchant.id, from, to);
    const counted = rolled.groups.reduce((n, g) => n + g.sessions, 0);
    // The rollups must answer what the sessions alone answer (the definition), and the raw queries' own time over
    // the year, in process (no HTTP), is what the route paid before the rollups.
    const rawTimes: number[] = [];
    let raw = await rawStats(db, merchant.id, from, to);
    for (let i = 0; i < 10; i++) {
      const r0 = performance.now();
      raw = await rawStats(db, merchant.id, from, to);
      rawTimes.push(performance.now() - r0);
    }
    const rollupEqualsRaw = JSON.stringify(rolled) === JSON.stringify(raw) ? 1 : 0;
    // The whole year is most of the table: the planner may well read the table instead (docs/orders-and-stats.md).
    // The dashboard's default, the last 30 days, is a small part of it: the index alone must answer.
    const plan30d = await db.$queryRaw<Array<{ 'QUERY PLAN': string }>>(Prisma.sql`EXPLAIN ${statsGroupsSql(merchant.id, new Date(now - 30 * DAY_MS), new Date(now + 60_000))}`);
    const plan30dText = plan30d.map((r) => r['QUERY PLAN']).join('\n');
    console.log(`  [plan, last 30 days]\n${plan30dText.split('\n').map((l) => `    ${l}`).join('\n')}`);

    // What the rollups cost on the write path: one status write per transaction (each toggles a session between OPEN
    // and ABANDONED, so the trigger moves a count between two rollup rows), in batches alternating with the trigger on
    // and off; then the rows are recounted by stats_rollup_rebuild() for the merchant (timed: the durable job's work).
    const writer = new pg.Client({ connectionString: url });
    await writer.connect();
    const tokens = (await writer.query<{ token: string }>(`SELECT token FROM checkout_sessions WHERE merchant_id = $1 AND status IN ('OPEN', 'ABANDONED') LIMIT 2000`, [merchant.id])).rows.map((r) => r.token);
    const writes: Record<'on' | 'off', number[]> = { on: [], off: [] };
    for (let b = 0; b < 10; b++) {
      const mode = b % 2 === 0 ? 'on' : 'off';
      await writer.query(`ALTER TABLE checkout_sessions ${mode === 'on' ? 'ENABLE' : 'DISABLE'} TRIGGER checkout_sessions_stats_rollup_upd`);
      for (const token of tokens.slice(b * 200, b * 200 + 200)) {
        const w0 = performance.now();
        await writer.query(`UPDATE checkout_sessions SET status = CASE status WHEN 'OPEN' THEN 'ABANDONED' ELSE 'OPEN' END WHERE token = $1`, [token]);
        writes[mode].push(performance.now() - w0);
      }
    }
    await writer.query('ALTER TABLE checkout_sessions ENABLE TRIGGER checkout_sessions_stats_rollup_upd');
    const rb0 = performance.now();
    await writer.query('SELECT stats_rollup_rebuild($1::uuid, NULL, NULL)', [merchant.id]);
    const rebuildSeconds = (performance.now() - rb0) / 1000;
    const afterRebuild = JSON.stringify(await rollupStats(db, merchant.id, from, to)) === JSON.stringify(await rawStats(db, merchant.id, from, to)) ? 1 : 0;
    await writer.end();
    const wp = (mode: 'on' | 'off', q: number) => percentile([...writes[mode]].sort((x, y) => x - y), q);

    const p = (name: keyof typeof targets, q: number) => percentile([...timings[name]].sort((x, y) => x - y), q);
    return {
      sessionsSeeded: seeded.sessions,
      eventsSeeded: seeded.events,
      otherMerchantSessions: others,
      seedSeconds: seedMs / 1000,
      sessionsCountedYear: counted,
      rollupEqualsRaw,
      rollupRows: Number((await db.$queryRaw<Array<{ n: bigint }>>`SELECT count(*) AS n FROM merchant_stats_daily`)[0]?.n ?? 0),
      rawQueriesYearP50Ms: percentile([...rawTimes].sort((x, y) => x - y), 50),
      indexOnlyScan: /Index Only Scan using checkout_sessions_stats_idx/.test(planText) ? 1 : 0,
      indexOnlyScan30d: /Index Only Scan using checkout_sessions_stats_idx/.test(plan30dText) ? 1 : 0,
      rounds,
      statsYearP50Ms: p('statsYear', 50),
      statsYearP99Ms: p('statsYear', 99),
      funnelYearP50Ms: p('funnelYear', 50),
      funnelYearP99Ms: p('funnelYear', 99),
      stats30dP50Ms: p('stats30d', 50),
      stats30dP99Ms: p('stats30d', 99),
      ordersPageP50Ms: p('ordersPage', 50),
      ordersPageP99Ms: p('ordersPage', 99),
      statusWriteRollupsP50Ms: wp('on', 50),
      statusWriteRollupsP99Ms: wp('on', 99),
      statusWriteNoTriggerP50Ms: wp('off', 50),
      statusWriteNoTriggerP99Ms: wp('off', 99),
      rebuildMerchantSeconds: rebuildSeconds,
      rollupEqualsRawAfterRebuild: afterRebuild,
      bareReadP50Ms: p('bare', 50),
      bareReadP99Ms: p('bare', 99),
      ratioStatsYearP50: p('statsYear', 50) / p('bare', 50),
      ratioFunnelYearP50: p('funnelYear', 50) / p('bare', 50),
    };
  } finally {
    agent.destroy();
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await connection.close().catch(() => undefined);
    await db?.$disconnect();
    await stopPostgres();
  }
}
