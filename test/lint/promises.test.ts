// The type-aware rules of .oxlintrc.json bite: oxlint (tsgolint on TypeScript 7's checker) run with the project's own
// rules on test/lint/fixtures/promises.ts reports each line marked `// finds: <rule>` with that rule, and nothing else
// (the allowed forms beside them pass). `npm test` runs oxlint over the tree, with the fixtures left out.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = 'test/lint/fixtures/promises.ts';
const dir = mkdtempSync(path.join(tmpdir(), 'oxlint-probe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The project's config with the fixtures no longer ignored (its comments are JSONC line comments). */
function probeConfig(): string {
  const text = readFileSync(path.join(root, '.oxlintrc.json'), 'utf8').replace(/^\s*\/\/.*$/gm, '');
  const config = JSON.parse(text) as { ignorePatterns: string[]; $schema?: string };
  expect(config.ignorePatterns).toContain('test/lint/fixtures/**');
  config.ignorePatterns = config.ignorePatterns.filter((p) => p !== 'test/lint/fixtures/**');
  delete config.$schema;
  const file = path.join(dir, 'oxlintrc.json');
  writeFileSync(file, JSON.stringify(config));
  return file;
}

interface Diagnostic { code: string; filename: string; labels: Array<{ span: { line: number } }> }

describe('the type-aware lint rules', () => {
  it('given a floating promise and promises where none is awaited / oxlint reports each marked line with its rule, and the allowed forms pass', async () => {
    const expected = readFileSync(path.join(root, FIXTURE), 'utf8').split('\n').flatMap((line, i) => {
      const rule = /\/\/ finds: ([a-z-]+)/.exec(line)?.[1];
      return rule ? [`${i + 1} typescript(${rule})`] : [];
    });
    expect(expected).toHaveLength(4);
    const run = await promisify(execFile)(path.join(root, 'node_modules/.bin/oxlint'), ['--type-aware', '-c', probeConfig(), '-f', 'json', FIXTURE], { cwd: root })
      .catch((err: { stdout?: string; code?: number }) => ({ stdout: err.stdout ?? '', code: err.code }));
    const { diagnostics } = JSON.parse(run.stdout) as { diagnostics: Diagnostic[] };
    const found = diagnostics.map((d) => `${d.labels[0]!.span.line} ${d.code}`).sort((a, b) => parseInt(a) - parseInt(b));
    expect(found).toEqual(expected);
  }, 60_000);
});
