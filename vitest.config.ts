import { defineConfig } from 'vitest/config';
import ClosingLineReporter from './test/harness/closing-line-reporter.js';
import LongestFirst from './test/harness/longest-first.js';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', '.data/**', 'tools/**', 'web/dist/**'],
    globalSetup: ['test/harness/global-setup.ts'],
    setupFiles: ['test/harness/setup-file.ts'],
    pool: 'forks',
    // Three files at a time on two cores, each with its own database, task queue and ports. Five finished an idle run
    // in 536 s instead of 728 s (three use about 60% of both cores: most of a file's time is waiting), but two runs
    // at once with five each (ten files on two cores) timed out time-skipping, browser and WooCommerce tests.
    maxWorkers: 3,
    // Each worker process runs its files one after the other with one module cache: the service's code (Fastify,
    // Prisma, the Temporal SDK, the simulators) is loaded once per worker instead of once per file, which halved the
    // CPU time of the merchant route files (117 s instead of 219 s for 14 files). Files still share nothing else:
    // each has its own database, task queue, ports and servers, and closes them in afterAll.
    isolate: false,
    // Longest files first (recorded durations on a fresh clone): the run ends with short files, not a long one.
    sequence: { sequencer: LongestFirst },
    // A guard against a hang, not a speed check: a time-skipping test took 80-95 s with two runs at once.
    testTimeout: 180_000,
    hookTimeout: 120_000,
    // The default report, then one plain closing line (`vitest: N passed, N failed, N skipped`) for CI to count.
    reporters: ['default', new ClosingLineReporter()],
  },
});
