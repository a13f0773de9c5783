// The one way to open the database: Prisma Client 7 (query compiler in wasm) over node-postgres, which
// works offline and against any PostgreSQL server, the embedded one of local runs included.
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.js';

export type Db = PrismaClient;
export { Prisma } from '../generated/prisma/client.js';

export function createDb(databaseUrl: string, opts: { max?: number } = {}): Db {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: opts.max ?? 10, connectionTimeoutMillis: 5_000 });
  return new PrismaClient({ adapter });
}
