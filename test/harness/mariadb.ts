// A throwaway MariaDB server for the real WooCommerce tier: Debian's mariadbd on a datadir, socket and free port of
// its own (never the system service, never /etc/mysql: --no-defaults), durability off (a test database), stopped
// with SIGTERM, which is MariaDB's clean shutdown (so a stopped datadir can serve as a template).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { freeLowPort } from '../../scripts/lib/ports.js';

const MISSING = 'MariaDB is not installed: apt-get install mariadb-server (.ci/run does it)';

function binary(name: string): string {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/bin']) {
    const p = path.join(dir, name);
    if (dir && existsSync(p)) return p;
  }
  throw new Error(`${name} not found. ${MISSING}`);
}

function run(cmd: string, args: string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(cmd, args, { encoding: 'utf8', timeout: 60_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${path.basename(cmd)} ${args.filter((a) => !a.startsWith('--password')).join(' ')} failed: ${stderr || err.message}`)) : resolve(stdout),
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}

/** `mariadbd --version` (a datadir is only reused by the version that wrote it). */
export function mariaDbVersion(): Promise<string> {
  return run(binary('mariadbd'), ['--version']).then((v) => v.trim());
}

/** Makes an empty datadir (system tables, root over the socket with no password). */
export async function initMariaDbDatadir(datadir: string): Promise<void> {
  mkdirSync(datadir, { recursive: true });
  await run(binary('mariadb-install-db'), [
    '--no-defaults',
    `--datadir=${datadir}`,
    ...(process.getuid?.() === 0 ? ['--user=root'] : []),
    '--auth-root-authentication-method=normal',
    '--skip-test-db',
    '--skip-name-resolve',
    // Small logs: a template datadir is copied for every run.
    '--innodb-log-file-size=8M',
  ]);
}

export interface MariaDb {
  /** The server's process id. */
  pid: number;
  host: string;
  port: number;
  socket: string;
  datadir: string;
  /** Runs SQL as root over the socket; answers the tab-separated output. */
  sql(statements: string): Promise<string>;
  /** Creates a database and a user that may use it from 127.0.0.1. */
  createDatabase(name: string, user: string, password: string): Promise<void>;
  stop(): Promise<void>;
}

/** Starts mariadbd on `datadir` (made by initMariaDbDatadir, or a copy of a stopped one); `runDir` holds socket, pid and log. */
export async function startMariaDb(datadir: string, runDir: string): Promise<MariaDb> {
  mkdirSync(runDir, { recursive: true });
  const port = await freeLowPort();
  const socket = path.join(runDir, 'mysqld.sock');
  const errorLog = path.join(runDir, 'mariadb.err');
  const child: ChildProcess = spawn(binary('mariadbd'), [
    '--no-defaults',
    `--datadir=${datadir}`,
    `--socket=${socket}`,
    `--port=${port}`,
    '--bind-address=127.0.0.1',
    `--pid-file=${path.join(runDir, 'mariadb.pid')}`,
    `--log-error=${errorLog}`,
    ...(process.getuid?.() === 0 ? ['--user=root'] : []),
    '--skip-name-resolve',
    '--skip-log-bin',
    '--innodb-log-file-size=8M',
    '--innodb-buffer-pool-size=64M',
    // A test database: nothing needs to survive a crash.
    '--innodb-flush-log-at-trx-commit=0',
    '--innodb-doublewrite=0',
    '--character-set-server=utf8mb4',
    '--collation-server=utf8mb4_unicode_ci',
  ], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const log = () => (existsSync(errorLog) ? readFileSync(errorLog, 'utf8').split('\n').slice(-15).join('\n') : '(no log)');

  const client = binary('mariadb');
  const sql = (statements: string) => run(client, ['--no-defaults', `--socket=${socket}`, '-uroot', '--batch', '--skip-column-names'], statements);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`mariadbd exited (${child.exitCode}):\n${log()}`);
    if (existsSync(socket) && (await sql('SELECT 1').then(() => true, () => false))) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await exited;
      throw new Error(`mariadbd did not answer within 30 s:\n${log()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  return {
    pid: child.pid!,
    host: '127.0.0.1',
    port,
    socket,
    datadir,
    sql,
    async createDatabase(name, user, password) {
      await sql(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci; CREATE USER '${user}'@'127.0.0.1' IDENTIFIED BY '${password}'; GRANT ALL ON \`${name}\`.* TO '${user}'@'127.0.0.1';`);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        await exited;
        clearTimeout(killer);
      }
    },
  };
}
