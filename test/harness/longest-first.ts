// The order test files start in: longest first, so the few files of a minute or more start at once and the
// many short ones fill the gaps after them (the run ends when the last long file does, not a long file started
// last). Vitest does this itself from its results cache (node_modules/.vite), which a fresh clone does not have:
// there the durations recorded in test/harness/file-durations.json (refreshed with `npm run test:durations`) stand
// in, and a file in neither is taken as average.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const RECORDED = fileURLToPath(new URL('./file-durations.json', import.meta.url));

function recorded(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(RECORDED, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const durations = recorded();
    const known = Object.values(durations);
    const average = known.length ? known.reduce((a, b) => a + b, 0) / known.length : 0;
    const root = this.ctx.config.root;
    const cache = this.ctx.cache;
    const duration = (spec: TestSpecification) => {
      const file = path.relative(root, spec.moduleId).split(path.sep).join('/');
      const cached = cache.getFileTestResults(`${spec.project.name}:${file}`);
      if (cached && !cached.failed) return cached.duration;
      return durations[file] ?? average;
    };
    // Failed last time: first, as vitest does; then longest first.
    const failed = (spec: TestSpecification) => !!cache.getFileTestResults(`${spec.project.name}:${path.relative(root, spec.moduleId)}`)?.failed;
    return [...files].sort((a, b) => Number(failed(b)) - Number(failed(a)) || duration(b) - duration(a));
  }
}
