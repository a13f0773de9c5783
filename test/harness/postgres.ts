// A throwaway PostgreSQL cluster from Debian's binaries in a temp directory, on a free port. The
// binaries refuse to run as root, so as root the cluster is owned and run by the `postgres` user.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, chownSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/lib/ports.js';

export interface PostgresCluster {
  port: number;
  dir: string;
  /** postgresql://postgres@127.0.0.1:<port>/<database> */
  url(database?: string): string;
  stop(): Promise<void>;
}

const BIN_DIRS = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin', '/usr/local/bin', '/usr/bin'];

function pgBin(name: string): string {
  const fromEnv = process.env.PG_BIN_DIR;
  for (const dir of fromEnv ? [fromEnv, ...BIN_DIRS] : BIN_DIRS) {
    const p = path.join(dir, name);
    if (existsSync(p)) return p;
  }
  throw new Error(
    `PostgreSQL server binary '${name}' not found (looked in ${BIN_DIRS.join(', ')}). ` +
      `Install Debian's postgresql package (apt-get install -y postgresql) or set PG_BIN_DIR.`,
  );
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a PostgreSQL binary, as the `postgres` user when we are root. */
function runAsOwner(bin: string, args: string[]): string[] {
  return isRoot ? ['runuser', '-u', 'postgres', '--', bin, ...args] : [bin, ...args];
}

function ownerIds(): { uid: number; gid: number } | undefined {
  if (!isRoot) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

export async function startPostgres(): Promise<PostgresCluster> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'checkout-pg-'));
  const dataDir = path.join(dir, 'data');
  const ids = ownerIds();
  if (ids) chownSync(dir, ids.uid, ids.gid);
  const port = await freePort();

  const [initCmd, ...initArgs] = runAsOwner(pgBin('initdb'), [
    '-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync',
  ]);
  execFileSync(initCmd!, initArgs, { stdio: 'pipe' });
  // A test cluster: durability off for speed, loopback only, sockets in our own directory.
  writeFileSync(
    path.join(dataDir, 'postgresql.auto.conf'),
    [
      `port = ${port}`,
      `listen_addresses = '127.0.0.1'`,
      `unix_socket_directories = '${dir}'`,
      'fsync = off',
      'synchronous_commit = off',
      'full_page_writes = off',
      'max_connections = 200',
      'shared_buffers = 128MB',
    ].join('\n') + '\n',
  );
  if (ids) chownSync(path.join(dataDir, 'postgresql.auto.conf'), ids.uid, ids.gid);

  const [startCmd, ...startArgs] = runAsOwner(pgBin('pg_ctl'), [
    '-D', dataDir, '-l', path.join(dir, 'postgres.log'), '-w', '-t', '60', 'start',
  ]);
  execFileSync(startCmd!, startArgs, { stdio: 'pipe' });

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    const [stopCmd, ...stopArgs] = runAsOwner(pgBin('pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
    await new Promise<void>((resolve) => {
      const child = spawn(stopCmd!, stopArgs, { stdio: 'ignore' });
      child.on('exit', () => resolve());
      child.on('error', () => resolve());
    });
    rmSync(dir, { recursive: true, force: true });
  };

  return { port, dir, url: (database = 'postgres') => `postgresql://postgres@127.0.0.1:${port}/${database}`, stop };
}
