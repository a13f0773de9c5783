-- Daily statistics rollups (docs/orders-and-stats.md, "Daily rollups"): per merchant, UTC day of the session's
-- creation, currency and status, every count and sum the stats routes read. Kept exact by triggers in the same
-- transaction as every write of checkout_sessions and upsell_purchases (late refunds and status changes included),
-- rebuilt per (merchant, day) by the durable job rebuildStatsRollupsWorkflow; filled here for the existing rows.

CREATE TABLE "merchant_stats_daily" (
    "merchant_id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "status" TEXT NOT NULL,
    "sessions" INTEGER NOT NULL DEFAULT 0,
    "contact_entered" INTEGER NOT NULL DEFAULT 0,
    "shipping_chosen" INTEGER NOT NULL DEFAULT 0,
    "payment_started" INTEGER NOT NULL DEFAULT 0,
    "cod_paid" INTEGER NOT NULL DEFAULT 0,
    "total_minor" BIGINT NOT NULL DEFAULT 0,
    "cod_paid_minor" BIGINT NOT NULL DEFAULT 0,
    "with_refunds" INTEGER NOT NULL DEFAULT 0,
    "refunded_minor" BIGINT NOT NULL DEFAULT 0,
    "reminded_sessions" INTEGER NOT NULL DEFAULT 0,
    "reminders_sent" INTEGER NOT NULL DEFAULT 0,
    "recovered_orders" INTEGER NOT NULL DEFAULT 0,
    "recovered_minor" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "merchant_stats_daily_pkey" PRIMARY KEY ("merchant_id","day","currency","status")
);

CREATE TABLE "merchant_upsells_daily" (
    "merchant_id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "currency" TEXT NOT NULL,
    "accepted" INTEGER NOT NULL DEFAULT 0,
    "amount_minor" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "merchant_upsells_daily_pkey" PRIMARY KEY ("merchant_id","day","currency")
);

ALTER TABLE "merchant_stats_daily" ADD CONSTRAINT "merchant_stats_daily_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "merchant_upsells_daily" ADD CONSTRAINT "merchant_upsells_daily_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- One session's contribution (sign +1 or -1) to its day's row. The same definitions as the raw queries of
-- api/routes/merchant/stats.ts (statsAggregateColumns); previews never count.
CREATE OR REPLACE FUNCTION "stats_daily_apply"(s "checkout_sessions", sign INTEGER) RETURNS VOID LANGUAGE plpgsql AS $$
DECLARE
  recovered BOOLEAN := s.status = 'COMPLETED' AND s.recovery_reminder_sent_at IS NOT NULL AND s.completed_at > s.recovery_reminder_sent_at;
  reminded BOOLEAN := s.recovery_reminders_sent > 0 AND s.recovered_from IS NULL;
