// merchants.checkout_parts (migration 20261125075825_merchant_checkout_parts): the shipping rates and active
// tracking pixels the session bundle shows, kept on the merchant by triggers, and the store's countries as the bundle
// says them (20261129170000_bundle_store_countries). Whatever writes those tables or the merchant's countries, and
// however two writers interleave, the column must equal what aggregating the tables gives at that moment;
// otherwise the checkout page shows rates, pixels or countries that are not the merchant's.
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, MIGRATIONS_DIR } from '../../prisma/migrate.js';
import { createEmptyDatabase, createTestDatabase, type TestDatabase } from '../harness/db.js';
import { COUNTRY_CODES } from '../../domain/countries.js';

const MIGRATION = '20261125075825_merchant_checkout_parts';
const ZONES = '20261128094758_shipping_zones';
const cleanups: Array<() => Promise<unknown> | void> = [];
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  cleanups.push(() => client.end());
  return client;
}

let merchantN = 0;
async function insertMerchant(c: pg.Client): Promise<string> {
  const n = ++merchantN;
  const { rows } = await c.query<{ id: string }>(
    `INSERT INTO merchants (id, email, password_hash, shop_name, phone, slug, updated_at)
     VALUES (gen_random_uuid(), $1, 'x', 'Shop', '+49301234', $2, now()) RETURNING id`,
    [`m${n}@shop.test`, `shop-${n}`],
  );
  return rows[0]!.id;
}

const addRate = (c: pg.Client, merchant: string, name: string, position: number, cents = 500) =>
  c.query<{ id: string }>(
    `INSERT INTO shipping_rates (id, merchant_id, name, base_price_cents, position) VALUES (gen_random_uuid(), $1, $2, $3, $4) RETURNING id`,
    [merchant, name, cents, position],
  ).then((r) => r.rows[0]!.id);

const addPixel = (c: pg.Client, merchant: string, platform: string, trackingId: string, opts: { active?: boolean; createdAt?: string } = {}) =>
  c.query<{ id: string }>(
    `INSERT INTO tracking_pixels (id, merchant_id, platform, tracking_id, events, active, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, $2, $3, '{purchase}', $4, COALESCE($5::timestamptz, now()), now()) RETURNING id`,
    [merchant, platform, trackingId, opts.active ?? true, opts.createdAt ?? null],
  ).then((r) => r.rows[0]!.id);

interface Parts {
  shippingRates: Array<{ id: string; name: string; free: boolean; basePriceCents: number; freeThresholdCents: number | null; countries: 'store' | string[]; deliveryDays: { min: number; max: number } | null }>;
  pixels: Array<{ platform: string; trackingId: string; events: string[] }>;
  storeCountries: string[] | null;
}

/** A merchant's parts before any rate or pixel: empty lists, and its countries never read. */
const EMPTY: Parts = { shippingRates: [], pixels: [], storeCountries: null };

async function parts(c: pg.Client, merchant: string): Promise<Parts> {
  const { rows } = await c.query<{ parts: Parts }>('SELECT checkout_parts AS parts FROM merchants WHERE id = $1', [merchant]);
  return rows[0]!.parts;
}

/** The parts as the tables say now, aggregated here independently of the migration's function. */
async function fromTables(c: pg.Client, merchant: string): Promise<Parts> {
  const rates = await c.query<Parts['shippingRates'][number]>(
    `SELECT id, name, free, base_price_cents AS "basePriceCents", free_threshold_cents AS "freeThresholdCents",
            CASE WHEN all_store_countries THEN to_jsonb('store'::text) ELSE to_jsonb(countries) END AS countries,
            CASE WHEN delivery_min_days IS NULL THEN NULL ELSE json_build_object('min', delivery_min_days, 'max', delivery_max_days) END AS "deliveryDays"
     FROM shipping_rates WHERE merchant_id = $1 ORDER BY position, id`,
    [merchant],
  );
  const pixels = await c.query<Parts['pixels'][number]>(
    `SELECT platform, tracking_id AS "trackingId", events FROM tracking_pixels WHERE merchant_id = $1 AND active ORDER BY created_at, id`,
    [merchant],
  );
  const countries = await c.query<{ storeCountries: string[] | null }>(
    `SELECT CASE WHEN store_countries_read_at IS NULL OR cardinality(store_countries) >= $2 THEN NULL ELSE store_countries END AS "storeCountries"
     FROM merchants WHERE id = $1`,
    [merchant, COUNTRY_CODES.length],
  );
  return { shippingRates: rates.rows, pixels: pixels.rows, storeCountries: countries.rows[0]!.storeCountries };
}

