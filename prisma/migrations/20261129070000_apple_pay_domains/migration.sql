-- The merchant's checkout host registered with Whop's Domains API for Apple Pay on the embedded checkout (issue 30,
-- item 1): Whop's domain id, the claim's verification, the apple_pay capability's status and the DNS records to publish,
-- as Whop last answered them.

-- CreateTable
CREATE TABLE "apple_pay_domains" (
    "merchant_id" UUID NOT NULL,
    "business_id" TEXT NOT NULL,
    "hostname" TEXT NOT NULL,
    "domain_id" TEXT NOT NULL,
    "verification" TEXT,
    "apple_pay_status" TEXT,
    "issue" TEXT,
    "records" JSONB NOT NULL DEFAULT '[]',
    "checked_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "apple_pay_domains_pkey" PRIMARY KEY ("merchant_id")
);

-- Always a list (the view maps it).
ALTER TABLE "apple_pay_domains" ADD CONSTRAINT "apple_pay_domains_records_array_check" CHECK (jsonb_typeof(records) = 'array');

-- AddForeignKey
ALTER TABLE "apple_pay_domains" ADD CONSTRAINT "apple_pay_domains_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
