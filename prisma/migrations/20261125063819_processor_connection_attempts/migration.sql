-- CreateEnum
CREATE TYPE "ProcessorConnectionAttemptStatus" AS ENUM ('CONNECTING', 'FAILED', 'REPLACED');

-- CreateTable
CREATE TABLE "processor_connection_attempts" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "status" "ProcessorConnectionAttemptStatus" NOT NULL,
    "api_key_enc" TEXT,
    "api_key_last4" TEXT NOT NULL,
    "business_id" TEXT,
    "product_id" TEXT,
    "webhook_id" TEXT,
    "webhook_secret_enc" TEXT,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "processor_connection_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "processor_connection_attempts_merchant_id_created_at_idx" ON "processor_connection_attempts"("merchant_id", "created_at");

-- AddForeignKey
ALTER TABLE "processor_connection_attempts" ADD CONSTRAINT "processor_connection_attempts_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

