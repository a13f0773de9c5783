// `npm test` (after its `pretest` provisioning, scripts/provision.ts): the static checks and the test files at once.
// Two lanes run side by side: the checks in one — the type checks (server, web pages, SDK) on TypeScript 7's native
// compiler, ESLint's layer rules (no types needed), then oxlint's type-aware rules (.oxlintrc.json, on the same native
// checker) — and vitest (every test file, vitest.config.ts) in the other, which starts first since it is the longer.
// The suite keeps both cores busy, so the checks are kept cheap: on TypeScript 7 and oxlint they take about 55 s of
// CPU instead of 155 s on TypeScript 6 and type-aware ESLint (docs/testing.md). Their caches live in
// node_modules/.cache (a rerun re-checks only what changed; a fresh clone checks everything). The run fails if either
// lane fails; each phase's time is printed at the end.
//
// `npm test -- <vitest arguments>` runs vitest alone with them (e.g. one file), without the static checks.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';

const CACHE = 'node_modules/.cache';
mkdirSync(`${CACHE}/eslint`, { recursive: true });
mkdirSync(`${CACHE}/tsc`, { recursive: true });

interface Phase {
  name: string;
  cmd: string;
  args: string[];
}

const bin = (name: string) => `node_modules/.bin/${name}`;
// TypeScript 7 is installed under the alias `typescript-native` beside TypeScript 6 (`typescript`, which
// typescript-eslint and the GraphQL document scan load as a library): its bin is called by path, never as `tsc`.
const tsc = (project: string, label: string): Phase => ({
  name: `tsc ${label}`,
  cmd: process.execPath,
  args: ['node_modules/typescript-native/bin/tsc', '--noEmit', '-p', project, '--incremental', '--tsBuildInfoFile', `${CACHE}/tsc/${label}.tsbuildinfo`],
});
const checks: Phase[] = [
  tsc('.', 'server'),
  tsc('web', 'web'),
  tsc('sdk', 'sdk'),
  { name: 'eslint', cmd: bin('eslint'), args: ['.', '--cache', '--cache-location', `${CACHE}/eslint/`, '--cache-strategy', 'content'] },
  { name: 'oxlint', cmd: bin('oxlint'), args: ['--type-aware', '--deny-warnings'] },
];

const t0 = Date.now();
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const timings: string[] = [];

function run(phase: Phase): Promise<boolean> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(phase.cmd, phase.args, { stdio: 'inherit' });
    child.on('error', (err) => {
      console.error(`${phase.name}: ${err.message}`);
      resolve(false);
    });
    child.on('exit', (code, signal) => {
      const ok = code === 0;
      timings.push(`${phase.name}: ${seconds(Date.now() - started)}${ok ? '' : ` (FAILED: ${signal ?? `exit ${code}`})`}`);
      resolve(ok);
    });
  });
}

async function lane(phases: Phase[]): Promise<boolean> {
  let ok = true;
  // One after the other: each check is single-threaded and the tests want the other core.
  for (const phase of phases) ok = (await run(phase)) && ok;
  return ok;
}

const vitestArgs = process.argv.slice(2);
const vitest: Phase = { name: 'vitest', cmd: bin('vitest'), args: ['run', ...vitestArgs] };
const results = vitestArgs.length ? [await run(vitest)] : await Promise.all([run(vitest), lane(checks)]);
const ok = results.every(Boolean);
console.log(`\nnpm test ${ok ? 'passed' : 'FAILED'} in ${seconds(Date.now() - t0)} (${timings.join('; ')})`);
process.exit(ok ? 0 : 1);
