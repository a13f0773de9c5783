-- DropIndex
DROP INDEX "checkout_sessions_stats_idx";

-- CreateIndex
CREATE INDEX "checkout_sessions_stats_idx" ON "checkout_sessions"("merchant_id", "created_at", "source", "status", "currency", "total_minor", "refunded_minor", "contact_entered_at", "shipping_chosen_at", "payment_started_at", "cod_paid_at");

