-- CreateEnum
CREATE TYPE "StorePlatform" AS ENUM ('STOREFRONT_A', 'STOREFRONT_B');

-- CreateEnum
CREATE TYPE "OneTimeTokenPurpose" AS ENUM ('PASSWORD_RESET', 'EMAIL_VERIFICATION');

-- CreateEnum
CREATE TYPE "ProcessorConnectionStatus" AS ENUM ('CONNECTING', 'CONNECTED', 'FAILED');

-- CreateEnum
CREATE TYPE "EmailStatus" AS ENUM ('PENDING', 'SENT', 'FAILED');

-- AlterTable
ALTER TABLE "merchants" ADD COLUMN     "accent_color" TEXT,
ADD COLUMN     "checkout_texts" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "cod_enabled" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "email_verified_at" TIMESTAMPTZ(3),
ADD COLUMN     "logo_url" TEXT,
ADD COLUMN     "password_changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "primary_color" TEXT,
ADD COLUMN     "store_platform" "StorePlatform";

-- CreateTable
CREATE TABLE "shipping_rates" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "free" BOOLEAN NOT NULL DEFAULT false,
    "base_price_cents" INTEGER NOT NULL,
    "free_threshold_cents" INTEGER,
    "position" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "shipping_rates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "one_time_tokens" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "purpose" "OneTimeTokenPurpose" NOT NULL,
    "token_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "one_time_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "processor_connections" (
    "merchant_id" UUID NOT NULL,
    "api_key_enc" TEXT NOT NULL,
    "api_key_last4" TEXT NOT NULL,
    "business_id" TEXT,
    "product_id" TEXT,
    "webhook_id" TEXT,
    "webhook_secret_enc" TEXT,
    "status" "ProcessorConnectionStatus" NOT NULL,
    "last_error" TEXT,
    "connected_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "processor_connections_pkey" PRIMARY KEY ("merchant_id")
);

-- CreateTable
CREATE TABLE "storefront_a_connections" (
    "merchant_id" UUID NOT NULL,
    "shop" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "client_secret_enc" TEXT NOT NULL,
    "access_token_enc" TEXT,
    "scopes" TEXT,
    "connected" BOOLEAN NOT NULL DEFAULT false,
    "installed_at" TIMESTAMPTZ(3),
    "uninstalled_at" TIMESTAMPTZ(3),
    "script_tag_id" TEXT,
    "script_tag_checked_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "storefront_a_connections_pkey" PRIMARY KEY ("merchant_id")
);

-- CreateTable
CREATE TABLE "oauth_states" (
    "state" TEXT NOT NULL,
    "merchant_id" UUID NOT NULL,
    "shop" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_states_pkey" PRIMARY KEY ("state")
);

-- CreateTable
CREATE TABLE "storefront_b_connections" (
    "merchant_id" UUID NOT NULL,
    "store_url" TEXT NOT NULL,
    "consumer_key_enc" TEXT NOT NULL,
    "consumer_key_last4" TEXT NOT NULL,
    "consumer_secret_enc" TEXT NOT NULL,
    "connected_at" TIMESTAMPTZ(3) NOT NULL,
    "plugin_intercepted_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "storefront_b_connections_pkey" PRIMARY KEY ("merchant_id")
);

-- CreateTable
CREATE TABLE "storefront_a_webhooks" (
    "id" UUID NOT NULL,
    "shop" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "delivery_id" TEXT,
    "hmac_valid" BOOLEAN NOT NULL,
    "merchant_id" UUID,
    "payload" JSONB NOT NULL,
    "result" JSONB,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processed_at" TIMESTAMPTZ(3),

    CONSTRAINT "storefront_a_webhooks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "email_messages" (
    "id" UUID NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "merchant_id" UUID,
    "kind" TEXT NOT NULL,
    "to" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "status" "EmailStatus" NOT NULL DEFAULT 'PENDING',
    "provider_message_id" TEXT,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sent_at" TIMESTAMPTZ(3),

    CONSTRAINT "email_messages_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "shipping_rates_merchant_id_position_idx" ON "shipping_rates"("merchant_id", "position");

-- CreateIndex
CREATE UNIQUE INDEX "one_time_tokens_token_hash_key" ON "one_time_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "one_time_tokens_merchant_id_purpose_idx" ON "one_time_tokens"("merchant_id", "purpose");

-- CreateIndex
CREATE UNIQUE INDEX "storefront_a_connections_shop_key" ON "storefront_a_connections"("shop");

-- CreateIndex
CREATE UNIQUE INDEX "storefront_b_connections_store_url_key" ON "storefront_b_connections"("store_url");

-- CreateIndex
CREATE UNIQUE INDEX "storefront_a_webhooks_delivery_id_key" ON "storefront_a_webhooks"("delivery_id");

-- CreateIndex
CREATE INDEX "storefront_a_webhooks_shop_topic_idx" ON "storefront_a_webhooks"("shop", "topic");

-- CreateIndex
CREATE UNIQUE INDEX "email_messages_idempotency_key_key" ON "email_messages"("idempotency_key");

-- CreateIndex
CREATE INDEX "email_messages_merchant_id_created_at_idx" ON "email_messages"("merchant_id", "created_at");

-- AddForeignKey
ALTER TABLE "shipping_rates" ADD CONSTRAINT "shipping_rates_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "one_time_tokens" ADD CONSTRAINT "one_time_tokens_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "processor_connections" ADD CONSTRAINT "processor_connections_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "storefront_a_connections" ADD CONSTRAINT "storefront_a_connections_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "storefront_b_connections" ADD CONSTRAINT "storefront_b_connections_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "email_messages" ADD CONSTRAINT "email_messages_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE SET NULL ON UPDATE CASCADE;

