-- Whop's API cannot tell us whether a domain is in the account's wallet domains: the merchant confirms it.
ALTER TABLE "wallet_domains" ADD COLUMN "confirmed_at" TIMESTAMPTZ(3);
