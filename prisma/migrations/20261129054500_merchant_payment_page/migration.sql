-- Where the merchant's shoppers pay by card: inside the checkout page (Whop's embedded checkout, the default) or on
-- Whop's hosted page. The deployment's CHECKOUT_PAYMENT_PAGE=hosted still sends every shopper to the hosted page.

-- CreateEnum
CREATE TYPE "PaymentPage" AS ENUM ('EMBEDDED', 'HOSTED');

-- AlterTable
ALTER TABLE "merchants" ADD COLUMN     "payment_page" "PaymentPage" NOT NULL DEFAULT 'EMBEDDED';
