// Checkout statistics and the funnel for the caller's merchant, over a date range. The whole UTC days of the range
// are read from the daily rollups (merchant_stats_daily, merchant_upsells_daily: a few rows per day, kept exact
// by triggers in the same transaction as every session and upsell write, rebuilt by rebuildStatsRollupsWorkflow;
// prisma/migrations/20261129160000_stats_daily_rollups), the partial days at either end from the sessions
// themselves, so the cost follows the number of days, not of sessions (docs/orders-and-stats.md, "Daily
// rollups"). rawStats below are the queries over the sessions alone: the definition the rollups must equal
// (test/db/stats-rollups.test.ts). The definitions (what is paid, what completes, what is revenue, refunds, holds,
// COD) are in domain/stats.ts.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type RouteDeps } from '../../route-deps.js';
import { Prisma, type Db } from '../../../prisma/client.js';
import { merchantScope, type MerchantTables } from '../../../model/merchant/merchant-scope.js';
import { summarizeFunnel, summarizeStats, type StatsGroup } from '../../../domain/stats.js';
import { errorResponse } from '../../schemas/common.js';
import { funnelResponse, STATS_MAX_DAYS, statsQuery, statsResponse } from '../../schemas/orders.js';

const tags = ['merchant'];
const auth = { security: [{ bearerAuth: [] }] };
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The query over the sessions alone (the definition; also EXPLAINed by the bench): the merchant's store-cart
 * sessions created in [from, to), per currency and status, with plain column counts (milestones are marked
 * cumulatively, see domain/stats.ts). checkout_sessions_stats_idx holds every column it reads.
 */
export function statsGroupsSql(merchantId: string, from: Date, to: Date): Prisma.Sql {
  return Prisma.sql`
    SELECT currency,
           status,
           count(*)::int AS sessions,
           count(contact_entered_at)::int AS "contactEntered",
           count(shipping_chosen_at)::int AS "shippingChosen",
           count(payment_started_at)::int AS "paymentStarted",
           count(cod_paid_at)::int AS "codPaid",
           COALESCE(sum(total_minor), 0)::bigint AS "totalMinor",
           COALESCE(sum(total_minor) FILTER (WHERE cod_paid_at IS NOT NULL), 0)::bigint AS "codPaidMinor",
           count(*) FILTER (WHERE refunded_minor > 0)::int AS "withRefunds",
           COALESCE(sum(refunded_minor), 0)::bigint AS "refundedMinor"
    FROM checkout_sessions
    WHERE merchant_id = ${merchantId}::uuid AND created_at >= ${from} AND created_at < ${to} AND source <> 'preview'
    GROUP BY currency, status`;
}

type StatsRow = Omit<StatsGroup, 'totalMinor' | 'codPaidMinor' | 'refundedMinor'> & { totalMinor: bigint; codPaidMinor: bigint; refundedMinor: bigint };

export interface Recovery {
  remindedSessions: number;
  remindersSent: number;
  recoveredOrders: number;
  recovered: Array<{ currency: string; orders: number; amountMinor: number }>;
}
export interface Upsells {
  currency: string;
  accepted: number;
  amountMinor: number;
}

const toGroup = (r: StatsRow): StatsGroup => ({
  currency: r.currency.trim(), status: r.status, sessions: r.sessions, contactEntered: r.contactEntered, shippingChosen: r.shippingChosen,
  paymentStarted: r.paymentStarted, codPaid: r.codPaid, totalMinor: Number(r.totalMinor), codPaidMinor: Number(r.codPaidMinor),
  withRefunds: r.withRefunds, refundedMinor: Number(r.refundedMinor),
});
const byKey = (a: { currency: string; status?: string }, b: { currency: string; status?: string }) =>
  a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : (a.status ?? '') < (b.status ?? '') ? -1 : (a.status ?? '') > (b.status ?? '') ? 1 : 0;

/** The merchant's sessions in the range, per (currency, status), from the sessions alone; previews never count. */
async function rawStatsGroups(data: MerchantTables, from: Date, to: Date): Promise<StatsGroup[]> {
  const rows = await data.queryRaw<StatsRow[]>(statsGroupsSql(data.merchantId, from, to));
  return rows.map(toGroup).sort(byKey);
}

/** Paid one-click upsells of the range's sessions (the same cohort as the rest), per currency, from the rows. */
async function rawPaidUpsells(data: MerchantTables, from: Date, to: Date): Promise<Upsells[]> {
  const rows = await data.queryRaw<Array<{ currency: string; accepted: number; amountMinor: bigint }>>(Prisma.sql`
    SELECT u.currency, count(*)::int AS accepted, sum(u.amount_minor)::bigint AS "amountMinor"
    FROM upsell_purchases u JOIN checkout_sessions s ON s.token = u.token
    WHERE s.merchant_id = ${data.merchantId}::uuid AND s.created_at >= ${from} AND s.created_at < ${to} AND s.source <> 'preview' AND u.status = 'PAID'
    GROUP BY u.currency ORDER BY u.currency`);
  return rows.map((r) => ({ currency: r.currency.trim(), accepted: r.accepted, amountMinor: Number(r.amountMinor) }));
}

