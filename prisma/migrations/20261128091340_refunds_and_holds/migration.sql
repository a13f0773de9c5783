-- AlterTable
ALTER TABLE "checkout_sessions" ADD COLUMN     "hold_message" TEXT,
ADD COLUMN     "hold_reason" TEXT,
ADD COLUMN     "refunded_minor" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "store_order_status" TEXT;

-- CreateTable
CREATE TABLE "refunds" (
    "id" UUID NOT NULL,
    "token" TEXT NOT NULL,
    "merchant_id" UUID NOT NULL,
    "amount_minor" INTEGER NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "reason" TEXT,
    "restock" BOOLEAN NOT NULL DEFAULT false,
    "lines" JSONB NOT NULL DEFAULT '[]',
    "origin" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'requested',
    "processor_refund_id" TEXT,
    "failure_reason" TEXT,
    "store_state" TEXT NOT NULL DEFAULT 'pending',
    "store_refund_id" TEXT,
    "store_error" TEXT,
    "succeeded_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "refunds_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "refunds_token_created_at_idx" ON "refunds"("token", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "refunds_token_processor_refund_id_key" ON "refunds"("token", "processor_refund_id");

-- CreateIndex
CREATE UNIQUE INDEX "refunds_token_store_refund_id_key" ON "refunds"("token", "store_refund_id");

-- AddForeignKey
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_token_fkey" FOREIGN KEY ("token") REFERENCES "checkout_sessions"("token") ON DELETE CASCADE ON UPDATE CASCADE;


-- Refunds made before this table (full refunds only): one row each, as the merchant asked for them. Their store
-- orders were never told (that came with this table): store_state stays pending, which the order page shows, and
-- a status sync (backfill-status) makes the store refund.
UPDATE "checkout_sessions" SET "refunded_minor" = "total_minor" WHERE "status" = 'REFUNDED' AND "total_minor" IS NOT NULL;
INSERT INTO "refunds" ("id", "token", "merchant_id", "amount_minor", "currency", "origin", "state", "processor_refund_id", "succeeded_at", "created_at", "updated_at")
SELECT gen_random_uuid(), s."token", s."merchant_id", s."total_minor", s."currency", 'merchant',
       CASE WHEN s."status" = 'REFUNDED' THEN 'succeeded' ELSE 'requested' END,
       s."processor_refund_id", s."refunded_at", s."refund_requested_at", now()
FROM "checkout_sessions" s
WHERE s."refund_requested_at" IS NOT NULL AND s."total_minor" IS NOT NULL;
