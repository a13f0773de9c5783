// `npm run test:durations`: records how long each test file took in the last `vitest run` on this machine (vitest's
// own results cache) into test/harness/file-durations.json, which orders a fresh clone's run longest first
// (test/harness/longest-first.ts). Run it after a full `npm test` on an idle machine when files were added or
// became much slower; whole seconds are enough for an order.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const cacheRoot = path.resolve('node_modules/.vite/vitest');
const results = readdirSync(cacheRoot).map((d) => path.join(cacheRoot, d, 'results.json'));
const durations: Record<string, number> = {};
for (const file of results) {
  const { results: rows } = JSON.parse(readFileSync(file, 'utf8')) as { results: Array<[string, { duration: number; failed: boolean }]> };
  for (const [key, { duration }] of rows) durations[key.replace(/^[^:]*:/, '')] = Math.round(duration / 1000);
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a, x], [b, y]) => y - x || a.localeCompare(b)));
writeFileSync('test/harness/file-durations.json', `${JSON.stringify(sorted, null, 1)}\n`);
console.log(`${Object.keys(sorted).length} files recorded in test/harness/file-durations.json`);
