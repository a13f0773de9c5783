-- AlterTable
ALTER TABLE "idempotency_records" ADD COLUMN     "credential" TEXT;
