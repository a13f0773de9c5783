// What the tests used pg_dump for, read from PostgreSQL's own catalogs over the wire: no client tools of a
// matching major version needed (the server is PostgreSQL 18 from npm; the machine's pg_dump is older and
// refuses it).
import pg from 'pg';

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const IGNORED_TABLES = ['_prisma_migrations'];

/**
 * The public schema as sorted lines: enum types with their labels in order, every column (type, nullability,
 * default), every constraint and every index as PostgreSQL itself prints them. Two databases with equal
 * snapshots have the same schema for everything the application relies on; column order is not compared.
 */
export function schemaSnapshot(url: string): Promise<string> {
  return withClient(url, async (c) => {
    const lines: string[] = [];
    const enums = await c.query<{ name: string; labels: string[] }>(`
      SELECT t.typname AS name, array_agg(e.enumlabel ORDER BY e.enumsortorder)::text[] AS labels
      FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace n ON n.oid = t.typnamespace
      WHERE n.nspname = 'public' GROUP BY t.typname`);
    for (const r of enums.rows) lines.push(`enum ${r.name} (${r.labels.join(', ')})`);
    const columns = await c.query<{ tbl: string; col: string; type: string; notnull: boolean; def: string | null }>(`
      SELECT cl.relname AS tbl, a.attname AS col, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS notnull,
             pg_get_expr(d.adbin, d.adrelid) AS def
      FROM pg_attribute a JOIN pg_class cl ON cl.oid = a.attrelid JOIN pg_namespace n ON n.oid = cl.relnamespace
      LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE n.nspname = 'public' AND cl.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped AND cl.relname <> ALL($1)`, [IGNORED_TABLES]);
    for (const r of columns.rows) lines.push(`column ${r.tbl}.${r.col} ${r.type}${r.notnull ? ' NOT NULL' : ''}${r.def ? ` DEFAULT ${r.def}` : ''}`);
    const constraints = await c.query<{ tbl: string; name: string; def: string }>(`
      SELECT cl.relname AS tbl, co.conname AS name, pg_get_constraintdef(co.oid) AS def
      FROM pg_constraint co JOIN pg_class cl ON cl.oid = co.conrelid JOIN pg_namespace n ON n.oid = cl.relnamespace
      WHERE n.nspname = 'public' AND co.contype <> 'n' AND cl.relname <> ALL($1)`, [IGNORED_TABLES]);
    for (const r of constraints.rows) lines.push(`constraint ${r.tbl}.${r.name} ${r.def}`);
    const indexes = await c.query<{ def: string; tbl: string }>(`
      SELECT indexdef AS def, tablename AS tbl FROM pg_indexes WHERE schemaname = 'public' AND tablename <> ALL($1)`, [IGNORED_TABLES]);
    for (const r of indexes.rows) lines.push(`index ${r.def}`);
    return lines.sort().join('\n');
  });
}

/** Every row of every table of the public schema, as JSON text, one line per row (a data-only dump). */
export function dataDump(url: string): Promise<string> {
  return withClient(url, async (c) => {
    const tables = await c.query<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`);
    const out: string[] = [];
    for (const { name } of tables.rows) {
      const rows = await c.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM ${pg.escapeIdentifier(name)} t`);
      for (const r of rows.rows) out.push(`${name}\t${r.row}`);
    }
    return out.join('\n');
  });
}
