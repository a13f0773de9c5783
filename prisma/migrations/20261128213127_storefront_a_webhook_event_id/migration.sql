-- AlterTable
ALTER TABLE "storefront_a_webhooks" ADD COLUMN     "event_id" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "storefront_a_webhooks_shop_topic_event_id_key" ON "storefront_a_webhooks"("shop", "topic", "event_id");

