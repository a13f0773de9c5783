// The migration that adds the funnel milestones (20261122170002_orders_stats) fills them for sessions that
// existed before it, from their timelines: cumulative (a later step marks the earlier ones), and a paid or
// COD session without events still counts at every step.
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, MIGRATIONS_DIR } from '../../prisma/migrate.js';
import { createEmptyDatabase } from '../harness/db.js';

const MIGRATION = '20261122170002_orders_stats';
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** The migrations up to (and with `including`) this one, in a directory of their own. */
function migrationsUpTo(including: boolean): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  for (const name of readdirSync(MIGRATIONS_DIR)) {
    if (name.endsWith('.toml') || name < MIGRATION || (including && name === MIGRATION)) cpSync(path.join(MIGRATIONS_DIR, name), path.join(dir, name), { recursive: true });
  }
  return dir;
}

describe(`migration ${MIGRATION}`, () => {
  it('given sessions with timelines from before it / it backfills their milestones the way the code records them', async () => {
    const database = await createEmptyDatabase();
    cleanups.push(database.drop);
    await migrate(database.url, { dir: migrationsUpTo(false) });

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    cleanups.push(() => client.end());
    const t = (minute: number) => new Date(Date.UTC(2026, 9, 1, 12, minute)).toISOString();
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO merchants (id, email, password_hash, shop_name, phone, slug, updated_at)
       VALUES (gen_random_uuid(), 'm@shop.test', 'x', 'Shop', '+49301234', 'shop', now()) RETURNING id`,
    );
    const merchantId = rows[0]!.id;
    const session = (token: string, status: string, completedAt: string | null) =>
      client.query(
        `INSERT INTO checkout_sessions (token, merchant_id, platform, status, currency, fx_rates, items, subtotal_minor, completed_at, created_at, updated_at)
         VALUES ($1, $2, 'STOREFRONT_B', $3, 'EUR', '{}', '[]', 1000, $4, $5, $6)`,
        [token, merchantId, status, completedAt, t(0), t(59)],
      );
    const event = (token: string, type: string, minute: number, data: object = {}) =>
      client.query(`INSERT INTO session_events (id, token, type, data, at) VALUES (gen_random_uuid(), $1, $2, $3, $4)`, [token, type, JSON.stringify(data), t(minute)]);

    await session('cs_paid', 'COMPLETED', t(5));
    for (const [type, minute, data] of [['created', 0], ['details_entered', 2], ['payment_started', 3], ['status_changed', 4, { from: 'OPEN', to: 'PAYMENT_PENDING' }], ['status_changed', 5, { from: 'PAYMENT_PENDING', to: 'COMPLETED' }], ['payment_started', 8]] as const) {
      await event('cs_paid', type, minute, data);
    }
    await session('cs_contact', 'OPEN', null);
    await event('cs_contact', 'created', 0);
    await event('cs_contact', 'contact_entered', 1);
    await session('cs_shipping_only', 'ABANDONED', null);
    await event('cs_shipping_only', 'shipping_chosen', 6);
    await session('cs_cod', 'COD_CONFIRMED', null);
    await event('cs_cod', 'details_entered', 2);
    await event('cs_cod', 'cod_confirmed', 3);
    await event('cs_cod', 'status_changed', 3, { from: 'OPEN', to: 'COD_CONFIRMED' });
    await session('cs_paid_no_events', 'REFUNDED', t(7));
    await session('cs_left', 'ABANDONED', null);
    await event('cs_left', 'created', 0);

    await migrate(database.url, { dir: migrationsUpTo(true) });

    const milestones = await client.query<{ token: string; c: Date | null; s: Date | null; p: Date | null }>(
      'SELECT token, contact_entered_at AS c, shipping_chosen_at AS s, payment_started_at AS p FROM checkout_sessions ORDER BY token',
    );
    const iso = (d: Date | null) => d?.toISOString() ?? null;
    expect(Object.fromEntries(milestones.rows.map((r) => [r.token, [iso(r.c), iso(r.s), iso(r.p)]]))).toEqual({
      cs_paid: [t(2), t(2), t(3)],
      cs_contact: [t(1), null, null],
      cs_shipping_only: [t(6), t(6), null],
      cs_cod: [t(2), t(2), t(3)],
      cs_paid_no_events: [t(7), t(7), t(7)],
      cs_left: [null, null, null],
    });
  });
});
