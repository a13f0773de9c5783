// The embedded database of local runs: PGlite (PostgreSQL compiled to wasm) kept in a directory and
// served over the PostgreSQL wire protocol, so Prisma's adapter-pg, the migration runner and psql
// connect to it exactly as to a real server. Not for production: one query runs at a time.
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

export async function startPglite(opts: { dataDir?: string; port: number; host?: string }): Promise<EmbeddedPostgres> {
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  const db = await PGlite.create(opts.dataDir ? { dataDir: opts.dataDir } : {});
  const host = opts.host ?? '127.0.0.1';
  const server = new PGLiteSocketServer({ db, port: opts.port, host, maxConnections: 100 });
  await server.start();
  let stopped = false;
  return {
    url: `postgresql://postgres:postgres@${host}:${opts.port}/postgres?sslmode=disable`,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop();
      await db.close();
    },
  };
}
