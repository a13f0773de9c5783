-- CreateTable
CREATE TABLE "processor_dispute_checks" (
    "dispute_id" TEXT NOT NULL,
    "merchant_id" UUID NOT NULL,
    "opened_at" TIMESTAMPTZ(3) NOT NULL,
    "checked_at" TIMESTAMPTZ(3) NOT NULL,
    "status" TEXT NOT NULL,

    CONSTRAINT "processor_dispute_checks_pkey" PRIMARY KEY ("dispute_id")
);

-- CreateIndex
CREATE INDEX "processor_dispute_checks_merchant_id_opened_at_idx" ON "processor_dispute_checks"("merchant_id", "opened_at");

-- CreateIndex
CREATE INDEX "merchant_events_merchant_id_type_created_at_idx" ON "merchant_events"("merchant_id", "type", "created_at");

-- AddForeignKey
ALTER TABLE "processor_dispute_checks" ADD CONSTRAINT "processor_dispute_checks_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

