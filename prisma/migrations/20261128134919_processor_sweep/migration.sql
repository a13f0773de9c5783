-- CreateTable
CREATE TABLE "processor_sweep_watermarks" (
    "merchant_id" UUID NOT NULL,
    "company_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "swept_to" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "processor_sweep_watermarks_pkey" PRIMARY KEY ("merchant_id","company_id","kind")
);

-- AddForeignKey
ALTER TABLE "processor_sweep_watermarks" ADD CONSTRAINT "processor_sweep_watermarks_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

