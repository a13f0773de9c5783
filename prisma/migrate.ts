// Applies prisma/migrations/* the way `prisma migrate deploy` does, so either tool can take over a
// database: same `_prisma_migrations` table, SHA-256 checksums of migration.sql, directories in name
// order, one advisory lock around the run, and on failure `logs` set with `finished_at` left null.
// We need our own runner because the Prisma 7 CLI's native engine cannot be downloaded here.
import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
const LOCK_ID = 72707369; // the advisory lock key Prisma uses

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

export interface MigrateResult {
  applied: string[];
  alreadyApplied: number;
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

export async function migrate(databaseUrl: string, opts: { dir?: string; log?: (line: string) => void } = {}): Promise<MigrateResult> {
  const migrations = readMigrations(opts.dir);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_ID]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
        "id" VARCHAR(36) PRIMARY KEY NOT NULL,
        "checksum" VARCHAR(64) NOT NULL,
        "finished_at" TIMESTAMPTZ,
        "migration_name" VARCHAR(255) NOT NULL,
        "logs" TEXT,
        "rolled_back_at" TIMESTAMPTZ,
        "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
        "applied_steps_count" INTEGER NOT NULL DEFAULT 0
      )`);
      const { rows } = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null }>(
        'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"',
      );
      const failed = rows.find((r) => r.finished_at === null && r.rolled_back_at === null);
      if (failed) {
        throw new MigrationError(
          `Migration ${failed.migration_name} failed earlier and was not rolled back; fix the database and mark it ` +
            `rolled back (UPDATE "_prisma_migrations" SET rolled_back_at = now() WHERE migration_name = '...')`,
        );
      }
      const done = new Map(rows.filter((r) => r.finished_at !== null).map((r) => [r.migration_name, r.checksum]));
      const applied: string[] = [];
      for (const m of migrations) {
        const prior = done.get(m.name);
        if (prior !== undefined) {
          if (prior !== m.checksum) opts.log?.(`warning: migration ${m.name} was modified after it was applied`);
          continue;
        }
        const id = randomUUID();
        await client.query(
          'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)',
          [id, m.checksum, m.name],
        );
        try {
          await client.query('BEGIN');
          await client.query(m.sql);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          const message = err instanceof Error ? err.message : String(err);
          await client.query('UPDATE "_prisma_migrations" SET logs = $2 WHERE id = $1', [id, message]);
          throw new MigrationError(`Migration ${m.name} failed: ${message}`);
        }
        await client.query(
          'UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1',
          [id],
        );
        applied.push(m.name);
        opts.log?.(`applied migration ${m.name}`);
      }
      return { applied, alreadyApplied: done.size };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [LOCK_ID]).catch(() => undefined);
    }
  } finally {
    await client.end();
  }
}
