// The real platforms we test against (WordPress, WooCommerce, the WordPress linter kit): pinned tarballs in
// ../shared/real-platforms (or REAL_PLATFORMS_DIR), never copied into the repository. Each is checked against
// the folder's SHA256SUMS and unpacked once into the cache (~/.cache/checkout-service/real-platforms/<name>-<sha>),
// so a second run on the same machine starts from the unpacked copy. Unpacking goes to a temporary folder that
// is renamed into place only when complete: two runs at once (two engineers, one machine) never see half a copy.
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir, ProvisionError } from './temporal-binaries.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The pinned tarballs, by what we use them for (file names as in SHA256SUMS). */
export const REAL_PLATFORM_FILES = {
  wordpress: 'wordpress-6.8.8.tar.xz',
  woocommerce: 'woocommerce-10.0.2.tar.xz',
  linter: 'phpcs-3.13.4-wpcs-3.1.0.tar.xz',
} as const;
export type RealPlatform = keyof typeof REAL_PLATFORM_FILES;

/** Where the pinned tarballs are: REAL_PLATFORMS_DIR, else ../shared/real-platforms beside the repository. */
export function realPlatformsDir(): string {
  return process.env.REAL_PLATFORMS_DIR ?? path.resolve(repoRoot, '..', 'shared', 'real-platforms');
}

/** SHA256SUMS as file name → lowercase hex. */
export function pinnedChecksums(dir = realPlatformsDir()): Map<string, string> {
  const file = path.join(dir, 'SHA256SUMS');
  if (!existsSync(file)) {
    throw new ProvisionError(`No pinned real platforms at ${dir} (SHA256SUMS missing): set REAL_PLATFORMS_DIR to the folder holding the WordPress, WooCommerce and linter tarballs`);
  }
  const sums = new Map<string, string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^([0-9a-f]{64})\s+\*?(\S+)$/.exec(line.trim());
    if (m) sums.set(m[2]!, m[1]!);
  }
  return sums;
}

function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file).on('data', (d) => hash.update(d)).on('error', reject).on('end', () => resolve(hash.digest('hex')));
  });
}

/**
 * The folder a pinned tarball is unpacked into (cached): WordPress's holds `wordpress/`, WooCommerce's
 * `woocommerce/`, the linter kit's `PHP_CodeSniffer/`, `WordPress-Coding-Standards/`, `PHPCSUtils/`, `PHPCSExtra/`.
 */
export async function unpackedPlatform(which: RealPlatform): Promise<string> {
  const dir = realPlatformsDir();
  const file = REAL_PLATFORM_FILES[which];
  const expected = pinnedChecksums(dir).get(file);
  if (!expected) throw new ProvisionError(`${file} is not listed in ${path.join(dir, 'SHA256SUMS')}`);
  const target = path.join(cacheDir(), 'real-platforms', `${file.replace(/\.tar\.xz$/, '')}-${expected.slice(0, 12)}`);
  if (existsSync(path.join(target, '.complete'))) return target;

  const archive = path.join(dir, file);
  if (!existsSync(archive)) throw new ProvisionError(`${archive} is missing`);
  const actual = await sha256File(archive);
  if (actual !== expected) throw new ProvisionError(`${archive}: SHA-256 ${actual} does not match SHA256SUMS (${expected})`);

  mkdirSync(path.dirname(target), { recursive: true });
  const work = mkdtempSync(`${target}.work-`);
  try {
    await new Promise<void>((resolve, reject) =>
      execFile('tar', ['-xJf', archive, '-C', work], { maxBuffer: 1 << 20 }, (err, _out, stderr) => (err ? reject(new ProvisionError(`tar -xJf ${archive}: ${stderr || err.message}`)) : resolve())),
    );
    writeFileSync(path.join(work, '.complete'), `${expected}  ${file}\n`);
    try {
      renameSync(work, target);
    } catch (err) {
      // Another run unpacked the same checksum meanwhile: theirs is as good as ours.
      if (!existsSync(path.join(target, '.complete'))) throw err;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return target;
}

/** A short digest of every pinned checksum: what a cache built from these tarballs (e.g. an installed site) is keyed by. */
export function pinnedDigest(): string {
  const sums = [...pinnedChecksums().entries()].sort(([a], [b]) => a.localeCompare(b)).map(([f, s]) => `${s}  ${f}`).join('\n');
  return createHash('sha256').update(sums).digest('hex').slice(0, 12);
}

/**
 * The WordPress linter as plugin reviewers run it: PHP_CodeSniffer with the WordPress Coding Standards from the
 * pinned kit. Answers the command and its arguments, to which the caller adds its own (--standard, paths).
 */
export async function phpcsCommand(): Promise<{ cmd: string; args: string[] }> {
  const kit = await unpackedPlatform('linter');
  const paths = ['WordPress-Coding-Standards', 'PHPCSUtils', 'PHPCSExtra'].map((p) => path.join(kit, p)).join(',');
  return { cmd: 'php', args: [path.join(kit, 'PHP_CodeSniffer', 'bin', 'phpcs'), '--runtime-set', 'installed_paths', paths] };
}
