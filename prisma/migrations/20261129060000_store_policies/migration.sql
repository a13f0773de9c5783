-- The store's policy pages (refund, privacy, terms, shipping, …) that the checkout page's footer links to, read from
-- the store with its ship-to countries (model/store-countries.ts) and kept on the merchant, where the session bundle's
-- one read finds them. A failed read keeps what was read before and says why.

-- AlterTable
ALTER TABLE "merchants" ADD COLUMN     "store_policies" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "store_policies_error" TEXT,
ADD COLUMN     "store_policies_read_at" TIMESTAMPTZ(3);

-- Always a list (the bundle's serializer and the page rely on it): model/store-countries.ts writes only a parsed
-- list. No CHECK constraint: schema.prisma cannot state one, and test/db/schema-drift.test.ts holds the migrations to it.
