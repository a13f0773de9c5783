-- Platform billing: the merchant's plan (platform_subscriptions), its charges, the processor plans and the
-- billing webhook endpoint on the platform's own processor account, and every billing webhook delivery.

-- CreateTable
CREATE TABLE "platform_subscriptions" (
    "merchant_id" UUID NOT NULL,
    "plan_id" TEXT NOT NULL DEFAULT 'FREE',
    "status" TEXT NOT NULL DEFAULT 'DEMO',
    "processor_membership_id" TEXT,
    "current_period_start" TIMESTAMPTZ(3),
    "current_period_end" TIMESTAMPTZ(3),
    "renewal_failures" INTEGER NOT NULL DEFAULT 0,
    "next_retry_at" TIMESTAMPTZ(3),
    "grace_until" TIMESTAMPTZ(3),
    "pending_plan_id" TEXT,
    "pending_membership_id" TEXT,
    "pending_payment_url" TEXT,
    "pending_since" TIMESTAMPTZ(3),
    "cancelled_at" TIMESTAMPTZ(3),
    "ended_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_subscriptions_pkey" PRIMARY KEY ("merchant_id")
);

-- CreateTable
CREATE TABLE "platform_billing_payments" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "plan_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL DEFAULT 1,
    "amount_cents" INTEGER NOT NULL,
    "currency" CHAR(3) NOT NULL DEFAULT 'EUR',
    "processor_membership_id" TEXT NOT NULL,
    "processor_payment_id" TEXT,
    "status" TEXT NOT NULL DEFAULT 'PENDING',
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "settled_at" TIMESTAMPTZ(3),

    CONSTRAINT "platform_billing_payments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_processor_plans" (
    "key" TEXT NOT NULL,
    "processor_plan_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_processor_plans_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "platform_billing_webhooks" (
    "id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "secret_enc" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_billing_webhooks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_billing_webhook_deliveries" (
    "id" UUID NOT NULL,
    "event_id" TEXT,
    "event" TEXT,
    "merchant_id" UUID,
    "signature_valid" BOOLEAN NOT NULL,
    "rejection" TEXT,
    "raw_body" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "signalled_at" TIMESTAMPTZ(3),

    CONSTRAINT "platform_billing_webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "platform_billing_payments_idempotency_key_key" ON "platform_billing_payments"("idempotency_key");

-- CreateIndex
CREATE UNIQUE INDEX "platform_billing_payments_processor_payment_id_key" ON "platform_billing_payments"("processor_payment_id");

-- CreateIndex
CREATE INDEX "platform_billing_payments_merchant_id_created_at_idx" ON "platform_billing_payments"("merchant_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "platform_billing_webhooks_url_key" ON "platform_billing_webhooks"("url");

-- CreateIndex
CREATE UNIQUE INDEX "platform_billing_webhook_deliveries_event_id_key" ON "platform_billing_webhook_deliveries"("event_id");

-- CreateIndex
CREATE INDEX "platform_billing_webhook_deliveries_merchant_id_received_at_idx" ON "platform_billing_webhook_deliveries"("merchant_id", "received_at");

-- AddForeignKey
ALTER TABLE "platform_subscriptions" ADD CONSTRAINT "platform_subscriptions_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_billing_payments" ADD CONSTRAINT "platform_billing_payments_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "platform_subscriptions"("merchant_id") ON DELETE CASCADE ON UPDATE CASCADE;
