// Checkout statistics and the funnel for the caller's merchant, over a date range. One query: the sessions
// created in the range, counted per (currency, status), with counts of the milestone columns the timeline
// events set (activities/session-events.ts). checkout_sessions_stats_idx holds every column it reads, so a
// merchant's range can be one index-only scan (`npm run bench -- stats`: 100k sessions). The definitions
// (what is paid, what completes, what is revenue, refunds, holds, COD) are in domain/stats.ts.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type RouteDeps } from '../../route-deps.js';
import { Prisma, type Db } from '../../../prisma/client.js';
import { summarizeFunnel, summarizeStats, type StatsGroup } from '../../../domain/stats.js';
import { errorResponse } from '../../schemas/common.js';
import { funnelResponse, STATS_MAX_DAYS, statsQuery, statsResponse } from '../../schemas/orders.js';

const tags = ['merchant'];
const auth = { security: [{ bearerAuth: [] }] };

/**
 * The query behind both routes (also EXPLAINed by the bench): the merchant's store-cart sessions created in
 * [from, to), per currency and status, with plain column counts (milestones are marked cumulatively, see
 * domain/stats.ts), so the aggregation stays as cheap as the scan.
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

/** The merchant's sessions in the range, per (currency, status); previews never count. */
export async function statsGroups(db: Db, merchantId: string, from: Date, to: Date): Promise<StatsGroup[]> {
  const rows = await db.$queryRaw<StatsRow[]>(statsGroupsSql(merchantId, from, to));
  return rows.map((r) => ({ ...r, currency: r.currency.trim(), totalMinor: Number(r.totalMinor), codPaidMinor: Number(r.codPaidMinor), refundedMinor: Number(r.refundedMinor) }));
}

/** Paid one-click upsells of the range's sessions (the same cohort as the rest), per currency. */
async function paidUpsells(db: Db, merchantId: string, from: Date, to: Date): Promise<Array<{ currency: string; accepted: number; amountMinor: number }>> {
  const rows = await db.$queryRaw<Array<{ currency: string; accepted: number; amountMinor: bigint }>>`
    SELECT u.currency, count(*)::int AS accepted, sum(u.amount_minor)::bigint AS "amountMinor"
    FROM upsell_purchases u JOIN checkout_sessions s ON s.token = u.token
    WHERE s.merchant_id = ${merchantId}::uuid AND s.created_at >= ${from} AND s.created_at < ${to} AND s.source <> 'preview' AND u.status = 'PAID'
    GROUP BY u.currency ORDER BY u.currency`;
  return rows.map((r) => ({ currency: r.currency.trim(), accepted: r.accepted, amountMinor: Number(r.amountMinor) }));
}

/**
 * Recovery of the range's sessions: reminded (the left sessions that got a reminder: a session restored from an
 * abandoned one carries its reminders, so those are counted once, on the original), and recovered (paid after the first
 * reminder: COMPLETED with completed_at after recovery_reminder_sent_at), with the money kept per currency.
 */
async function recoveryStats(db: Db, merchantId: string, from: Date, to: Date) {
  const [reminded] = await db.$queryRaw<Array<{ sessions: number; reminders: number }>>`
    SELECT count(*)::int AS sessions, COALESCE(sum(recovery_reminders_sent), 0)::int AS reminders
    FROM checkout_sessions
    WHERE merchant_id = ${merchantId}::uuid AND created_at >= ${from} AND created_at < ${to} AND source <> 'preview'
      AND recovery_reminders_sent > 0 AND recovered_from IS NULL`;
  const rows = await db.$queryRaw<Array<{ currency: string; orders: number; amountMinor: bigint }>>`
    SELECT currency, count(*)::int AS orders, COALESCE(sum(total_minor - refunded_minor), 0)::bigint AS "amountMinor"
    FROM checkout_sessions
    WHERE merchant_id = ${merchantId}::uuid AND created_at >= ${from} AND created_at < ${to} AND source <> 'preview'
      AND status = 'COMPLETED' AND recovery_reminder_sent_at IS NOT NULL AND completed_at > recovery_reminder_sent_at
    GROUP BY currency ORDER BY currency`;
  const recovered = rows.map((r) => ({ currency: r.currency.trim(), orders: r.orders, amountMinor: Number(r.amountMinor) }));
  return {
    remindedSessions: reminded?.sessions ?? 0,
    remindersSent: reminded?.reminders ?? 0,
    recoveredOrders: recovered.reduce((n, r) => n + r.orders, 0),
    recovered,
  };
}

const RANGE_DOC =
  `Range: from (inclusive) and to (exclusive), each a date (00:00 UTC) or an ISO date-time with offset; default the last 30 days up to now; ` +
  `from before to, at most ${STATS_MAX_DAYS} days apart (INVALID_INPUT on from otherwise). Counts the checkout sessions created in the range (a cohort) from store carts; previews never count.`;

export const statsRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { db } = deps;

  app.get('/api/merchant/stats', {
    onRequest: app.authenticate,
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
    const { merchantId } = request.merchant;
    const [groups, upsells, recovery] = await Promise.all([statsGroups(db, merchantId, from, to), paidUpsells(db, merchantId, from, to), recoveryStats(db, merchantId, from, to)]);
    return { from: from.toISOString(), to: to.toISOString(), ...summarizeStats(groups), upsells, recovery };
  });

  app.get('/api/merchant/stats/funnel', {
    onRequest: app.authenticate,
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
    const groups = await statsGroups(db, request.merchant.merchantId, from, to);
    return { from: from.toISOString(), to: to.toISOString(), steps: summarizeFunnel(groups) };
  });
};
