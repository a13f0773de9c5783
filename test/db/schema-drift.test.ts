// Fails when prisma/schema.prisma and prisma/migrations disagree: the committed migrations applied to one
// empty database must give exactly the schema that Prisma's from-empty script gives another.
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { migrate } from '../../prisma/migrate.js';
import { diffSchemas, readSchema } from '../../scripts/lib/schema-diff.js';
import { createEmptyDatabase } from '../harness/db.js';

const drops: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const drop of drops) await drop();
});

function schemaDump(url: string): string {
  const dump = execFileSync('pg_dump', ['--schema-only', '--no-owner', '--no-privileges', '--exclude-table=_prisma_migrations', url]).toString();
  return dump
    .split('\n')
    .filter((line) => !line.startsWith('--') && !/^SET |^SELECT pg_catalog\.set_config|^\\(un)?restrict /.test(line))
    .join('\n')
    .replace(/\n{2,}/g, '\n')
    // Columns added by a later migration come last in the table; column order does not matter here.
    .replace(/(CREATE TABLE [^\n]+ \(\n)([\s\S]*?)(\n\);)/g, (_m, head: string, cols: string, tail: string) =>
      head + cols.split('\n').map((c) => c.replace(/,$/, '')).sort().join('\n') + tail,
    )
    .trim();
}

describe('schema drift', () => {
  it('given the committed migrations / they build exactly the schema that schema.prisma describes', async () => {
    const migrated = await createEmptyDatabase();
    const fromEmpty = await createEmptyDatabase();
    drops.push(migrated.drop, fromEmpty.drop);

    await migrate(migrated.url);
    const sql = await diffSchemas({ from: 'empty', to: readSchema(), databaseUrl: fromEmpty.url });
    const client = new pg.Client({ connectionString: fromEmpty.url });
    await client.connect();
    await client.query(sql);
    await client.end();

    const expected = schemaDump(fromEmpty.url);
    expect(expected).toContain('CREATE TABLE public.merchants');
    expect(schemaDump(migrated.url)).toBe(expected);
  });
});
