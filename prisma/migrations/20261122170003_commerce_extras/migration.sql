-- CreateEnum
CREATE TYPE "DiscountType" AS ENUM ('PERCENTAGE', 'FIXED_AMOUNT');

-- AlterTable
ALTER TABLE "checkout_sessions" ADD COLUMN     "discount_code" TEXT,
ADD COLUMN     "discount_id" UUID,
ADD COLUMN     "discount_minor" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "order_bumps" JSONB NOT NULL DEFAULT '[]';

-- CreateTable
CREATE TABLE "discount_codes" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "code" TEXT NOT NULL,
    "type" "DiscountType" NOT NULL,
    "value" INTEGER NOT NULL,
    "min_subtotal_cents" INTEGER,
    "usage_limit" INTEGER,
    "once_per_email" BOOLEAN NOT NULL DEFAULT false,
    "expires_at" TIMESTAMPTZ(3),
    "active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "discount_codes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "discount_redemptions" (
    "id" UUID NOT NULL,
    "discount_id" UUID NOT NULL,
    "session_token" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "amount_minor" INTEGER NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "redeemed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "discount_redemptions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "order_bumps" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "product_id" TEXT NOT NULL,
    "variant_id" TEXT,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "image_url" TEXT,
    "price_cents" INTEGER NOT NULL,
    "compare_at_cents" INTEGER,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "position" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "order_bumps_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "upsells" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "placement" TEXT NOT NULL,
    "headline" TEXT NOT NULL,
    "description" TEXT,
    "product_id" TEXT NOT NULL,
    "variant_id" TEXT,
    "title" TEXT NOT NULL,
    "image_url" TEXT,
    "price_cents" INTEGER NOT NULL,
    "discount_percent" INTEGER NOT NULL DEFAULT 0,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "position" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "upsells_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tracking_pixels" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "platform" TEXT NOT NULL,
    "tracking_id" TEXT NOT NULL,
    "events" TEXT[],
    "active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tracking_pixels_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "discount_codes_merchant_id_code_key" ON "discount_codes"("merchant_id", "code");

-- CreateIndex
CREATE INDEX "discount_redemptions_discount_id_email_idx" ON "discount_redemptions"("discount_id", "email");

-- CreateIndex
CREATE INDEX "discount_redemptions_session_token_idx" ON "discount_redemptions"("session_token");

-- CreateIndex
CREATE UNIQUE INDEX "discount_redemptions_discount_id_session_token_key" ON "discount_redemptions"("discount_id", "session_token");

-- CreateIndex
CREATE INDEX "order_bumps_merchant_id_position_idx" ON "order_bumps"("merchant_id", "position");

-- CreateIndex
CREATE INDEX "upsells_merchant_id_position_idx" ON "upsells"("merchant_id", "position");

-- CreateIndex
CREATE UNIQUE INDEX "tracking_pixels_merchant_id_platform_tracking_id_key" ON "tracking_pixels"("merchant_id", "platform", "tracking_id");

-- AddForeignKey
ALTER TABLE "discount_codes" ADD CONSTRAINT "discount_codes_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "discount_redemptions" ADD CONSTRAINT "discount_redemptions_discount_id_fkey" FOREIGN KEY ("discount_id") REFERENCES "discount_codes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "order_bumps" ADD CONSTRAINT "order_bumps_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "upsells" ADD CONSTRAINT "upsells_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tracking_pixels" ADD CONSTRAINT "tracking_pixels_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
