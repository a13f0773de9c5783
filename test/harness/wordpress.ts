// A real WordPress 6.8.8 + WooCommerce 10.0.2 for the real-platform tier (test/real/): the pinned releases from
// ../shared/real-platforms unpacked into the cache (scripts/lib/real-platforms.ts), a throwaway MariaDB
// (mariadb.ts), and PHP's built-in server on a free port. The site is what a new shop gets: HPOS on, block
// Cart and Checkout, Twenty Twenty-Five, EUR, a catalogue of two simple products and a variable one, an
// administrator and a shop manager. No vitest here.
//
// Installing takes most of a minute, so the installed site is cached: a stopped MariaDB datadir and the uploads
// folder, keyed by the tarballs' checksums and this harness's set-up files. Every run copies the datadir (a
// write would change the template), hard-links WordPress and WooCommerce (nothing writes to their files), writes
// its own wp-config.php with its own ports, and is deleted at stop().
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, copyFileSync, cpSync, openSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir } from '../../scripts/lib/temporal-binaries.js';
import { pinnedDigest, unpackedPlatform } from '../../scripts/lib/real-platforms.js';
import { freeLowPort } from '../../scripts/lib/ports.js';
import { initMariaDbDatadir, mariaDbVersion, startMariaDb, type MariaDb } from './mariadb.js';
import { WooCommerceRestApi } from './woocommerce-official.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const OPS = path.join(here, 'wordpress', 'ops.php');
const MU_PLUGINS = path.join(here, 'wordpress', 'mu-plugins');
const DB = { name: 'wp', user: 'wp', password: 'wp-test-password' } as const;
const PHP_MISSING = 'PHP is not installed: apt-get install php-cli php-mysql php-xml php-mbstring php-curl php-zip php-gd php-intl (.ci/run does it)';

export const WP_ADMIN = { user: 'admin', password: 'admin-password-0123', email: 'admin@store.test' } as const;
export const WP_MANAGER = { user: 'manager', password: 'manager-password-0123', email: 'manager@store.test' } as const;

/** What the cached installation holds (prepare-store's answer). */
export interface SiteFacts {
  hpos: string;
  products: { mug: number; notebook: number; shirt: { id: number; variations: Record<'S' | 'M' | 'L', number> } };
  managerId: number;
}

export interface RestKey {
  consumerKey: string;
  consumerSecret: string;
  keyId: number;
}

export interface WordPressSite {
  /** The home URL, at the domain root: http://127.0.0.1:<port>. */
  url: string;
  /** The site's folder (ABSPATH). */
  dir: string;
  facts: SiteFacts;
  mariadb: MariaDb;
  /** Runs a command of test/harness/wordpress/ops.php against this site. */
  ops<T = Record<string, unknown>>(command: string, input?: unknown): Promise<T>;
  /** A REST key as WooCommerce's "Add key" makes one, for the administrator (default) or the shop manager. */
  createKey(permissions: 'read' | 'write' | 'read_write', user?: string): Promise<RestKey>;
  /**
   * WooCommerce's official REST client (OAuth 1.0a over http) with the given key: independent of our client.
   * `version` is the namespace (our plugin's `wc-hosted-checkout/v1` is reached the same way).
   */
  rest(key: RestKey, version?: string): InstanceType<typeof WooCommerceRestApi>;
  /** wp-content/debug.log (WP_DEBUG_LOG), '' when nothing was logged. */
  debugLog(): string;
  /** Emails the site sent (wp-content/mailbox.jsonl, written by the test mailbox mu-plugin). */
  mailbox(): Array<{ to: string | string[]; subject: string }>;
  stop(): Promise<void>;
}

function php(args: string[], input: unknown, cwd?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('php', ['-d', 'memory_limit=512M', ...args], { cwd, encoding: 'utf8', timeout: 120_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if ((err as NodeJS.ErrnoException | null)?.code === 'ENOENT') reject(new Error(PHP_MISSING));
      else if (err) reject(new Error(`php ${args.slice(1).join(' ')} failed: ${stderr}${stdout}`));
      else resolve(stdout);
    });
    child.stdin!.end(JSON.stringify(input ?? {}));
  });
}

