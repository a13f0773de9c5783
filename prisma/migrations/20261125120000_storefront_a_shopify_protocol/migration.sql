-- AlterTable
ALTER TABLE "storefront_a_connections" ADD COLUMN     "app_embed_active" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "shop_origins" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "storefront_token_enc" TEXT;

-- CreateIndex
CREATE INDEX "storefront_a_connections_shop_origins_idx" ON "storefront_a_connections" USING GIN ("shop_origins");
