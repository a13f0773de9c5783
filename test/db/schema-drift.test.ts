// Fails when prisma/schema.prisma and prisma/migrations disagree: the committed migrations applied to one
// empty database must give exactly the schema that Prisma's from-empty script gives another.
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { migrate } from '../../prisma/migrate.js';
import { diffSchemas, readSchema } from '../../scripts/lib/schema-diff.js';
import { createEmptyDatabase } from '../harness/db.js';
import { schemaSnapshot } from '../harness/pg-catalog.js';

const drops: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const drop of drops) await drop();
});

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

    const expected = await schemaSnapshot(fromEmpty.url);
    expect(expected).toContain('column merchants.email text NOT NULL');
    expect(await schemaSnapshot(migrated.url)).toBe(expected);
  });
});