BEGIN
  IF s.source = 'preview' THEN RETURN; END IF;
  INSERT INTO "merchant_stats_daily" AS d ("merchant_id", "day", "currency", "status", "sessions", "contact_entered", "shipping_chosen",
      "payment_started", "cod_paid", "total_minor", "cod_paid_minor", "with_refunds", "refunded_minor", "reminded_sessions", "reminders_sent",
      "recovered_orders", "recovered_minor")
  VALUES (s.merchant_id, (s.created_at AT TIME ZONE 'UTC')::date, s.currency, s.status, sign,
      sign * (s.contact_entered_at IS NOT NULL)::int, sign * (s.shipping_chosen_at IS NOT NULL)::int,
      sign * (s.payment_started_at IS NOT NULL)::int, sign * (s.cod_paid_at IS NOT NULL)::int,
      sign * COALESCE(s.total_minor, 0)::bigint,
      CASE WHEN s.cod_paid_at IS NOT NULL THEN sign * COALESCE(s.total_minor, 0)::bigint ELSE 0 END,
      sign * (s.refunded_minor > 0)::int, sign * s.refunded_minor::bigint,
      CASE WHEN reminded THEN sign ELSE 0 END, CASE WHEN reminded THEN sign * s.recovery_reminders_sent ELSE 0 END,
      CASE WHEN recovered THEN sign ELSE 0 END,
      CASE WHEN recovered THEN sign * COALESCE(s.total_minor - s.refunded_minor, 0)::bigint ELSE 0 END)
  ON CONFLICT ("merchant_id", "day", "currency", "status") DO UPDATE SET
    "sessions" = d."sessions" + EXCLUDED."sessions",
    "contact_entered" = d."contact_entered" + EXCLUDED."contact_entered",
    "shipping_chosen" = d."shipping_chosen" + EXCLUDED."shipping_chosen",
    "payment_started" = d."payment_started" + EXCLUDED."payment_started",
    "cod_paid" = d."cod_paid" + EXCLUDED."cod_paid",
    "total_minor" = d."total_minor" + EXCLUDED."total_minor",
    "cod_paid_minor" = d."cod_paid_minor" + EXCLUDED."cod_paid_minor",
    "with_refunds" = d."with_refunds" + EXCLUDED."with_refunds",
    "refunded_minor" = d."refunded_minor" + EXCLUDED."refunded_minor",
    "reminded_sessions" = d."reminded_sessions" + EXCLUDED."reminded_sessions",
    "reminders_sent" = d."reminders_sent" + EXCLUDED."reminders_sent",
    "recovered_orders" = d."recovered_orders" + EXCLUDED."recovered_orders",
    "recovered_minor" = d."recovered_minor" + EXCLUDED."recovered_minor";
END $$;

-- One paid upsell's contribution to the day of its session (the cohort is the session's creation, as everywhere).
CREATE OR REPLACE FUNCTION "upsells_daily_apply"(merchant UUID, created TIMESTAMPTZ, currency TEXT, amount BIGINT, sign INTEGER) RETURNS VOID LANGUAGE sql AS $$
  INSERT INTO "merchant_upsells_daily" AS d ("merchant_id", "day", "currency", "accepted", "amount_minor")
  VALUES (merchant, (created AT TIME ZONE 'UTC')::date, currency, sign, sign * amount)
  ON CONFLICT ("merchant_id", "day", "currency") DO UPDATE SET
    "accepted" = d."accepted" + EXCLUDED."accepted", "amount_minor" = d."amount_minor" + EXCLUDED."amount_minor";
$$;

CREATE OR REPLACE FUNCTION "checkout_sessions_stats_rollup"() RETURNS TRIGGER LANGUAGE plpgsql AS $$
DECLARE
  u RECORD;
  moved BOOLEAN := false;
BEGIN
  -- The merchant itself is being deleted (its rollup rows go by cascade): nothing to keep.
  IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM "merchants" WHERE id = OLD.merchant_id) THEN
    RETURN OLD;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM "stats_daily_apply"(OLD, -1);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM "stats_daily_apply"(NEW, 1);
  END IF;
  -- The session's paid upsells follow it when what places them (merchant, day, preview) changes or it goes
  -- (BEFORE DELETE: before the cascade removes them; their own trigger then finds no session and does nothing).
  IF TG_OP = 'DELETE' THEN
    moved := true;
  ELSIF TG_OP = 'UPDATE' THEN
    moved := (OLD.merchant_id, OLD.created_at, OLD.source = 'preview') IS DISTINCT FROM (NEW.merchant_id, NEW.created_at, NEW.source = 'preview');
  END IF;
  IF moved THEN
    FOR u IN SELECT p.currency, p.amount_minor FROM "upsell_purchases" p WHERE p.token = OLD.token AND p.status = 'PAID' LOOP
      IF OLD.source <> 'preview' THEN PERFORM "upsells_daily_apply"(OLD.merchant_id, OLD.created_at, u.currency, u.amount_minor, -1); END IF;
      IF TG_OP = 'UPDATE' AND NEW.source <> 'preview' THEN PERFORM "upsells_daily_apply"(NEW.merchant_id, NEW.created_at, u.currency, u.amount_minor, 1); END IF;
    END LOOP;
  END IF;
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION "upsell_purchases_stats_rollup"() RETURNS TRIGGER LANGUAGE plpgsql AS $$
DECLARE
  s RECORD;
