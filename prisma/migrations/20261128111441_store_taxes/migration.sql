-- AlterTable
ALTER TABLE "checkout_sessions" ADD COLUMN     "tax_minor" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "taxes_included" BOOLEAN NOT NULL DEFAULT false;

