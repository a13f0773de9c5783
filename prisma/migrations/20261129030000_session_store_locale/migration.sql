-- The store's language for a cart (storefront B sends WordPress's locale with each handoff): the checkout page
-- speaks it before the browser's languages.
ALTER TABLE "checkout_sessions" ADD COLUMN "store_locale" TEXT;