/**
 * Recovery of the range's sessions, from the rows: reminded (the left sessions that got a reminder: a session restored
 * from an abandoned one carries its reminders, so those are counted once, on the original), and recovered (paid after
 * the first reminder: COMPLETED with completed_at after recovery_reminder_sent_at), with the money kept per currency.
 */
async function rawRecoveryStats(data: MerchantTables, from: Date, to: Date): Promise<Recovery> {
  const [reminded] = await data.queryRaw<Array<{ sessions: number; reminders: number }>>(Prisma.sql`
    SELECT count(*)::int AS sessions, COALESCE(sum(recovery_reminders_sent), 0)::int AS reminders
    FROM checkout_sessions
    WHERE merchant_id = ${data.merchantId}::uuid AND created_at >= ${from} AND created_at < ${to} AND source <> 'preview'
      AND recovery_reminders_sent > 0 AND recovered_from IS NULL`);
  const rows = await data.queryRaw<Array<{ currency: string; orders: number; amountMinor: bigint }>>(Prisma.sql`
    SELECT currency, count(*)::int AS orders, COALESCE(sum(total_minor - refunded_minor), 0)::bigint AS "amountMinor"
    FROM checkout_sessions
    WHERE merchant_id = ${data.merchantId}::uuid AND created_at >= ${from} AND created_at < ${to} AND source <> 'preview'
      AND status = 'COMPLETED' AND recovery_reminder_sent_at IS NOT NULL AND completed_at > recovery_reminder_sent_at
    GROUP BY currency ORDER BY currency`);
  const recovered = rows.map((r) => ({ currency: r.currency.trim(), orders: r.orders, amountMinor: Number(r.amountMinor) }));
  return {
    remindedSessions: reminded?.sessions ?? 0,
    remindersSent: reminded?.reminders ?? 0,
    recoveredOrders: recovered.reduce((n, r) => n + r.orders, 0),
    recovered,
  };
}

export interface StatsData {
  groups: StatsGroup[];
  upsells: Upsells[];
  recovery: Recovery;
}

/** Everything the two routes answer, from the sessions alone (the definition the rollups are checked against). */
export async function rawStats(db: Db, merchantId: string, from: Date, to: Date): Promise<StatsData> {
  const data = merchantScope(db, merchantId);
  const [groups, upsells, recovery] = await Promise.all([rawStatsGroups(data, from, to), rawPaidUpsells(data, from, to), rawRecoveryStats(data, from, to)]);
  return { groups, upsells, recovery };
}

/**
 * The range cut at UTC midnights: the whole days [firstDay, endDay) (YYYY-MM-DD; empty when firstDay = endDay) come
 * from the rollups, the pieces before and after them (`edges`, at most two, each shorter than a day) from the rows.
 */
export function splitRange(from: Date, to: Date): { firstDay: string; endDay: string; edges: Array<[Date, Date]> } {
  const firstMs = Math.ceil(from.getTime() / DAY_MS) * DAY_MS;
  const endMs = Math.floor(to.getTime() / DAY_MS) * DAY_MS;
  if (firstMs >= endMs) return { firstDay: '1970-01-01', endDay: '1970-01-01', edges: [[from, to]] };
  const edges: Array<[Date, Date]> = [];
  if (from.getTime() < firstMs) edges.push([from, new Date(firstMs)]);
  if (endMs < to.getTime()) edges.push([new Date(endMs), to]);
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { firstDay: day(firstMs), endDay: day(endMs), edges };
}

// The same columns as merchant_stats_daily, over the sessions of one edge (definitions as in stats_rollup_rebuild()).
const edgeGroupsSql = (merchantId: string, [a, b]: [Date, Date]) => Prisma.sql`
  SELECT currency, status, count(*) AS sessions, count(contact_entered_at) AS contact_entered, count(shipping_chosen_at) AS shipping_chosen,
         count(payment_started_at) AS payment_started, count(cod_paid_at) AS cod_paid, COALESCE(sum(total_minor), 0) AS total_minor,
         COALESCE(sum(total_minor) FILTER (WHERE cod_paid_at IS NOT NULL), 0) AS cod_paid_minor,
         count(*) FILTER (WHERE refunded_minor > 0) AS with_refunds, COALESCE(sum(refunded_minor), 0) AS refunded_minor,
         count(*) FILTER (WHERE recovery_reminders_sent > 0 AND recovered_from IS NULL) AS reminded_sessions,
         COALESCE(sum(recovery_reminders_sent) FILTER (WHERE recovery_reminders_sent > 0 AND recovered_from IS NULL), 0) AS reminders_sent,
         count(*) FILTER (WHERE status = 'COMPLETED' AND recovery_reminder_sent_at IS NOT NULL AND completed_at > recovery_reminder_sent_at) AS recovered_orders,
         COALESCE(sum(total_minor - refunded_minor) FILTER (WHERE status = 'COMPLETED' AND recovery_reminder_sent_at IS NOT NULL AND completed_at > recovery_reminder_sent_at), 0) AS recovered_minor
  FROM checkout_sessions
  WHERE merchant_id = ${merchantId}::uuid AND created_at >= ${a} AND created_at < ${b} AND source <> 'preview'
  GROUP BY currency, status`;

