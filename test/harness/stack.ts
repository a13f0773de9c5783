// The whole service for an end-to-end test file: every simulator on port 0, a database of its own, the
// API listening on a real port (so simulators can call its webhooks), and a worker with every activity
// on a task queue of its own. Tests drive it over HTTP (or `app.inject`) and read outcomes from the
// simulators and the database. The stack itself is service-stack.ts (shared with `npm run bench`); this
// file adds what comes from vitest: the per-file database and the harness's Temporal server and bundle.
import { inject } from 'vitest';
import { startServiceStack, type ServiceStack, type ServiceStackOptions } from '../../scripts/lib/stack/service-stack.js';
import { createTestDatabase, type TestDatabase } from './db.js';
import { testWorkflowBundle, type TestTemporal } from './temporal.js';

export interface TestStack extends ServiceStack {
  database: TestDatabase;
  temporal: TestTemporal;
}

export type TestStackOptions = Pick<ServiceStackOptions, 'worker' | 'checkoutWorkflowInput' | 'resolveHost'>;

export async function startTestStack(env: Record<string, string> = {}, opts: TestStackOptions = {}): Promise<TestStack> {
  const database = await createTestDatabase();
  let service: ServiceStack;
  try {
    service = await startServiceStack({
      databaseUrl: database.url,
      db: database.db,
      temporalAddress: inject('temporalAddress'),
      workflowBundle: testWorkflowBundle,
      env,
      // TEST_LOG=1 shows the API's error log (5xx causes) while debugging a test.
      logger: process.env.TEST_LOG ? { level: 'error' } : false,
      ...opts,
    });
  } catch (err) {
    await database.drop();
    throw err;
  }
  return {
    ...service,
    database,
    async close() {
      await service.close();
      await database.drop();
    },
  };
}