const names = (p: Parts) => ({ rates: p.shippingRates.map((r) => r.name), pixels: p.pixels.map((x) => x.trackingId) });

describe(`migration ${MIGRATION}`, () => {
  it('given merchants with rates and pixels from before it / it fills their parts; a merchant without any gets empty lists', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    for (const name of readdirSync(MIGRATIONS_DIR)) {
      if (name.endsWith('.toml') || name < MIGRATION) cpSync(path.join(MIGRATIONS_DIR, name), path.join(dir, name), { recursive: true });
    }
    const database = await createEmptyDatabase();
    cleanups.push(database.drop);
    await migrate(database.url, { dir });
    const c = await connect(database.url);
    const shop = await insertMerchant(c);
    const empty = await insertMerchant(c);
    await addRate(c, shop, 'Express', 1, 1290);
    await addRate(c, shop, 'Standard', 0, 490);
    await addPixel(c, shop, 'ga4', 'G-NEWER', { createdAt: '2026-11-02T00:00:00Z' });
    await addPixel(c, shop, 'meta', '123456789012345', { createdAt: '2026-11-01T00:00:00Z' });
    await addPixel(c, shop, 'tiktok', 'PAUSED', { active: false });

    await migrate(database.url);

    expect(names(await parts(c, shop))).toEqual({ rates: ['Standard', 'Express'], pixels: ['123456789012345', 'G-NEWER'] });
    expect(await parts(c, shop)).toEqual(await fromTables(c, shop));
    expect(await parts(c, empty)).toEqual(EMPTY);
  });
});

describe(`migration ${ZONES}`, () => {
  it('given rates from before shipping zones / they ship wherever the store ships, and their parts say so', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    for (const name of readdirSync(MIGRATIONS_DIR)) {
      if (name.endsWith('.toml') || name < ZONES) cpSync(path.join(MIGRATIONS_DIR, name), path.join(dir, name), { recursive: true });
    }
    const database = await createEmptyDatabase();
    cleanups.push(database.drop);
    await migrate(database.url, { dir });
    const c = await connect(database.url);
    const shop = await insertMerchant(c);
    await addRate(c, shop, 'Standard', 0, 490);

    await migrate(database.url);

    expect((await parts(c, shop)).shippingRates).toMatchObject([{ name: 'Standard', countries: 'store' }]);
    const { rows } = await c.query('SELECT store_countries, store_countries_read_at FROM merchants WHERE id = $1', [shop]);
    expect(rows[0]).toEqual({ store_countries: [], store_countries_read_at: null });
  });
});