const edgeUpsellsSql = (merchantId: string, [a, b]: [Date, Date]) => Prisma.sql`
  SELECT u.currency, count(*) AS accepted, sum(u.amount_minor) AS amount_minor
  FROM upsell_purchases u JOIN checkout_sessions s ON s.token = u.token
  WHERE s.merchant_id = ${merchantId}::uuid AND s.created_at >= ${a} AND s.created_at < ${b} AND s.source <> 'preview' AND u.status = 'PAID'
  GROUP BY u.currency`;

type RollupRow = StatsRow & { remindedSessions: number; remindersSent: number; recoveredOrders: number; recoveredMinor: bigint };

/** The rollups' whole days plus the rows of the edges, per (currency, status), with the recovery counts. */
async function rollupGroups(data: MerchantTables, from: Date, to: Date): Promise<{ groups: StatsGroup[]; recovery: Recovery }> {
  const { merchantId } = data;
  const { firstDay, endDay, edges } = splitRange(from, to);
  const parts = [
    Prisma.sql`
      SELECT currency, status, sessions, contact_entered, shipping_chosen, payment_started, cod_paid, total_minor, cod_paid_minor, with_refunds,
             refunded_minor, reminded_sessions, reminders_sent, recovered_orders, recovered_minor
      FROM merchant_stats_daily WHERE merchant_id = ${merchantId}::uuid AND day >= ${firstDay}::date AND day < ${endDay}::date`,
    ...edges.map((edge) => edgeGroupsSql(merchantId, edge)),
  ];
  const rows = await data.queryRaw<RollupRow[]>(Prisma.sql`
    SELECT currency, status, sum(sessions)::int AS sessions, sum(contact_entered)::int AS "contactEntered", sum(shipping_chosen)::int AS "shippingChosen",
           sum(payment_started)::int AS "paymentStarted", sum(cod_paid)::int AS "codPaid", sum(total_minor)::bigint AS "totalMinor",
           sum(cod_paid_minor)::bigint AS "codPaidMinor", sum(with_refunds)::int AS "withRefunds", sum(refunded_minor)::bigint AS "refundedMinor",
           sum(reminded_sessions)::int AS "remindedSessions", sum(reminders_sent)::int AS "remindersSent", sum(recovered_orders)::int AS "recoveredOrders",
           sum(recovered_minor)::bigint AS "recoveredMinor"
    FROM (${Prisma.join(parts, ' UNION ALL ')}) r
    GROUP BY currency, status
    HAVING sum(sessions) > 0`);
  const groups = rows.map(toGroup).sort(byKey);
  const recovered = new Map<string, { currency: string; orders: number; amountMinor: number }>();
  for (const r of rows) {
    if (r.recoveredOrders === 0) continue;
    const c = r.currency.trim();
    const acc = recovered.get(c) ?? { currency: c, orders: 0, amountMinor: 0 };
    acc.orders += r.recoveredOrders;
    acc.amountMinor += Number(r.recoveredMinor);
    recovered.set(c, acc);
  }
  const recoveredList = [...recovered.values()].sort(byKey);
  return {
    groups,
    recovery: {
      remindedSessions: rows.reduce((n, r) => n + r.remindedSessions, 0),
      remindersSent: rows.reduce((n, r) => n + r.remindersSent, 0),
      recoveredOrders: recoveredList.reduce((n, r) => n + r.orders, 0),
      recovered: recoveredList,
    },
  };
}

async function rollupUpsells(data: MerchantTables, from: Date, to: Date): Promise<Upsells[]> {
  const { merchantId } = data;
  const { firstDay, endDay, edges } = splitRange(from, to);
  const parts = [
    Prisma.sql`SELECT currency, accepted, amount_minor FROM merchant_upsells_daily WHERE merchant_id = ${merchantId}::uuid AND day >= ${firstDay}::date AND day < ${endDay}::date`,
    ...edges.map((edge) => edgeUpsellsSql(merchantId, edge)),
  ];
  const rows = await data.queryRaw<Array<{ currency: string; accepted: number; amountMinor: bigint }>>(Prisma.sql`
    SELECT currency, sum(accepted)::int AS accepted, sum(amount_minor)::bigint AS "amountMinor"
    FROM (${Prisma.join(parts, ' UNION ALL ')}) r
    GROUP BY currency HAVING sum(accepted) > 0 ORDER BY currency`);
  return rows.map((r) => ({ currency: r.currency.trim(), accepted: r.accepted, amountMinor: Number(r.amountMinor) }));
}

