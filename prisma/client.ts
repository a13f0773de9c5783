// The one way to open the database: Prisma Client 7 (query compiler in wasm) over node-postgres, which
// works offline and against any PostgreSQL server, the embedded one of local runs included.
//
// The node-postgres pool under the client is ours (handed to the adapter, which ends it on $disconnect), so the
// few hot reads where Prisma's own per-query cost shows (the checkout page's session bundle) can use it directly
// through `sqlPool(db)`: same connections, same limits, same lifetime as every other query.
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.js';

export type Db = PrismaClient;
export { Prisma } from '../generated/prisma/client.js';

const pools = new WeakMap<Db, pg.Pool>();

export function createDb(databaseUrl: string, opts: { max?: number } = {}): Db {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: opts.max ?? 10, connectionTimeoutMillis: 5_000 });
  // An idle connection that dies (server restart) is dropped by the pool; without a listener the event would end the process.
  pool.on('error', () => undefined);
  const db = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  pools.set(db, pool);
  return db;
}

/** The node-postgres pool under `db` (for raw hot-path reads; closed with the client by `db.$disconnect()`). */
export function sqlPool(db: Db): pg.Pool {
  const pool = pools.get(db);
  if (!pool) throw new Error('sqlPool: this client was not opened by createDb');
  return pool;
}
