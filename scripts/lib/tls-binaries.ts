// The TLS edge and the ACME server its test runs against, pinned and built once from the Go module proxy into
// ~/.cache/checkout-service (CHECKOUT_CACHE_DIR), like the Temporal binaries (scripts/lib/temporal-binaries.ts):
//   - Caddy (github.com/caddyserver/caddy/v2/cmd/caddy), the edge: on-demand TLS with an `ask` permission endpoint;
//   - Pebble and pebble-challtestsrv (github.com/letsencrypt/pebble/v2), Let's Encrypt's test ACME server and its
//     challenge DNS server, for test/edge/pebble.test.ts.
// Why a Caddy build and not Debian's `caddy` 2.6.2 package: production runs the official `caddy:2.11` image
// (docker-compose.yml), and the edge tested here must be that version (2.6 predates the `permission` module, the
// storage-first handshake order of current certmagic and three years of fixes); the Debian package also installs and
// starts a system service on ports 80/443, which a developer machine or CI runner does not want. The build takes a few
// minutes once (docs/deployment.md quotes it); a binary already installed can be named with CADDY_PATH, PEBBLE_PATH,
// PEBBLE_CHALLTESTSRV_PATH.
// Nothing is skipped: a missing Go toolchain or a failed build is a ProvisionError with the command to run.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { cacheDir, isExecutable, ProvisionError, run, which, type Progress } from './temporal-binaries.js';

export const CADDY_VERSION = '2.11.9';
export const PEBBLE_VERSION = '2.10.3';

export interface PebbleBinaries {
  pebble: string;
  challtestsrv: string;
  /** Pebble's own test certificate for its ACME listener (localhost, 127.0.0.1), its key, and the minica root that signed it. */
  listenerCert: string;
  listenerKey: string;
  listenerRoot: string;
}

function fromEnv(name: string): string | undefined {
  const p = process.env[name];
  if (p === undefined) return undefined;
  if (!isExecutable(p)) throw new ProvisionError(`${name}=${p} is not an executable file`);
  return p;
}

/** `go install <packages>@<version>` into a temporary GOBIN, then the named binaries renamed into `home`. */
async function goInstall(label: string, packages: string[], home: string, binaries: string[], progress: Progress, extra?: (staged: string, modCache: string) => void): Promise<void> {
  const go = which('go');
  if (!go) {
    throw new ProvisionError(`${label} is built from the Go module proxy and needs Go (https://go.dev/dl) on PATH:\n  CGO_ENABLED=0 go install ${packages.join(' ')}`);
  }
  mkdirSync(path.dirname(home), { recursive: true });
  const work = mkdtempSync(path.join(path.dirname(home), '.work-'));
  try {
    const started = Date.now();
    progress(`Building ${label} from the Go module proxy (first time only) …`);
    const env = { ...process.env, GOBIN: path.join(work, 'bin'), CGO_ENABLED: '0', GOTOOLCHAIN: process.env.GOTOOLCHAIN === 'local' || !process.env.GOTOOLCHAIN ? 'auto' : process.env.GOTOOLCHAIN };
    try {
      await run(go, ['install', ...packages], { env, label: `go install ${label}`, progress });
    } catch (err) {
      throw new ProvisionError(`Could not build ${label}: ${(err as Error).message}`);
    }
    const staged = path.join(work, 'home');
    mkdirSync(staged);
    for (const b of binaries) renameSync(path.join(work, 'bin', b), path.join(staged, b));
    if (extra) extra(staged, execFileSync(go, ['env', 'GOMODCACHE'], { env, encoding: 'utf8' }).trim());
    rmSync(home, { recursive: true, force: true });
    renameSync(staged, home);
    progress(`${label} cached at ${home} (built in ${Math.round((Date.now() - started) / 1000)} s)`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Path of the pinned Caddy binary (CADDY_PATH, the cache, or a build). */
export async function ensureCaddy(progress: Progress = () => undefined): Promise<string> {
  const given = fromEnv('CADDY_PATH');
  if (given) return given;
  const home = path.join(cacheDir(), `caddy-${CADDY_VERSION}`);
  const caddy = path.join(home, 'caddy');
  if (isExecutable(caddy)) return caddy;
  await goInstall(`Caddy ${CADDY_VERSION}`, [`github.com/caddyserver/caddy/v2/cmd/caddy@v${CADDY_VERSION}`], home, ['caddy'], progress);
  return caddy;
}

/** Paths of Pebble and pebble-challtestsrv (PEBBLE_PATH/PEBBLE_CHALLTESTSRV_PATH, the cache, or a build). */
export async function ensurePebble(progress: Progress = () => undefined): Promise<PebbleBinaries> {
  const home = path.join(cacheDir(), `pebble-${PEBBLE_VERSION}`);
  const found: PebbleBinaries = {
    pebble: fromEnv('PEBBLE_PATH') ?? path.join(home, 'pebble'),
    challtestsrv: fromEnv('PEBBLE_CHALLTESTSRV_PATH') ?? path.join(home, 'pebble-challtestsrv'),
    listenerCert: path.join(home, 'certs', 'cert.pem'),
    listenerKey: path.join(home, 'certs', 'key.pem'),
    listenerRoot: path.join(home, 'certs', 'pebble.minica.pem'),
  };
  if (isExecutable(found.pebble) && isExecutable(found.challtestsrv) && existsSync(found.listenerRoot)) return found;
  const module = `github.com/letsencrypt/pebble/v2`;
  await goInstall(`Pebble ${PEBBLE_VERSION}`, [`${module}/cmd/pebble@v${PEBBLE_VERSION}`, `${module}/cmd/pebble-challtestsrv@v${PEBBLE_VERSION}`], home, ['pebble', 'pebble-challtestsrv'], progress, (staged, modCache) => {
    // The module's test certificates (copied: the module cache is read-only and may be cleaned).
    const certs = path.join(modCache, `${module}@v${PEBBLE_VERSION}`, 'test', 'certs');
    mkdirSync(path.join(staged, 'certs'));
    for (const [from, to] of [['localhost/cert.pem', 'cert.pem'], ['localhost/key.pem', 'key.pem'], ['pebble.minica.pem', 'pebble.minica.pem']] as const) {
      copyFileSync(path.join(certs, from), path.join(staged, 'certs', to));
      chmodSync(path.join(staged, 'certs', to), 0o644);
    }
  });
  return found;
}