const runOps = async <T>(siteDir: string, command: string, input?: unknown): Promise<T> => {
  const out = await php([OPS, siteDir, command], input);
  try {
    return JSON.parse(out) as T;
  } catch {
    throw new Error(`ops.php ${command} did not answer JSON: ${out.slice(0, 2000)}`);
  }
};

function wpConfig(home: string, dbPort: number): string {
  const salt = (name: string) => `define( '${name}', '${createHash('sha256').update(`${name}${home}`).digest('hex')}' );`;
  return `<?php
// Written by test/harness/wordpress.ts for one test run.
define( 'DB_NAME', '${DB.name}' );
define( 'DB_USER', '${DB.user}' );
define( 'DB_PASSWORD', '${DB.password}' );
define( 'DB_HOST', '127.0.0.1:${dbPort}' );
define( 'DB_CHARSET', 'utf8mb4' );
define( 'DB_COLLATE', '' );
${['AUTH_KEY', 'SECURE_AUTH_KEY', 'LOGGED_IN_KEY', 'NONCE_KEY', 'AUTH_SALT', 'SECURE_AUTH_SALT', 'LOGGED_IN_SALT', 'NONCE_SALT'].map(salt).join('\n')}
$table_prefix = 'wp_';
define( 'WP_DEBUG', true );
define( 'WP_DEBUG_LOG', true );
define( 'WP_DEBUG_DISPLAY', false );
define( 'DISABLE_WP_CRON', true );
// Nothing leaves the machine; loopback (our API) is still allowed.
define( 'WP_HTTP_BLOCK_EXTERNAL', true );
define( 'AUTOMATIC_UPDATER_DISABLED', true );
define( 'FS_METHOD', 'direct' );
// Each run has its own port: the home URL comes from here, not from the (cached) database.
define( 'WP_HOME', '${home}' );
define( 'WP_SITEURL', '${home}' );
if ( ! defined( 'ABSPATH' ) ) {
	define( 'ABSPATH', __DIR__ . '/' );
}
require_once ABSPATH . 'wp-settings.php';
`;
}

/** WordPress and WooCommerce in `siteDir`: hard links to the unpacked releases (copies where links cannot be made). */
async function layOutSite(siteDir: string): Promise<void> {
  const [wordpress, woocommerce] = await Promise.all([unpackedPlatform('wordpress'), unpackedPlatform('woocommerce')]);
  const link = (from: string, to: string) =>
    new Promise<void>((resolve, reject) => execFile('cp', ['-al', from, to], (err) => (err ? execFile('cp', ['-a', from, to], (e2) => (e2 ? reject(e2) : resolve())) : resolve())));
  await link(path.join(wordpress, 'wordpress'), siteDir);
  await link(path.join(woocommerce, 'woocommerce'), path.join(siteDir, 'wp-content', 'plugins', 'woocommerce'));
  mkdirSync(path.join(siteDir, 'wp-content', 'mu-plugins'), { recursive: true });
  for (const file of readdirSync(MU_PLUGINS)) copyFileSync(path.join(MU_PLUGINS, file), path.join(siteDir, 'wp-content', 'mu-plugins', file));
}

/** Bump when the set-up steps in siteTemplate() change (ops.php and the mu-plugins are hashed by content). */
const TEMPLATE_VERSION = 1;

