-- CreateTable
CREATE TABLE "merchant_sessions" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "merchant_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "merchant_sessions_merchant_id_idx" ON "merchant_sessions"("merchant_id");

-- AddForeignKey
ALTER TABLE "merchant_sessions" ADD CONSTRAINT "merchant_sessions_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

