import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/**
 * Ends `vitest run` with one plain line a reader outside Node can count: `vitest: N passed, N failed, N skipped`.
 * Vitest's own summary is coloured and split over lines; CI reads the last closing line it recognises, and
 * without this one it read the pytest-style line Schemathesis prints inside a test as the whole run's result.
 * A file that failed before any test ran (an import error, a failing beforeAll) and every unhandled error count
 * as failures, so the line never reads better than the exit code. Before it, the ten slowest files (where a run's
 * time goes; `npm run test:durations` records them all for the order of a fresh clone's run).
 */
export default class ClosingLineReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      let failedHere = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failedHere += 1;
        else skipped += 1;
      }
      if (failedHere === 0 && module.state() === 'failed') failedHere = 1;
      failed += failedHere;
    }
    failed += unhandledErrors.length;
    const slowest = testModules
      .map((m) => ({ file: m.moduleId.replace(`${process.cwd()}/`, ''), ms: m.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 10);
    if (testModules.length > 10) {
      process.stdout.write(`\nslowest files: ${slowest.map((s) => `${s.file} ${(s.ms / 1000).toFixed(1)} s`).join(', ')}\n`);
    }
    process.stdout.write(`\nvitest: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
