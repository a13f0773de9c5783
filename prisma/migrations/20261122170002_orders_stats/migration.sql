-- Orders and statistics: the funnel milestones of a checkout session, backfilled from its timeline, and the
-- indexes that keep a merchant's statistics an index-only scan and the orders search by email indexed.

-- AlterTable
ALTER TABLE "checkout_sessions" ADD COLUMN     "contact_entered_at" TIMESTAMPTZ(3),
ADD COLUMN     "payment_started_at" TIMESTAMPTZ(3),
ADD COLUMN     "shipping_chosen_at" TIMESTAMPTZ(3);

-- Backfill: each milestone is the first timeline event that marks it or a later step (the mapping of
-- domain/stats.ts: milestones are cumulative, reaching a step marks the ones before it).
UPDATE "checkout_sessions" AS s
SET "contact_entered_at" = LEAST(e."contact_at", e."shipping_at", e."payment_at"),
    "shipping_chosen_at" = LEAST(e."shipping_at", e."payment_at"),
    "payment_started_at" = e."payment_at"
FROM (
  SELECT "token",
         min("at") FILTER (WHERE "type" = 'contact_entered') AS "contact_at",
         min("at") FILTER (WHERE "type" IN ('details_entered', 'shipping_chosen')) AS "shipping_at",
         min("at") FILTER (WHERE "type" IN ('payment_started', 'cod_confirmed')
                              OR ("type" = 'status_changed' AND "data"->>'to' IN ('COD_CONFIRMED', 'COMPLETED', 'REFUNDED'))) AS "payment_at"
  FROM "session_events"
  GROUP BY "token"
) AS e
WHERE e."token" = s."token";

-- A session paid or confirmed without such an event still passed every step.
UPDATE "checkout_sessions"
SET "payment_started_at" = COALESCE("payment_started_at", "completed_at", "updated_at"),
    "shipping_chosen_at" = COALESCE("shipping_chosen_at", "payment_started_at", "completed_at", "updated_at"),
    "contact_entered_at" = COALESCE("contact_entered_at", "shipping_chosen_at", "payment_started_at", "completed_at", "updated_at")
WHERE "status" IN ('COD_CONFIRMED', 'COMPLETED', 'REFUNDED')
  AND ("payment_started_at" IS NULL OR "shipping_chosen_at" IS NULL OR "contact_entered_at" IS NULL);

-- CreateIndex
CREATE INDEX "checkout_sessions_stats_idx" ON "checkout_sessions"("merchant_id", "created_at", "source", "status", "currency", "total_minor", "contact_entered_at", "shipping_chosen_at", "payment_started_at", "cod_paid_at");

-- CreateIndex
CREATE INDEX "checkout_sessions_merchant_id_email_idx" ON "checkout_sessions"("merchant_id", "email");
