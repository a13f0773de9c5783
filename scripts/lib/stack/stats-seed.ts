// Checkout sessions for statistics and orders, in bulk: one INSERT … SELECT over generate_series (with their
// timeline events in the same statement), so `npm run bench -- stats` seeds 100k sessions in seconds and the
// tests seed a few hundred the same way. Deterministic for a given seed: each session's outcome, currency,
// amounts and preview flag come from an MD5 of (seed, i). The statuses and milestones are consistent with
// what the real path records (activities/checkout/session-events.ts), including a few completed sessions without
// contact or shipping milestones (older rows) and previews in every status (statistics must skip them). Money given
// back as the refunds path records it (refunded_minor, the sum of the processor's confirmed refunds): every REFUNDED
// session in full, a tenth of the COMPLETED ones in part (still COMPLETED), and payments held (ON_HOLD, with their
// reason and message, no store order), some of them refunded in part.
// No vitest here: the bench imports it (test/harness re-exports it for the tests).
import type { Db } from '../../../prisma/client.js';

export interface SeedOptions {
  merchantId: string;
  count: number;
  /** Distinguishes runs: tokens and outcomes derive from it. */
  seed: string;
  /** created_at of session 1; later sessions follow every stepMs. */
  start: Date;
  stepMs: number;
  /** Sessions sharing one created_at (exercises the list's tie-break on token). Default 1. */
  sameInstant?: number;
  /** Store platform of the sessions. Default STOREFRONT_B. */
  platform?: 'STOREFRONT_A' | 'STOREFRONT_B';
}

/** A realistic FX snapshot (every session carries one: it sizes the rows as production does). */
const FX = JSON.stringify({
  date: '2026-11-20',
  rates: Object.fromEntries(
    ['USD', 'JPY', 'BGN', 'CZK', 'DKK', 'GBP', 'HUF', 'PLN', 'RON', 'SEK', 'CHF', 'ISK', 'NOK', 'TRY', 'AUD', 'BRL', 'CAD', 'CNY', 'HKD', 'IDR', 'ILS', 'INR', 'KRW', 'MXN', 'MYR', 'NZD', 'PHP', 'SGD', 'THB', 'ZAR']
      .map((c, i) => [c, (1 + i * 0.731).toFixed(4)]),
  ),
});

