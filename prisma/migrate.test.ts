import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { migrate, readMigrations, MigrationError } from './migrate.js';
import { createEmptyDatabase } from '../test/harness/db.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function emptyDb() {
  const db = await createEmptyDatabase();
  cleanups.push(db.drop);
  return db;
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

function migrationsDir(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  for (const [name, sql] of Object.entries(files)) {
    mkdirSync(path.join(dir, name));
    writeFileSync(path.join(dir, name, 'migration.sql'), sql);
  }
  return dir;
}

describe('migration runner (prisma migrate deploy compatible)', () => {
  it('given an empty database / it applies every committed migration once and records them as Prisma does', async () => {
    const { url } = await emptyDb();
    const first = await migrate(url);
    expect(first.applied).toEqual(readMigrations().map((m) => m.name));
    const rows = await query<{ migration_name: string; checksum: string; finished_at: Date | null; applied_steps_count: number }>(
      url,
      'SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name',
    );
    expect(rows.map((r) => r.migration_name)).toEqual(first.applied);
    expect(rows.every((r) => r.finished_at !== null && r.applied_steps_count === 1 && /^[0-9a-f]{64}$/.test(r.checksum))).toBe(true);
    expect(rows.map((r) => r.checksum)).toEqual(readMigrations().map((m) => m.checksum));

    const second = await migrate(url);
    expect(second).toEqual({ applied: [], alreadyApplied: first.applied.length });
  });

  it('given two runners at once / the advisory lock makes them apply each migration exactly once', async () => {
    const { url } = await emptyDb();
    const dir = migrationsDir({ '001_a': 'CREATE TABLE a (id int);', '002_b': 'CREATE TABLE b (id int);' });
    const [x, y] = await Promise.all([migrate(url, { dir }), migrate(url, { dir })]);
    expect([...x.applied, ...y.applied].sort()).toEqual(['001_a', '002_b']);
  });

  it('given a failing migration / it rolls it back, records the error in logs, and refuses to go on until resolved', async () => {
    const { url } = await emptyDb();
    const dir = migrationsDir({ '001_ok': 'CREATE TABLE ok (id int);', '002_bad': 'CREATE TABLE half (id int); SELECT no_such_function();' });
    await expect(migrate(url, { dir })).rejects.toThrow(/002_bad failed: .*no_such_function/);
    const rows = await query<{ migration_name: string; finished_at: Date | null; logs: string | null }>(url, 'SELECT migration_name, finished_at, logs FROM "_prisma_migrations" ORDER BY migration_name');
    expect(rows).toEqual([
      expect.objectContaining({ migration_name: '001_ok', logs: null }),
      expect.objectContaining({ migration_name: '002_bad', finished_at: null, logs: expect.stringContaining('no_such_function') }),
    ]);
    // The failed migration's own statements were rolled back.
    expect(await query(url, "SELECT 1 FROM information_schema.tables WHERE table_name = 'half'")).toHaveLength(0);
    await expect(migrate(url, { dir })).rejects.toBeInstanceOf(MigrationError);
  });
});
