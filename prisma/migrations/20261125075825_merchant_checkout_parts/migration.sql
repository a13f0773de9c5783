-- The session bundle's merchant parts (shipping rates and active tracking pixels), kept on the merchant row
-- so that the checkout page's one read is two primary-key lookups instead of two aggregates per request.
-- Written only here, by triggers, in the same transaction as every change to those tables: the bundle never
-- reads parts older than its own snapshot. Triggers are not in schema.prisma; schema-drift compares columns.

-- AlterTable
ALTER TABLE "merchants" ADD COLUMN     "checkout_parts" JSONB NOT NULL DEFAULT '{"pixels": [], "shippingRates": []}';

-- The parts as the bundle shows them: rates in the merchant's order (ties by id), active pixels oldest first.
CREATE FUNCTION "merchant_checkout_parts"(merchant UUID) RETURNS JSONB LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'shippingRates', COALESCE((SELECT jsonb_agg(jsonb_build_object('id', r.id, 'name', r.name, 'free', r.free, 'basePriceCents', r.base_price_cents,
                                                                 'freeThresholdCents', r.free_threshold_cents) ORDER BY r.position, r.id)
                               FROM shipping_rates r WHERE r.merchant_id = merchant), '[]'::jsonb),
    'pixels', COALESCE((SELECT jsonb_agg(jsonb_build_object('platform', p.platform, 'trackingId', p.tracking_id, 'events', p.events) ORDER BY p.created_at, p.id)
                        FROM tracking_pixels p WHERE p.merchant_id = merchant AND p.active), '[]'::jsonb))
$$;

CREATE FUNCTION "refresh_merchant_checkout_parts"(merchant UUID) RETURNS VOID LANGUAGE plpgsql AS $$
BEGIN
  -- Lock the row first, then aggregate in a statement of its own: under READ COMMITTED that statement takes its
  -- snapshot after the lock is granted, so it sees a concurrent change to the same merchant's rates or pixels
  -- that committed while we waited. (One UPDATE with the aggregate in its SET would aggregate from a snapshot
  -- taken before the wait, and the later commit would overwrite the other's change with parts missing it.)
  -- NO KEY UPDATE: sessions inserted meanwhile only need KEY SHARE on their merchant and are not held up.
  PERFORM 1 FROM merchants WHERE id = merchant FOR NO KEY UPDATE;
  UPDATE merchants SET checkout_parts = merchant_checkout_parts(merchant) WHERE id = merchant;
END
$$;

CREATE FUNCTION "merchant_checkout_parts_changed"() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    UPDATE merchants SET checkout_parts = merchant_checkout_parts(id);
    RETURN NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM refresh_merchant_checkout_parts(OLD.merchant_id);
  END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.merchant_id IS DISTINCT FROM OLD.merchant_id) THEN
    PERFORM refresh_merchant_checkout_parts(NEW.merchant_id);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "shipping_rates_checkout_parts" AFTER INSERT OR UPDATE OR DELETE ON "shipping_rates"
  FOR EACH ROW EXECUTE FUNCTION merchant_checkout_parts_changed();
CREATE TRIGGER "shipping_rates_checkout_parts_truncate" AFTER TRUNCATE ON "shipping_rates"
  FOR EACH STATEMENT EXECUTE FUNCTION merchant_checkout_parts_changed();
CREATE TRIGGER "tracking_pixels_checkout_parts" AFTER INSERT OR UPDATE OR DELETE ON "tracking_pixels"
  FOR EACH ROW EXECUTE FUNCTION merchant_checkout_parts_changed();
CREATE TRIGGER "tracking_pixels_checkout_parts_truncate" AFTER TRUNCATE ON "tracking_pixels"
  FOR EACH STATEMENT EXECUTE FUNCTION merchant_checkout_parts_changed();

-- Backfill
UPDATE "merchants" SET "checkout_parts" = merchant_checkout_parts(id);
