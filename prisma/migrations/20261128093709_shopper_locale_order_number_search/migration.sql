-- AlterTable
ALTER TABLE "checkout_sessions" ADD COLUMN     "shopper_locale" TEXT;

-- CreateIndex
CREATE INDEX "checkout_sessions_merchant_id_store_order_number_idx" ON "checkout_sessions"("merchant_id", "store_order_number");

