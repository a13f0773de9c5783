-- A delivery estimate per shipping rate: the business days from order to delivery the merchant promises ("3-5
-- business days"), shown with the rate on the checkout page. Both or neither: a rate without one shows none.

-- AlterTable
ALTER TABLE "shipping_rates" ADD COLUMN     "delivery_min_days" INTEGER,
ADD COLUMN     "delivery_max_days" INTEGER;

-- Both or neither, 0 <= min <= max <= 90: the API's rule (api/schemas/merchant.ts) and the only writer's
-- (model/shipping-rates.ts deliveryDaysColumns). No CHECK constraint: schema.prisma cannot state one, and
-- test/db/schema-drift.test.ts holds the migrations to it.

-- The session bundle shows each rate's estimate: merchants.checkout_parts gets it (the trigger rule of
-- 20261125075825_merchant_checkout_parts: change merchant_checkout_parts(), then recompute it for every merchant).
CREATE OR REPLACE FUNCTION "merchant_checkout_parts"(merchant UUID) RETURNS JSONB LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'shippingRates', COALESCE((SELECT jsonb_agg(jsonb_build_object('id', r.id, 'name', r.name, 'free', r.free, 'basePriceCents', r.base_price_cents,
                                                                 'freeThresholdCents', r.free_threshold_cents,
                                                                 'countries', CASE WHEN r.all_store_countries THEN to_jsonb('store'::text) ELSE to_jsonb(COALESCE(r.countries, ARRAY[]::TEXT[])) END,
                                                                 'deliveryDays', CASE WHEN r.delivery_min_days IS NULL THEN 'null'::jsonb
                                                                                      ELSE jsonb_build_object('min', r.delivery_min_days, 'max', r.delivery_max_days) END)
                                         ORDER BY r.position, r.id)
                               FROM shipping_rates r WHERE r.merchant_id = merchant), '[]'::jsonb),
    'pixels', COALESCE((SELECT jsonb_agg(jsonb_build_object('platform', p.platform, 'trackingId', p.tracking_id, 'events', p.events) ORDER BY p.created_at, p.id)
                        FROM tracking_pixels p WHERE p.merchant_id = merchant AND p.active), '[]'::jsonb))
$$;

-- Backfill
UPDATE "merchants" SET "checkout_parts" = merchant_checkout_parts(id);