/** Inserts `count` sessions (and their events) for the merchant; answers how many rows of each were written. */
export async function seedCheckoutSessions(db: Db, o: SeedOptions): Promise<{ sessions: number; events: number }> {
  const same = Math.max(1, o.sameInstant ?? 1);
  const platform = o.platform ?? 'STOREFRONT_B';
  // r (0..999) picks the outcome: 30 % leave at once, 8 % after contact, 8 % after shipping, 10 % after starting
  // a payment (FAILED, PAYMENT_PENDING, ABANDONED), 26 % paid (a tenth of them refunded in part), 3 % paid and held,
  // 5 % paid then refunded in full, 10 % cash on delivery.
  const rows = await db.$queryRaw<Array<{ sessions: number; events: number }>>`
    WITH g AS (
      SELECT i,
             ('x' || substr(md5(${o.seed} || ':' || i), 1, 7))::bit(28)::int AS h,
             ('x' || substr(md5(${o.seed} || ':' || i), 8, 7))::bit(28)::int AS h2,
             ${o.start}::timestamptz + (((i - 1) / ${same}::int) * ${o.stepMs}::bigint) * interval '1 millisecond' AS created_at
      FROM generate_series(1, ${o.count}::int) AS i
    ), o AS (
      SELECT i, h, h2, created_at, h % 1000 AS r,
             h2 % 20 = 0 AS preview,
             (ARRAY['EUR', 'EUR', 'SEK', 'JPY', 'USD'])[1 + (h2 / 20) % 5] AS currency,
             1000 + (h2 / 100) % 9000 AS subtotal
      FROM g
    ), s AS (
      SELECT *,
             CASE WHEN r < 180 THEN 'ABANDONED' WHEN r < 300 THEN 'OPEN'
                  WHEN r < 350 THEN 'ABANDONED' WHEN r < 380 THEN 'OPEN'
                  WHEN r < 430 THEN 'ABANDONED' WHEN r < 460 THEN 'OPEN'
                  WHEN r < 510 THEN 'FAILED' WHEN r < 530 THEN 'PAYMENT_PENDING' WHEN r < 560 THEN 'ABANDONED'
                  WHEN r < 820 THEN 'COMPLETED' WHEN r < 850 THEN 'ON_HOLD' WHEN r < 900 THEN 'REFUNDED' ELSE 'COD_CONFIRMED' END AS status,
             CASE WHEN r < 300 THEN 0 WHEN r < 380 THEN 1 WHEN r < 460 THEN 2 ELSE 3 END AS reached,
             -- Older rows: a few paid sessions have no contact/shipping milestone.
             r BETWEEN 560 AND 849 AND (h / 1000) % 10 = 0 AS legacy,
             -- A partial refund: 5.00 to 11.00 (below any total: the smallest is 14.90).
             500 + ((h / 10000) % 7) * 100 AS part,
             (ARRAY['payment_refunded', 'payment_disputed', 'amount_mismatch'])[1 + (h / 100) % 3] AS hold_reason
      FROM o
    ), ins AS (
      INSERT INTO checkout_sessions (
        token, merchant_id, platform, status, source, currency, fx_rates, items, subtotal_minor, email,
        shipping_rate_id, shipping_name, shipping_minor, total_minor, payment_method, payment_attempt,
        completed_at, cod_paid_at, refunded_at, refunded_minor, hold_reason, hold_message, contact_entered_at, shipping_chosen_at,
        payment_started_at, last_activity_at, recovery_reminders_sent, recovery_reminder_sent_at, created_at, updated_at)
      SELECT CASE WHEN preview THEN 'prev_' ELSE 'cs_' END || substr(md5(${o.seed} || 't' || i) || md5(${o.seed} || 'u' || i), 1, 32),
             ${o.merchantId}::uuid, ${platform}::"StorePlatform", status, CASE WHEN preview THEN 'preview' ELSE 'store_cart' END,
             currency, ${FX}::jsonb,
             jsonb_build_array(jsonb_build_object('productId', '101', 'variantId', NULL, 'title', 'Canvas tote', 'variantTitle', NULL,
                                                  'quantity', 1, 'unitPrice', subtotal, 'imageUrl', NULL)),
             subtotal,
             CASE WHEN reached >= 1 THEN 'shopper' || (h2 % 997) || '@example.test' END,
             CASE WHEN reached >= 2 THEN 'rate-standard' END,
             CASE WHEN reached >= 2 THEN 'Standard' END,
             CASE WHEN reached >= 2 THEN 490 END,
             CASE WHEN reached >= 2 THEN subtotal + 490 END,
             CASE WHEN status = 'COD_CONFIRMED' THEN 'cod' WHEN reached >= 3 THEN 'card' END,
             CASE WHEN reached >= 3 AND status <> 'COD_CONFIRMED' THEN 1 ELSE 0 END,
             CASE WHEN status IN ('COMPLETED', 'ON_HOLD', 'REFUNDED') THEN created_at + interval '2 minutes' END,
             CASE WHEN status = 'COD_CONFIRMED' AND (h / 1000) % 2 = 0 THEN created_at + interval '3 days' END,
             CASE WHEN status = 'REFUNDED' THEN created_at + interval '5 days' END,
             CASE WHEN status = 'REFUNDED' THEN subtotal + 490
                  WHEN status = 'COMPLETED' AND (h / 1000) % 10 = 3 THEN part
                  WHEN status = 'ON_HOLD' AND hold_reason = 'payment_refunded' THEN part
                  ELSE 0 END,
             CASE WHEN status = 'ON_HOLD' THEN hold_reason END,
             CASE WHEN status = 'ON_HOLD' THEN 'Seeded hold: ' || hold_reason || ', no order was created' END,
             CASE WHEN reached >= 1 AND NOT legacy THEN created_at + interval '30 seconds' END,
             CASE WHEN reached >= 2 AND NOT legacy THEN created_at + interval '60 seconds' END,
             CASE WHEN reached >= 3 THEN created_at + interval '90 seconds' END,
             created_at + interval '2 minutes',
             -- Recovery reminders on some sessions with an email: one in four, the first sent a minute after creation
             -- (before a payment at 2 minutes: recovered) or, for half of them, after it (paid before any reminder).
             CASE WHEN reached >= 1 AND (h / 100000) % 4 = 0 THEN 1 + (h2 % 3) ELSE 0 END,
             CASE WHEN reached >= 1 AND (h / 100000) % 4 = 0 THEN created_at + CASE WHEN (h2 / 7) % 2 = 0 THEN interval '1 minute' ELSE interval '3 minutes' END END,
             created_at, created_at + interval '2 minutes'
      FROM s
      RETURNING token, status, created_at, contact_entered_at, shipping_chosen_at, payment_started_at, completed_at, total_minor, currency
    ), ev AS (
      INSERT INTO session_events (id, token, type, data, at)
      SELECT gen_random_uuid(), ins.token, e.type, e.data, e.at
      FROM ins CROSS JOIN LATERAL (VALUES
        ('created', jsonb_build_object('platform', ${platform}::text, 'lines', 1, 'currency', ins.currency), ins.created_at),
        ('contact_entered', '{}'::jsonb, ins.contact_entered_at),
        ('shipping_chosen', '{}'::jsonb, ins.shipping_chosen_at),
        ('payment_started', jsonb_build_object('attempt', 1, 'amount', ins.total_minor, 'currency', ins.currency), CASE WHEN ins.status <> 'COD_CONFIRMED' THEN ins.payment_started_at END),
        ('cod_confirmed', jsonb_build_object('totalMinor', ins.total_minor, 'currency', ins.currency), CASE WHEN ins.status = 'COD_CONFIRMED' THEN ins.payment_started_at END),
        ('status_changed', jsonb_build_object('from', 'PAYMENT_PENDING', 'to', ins.status, 'cause', 'seed'),
          CASE WHEN ins.status NOT IN ('OPEN') THEN COALESCE(ins.completed_at, ins.created_at + interval '2 minutes') END)
      ) AS e(type, data, at)
      WHERE e.at IS NOT NULL
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM ins)::int AS sessions, (SELECT count(*) FROM ev)::int AS events`;
  return rows[0]!;
}