/** The cache key of the installed site: the tarballs, the set-up code and the database server's version. */
async function templateKey(): Promise<string> {
  const hash = createHash('sha256').update(`${TEMPLATE_VERSION}\n${pinnedDigest()}\n${await mariaDbVersion()}`);
  for (const file of [OPS, ...readdirSync(MU_PLUGINS).map((f) => path.join(MU_PLUGINS, f))]) hash.update(readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}

const realRoot = () => path.join(cacheDir(), 'real-platforms');

/** The installed site's datadir, uploads and facts, built once per key (about a minute). */
async function siteTemplate(log: (line: string) => void): Promise<{ datadir: string; uploads: string; facts: SiteFacts }> {
  const target = path.join(realRoot(), `site-template-${await templateKey()}`);
  const answer = () => ({ datadir: path.join(target, 'datadir'), uploads: path.join(target, 'uploads'), facts: JSON.parse(readFileSync(path.join(target, 'facts.json'), 'utf8')) as SiteFacts });
  if (existsSync(path.join(target, 'facts.json'))) return answer();

  log('[wordpress] installing WordPress + WooCommerce (first run on this machine; cached afterwards)');
  const started = Date.now();
  mkdirSync(realRoot(), { recursive: true });
  const work = mkdtempSync(`${target}.work-`);
  let mariadb: MariaDb | undefined;
  try {
    const site = path.join(work, 'site');
    await layOutSite(site);
    await initMariaDbDatadir(path.join(work, 'datadir'));
    mariadb = await startMariaDb(path.join(work, 'datadir'), path.join(work, 'run'));
    await mariadb.createDatabase(DB.name, DB.user, DB.password);
    writeFileSync(path.join(site, 'wp-config.php'), wpConfig(`http://127.0.0.1:${await freeLowPort()}`, mariadb.port));
    await runOps(site, 'install', { title: 'Real Store', admin: WP_ADMIN });
    await runOps(site, 'activate-woocommerce');
    const facts = await runOps<SiteFacts>(site, 'prepare-store', { manager: WP_MANAGER });
    if (facts.hpos !== 'yes') throw new Error(`HPOS is not on after set-up (${facts.hpos})`);
    await mariadb.stop();
    mariadb = undefined;
    mkdirSync(path.join(site, 'wp-content', 'uploads'), { recursive: true });
    renameSync(path.join(site, 'wp-content', 'uploads'), path.join(work, 'uploads'));
    rmSync(site, { recursive: true, force: true });
    rmSync(path.join(work, 'run'), { recursive: true, force: true });
    writeFileSync(path.join(work, 'facts.json'), JSON.stringify(facts, null, 2));
    try {
      renameSync(work, target);
    } catch (err) {
      if (!existsSync(path.join(target, 'facts.json'))) throw err;
    }
    log(`[wordpress] installed and cached in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    // Templates of other keys (older tarballs or set-up code) are left to runs that may still copy them for an hour.
    sweepOld(realRoot(), (name) => name.startsWith('site-template-') && !name.includes('.work-') && path.join(realRoot(), name) !== target, 3_600_000);
  } finally {
    await mariadb?.stop();
    rmSync(work, { recursive: true, force: true });
  }
  return answer();
}

/** Who runs a site: the test process, and the servers it started (a process group for php -S and its workers). */
interface RunOwner {
  node: number;
  mariadb?: number;
  phpGroup?: number;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Sites whose test process is gone (killed before its afterAll could stop them): their servers are stopped — only
 * processes whose command line names that run's folder — and the folder removed.
 */
function sweepAbandonedRuns(runs: string): void {
  if (!existsSync(runs)) return;
  for (const name of readdirSync(runs)) {
    const dir = path.join(runs, name);
    let owner: RunOwner | undefined;
    try {
      owner = JSON.parse(readFileSync(path.join(dir, 'owner.json'), 'utf8')) as RunOwner;
    } catch {
      owner = undefined;
    }
    if (owner && alive(owner.node)) continue;
    if (!owner && Date.now() - statSync(dir).mtimeMs < 3_600_000) continue; // being created right now
    const ours = (pid: number) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir);
      } catch {
        return false;
      }
    };
    if (owner?.phpGroup && ours(owner.phpGroup)) process.kill(-owner.phpGroup, 'SIGKILL');
    if (owner?.mariadb && ours(owner.mariadb)) process.kill(owner.mariadb, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Removes the folders of `dir` that `match` and were not modified for `ageMs`. */
function sweepOld(dir: string, match: (name: string) => boolean, ageMs: number): void {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir).filter(match)) {
    const full = path.join(dir, name);
    try {
      if (Date.now() - statSync(full).mtimeMs > ageMs) rmSync(full, { recursive: true, force: true });
    } catch {
      // Another run removed it.
    }
  }
}

async function waitForHttp(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`php -S exited (${child.exitCode}): ${log()}`);
    const ok = await fetch(url, { signal: AbortSignal.timeout(20_000) }).then((r) => r.status === 200, () => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`WordPress did not answer ${url} within 60 s: ${log()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface StartWordPressOptions {
  /** Progress lines (template build). */
  log?: (line: string) => void;
  /** PHP built-in server workers (default 4: a handoff waits on our API while our API reads the store). */
  workers?: number;
}

export async function startWordPress(opts: StartWordPressOptions = {}): Promise<WordPressSite> {
  const log = opts.log ?? (() => undefined);
  const template = await siteTemplate(log);
  const runs = path.join(realRoot(), 'runs');
  mkdirSync(runs, { recursive: true });
  sweepAbandonedRuns(runs);
  const runDir = mkdtempSync(path.join(runs, 'run-'));
  const owner: RunOwner = { node: process.pid };
  const recordOwner = () => writeFileSync(path.join(runDir, 'owner.json'), JSON.stringify(owner));
  recordOwner();
  const siteDir = path.join(runDir, 'site');
  let mariadb: MariaDb | undefined;
  let server: ChildProcess | undefined;
  const stop = async () => {
    if (server?.pid && server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((r) => server!.once('exit', r));
      // The whole group: php -S's workers outlive a parent killed alone.
      process.kill(-server.pid, 'SIGTERM');
      await exited;
    }
    await mariadb?.stop();
    rmSync(runDir, { recursive: true, force: true });
  };
  try {
    await layOutSite(siteDir);
    cpSync(template.uploads, path.join(siteDir, 'wp-content', 'uploads'), { recursive: true });
    cpSync(template.datadir, path.join(runDir, 'datadir'), { recursive: true });
    mariadb = await startMariaDb(path.join(runDir, 'datadir'), path.join(runDir, 'mysql'));
    owner.mariadb = mariadb.pid;
    recordOwner();
    const port = await freeLowPort();
    const url = `http://127.0.0.1:${port}`;
    writeFileSync(path.join(siteDir, 'wp-config.php'), wpConfig(url, mariadb.port));

    // Its access log and PHP's own errors (startup, fatal errors outside WordPress's handler).
    const serverLog = path.join(runDir, 'php-server.log');
    const logFd = openSync(serverLog, 'a');
    server = spawn('php', ['-d', 'memory_limit=512M', '-d', 'opcache.enable_cli=1', '-S', `127.0.0.1:${port}`, '-t', siteDir], {
      env: { ...process.env, PHP_CLI_SERVER_WORKERS: String(opts.workers ?? 4) },
      stdio: ['ignore', logFd, logFd],
      detached: true,
    });
    closeSync(logFd);
    server.once('error', () => undefined);
    owner.phpGroup = server.pid;
    recordOwner();
    const readServerLog = () => (existsSync(serverLog) ? readFileSync(serverLog, 'utf8').slice(-2000) : '');
    await waitForHttp(`${url}/wp-json/`, server, readServerLog);

    const site: WordPressSite = {
      url,
      dir: siteDir,
      facts: template.facts,
      mariadb,
      ops: (command, input) => runOps(siteDir, command, input),
      createKey: (permissions, user = WP_ADMIN.user) => runOps<RestKey>(siteDir, 'create-key', { user, permissions, description: `test ${permissions}` }),
      rest: (key, version = 'wc/v3') => new WooCommerceRestApi({ url, consumerKey: key.consumerKey, consumerSecret: key.consumerSecret, version: version as 'wc/v3' }),
      debugLog: () => {
        const file = path.join(siteDir, 'wp-content', 'debug.log');
        return existsSync(file) ? readFileSync(file, 'utf8') : '';
      },
      mailbox: () => {
        const file = path.join(siteDir, 'wp-content', 'mailbox.jsonl');
        return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { to: string; subject: string }) : [];
      },
      stop,
    };
    return site;
  } catch (err) {
    await stop();
    throw err;
  }
}
