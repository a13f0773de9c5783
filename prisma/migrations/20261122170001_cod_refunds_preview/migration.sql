-- AlterTable
ALTER TABLE "merchants" ADD COLUMN     "preview_opened_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "checkout_sessions" ADD COLUMN     "cod_paid_at" TIMESTAMPTZ(3),
ADD COLUMN     "processor_refund_id" TEXT,
ADD COLUMN     "refund_requested_at" TIMESTAMPTZ(3),
ADD COLUMN     "refunded_at" TIMESTAMPTZ(3);