describe('merchants.checkout_parts', () => {
  let database: TestDatabase;
  let c: pg.Client;
  beforeAll(async () => {
    database = await createTestDatabase();
    cleanups.push(() => database.drop());
    c = await connect(database.url);
  });

  it('given inserts, updates and deletes of rates and pixels / after each one the parts equal the tables', async () => {
    const m = await insertMerchant(c);
    const other = await insertMerchant(c);
    const check = async () => {
      expect(await parts(c, m)).toEqual(await fromTables(c, m));
      expect(await parts(c, other)).toEqual(await fromTables(c, other));
    };
    expect(await parts(c, m)).toEqual(EMPTY);

    const express = await addRate(c, m, 'Express', 2, 1290);
    const standard = await addRate(c, m, 'Standard', 0, 490);
    await addRate(c, m, 'Pickup', 1, 0);
    await check();
    expect(names(await parts(c, m)).rates).toEqual(['Standard', 'Pickup', 'Express']);

    await c.query('UPDATE shipping_rates SET position = -1, base_price_cents = 990, free_threshold_cents = 5000 WHERE id = $1', [express]);
    await check();
    expect((await parts(c, m)).shippingRates[0]).toMatchObject({ id: express, basePriceCents: 990, freeThresholdCents: 5000 });

    await c.query(`UPDATE shipping_rates SET all_store_countries = false, countries = '{DE,AT}' WHERE id = $1`, [express]);
    await check();
    expect((await parts(c, m)).shippingRates[0]).toMatchObject({ id: express, countries: ['DE', 'AT'] });

    await c.query('UPDATE shipping_rates SET merchant_id = $1 WHERE id = $2', [other, standard]);
    await check();
    expect(names(await parts(c, other)).rates).toEqual(['Standard']);

    await c.query('DELETE FROM shipping_rates WHERE merchant_id = $1', [m]);
    await check();
    expect((await parts(c, m)).shippingRates).toEqual([]);

    const meta = await addPixel(c, m, 'meta', '123456789012345');
    await addPixel(c, m, 'ga4', 'G-ABC123');
    await check();
    await c.query('UPDATE tracking_pixels SET active = false WHERE id = $1', [meta]);
    await check();
    expect(names(await parts(c, m)).pixels).toEqual(['G-ABC123']);
    await c.query(`UPDATE tracking_pixels SET active = true, events = '{page_view,purchase}' WHERE id = $1`, [meta]);
    await check();
    expect((await parts(c, m)).pixels[0]).toEqual({ platform: 'meta', trackingId: '123456789012345', events: ['page_view', 'purchase'] });
    await c.query('DELETE FROM tracking_pixels WHERE id = $1', [meta]);
    await check();

    await addRate(c, m, 'Again', 0);
    await c.query('TRUNCATE shipping_rates, tracking_pixels');
    expect(await parts(c, m)).toEqual(EMPTY);
    expect(await parts(c, other)).toEqual(EMPTY);
  });

  it('given two transactions adding rates to one merchant at once / the parts hold both once both committed', async () => {
    const m = await insertMerchant(c);
    const first = await connect(database.url);
    const second = await connect(database.url);
    const secondPid = (await second.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;

    await first.query('BEGIN');
    await addRate(first, m, 'First', 0);
    await second.query('BEGIN');
    const secondInsert = addRate(second, m, 'Second', 1);
    // The second writer's trigger waits for the first's lock on the merchant row.
    for (let i = 0; ; i++) {
      const { rows } = await c.query<{ wait: string | null }>('SELECT wait_event_type AS wait FROM pg_stat_activity WHERE pid = $1', [secondPid]);
      if (rows[0]?.wait === 'Lock') break;
      if (i > 200) throw new Error('the second transaction never waited for the first');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await first.query('COMMIT');
    await secondInsert;
    await second.query('COMMIT');

    expect(names(await parts(c, m)).rates).toEqual(['First', 'Second']);
    expect(await parts(c, m)).toEqual(await fromTables(c, m));
  });

  it('given the store\'s countries read, changed, and the rates changed after / the parts say the countries as the tables do each time', async () => {
    const m = await insertMerchant(c);
    const setCountries = (codes: readonly string[], readAt: string | null = '2026-11-29T10:00:00Z') =>
      c.query('UPDATE merchants SET store_countries = $2, store_countries_read_at = $3 WHERE id = $1', [m, codes, readAt]);
    const check = async (storeCountries: string[] | null) => {
      expect((await parts(c, m)).storeCountries).toEqual(storeCountries);
      expect(await parts(c, m)).toEqual(await fromTables(c, m));
    };

    await setCountries(['DE', 'AT']);
    await check(['DE', 'AT']);
    // A rate's change rewrites the rates and pixels: the countries stay.
    await addRate(c, m, 'Standard', 0);
    await check(['DE', 'AT']);
    // Every country the service knows, and one short of it (domain/countries.ts holds the count the trigger uses).
    await setCountries(COUNTRY_CODES);
    await check(null);
    await setCountries(COUNTRY_CODES.slice(1));
    await check(COUNTRY_CODES.slice(1));
    // Read and empty: ships nowhere; never read: every country.
    await setCountries([]);
    await check([]);
    await setCountries(['DE'], null);
    await check(null);
    await c.query(`UPDATE merchants SET store_countries_read_at = now() WHERE id = $1`, [m]);
    await check(['DE']);
  });

  it('given a merchant with rates and pixels / deleting it cascades without an error from the triggers', async () => {
    const m = await insertMerchant(c);
    await addRate(c, m, 'Standard', 0);
    await addPixel(c, m, 'meta', '123456789012345');

    await c.query('DELETE FROM merchants WHERE id = $1', [m]);

    expect((await c.query('SELECT 1 FROM shipping_rates WHERE merchant_id = $1 UNION ALL SELECT 1 FROM tracking_pixels WHERE merchant_id = $1', [m])).rowCount).toBe(0);
  });
});
