-- The shopper's billing address when it differs from the shipping address (issue 30 item 3): the store order's
-- billing address, and the tax location where the store bases tax on it. NULL: billed to the shipping address.
ALTER TABLE "checkout_sessions" ADD COLUMN "billing_address" JSONB;