BEGIN
  -- A session's token renamed (ON UPDATE CASCADE): the same session, its rows unchanged.
  IF TG_OP = 'UPDATE' AND OLD.token <> NEW.token AND NOT EXISTS (SELECT 1 FROM "checkout_sessions" WHERE token = OLD.token) THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM "merchants" WHERE id = OLD.merchant_id) THEN
    RETURN NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.status = 'PAID' THEN
    SELECT merchant_id, created_at, source INTO s FROM "checkout_sessions" WHERE token = OLD.token;
    IF FOUND AND s.source <> 'preview' THEN PERFORM "upsells_daily_apply"(s.merchant_id, s.created_at, OLD.currency, OLD.amount_minor, -1); END IF;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.status = 'PAID' THEN
    SELECT merchant_id, created_at, source INTO s FROM "checkout_sessions" WHERE token = NEW.token;
    IF FOUND AND s.source <> 'preview' THEN PERFORM "upsells_daily_apply"(s.merchant_id, s.created_at, NEW.currency, NEW.amount_minor, 1); END IF;
  END IF;
  RETURN NULL;
END $$;

-- Only writes that change what the statistics read run the function (an email or address write does not).
CREATE TRIGGER "checkout_sessions_stats_rollup_ins" AFTER INSERT ON "checkout_sessions"
  FOR EACH ROW EXECUTE FUNCTION "checkout_sessions_stats_rollup"();
CREATE TRIGGER "checkout_sessions_stats_rollup_upd" AFTER UPDATE ON "checkout_sessions"
  FOR EACH ROW WHEN ((OLD.merchant_id, OLD.created_at, OLD.source, OLD.currency, OLD.status, OLD.contact_entered_at, OLD.shipping_chosen_at,
                      OLD.payment_started_at, OLD.cod_paid_at, OLD.total_minor, OLD.refunded_minor, OLD.recovery_reminders_sent,
                      OLD.recovered_from IS NULL, OLD.completed_at, OLD.recovery_reminder_sent_at)
            IS DISTINCT FROM (NEW.merchant_id, NEW.created_at, NEW.source, NEW.currency, NEW.status, NEW.contact_entered_at, NEW.shipping_chosen_at,
                      NEW.payment_started_at, NEW.cod_paid_at, NEW.total_minor, NEW.refunded_minor, NEW.recovery_reminders_sent,
                      NEW.recovered_from IS NULL, NEW.completed_at, NEW.recovery_reminder_sent_at))
  EXECUTE FUNCTION "checkout_sessions_stats_rollup"();
CREATE TRIGGER "checkout_sessions_stats_rollup_del" BEFORE DELETE ON "checkout_sessions"
  FOR EACH ROW EXECUTE FUNCTION "checkout_sessions_stats_rollup"();
CREATE TRIGGER "upsell_purchases_stats_rollup" AFTER INSERT OR DELETE OR UPDATE OF "status", "currency", "amount_minor", "token" ON "upsell_purchases"
  FOR EACH ROW EXECUTE FUNCTION "upsell_purchases_stats_rollup"();

-- Rebuild (the durable job rebuildStatsRollupsWorkflow, and the fill below): the rows of a merchant (NULL: all)
-- over [from_day, to_day) (NULL: open) recomputed from checkout_sessions and upsell_purchases. The lock waits for
-- the writers that already changed a rollup row to commit and holds new ones back until this transaction ends, so
-- every write is either seen by the recount or applied on top of it afterwards, never both nor neither.
CREATE OR REPLACE FUNCTION "stats_rollup_rebuild"(merchant UUID, from_day DATE, to_day DATE) RETURNS INTEGER LANGUAGE plpgsql AS $$
DECLARE
  n INTEGER;
  lo TIMESTAMPTZ := from_day::timestamp AT TIME ZONE 'UTC';
  hi TIMESTAMPTZ := to_day::timestamp AT TIME ZONE 'UTC';
