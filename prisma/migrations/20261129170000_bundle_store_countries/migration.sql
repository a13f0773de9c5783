-- The session bundle's `storeCountries` (what the store ships to, said once per checkout; null when never read or
-- every country) kept in merchants.checkout_parts beside the rates and pixels, so that the bundle's read does not
-- decompress the 250-code merchants.store_countries array on every request to decide it.
--
-- Written by a BEFORE trigger on the merchant row itself, whenever the store's countries, the time they were read, or
-- the parts change (merchant_checkout_parts() writes the rates and pixels; this adds the countries to what it wrote):
-- the same statement that changes the countries changes the part, whoever writes it, and no other row is locked.
-- 250: the number of country codes the service knows (domain/countries.ts COUNTRY_CODES; test/db/checkout-parts.test.ts
-- holds the two equal). A list that long is every country.
CREATE FUNCTION "merchant_store_countries_part"() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
  NEW.checkout_parts := jsonb_set(NEW.checkout_parts, '{storeCountries}',
    CASE WHEN NEW.store_countries_read_at IS NULL OR NEW.store_countries IS NULL OR cardinality(NEW.store_countries) >= 250 THEN 'null'::jsonb
         ELSE to_jsonb(NEW.store_countries) END);
  RETURN NEW;
END
$$;

CREATE TRIGGER "merchants_store_countries_part" BEFORE INSERT OR UPDATE OF store_countries, store_countries_read_at, checkout_parts ON "merchants"
  FOR EACH ROW EXECUTE FUNCTION merchant_store_countries_part();

-- Backfill (the trigger writes the part)
UPDATE "merchants" SET "checkout_parts" = "checkout_parts";
