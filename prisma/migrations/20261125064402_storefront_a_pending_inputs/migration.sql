-- AlterTable
ALTER TABLE "storefront_a_connections" ADD COLUMN     "pending_client_id" TEXT,
ADD COLUMN     "pending_client_secret_enc" TEXT,
ADD COLUMN     "pending_shop" TEXT,
ADD COLUMN     "pending_since" TIMESTAMPTZ(3);

