-- CreateTable
CREATE TABLE "upsell_purchases" (
    "id" UUID NOT NULL,
    "token" TEXT NOT NULL,
    "merchant_id" UUID NOT NULL,
    "upsell_id" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "product_id" TEXT NOT NULL,
    "variant_id" TEXT,
    "amount_minor" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'PENDING',
    "processor_payment_id" TEXT,
    "failure_reason" TEXT,
    "store_order_id" TEXT,
    "store_order_error" TEXT,
    "paid_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "upsell_purchases_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "upsell_purchases_merchant_id_created_at_idx" ON "upsell_purchases"("merchant_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "upsell_purchases_token_upsell_id_key" ON "upsell_purchases"("token", "upsell_id");

-- AddForeignKey
ALTER TABLE "upsell_purchases" ADD CONSTRAINT "upsell_purchases_token_fkey" FOREIGN KEY ("token") REFERENCES "checkout_sessions"("token") ON DELETE CASCADE ON UPDATE CASCADE;
