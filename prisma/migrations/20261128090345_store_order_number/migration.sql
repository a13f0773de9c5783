-- AlterTable
ALTER TABLE "checkout_sessions" ADD COLUMN     "store_order_number" TEXT;

-- AlterTable
ALTER TABLE "upsell_purchases" ADD COLUMN     "store_order_number" TEXT;


-- Orders created before this column: their number is on the timeline event that recorded them.
UPDATE "checkout_sessions" s SET "store_order_number" = e.data->>'number'
FROM (
  SELECT DISTINCT ON (token) token, data FROM "session_events" WHERE type = 'order_created' ORDER BY token, at ASC
) e
WHERE e.token = s.token AND s."store_order_id" IS NOT NULL AND s."store_order_number" IS NULL AND e.data->>'number' IS NOT NULL;

UPDATE "upsell_purchases" p SET "store_order_number" = e.data->>'number'
FROM (
  SELECT DISTINCT ON (token, data->>'upsellId') token, data FROM "session_events" WHERE type = 'upsell_order_created' ORDER BY token, data->>'upsellId', at ASC
) e
WHERE e.token = p.token AND e.data->>'upsellId' = p.upsell_id::text AND p."store_order_id" IS NOT NULL AND p."store_order_number" IS NULL AND e.data->>'number' IS NOT NULL;