/** The merchant's sessions in the range, per (currency, status), from the rollups; previews never count. */
async function statsGroups(data: MerchantTables, from: Date, to: Date): Promise<StatsGroup[]> {
  return (await rollupGroups(data, from, to)).groups;
}

/** Everything the two routes answer, from the rollups and the edges' rows. */
async function rollupStatsOf(data: MerchantTables, from: Date, to: Date): Promise<StatsData> {
  const [{ groups, recovery }, upsells] = await Promise.all([rollupGroups(data, from, to), rollupUpsells(data, from, to)]);
  return { groups, upsells, recovery };
}

/** rollupStatsOf for a merchant id (the rollups' test and bench compare it with rawStats). */
export const rollupStats = (db: Db, merchantId: string, from: Date, to: Date): Promise<StatsData> => rollupStatsOf(merchantScope(db, merchantId), from, to);

const RANGE_DOC =
  `Range: from (inclusive) and to (exclusive), each a date (00:00 UTC) or an ISO date-time with offset; default the last 30 days up to now; ` +
  `from before to, at most ${STATS_MAX_DAYS} days apart (INVALID_INPUT on from otherwise). Counts the checkout sessions created in the range (a cohort) from store carts; previews never count.`;

export const statsRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app) => {

  app.get('/stats', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'stats:read' },
    schema: {
      tags,
      summary: 'Checkout statistics: sessions, orders, conversion rate, revenue (money kept), refunds and held payments per currency',
      description:
        `${RANGE_DOC} Paid means money kept: paidOrders are card checkouts COMPLETED now, partially refunded ones included ` +
        '(partiallyRefundedOrders of them), the orders behind revenue; an order refunded in full is REFUNDED (refundedOrders), not paid. ' +
        'completedOrders: card checkouts the processor confirmed that became orders (COMPLETED, or REFUNDED since), always paidOrders + refundedOrders. ' +
        'codOrders: confirmed cash-on-delivery orders. heldOrders: payments ON_HOLD (refunded, disputed or of another amount before the order: ' +
        'no store order), never paid nor revenue; their checkout totals per currency under held. conversionRate: (completedOrders + codOrders + ' +
        'heldOrders) / sessions, the funnel\'s completed over created. revenue, per currency, never summed across currencies: amountMinor is ' +
        'money kept, grossMinor − refundedMinor of the paid orders (partial refunds taken off), with the average order value over it. refunds, per ' +
        'currency: everything the processor confirmed given back on the range\'s sessions (partial refunds of paid orders, full refunds, refunds of ' +
        'held payments), to reconcile with the processor. Cash on delivery is not paid revenue: its order value is reported apart under cod, with ' +
        'the part the store reports collected. recovery: left checkouts that got reminders and the checkouts paid after one (docs/recovery.md).',
      ...auth,
      querystring: statsQuery,
      response: { 200: statsResponse, 400: errorResponse, 401: errorResponse },
    },
  }, async (request) => {
    const { from, to } = request.query;
    const { groups, upsells, recovery } = await rollupStatsOf(request.merchantData, from, to);
    return { from: from.toISOString(), to: to.toISOString(), ...summarizeStats(groups), upsells, recovery };
  });

  app.get('/stats/funnel', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'stats:read' },
    schema: {
      tags,
      summary: 'Checkout funnel: created → contact entered → shipping chosen → payment started → completed, with step conversion',
      description:
        `${RANGE_DOC} Each step counts the sessions that reached it or a later one. contact_entered and shipping_chosen are reported by the ` +
        'checkout page as the shopper goes (POST /api/checkout/{token}/progress) and recorded at the latest with the payment start; ' +
        'payment_started: a card payment was created or cash on delivery confirmed; completed: the shopper paid or confirmed cash on delivery ' +
        '(COMPLETED, REFUNDED, COD_CONFIRMED, or ON_HOLD: paid, held before its order). stepConversion is relative to the previous step, ' +
        'overallConversion to created.',
      ...auth,
      querystring: statsQuery,
      response: { 200: funnelResponse, 400: errorResponse, 401: errorResponse },
    },
  }, async (request) => {
    const { from, to } = request.query;
    const groups = await statsGroups(request.merchantData, from, to);
    return { from: from.toISOString(), to: to.toISOString(), steps: summarizeFunnel(groups) };
  });
};
