-- CreateTable
CREATE TABLE "storefront_b_handoffs" (
    "signature_hash" BYTEA NOT NULL,
    "merchant_id" UUID NOT NULL,
    "session_token" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "storefront_b_handoffs_pkey" PRIMARY KEY ("signature_hash")
);

-- CreateIndex
CREATE INDEX "storefront_b_handoffs_created_at_idx" ON "storefront_b_handoffs"("created_at");