BEGIN
  LOCK TABLE "merchant_stats_daily", "merchant_upsells_daily" IN SHARE ROW EXCLUSIVE MODE;
  DELETE FROM "merchant_stats_daily" WHERE (merchant IS NULL OR "merchant_id" = merchant) AND (from_day IS NULL OR "day" >= from_day) AND (to_day IS NULL OR "day" < to_day);
  DELETE FROM "merchant_upsells_daily" WHERE (merchant IS NULL OR "merchant_id" = merchant) AND (from_day IS NULL OR "day" >= from_day) AND (to_day IS NULL OR "day" < to_day);
  INSERT INTO "merchant_stats_daily" ("merchant_id", "day", "currency", "status", "sessions", "contact_entered", "shipping_chosen",
      "payment_started", "cod_paid", "total_minor", "cod_paid_minor", "with_refunds", "refunded_minor", "reminded_sessions", "reminders_sent",
      "recovered_orders", "recovered_minor")
  SELECT s.merchant_id, (s.created_at AT TIME ZONE 'UTC')::date, s.currency, s.status, count(*), count(s.contact_entered_at), count(s.shipping_chosen_at),
         count(s.payment_started_at), count(s.cod_paid_at), COALESCE(sum(s.total_minor), 0), COALESCE(sum(s.total_minor) FILTER (WHERE s.cod_paid_at IS NOT NULL), 0),
         count(*) FILTER (WHERE s.refunded_minor > 0), COALESCE(sum(s.refunded_minor), 0),
         count(*) FILTER (WHERE s.recovery_reminders_sent > 0 AND s.recovered_from IS NULL),
         COALESCE(sum(s.recovery_reminders_sent) FILTER (WHERE s.recovery_reminders_sent > 0 AND s.recovered_from IS NULL), 0),
         count(*) FILTER (WHERE s.status = 'COMPLETED' AND s.recovery_reminder_sent_at IS NOT NULL AND s.completed_at > s.recovery_reminder_sent_at),
         COALESCE(sum(s.total_minor - s.refunded_minor) FILTER (WHERE s.status = 'COMPLETED' AND s.recovery_reminder_sent_at IS NOT NULL AND s.completed_at > s.recovery_reminder_sent_at), 0)
  FROM "checkout_sessions" s
  WHERE s.source <> 'preview' AND (merchant IS NULL OR s.merchant_id = merchant) AND (lo IS NULL OR s.created_at >= lo) AND (hi IS NULL OR s.created_at < hi)
  GROUP BY 1, 2, 3, 4;
  GET DIAGNOSTICS n = ROW_COUNT;
  INSERT INTO "merchant_upsells_daily" ("merchant_id", "day", "currency", "accepted", "amount_minor")
  SELECT s.merchant_id, (s.created_at AT TIME ZONE 'UTC')::date, u.currency, count(*), sum(u.amount_minor)
  FROM "upsell_purchases" u JOIN "checkout_sessions" s ON s.token = u.token
  WHERE u.status = 'PAID' AND s.source <> 'preview' AND (merchant IS NULL OR s.merchant_id = merchant) AND (lo IS NULL OR s.created_at >= lo) AND (hi IS NULL OR s.created_at < hi)
  GROUP BY 1, 2, 3;
  RETURN n;
END $$;

-- The days before the rollups existed: filled from the rows as they are, in this migration's transaction (the
-- triggers above hold writers of checkout_sessions back until it commits, so no write falls between).
SELECT "stats_rollup_rebuild"(NULL, NULL, NULL);
