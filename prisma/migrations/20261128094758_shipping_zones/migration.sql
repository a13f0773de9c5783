-- Shipping zones: each rate ships to its own countries, or to every country the store ships to (read from the store
-- when it connects, kept on the merchant). Existing rates get the second: they keep serving whatever the store ships
-- to, and until the store's countries are first read (at the next connect, or the merchant's refresh on the Shipping
-- page) that is every country, exactly as before this migration; the dashboard says so and offers the refresh.

-- AlterTable
ALTER TABLE "merchants" ADD COLUMN     "store_countries" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "store_countries_error" TEXT,
ADD COLUMN     "store_countries_read_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "shipping_rates" ADD COLUMN     "all_store_countries" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "countries" TEXT[] DEFAULT ARRAY[]::TEXT[];


-- The session bundle shows each rate's countries: merchants.checkout_parts gets them (the trigger rule of
-- 20261125075825_merchant_checkout_parts: change merchant_checkout_parts(), then recompute it for every merchant).
-- "store" stands for every country the store ships to, resolved by the API from merchants.store_countries.
CREATE OR REPLACE FUNCTION "merchant_checkout_parts"(merchant UUID) RETURNS JSONB LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'shippingRates', COALESCE((SELECT jsonb_agg(jsonb_build_object('id', r.id, 'name', r.name, 'free', r.free, 'basePriceCents', r.base_price_cents,
                                                                 'freeThresholdCents', r.free_threshold_cents,
                                                                 'countries', CASE WHEN r.all_store_countries THEN to_jsonb('store'::text) ELSE to_jsonb(COALESCE(r.countries, ARRAY[]::TEXT[])) END)
                                         ORDER BY r.position, r.id)
                               FROM shipping_rates r WHERE r.merchant_id = merchant), '[]'::jsonb),
    'pixels', COALESCE((SELECT jsonb_agg(jsonb_build_object('platform', p.platform, 'trackingId', p.tracking_id, 'events', p.events) ORDER BY p.created_at, p.id)
                        FROM tracking_pixels p WHERE p.merchant_id = merchant AND p.active), '[]'::jsonb))
$$;

-- Backfill
UPDATE "merchants" SET "checkout_parts" = merchant_checkout_parts(id);
