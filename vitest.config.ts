import { defineConfig } from 'vitest/config';
import ClosingLineReporter from './test/harness/closing-line-reporter.js';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', '.data/**', 'tools/**', 'web/dist/**'],
    globalSetup: ['test/harness/global-setup.ts'],
    pool: 'forks',
    // Two cores: a few files at a time, each with its own database and task queue.
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The default report, then one plain closing line (`vitest: N passed, N failed, N skipped`) for CI to count.
    reporters: ['default', new ClosingLineReporter()],
  },
});
