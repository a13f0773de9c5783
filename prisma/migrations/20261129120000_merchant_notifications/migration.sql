-- Notification settings: which events email the merchant, and to which addresses (empty: the account's email).
-- The defaults keep what was mailed before (new order, store order refused, webhook endpoint failing/disabled);
-- the merchant's refund notice is new and starts off.

-- AlterTable
ALTER TABLE "merchants" ADD COLUMN     "notify_new_order" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "notify_refund" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "notify_store_order_failed" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "notify_endpoint_disabled" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "notification_emails" TEXT[] DEFAULT ARRAY[]::TEXT[];
