-- Checkout workflows start when a session first needs one (payment, cash on delivery, a processor event, a
-- merchant action), no longer at create. The workflow stamps workflow_started_at when it first loads the
-- session; the idle sweep wakes the workflow of sessions that never got one once they have been idle long
-- enough to be abandoned, and finds them through the index below.

-- AlterTable
ALTER TABLE "checkout_sessions" ADD COLUMN     "workflow_started_at" TIMESTAMPTZ(3);

-- Sessions created before this migration all had their workflow started at create.
UPDATE "checkout_sessions" SET "workflow_started_at" = "created_at" WHERE "source" <> 'preview';

-- CreateIndex
CREATE INDEX "checkout_sessions_idle_sweep_idx" ON "checkout_sessions"("status", "workflow_started_at", "last_activity_at");
