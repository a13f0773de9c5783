// A pinned Python tool in a virtual environment of its own, cached like the Temporal binaries
// (scripts/lib/temporal-binaries.ts) under ~/.cache/checkout-service (CHECKOUT_CACHE_DIR): Schemathesis
// (scripts/lib/schemathesis.ts) and Whop's Python SDK (scripts/lib/whop-python-sdk.ts). Every package is pinned in a
// requirements file; the cache directory is named after the tool, its version and a hash of that file, so changing a
// pin installs a fresh environment beside the old one. `npm run provision` installs them once (CI runs that before
// `npm test`), and the tests that use one install it on demand when it is missing; a failure is a ProvisionError that
// says what to do, never a skipped test.
//
// The environment is built in a temp directory beside its final place and renamed into it only when complete; a
// second process that built one at the same time keeps the first one's. Run its tools as `<venv>/bin/python -m …`: a
// moved venv's interpreter still finds its packages, while its console scripts would carry the temp path in their
// shebang.
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { cacheDir, ProvisionError, type Progress } from './temporal-binaries.js';

export function exec(cmd: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(cmd, args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${path.basename(cmd)} ${args.join(' ')}: ${err.message}\n${`${stdout}${stderr}`.trim().slice(-4000)}`)) : resolve(stdout),
    ),
  );
}

/** The version `requirements` pins for `pkg` (`pkg==x.y.z` on a line of its own). */
export function pinnedVersion(requirements: string, pkg: string): string {
  const pin = new RegExp(`^${pkg.replace(/[-_.]/g, '[-_.]')}==(\\S+)$`, 'im').exec(readFileSync(requirements, 'utf8'));
  if (!pin) throw new ProvisionError(`${requirements} pins no ${pkg} version`);
  return pin[1]!;
}

export interface PythonTool {
  /** Shown in messages and the cache directory's name. */
  name: string;
  label: string;
  version: string;
  requirements: string;
  /** Whether the environment's interpreter runs the tool at this version. */
  works: (python: string) => Promise<boolean>;
}

/** The environment's interpreter, `<cache>/<name>-<version>-<hash>/bin/python`; installs from PyPI the first time. */
export async function ensurePythonTool(tool: PythonTool, progress: Progress = () => undefined): Promise<string> {
  const key = createHash('sha256').update(readFileSync(tool.requirements)).digest('hex').slice(0, 12);
  const home = path.join(cacheDir(), `${tool.name}-${tool.version}-${key}`);
  const python = path.join(home, 'bin', 'python');
  if (existsSync(python) && (await tool.works(python))) return python;

  const basePython = process.env.PYTHON ?? 'python3';
  mkdirSync(path.dirname(home), { recursive: true });
  const work = mkdtempSync(path.join(path.dirname(home), `.work-${tool.name}-`));
  try {
    progress(`Installing ${tool.label} ${tool.version} from PyPI into ${home} (first time only) …`);
    try {
      await exec(basePython, ['-m', 'venv', work], 120_000);
    } catch (err) {
      throw new ProvisionError(`Could not create a Python virtual environment with \`${basePython} -m venv\` (Python 3.10+ with venv is needed; set PYTHON to another interpreter).\n${(err as Error).message}`);
    }
    try {
      await exec(path.join(work, 'bin', 'python'), ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-input', '-r', tool.requirements], 600_000);
    } catch (err) {
      throw new ProvisionError(`Could not install ${tool.label} ${tool.version} from PyPI.\n${(err as Error).message}`);
    }
    if (!(await tool.works(path.join(work, 'bin', 'python')))) throw new ProvisionError(`${tool.label} ${tool.version} installed but does not run`);
    // An incomplete earlier attempt never reaches `home` (rename is the last step); a broken one is replaced.
    if (existsSync(python) && !(await tool.works(python))) rmSync(home, { recursive: true, force: true });
    try {
      renameSync(work, home);
    } catch (err) {
      // Another process finished first: keep its environment.
      if (!existsSync(python)) throw err;
    }
    progress(`${tool.label} ${tool.version} cached at ${home}`);
    return python;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
