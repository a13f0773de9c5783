// `npm run db:diff -- <name> [--from-ref <git rev>] [--from-empty] [--print]`
// Writes prisma/migrations/<UTC timestamp>_<name>/migration.sql with the SQL that takes the schema at
// <git rev> (default HEAD) to the working copy of prisma/schema.prisma. Uses Prisma 6's wasm engine
// (tools/prisma-migrate) against DATABASE_URL, or a throwaway embedded PostgreSQL when it is unset.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { MIGRATIONS_DIR } from '../prisma/migrate.js';
import { diffSchemas, readSchema } from './lib/schema-diff.js';
import { startPostgres } from './lib/stack/postgres.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { 'from-ref': { type: 'string', default: 'HEAD' }, 'from-empty': { type: 'boolean' }, print: { type: 'boolean' } },
});
const name = positionals[0];
if (!values.print && (!name || !/^[a-z0-9_]+$/.test(name))) {
  console.error('usage: npm run db:diff -- <name in snake_case> [--from-ref REV] [--from-empty] [--print]');
  process.exit(2);
}

const from = values['from-empty']
  ? ('empty' as const)
  : { schema: execFileSync('git', ['show', `${values['from-ref']}:prisma/schema.prisma`]).toString() };

const embedded = process.env.DATABASE_URL ? undefined : await startPostgres();
try {
  const sql = await diffSchemas({ from, to: readSchema(), databaseUrl: process.env.DATABASE_URL ?? embedded!.url() });
  if (!sql.trim() || /^-- This is an empty migration\.?\s*$/.test(sql.trim())) {
    console.log('schema.prisma has no changes against', values['from-empty'] ? 'an empty database' : values['from-ref']);
  } else if (values.print) {
    process.stdout.write(sql);
  } else {
    const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
    const dir = path.join(MIGRATIONS_DIR, `${stamp}_${name}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'migration.sql'), sql);
    console.log(`wrote ${path.relative(process.cwd(), dir)}/migration.sql`);
  }
} finally {
  await embedded?.stop();
}
