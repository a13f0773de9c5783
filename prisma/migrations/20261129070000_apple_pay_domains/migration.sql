-- The merchant's checkout host registered with Whop's Domains API for Apple Pay on the embedded checkout (issue 30,
-- item 1): Whop's domain id, the apple_pay capability's state and Whop's issues for it (what to do, with DNS records),
-- as Whop last answered them.

-- CreateTable
CREATE TABLE "apple_pay_domains" (
    "merchant_id" UUID NOT NULL,
    "business_id" TEXT NOT NULL,
    "hostname" TEXT NOT NULL,
    "domain_id" TEXT NOT NULL,
    "apple_pay_state" TEXT,
    "issues" JSONB NOT NULL DEFAULT '[]',
    "checked_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "apple_pay_domains_pkey" PRIMARY KEY ("merchant_id")
);

-- AddForeignKey
ALTER TABLE "apple_pay_domains" ADD CONSTRAINT "apple_pay_domains_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
