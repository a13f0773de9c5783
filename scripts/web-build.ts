// `npm run web:build [-- --force] [checkout|dashboard|checkout-takeover ...]`: builds each part of web/dist whose
// sources changed since its last build, and precompresses every asset (gzip, brotli) for the API to serve
// as is. `npm start` and the browser tests call ensureWebBuild() so a fresh clone or an edited page is never
// served stale. Each build goes to a temporary directory and replaces web/dist/<target> in one rename, under a
// lock, so test files building at once (or a running `npm start`) never see half a build. The command also
// copies the script tag's build into our theme app extension as its app embed's script (one source for both:
// web/checkout-takeover/); test/browser/app-embed-asset.test.ts fails while the committed copy differs from the build.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { THEME_EXTENSION_DIR } from './lib/theme-extension.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
export const WEB_DIR = path.join(REPO, 'web');
export const WEB_DIST = path.join(WEB_DIR, 'dist');
const STAMP = '.build-stamp';
const LOCK = path.join(WEB_DIR, '.build-lock');

/** What can be built, each into web/dist/<target>/ on its own. */
export const WEB_TARGETS = ['checkout', 'dashboard', 'checkout-takeover'] as const;
export type WebTarget = (typeof WEB_TARGETS)[number];

/** Everything one target's build depends on: its own folder, web/shared, the domain code, the locked dependency versions. */
function inputFiles(target: WebTarget): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (!entry.name.endsWith('.test.ts')) files.push(full);
    }
  };
  walk(path.join(WEB_DIR, target));
  walk(path.join(WEB_DIR, 'shared'));
  walk(path.join(REPO, 'domain'));
  if (target === 'checkout') walk(path.join(REPO, 'api', 'schemas'));
  files.push(path.join(WEB_DIR, 'vite.config.ts'), path.join(REPO, 'package-lock.json'), fileURLToPath(import.meta.url));
  return files.sort();
}

/** A hash of the inputs' paths and contents (contents, not mtimes: a fresh clone is not "stale"). */
export function webSourceHash(target: WebTarget): string {
  const hash = createHash('sha256');
  for (const file of inputFiles(target)) {
    if (!existsSync(file)) continue;
    hash.update(path.relative(REPO, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

export function isWebBuildFresh(target: WebTarget, hash = webSourceHash(target)): boolean {
  try {
    return readFileSync(path.join(WEB_DIST, target, STAMP), 'utf8').trim() === hash;
  } catch {
    return false;
  }
}

const COMPRESSIBLE = /\.(js|css|html|svg|json|txt|map)$/;

function precompress(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) precompress(full);
    else if (COMPRESSIBLE.test(entry.name)) {
      const raw = readFileSync(full);
      writeFileSync(`${full}.gz`, gzipSync(raw, { level: 9 }));
      writeFileSync(`${full}.br`, brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }));
    }
  }
}

async function withLock<T>(fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // A lock left by a build that died is stale after 3 minutes.
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > 180_000) rmSync(LOCK, { recursive: true, force: true });
      } catch {
        // Gone meanwhile.
      }
      if (Date.now() > deadline) throw new Error(`web build: waited 3 minutes for ${LOCK}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

export interface WebBuildResult {
  /** The targets that were built now (the others were fresh). */
  built: WebTarget[];
  ms: number;
}

async function buildTarget(target: WebTarget, hash: string): Promise<void> {
  const { build } = await import('vite');
  const configs = await import('../web/vite.config.js');
  const config = { checkout: configs.checkoutConfig, dashboard: configs.dashboardConfig, 'checkout-takeover': configs.checkoutTakeoverConfig }[target];
  const final = path.join(WEB_DIST, target);
  const tmp = path.join(WEB_DIST, `.${target}-${process.pid}-${Date.now()}`);
  try {
    await build(config(tmp));
    precompress(tmp);
    writeFileSync(path.join(tmp, STAMP), `${hash}\n`);
    const old = `${tmp}-old`;
    if (existsSync(final)) renameSync(final, old);
    renameSync(tmp, final);
    rmSync(old, { recursive: true, force: true });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Builds the stale ones of `targets` (default: all) into web/dist/<target>; `force` builds them anyway. */
export async function ensureWebBuild(opts: { targets?: readonly WebTarget[]; force?: boolean; log?: (line: string) => void } = {}): Promise<WebBuildResult> {
  const t0 = Date.now();
  const log = opts.log ?? (() => undefined);
  const targets = opts.targets ?? WEB_TARGETS;
  if (!opts.force && targets.every((t) => isWebBuildFresh(t))) return { built: [], ms: Date.now() - t0 };
  return withLock(async () => {
    mkdirSync(WEB_DIST, { recursive: true });
    const built: WebTarget[] = [];
    for (const target of targets) {
      const hash = webSourceHash(target);
      if (!opts.force && isWebBuildFresh(target, hash)) continue;
      log(`Web: building ${target} …`);
      await buildTarget(target, hash);
      built.push(target);
    }
    const ms = Date.now() - t0;
    if (built.length) log(`Web: built ${built.join(', ')} in ${(ms / 1000).toFixed(1)}s`);
    return { built, ms };
  });
}

/** The script tag's build, as shipped: the app embed's script of our theme app extension (its block names it). */
export const SCRIPT_TAG_BUILD = path.join(WEB_DIST, 'checkout-takeover', 'script-tag.js');
export const APP_EMBED_SCRIPT = path.join(THEME_EXTENSION_DIR, 'assets', 'checkout-embed.js');

/** Copies the script tag's build over the app embed's script when they differ; answers whether it wrote. */
export function copyScriptTagToAppEmbed(): boolean {
  const built = readFileSync(SCRIPT_TAG_BUILD);
  if (existsSync(APP_EMBED_SCRIPT) && readFileSync(APP_EMBED_SCRIPT).equals(built)) return false;
  writeFileSync(APP_EMBED_SCRIPT, built);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const force = process.argv.includes('--force');
  const named = process.argv.slice(2).filter((a): a is WebTarget => (WEB_TARGETS as readonly string[]).includes(a));
  const targets = named.length ? named : WEB_TARGETS;
  ensureWebBuild({ force, targets, log: (line) => console.log(line) })
    .then((r) => {
      if (!r.built.length) console.log('Web: web/dist is up to date (use --force to rebuild)');
      if (targets.includes('checkout-takeover') && copyScriptTagToAppEmbed()) console.log(`Web: wrote ${path.relative(REPO, APP_EMBED_SCRIPT)} (the script tag's build)`);
    })
    .catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
}
