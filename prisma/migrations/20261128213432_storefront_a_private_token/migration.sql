-- AlterTable
ALTER TABLE "storefront_a_connections" ADD COLUMN     "storefront_private_token_enc" TEXT;
