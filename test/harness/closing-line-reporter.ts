import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/**
 * Ends `vitest run` with one plain line a reader outside Node can count: `vitest: N passed, N failed, N skipped`.
 * Vitest's own summary is coloured and split over lines; CI reads the last closing line it recognises, and
 * without this one it read the pytest-style line Schemathesis prints inside a test as the whole run's result.
 * A file that failed before any test ran (an import error, a failing beforeAll) and every unhandled error count
 * as failures, so the line never reads better than the exit code.
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
    process.stdout.write(`\nvitest: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
