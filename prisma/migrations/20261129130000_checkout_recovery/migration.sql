-- Abandoned-checkout recovery with the shopper's consent (docs/recovery.md): the merchant's switch and reminder
-- delays, and per session the consent (when, which wording), the opt-out, the reminders sent and the session a
-- reminder's link restored it from. Delays are checked by the API (domain/recovery.ts): no CHECK constraint, as
-- schema.prisma cannot state one and test/db/schema-drift.test.ts holds the migrations to it.

-- AlterTable
ALTER TABLE "merchants" ADD COLUMN     "recovery_delays_minutes" INTEGER[] DEFAULT ARRAY[60, 1440, 4320]::INTEGER[],
ADD COLUMN     "recovery_enabled" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "checkout_sessions" ADD COLUMN     "recovered_from" TEXT,
ADD COLUMN     "recovery_consent_at" TIMESTAMPTZ(3),
ADD COLUMN     "recovery_consent_wording" TEXT,
ADD COLUMN     "recovery_opted_out_at" TIMESTAMPTZ(3),
ADD COLUMN     "recovery_reminder_sent_at" TIMESTAMPTZ(3),
ADD COLUMN     "recovery_reminders_sent" INTEGER NOT NULL DEFAULT 0;
