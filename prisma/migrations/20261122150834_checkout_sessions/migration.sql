-- CreateTable
CREATE TABLE "checkout_sessions" (
    "token" TEXT NOT NULL,
    "merchant_id" UUID NOT NULL,
    "platform" "StorePlatform" NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'OPEN',
    "source" TEXT NOT NULL DEFAULT 'store_cart',
    "store_cart_ref" TEXT,
    "currency" CHAR(3) NOT NULL,
    "fx_rates" JSONB NOT NULL,
    "items" JSONB NOT NULL,
    "subtotal_minor" INTEGER NOT NULL,
    "email" TEXT,
    "shipping_address" JSONB,
    "shipping_rate_id" TEXT,
    "shipping_name" TEXT,
    "shipping_minor" INTEGER,
    "total_minor" INTEGER,
    "payment_method" TEXT,
    "payment_attempt" INTEGER NOT NULL DEFAULT 0,
    "processor_payment_id" TEXT,
    "payment_url" TEXT,
    "store_order_id" TEXT,
    "store_order_error" TEXT,
    "completed_at" TIMESTAMPTZ(3),
    "last_activity_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "checkout_sessions_pkey" PRIMARY KEY ("token")
);

-- CreateTable
CREATE TABLE "session_events" (
    "id" UUID NOT NULL,
    "token" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "data" JSONB NOT NULL DEFAULT '{}',
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "session_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "processor_webhook_deliveries" (
    "id" UUID NOT NULL,
    "event_id" TEXT,
    "event" TEXT,
    "session_token" TEXT,
    "merchant_id" UUID,
    "signature_valid" BOOLEAN NOT NULL,
    "rejection" TEXT,
    "raw_body" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "signalled_at" TIMESTAMPTZ(3),

    CONSTRAINT "processor_webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "checkout_sessions_merchant_id_created_at_idx" ON "checkout_sessions"("merchant_id", "created_at");

-- CreateIndex
CREATE INDEX "checkout_sessions_merchant_id_status_idx" ON "checkout_sessions"("merchant_id", "status");

-- CreateIndex
CREATE INDEX "checkout_sessions_processor_payment_id_idx" ON "checkout_sessions"("processor_payment_id");

-- CreateIndex
CREATE INDEX "session_events_token_at_idx" ON "session_events"("token", "at");

-- CreateIndex
CREATE UNIQUE INDEX "processor_webhook_deliveries_event_id_key" ON "processor_webhook_deliveries"("event_id");

-- CreateIndex
CREATE INDEX "processor_webhook_deliveries_session_token_received_at_idx" ON "processor_webhook_deliveries"("session_token", "received_at");

-- AddForeignKey
ALTER TABLE "checkout_sessions" ADD CONSTRAINT "checkout_sessions_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "session_events" ADD CONSTRAINT "session_events_token_fkey" FOREIGN KEY ("token") REFERENCES "checkout_sessions"("token") ON DELETE CASCADE ON UPDATE CASCADE;

