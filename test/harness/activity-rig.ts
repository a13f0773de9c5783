// A database of its own, the simulators and the real activities for a worker on a given task queue, with
// no API: for workflow tests that bring their own Temporal (a time-skipping environment).
import type { Client } from '@temporalio/client';
import { createActivities } from '../../worker/worker.js';
import type { Config } from '../../config/index.js';
import { startSandboxes, type Sandboxes } from '../../scripts/lib/stack/sandboxes.js';
import { createTestDatabase, type TestDatabase } from './db.js';
import { testConfig } from '../../scripts/lib/stack/config.js';

export interface ActivityRig extends Omit<Sandboxes, 'close' | 'env'> {
  config: Config;
  database: TestDatabase;
  /** Every activity of the service (createActivities), against the simulators and this database. */
  activities: ReturnType<typeof createActivities>;
  close(): Promise<void>;
}

/**
 * The simulators, a database of its own and the real activities for a worker on `taskQueue`; no API. `temporal`
 * is the client activities start workflows with, read when they do (a getter over each test's time-skipping
 * environment); without it such an activity fails, saying so.
 */
export async function startActivityRig(opts: { taskQueue: string; env?: Record<string, string>; temporal?: { readonly client: Client } }): Promise<ActivityRig> {
  const sandboxes = await startSandboxes();
  const database = await createTestDatabase();
  const config = testConfig({ TEMPORAL_TASK_QUEUE: opts.taskQueue, ...sandboxes.env, ...opts.env });
  const temporal = opts.temporal ?? {
    get client(): Client {
      throw new Error('this activity rig has no Temporal client: pass startActivityRig({ temporal })');
    },
  };
  const activities = createActivities({ config, db: database.db, urlGuard: sandboxes.urlGuard, temporal });
  return {
    sims: sandboxes.sims,
    urls: sandboxes.urls,
    urlGuard: sandboxes.urlGuard,
    config,
    database,
    activities,
    async close() {
      await sandboxes.close();
      await database.drop();
    },
  };
}
