// The Temporal worker: every workflow (bundled once) and every activity group, wired to their clients.
// `npm run worker` runs it alone (production, docker-compose); `npm start` and the tests run it in-process.
import { NativeConnection, Worker, type WorkflowBundle } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import { loadConfig, type Config } from '../config/index.js';
import { createDb, type Db } from '../prisma/client.js';
import { bundleWorkflows } from './bundle.js';
import { createFxRatesActivities } from './fx-rates.js';
import { ensureSchedules } from '../scripts/lib/schedules.js';

export interface ActivityDeps {
  config: Config;
  db: Db;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...createFxRatesActivities({ db: deps.db, ratesUrl: deps.config.fx.url }),
  };
}

export interface WorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: object;
  /** A prebuilt bundle (tests build it once); otherwise the workflows are bundled now. */
  workflowBundle?: WorkflowBundle;
}

export async function createWorker(opts: WorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    workflowBundle: opts.workflowBundle ?? { code: (await bundleWorkflows()).code },
    activities: opts.activities,
    // Shut down promptly on Ctrl-C: running activities get this long to finish before they are cancelled.
    shutdownGraceTime: '10 seconds',
  });
}

async function main() {
  const config = loadConfig();
  if (!config.databaseUrl || !config.temporal.address) {
    throw new Error('npm run worker needs DATABASE_URL and TEMPORAL_ADDRESS (npm start runs everything locally instead)');
  }
  const db = createDb(config.databaseUrl);
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const clientConnection = await Connection.connect({ address: config.temporal.address });
  const client = new Client({ connection: clientConnection, namespace: config.temporal.namespace });
  await ensureSchedules(client, config);
  const worker = await createWorker({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    activities: createActivities({ config, db }),
  });
  // Worker.runUntil-style shutdown: SIGINT/SIGTERM are handled by the SDK (it calls worker.shutdown()).
  await worker.run();
  await clientConnection.close();
  await connection.close();
  await db.$disconnect();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
