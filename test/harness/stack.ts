// The whole service for an end-to-end test file: every simulator on port 0, a database of its own, the
// API listening on a real port (so simulators can call its webhooks), and a worker with every activity
// on a task queue of its own. Tests drive it over HTTP (or `app.inject`) and read outcomes from the
// simulators and the database.
import type { FastifyInstance } from 'fastify';
import type { Worker } from '@temporalio/worker';
import { buildApp } from '../../api/app.js';
import { createActivities } from '../../activities/worker.js';
import { createProcessorSimulator, type ProcessorSimulator } from '../../sandbox/processor/index.js';
import { createStorefrontASimulator, type StorefrontASimulator } from '../../sandbox/storefront-a/simulator.js';
import { createStorefrontBSimulator, type StorefrontBSimulator } from '../../sandbox/storefront-b/simulator.js';
import { createEmailSimulator, type EmailSimulator } from '../../sandbox/email/index.js';
import type { Simulator } from '../../sandbox/shared/simulator.js';
import { createUrlGuard } from '../../security/ssrf.js';
import type { Config } from '../../config/index.js';
import { freePort } from '../../scripts/lib/ports.js';
import { createTestDatabase, type TestDatabase } from './db.js';
import { connectTestTemporal, type TestTemporal } from './temporal.js';
import { testConfig } from './config.js';

export interface TestStack {
  app: FastifyInstance;
  /** http://127.0.0.1:<port> of the API. */
  apiUrl: string;
  config: Config;
  database: TestDatabase;
  temporal: TestTemporal;
  worker: Worker;
  sims: { processor: ProcessorSimulator; storefrontA: StorefrontASimulator; storefrontB: StorefrontBSimulator; email: EmailSimulator };
  urls: { processor: string; storefrontA: string; storefrontB: string; email: string };
  close(): Promise<void>;
}

async function listen(sim: Simulator): Promise<string> {
  return sim.app.listen({ port: 0, host: '127.0.0.1' });
}

export async function startTestStack(env: Record<string, string> = {}): Promise<TestStack> {
  const apiPort = await freePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  let processorUrl = '';
  let storefrontAUrl = '';
  let storefrontBUrl = '';
  const sims = {
    processor: createProcessorSimulator({ publicUrl: () => processorUrl, webhookRetryDelaysMs: [200, 500, 1000] }),
    storefrontA: createStorefrontASimulator({ publicUrl: () => storefrontAUrl }),
    storefrontB: createStorefrontBSimulator({ publicUrl: () => storefrontBUrl, serviceUrl: apiUrl }),
    email: createEmailSimulator(),
  };
  processorUrl = await listen(sims.processor);
  storefrontAUrl = await listen(sims.storefrontA);
  storefrontBUrl = await listen(sims.storefrontB);
  const emailUrl = await listen(sims.email);
  const urls = { processor: processorUrl, storefrontA: storefrontAUrl, storefrontB: storefrontBUrl, email: emailUrl };

  const database = await createTestDatabase();
  const temporal = await connectTestTemporal();
  const config = testConfig({
    API_PORT: String(apiPort),
    PUBLIC_API_URL: apiUrl,
    APP_ORIGIN: apiUrl,
    TEMPORAL_TASK_QUEUE: temporal.taskQueue,
    PROCESSOR_API_URL: processorUrl,
    STOREFRONT_A_API_TEMPLATE: `${storefrontAUrl}/shops/{shop}`,
    POSTMARK_API_URL: emailUrl,
    POSTMARK_SERVER_TOKEN: 'sandbox-server-token',
    ...env,
  });
  const urlGuard = createUrlGuard({ allowedOrigins: Object.values(urls) });
  const activities = createActivities({ config, db: database.db, urlGuard });
  const worker = await temporal.createWorker(activities);
  const running = worker.run();

  // TEST_LOG=1 shows the API's error log (5xx causes) while debugging a test.
  const app = await buildApp({ config, db: database.db, temporal: { client: temporal.client, connection: temporal.connection }, logger: process.env.TEST_LOG ? { level: 'error' } : false, urlGuard });
  await app.listen({ port: apiPort, host: '127.0.0.1' });

  return {
    app,
    apiUrl,
    config,
    database,
    temporal,
    worker,
    sims,
    urls,
    async close() {
      await app.close();
      worker.shutdown();
      await running;
      await temporal.close();
      await Promise.all(Object.values(sims).map((s) => s.app.close()));
      await database.drop();
    },
  };
}
