// Schemathesis (PyPI), the OpenAPI fuzzer that test/api/openapi-conformance.test.ts runs against the API, in a
// Python virtual environment of its own, cached like the Temporal binaries (scripts/lib/temporal-binaries.ts):
// `npm run provision` installs it once (CI runs that before `npm test`), and the test installs it on demand
// when it is missing. Every package is pinned in schemathesis-requirements.txt; the cache directory is named
// after a hash of that file, so changing a pin installs a fresh environment beside the old one.
//
// The environment is built in a temp directory beside its final place and renamed into it only when
// complete; a second process that built one at the same time keeps the first one's. It runs as
// `<venv>/bin/python -m schemathesis.cli`: a moved venv's interpreter still finds its packages, while its
// console scripts (bin/st) would carry the temp path in their shebang.
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir, ProvisionError, type Progress } from './temporal-binaries.js';

export const SCHEMATHESIS_REQUIREMENTS = fileURLToPath(new URL('./schemathesis-requirements.txt', import.meta.url));

/** The pinned version, read from the requirements file (one source). */
export function schemathesisVersion(): string {
  const pin = /^schemathesis==(\S+)$/m.exec(readFileSync(SCHEMATHESIS_REQUIREMENTS, 'utf8'));
  if (!pin) throw new ProvisionError(`${SCHEMATHESIS_REQUIREMENTS} pins no schemathesis version`);
  return pin[1]!;
}

export interface Schemathesis {
  /** Run as `${python} -m schemathesis.cli …`. */
  python: string;
  version: string;
}

function exec(cmd: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(cmd, args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${path.basename(cmd)} ${args.join(' ')}: ${err.message}\n${`${stdout}${stderr}`.trim().slice(-4000)}`)) : resolve(stdout),
    ),
  );
}

async function reportsVersion(python: string, version: string): Promise<boolean> {
  try {
    return (await exec(python, ['-m', 'schemathesis.cli', '--version'], 60_000)).includes(version);
  } catch {
    return false;
  }
}

/** A working Schemathesis of the pinned version; installs it from PyPI into the cache the first time (about a minute). */
export async function ensureSchemathesis(progress: Progress = () => undefined): Promise<Schemathesis> {
  const version = schemathesisVersion();
  const requirements = readFileSync(SCHEMATHESIS_REQUIREMENTS);
  const key = createHash('sha256').update(requirements).digest('hex').slice(0, 12);
  const home = path.join(cacheDir(), `schemathesis-${version}-${key}`);
  const python = path.join(home, 'bin', 'python');
  if (existsSync(python) && (await reportsVersion(python, version))) return { python, version };

  const basePython = process.env.PYTHON ?? 'python3';
  mkdirSync(path.dirname(home), { recursive: true });
  const work = mkdtempSync(path.join(path.dirname(home), '.work-schemathesis-'));
  try {
    progress(`Installing Schemathesis ${version} from PyPI into ${home} (first time only) …`);
    try {
      await exec(basePython, ['-m', 'venv', work], 120_000);
    } catch (err) {
      throw new ProvisionError(`Could not create a Python virtual environment with \`${basePython} -m venv\` (Python 3.10+ with venv is needed; set PYTHON to another interpreter).\n${(err as Error).message}`);
    }
    try {
      await exec(path.join(work, 'bin', 'python'), ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-input', '-r', SCHEMATHESIS_REQUIREMENTS], 600_000);
    } catch (err) {
      throw new ProvisionError(`Could not install Schemathesis ${version} from PyPI.\n${(err as Error).message}`);
    }
    if (!(await reportsVersion(path.join(work, 'bin', 'python'), version))) throw new ProvisionError(`Schemathesis ${version} installed but does not run`);
    // An incomplete earlier attempt never reaches `home` (rename is the last step); a broken one is replaced.
    if (existsSync(python) && !(await reportsVersion(python, version))) rmSync(home, { recursive: true, force: true });
    try {
      renameSync(work, home);
    } catch (err) {
      // Another process finished first: keep its environment.
      if (!existsSync(python)) throw err;
    }
    progress(`Schemathesis ${version} cached at ${home}`);
    return { python, version };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
