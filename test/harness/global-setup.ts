// Runs once per `vitest run`: a throwaway PostgreSQL cluster with a migrated template database, a
// Temporal dev server, and the workflow bundle built once for every test worker. Everything is torn down
// at the end, also when tests fail or the run is interrupted.
//
// CHECKOUT_TEST_SERVICES=none skips all of it (for iterating on tests that need none of these).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import type {} from 'vitest';
import pg from 'pg';
import { migrate } from '../../prisma/migrate.js';
import { startPostgres, type PostgresCluster } from '../../scripts/lib/stack/postgres.js';
import { startTemporalDevServer, type TemporalDevServer } from '../../scripts/lib/temporal-dev-server.js';
import { ensureTestServer } from '../../scripts/lib/temporal-binaries.js';
import { TEMPLATE_DB } from './constants.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    temporalAddress: string;
    workflowBundlePath: string;
    testServerPath: string;
  }
}

export default async function setup(project: TestProject) {
  if (process.env.CHECKOUT_TEST_SERVICES === 'none') return;
  const cleanups: Array<() => Promise<void>> = [];
  const cleanup = async () => {
    while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
  };
  const onSignal = () => void cleanup().finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    const t0 = Date.now();
    const [postgres, temporal, bundle, testServerPath] = await Promise.all([
      startPostgres().then((p: PostgresCluster) => (cleanups.push(p.stop), p)),
      startTemporalDevServer().then((t: TemporalDevServer) => (cleanups.push(t.stop), t)),
      buildWorkflowBundle().then((b) => (cleanups.push(async () => rmSync(b.dir, { recursive: true, force: true })), b)),
      ensureTestServer(),
    ]);

    const admin = new pg.Client({ connectionString: postgres.url() });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
    await admin.end();
    await migrate(postgres.url(TEMPLATE_DB));

    project.provide('postgresUrl', postgres.url());
    project.provide('temporalAddress', temporal.address);
    project.provide('workflowBundlePath', bundle.path);
    project.provide('testServerPath', testServerPath);
    console.log(`[harness] postgres :${postgres.port}, temporal ${temporal.address}, bundle ready in ${Date.now() - t0} ms`);
  } catch (err) {
    await cleanup();
    throw err;
  }

  return async () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await cleanup();
  };
}

async function buildWorkflowBundle(): Promise<{ dir: string; path: string }> {
  const { bundleWorkflows } = await import('../../worker/bundle.js');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'checkout-wf-'));
  const file = path.join(dir, 'workflow-bundle.js');
  const { code } = await bundleWorkflows();
  writeFileSync(file, code);
  return { dir, path: file };
}
