// Schemathesis (PyPI), the OpenAPI fuzzer that test/api/openapi-conformance.test.ts runs against the API, in a
// Python virtual environment of its own (scripts/lib/python-env.ts): `npm run provision` installs it once, and the
// test installs it on demand when it is missing. Every package is pinned in schemathesis-requirements.txt.
// It runs as `<venv>/bin/python -m schemathesis.cli`.
import { fileURLToPath } from 'node:url';
import { ensurePythonTool, exec, pinnedVersion } from './python-env.js';
import type { Progress } from './temporal-binaries.js';

export const SCHEMATHESIS_REQUIREMENTS = fileURLToPath(new URL('./schemathesis-requirements.txt', import.meta.url));

/** The pinned version, read from the requirements file (one source). */
export function schemathesisVersion(): string {
  return pinnedVersion(SCHEMATHESIS_REQUIREMENTS, 'schemathesis');
}

export interface Schemathesis {
  /** Run as `${python} -m schemathesis.cli …`. */
  python: string;
  version: string;
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
  const python = await ensurePythonTool({ name: 'schemathesis', label: 'Schemathesis', version, requirements: SCHEMATHESIS_REQUIREMENTS, works: (p) => reportsVersion(p, version) }, progress);
  return { python, version };
}
