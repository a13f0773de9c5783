// The Temporal worker: every workflow (bundled once) and every activity group, wired to their clients.
// `npm run worker` runs it alone (production, docker-compose); `npm start` and the tests run it in-process.
import { NativeConnection, Worker, type WorkflowBundle } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import { loadConfig, unguardedOrigins, type Config } from '../config/index.js';
import { createDb, type Db } from '../prisma/client.js';
import { bundleWorkflows } from './bundle.js';
import { createFxRatesActivities } from '../activities/fx/fx-rates.js';
import { createEmailActivities } from '../activities/email/account-emails.js';
import { createCheckoutSessionActivities } from '../activities/checkout/checkout-session.js';
import { createCheckoutPaymentActivities } from '../activities/checkout/checkout-payment.js';
import { createFulfilmentActivities } from '../activities/checkout/checkout-fulfilment.js';
import { createRecoveryActivities } from '../activities/recovery/recovery.js';
import { createProcessorActivities } from '../activities/processor/processor-connection.js';
import { createApplePayDomainActivities } from '../activities/custom-domains/apple-pay-domain.js';
import { createStorefrontBActivities } from '../activities/storefront-b/storefront-b.js';
import { createStorefrontAActivities } from '../activities/storefront-a/storefront-a.js';
import { createStoreCountriesActivities } from '../activities/merchant/store-countries.js';
import { createStatsRollupsActivities } from '../activities/stats/stats-rollups.js';
import { createCustomDomainActivities } from '../activities/custom-domains/custom-domain.js';
import { createSetupVerificationActivities } from '../activities/merchant/setup-verification.js';
import { createPlatformBillingActivities } from '../activities/billing/platform-billing.js';
import { createMerchantWebhookActivities } from '../activities/merchant-webhooks/merchant-webhooks.js';
import { createEmailClient } from '../integrations/email/index.js';
import { createSecretBox } from '../security/secrets.js';
import { createUrlGuard, type UrlGuard } from '../security/ssrf.js';
import { createProcessorSweepActivities } from '../activities/processor/processor-sweep.js';
import { ensureSchedules } from './schedules.js';
import { backgroundTaskQueue } from '../domain/temporal/task-queues.js';

export interface ActivityDeps {
  config: Config;
  db: Db;
  /** SSRF guard for merchant-given URLs; built from config when not given (tests pass one for their simulators). */
  urlGuard?: UrlGuard;
  /**
   * A Temporal client for the activities that start workflows (an event's deliveries, an endpoint's health
   * watch) on config.temporal.taskQueue. Read when such an activity runs, so a test may hand a getter over a
   * client it makes later.
   */
  temporal: { readonly client: Client };
}

/** Every activity of the service, wired to its clients. Each group is a factory taking what it needs. */
export function createActivities(deps: ActivityDeps) {
  const { config, db } = deps;
  if (!config.secretsKey) throw new Error('SECRETS_KEY must be set (npm start generates a local one)');
  // What every group may take: the database, sealed-secret access and the SSRF guard.
  const shared = {
    config,
    db,
    secrets: createSecretBox(config.secretsKey),
    urlGuard: deps.urlGuard ?? createUrlGuard({ allowedOrigins: unguardedOrigins(config) }),
  };
  const email = createEmailClient({ serverToken: config.email.serverToken ?? '', apiUrl: config.email.apiUrl });
  return {
    ...createFxRatesActivities({ db, ratesUrl: config.fx.url }),
    ...createEmailActivities({ ...shared, email }),
    ...createProcessorActivities(shared),
    ...createApplePayDomainActivities(shared),
    ...createStorefrontBActivities(shared),
    ...createStorefrontAActivities({ ...shared, email }),
    ...createStoreCountriesActivities(shared),
    ...createStatsRollupsActivities(shared),
    ...createCustomDomainActivities(shared),
    ...createSetupVerificationActivities(shared),
    ...createCheckoutSessionActivities(shared),
    ...createCheckoutPaymentActivities(shared),
    ...createFulfilmentActivities({ ...shared, email }),
    ...createPlatformBillingActivities({ ...shared, email }),
    ...createMerchantWebhookActivities({ ...shared, email, temporal: deps.temporal }),
    ...createProcessorSweepActivities({ ...shared, temporal: deps.temporal }),
    ...createRecoveryActivities({ ...shared, email }),
  };
}

export interface WorkerOptions {
  connection: NativeConnection;
  namespace: string;
  /** The service's own queue: every workflow and the activities someone waits on. Its background queue is beside it (domain/temporal/task-queues.ts). */
  taskQueue: string;
  activities: object;
  /** A prebuilt bundle (tests build it once); otherwise the workflows are bundled now. */
  workflowBundle?: WorkflowBundle;
  /** Activities the background queue's worker runs at once (config TEMPORAL_BACKGROUND_SLOTS; default 8). */
  backgroundSlots?: number;
}

/** Workflow tasks the service's worker runs at once (see createWorker). */
export const WORKFLOW_TASK_SLOTS = 120;

/** The background queue's slots when the caller gives none: emails and merchant events a few at a time. */
export const DEFAULT_BACKGROUND_SLOTS = 8;

/**
 * The service's worker: one Temporal worker on the service's own queue (every workflow, and the activities a shopper or
 * merchant waits on, with the SDK's default slots) and one on its background queue (activities only, a few at a time),
 * run and stopped together. Under load the background queue's tasks wait at Temporal instead of taking the event loop
 * from the steps people wait on (issue 32; docs/operations.md "Interactive before background").
 */
export class ServiceWorker {
  constructor(readonly workers: readonly Worker[]) {}

  /** Runs both until shut down; one failing stops the other and rejects with its error. */
  async run(): Promise<void> {
    const runs = this.workers.map((w) => w.run().catch((err: unknown) => {
      this.shutdown();
      throw err;
    }));
    const settled = await Promise.allSettled(runs);
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  shutdown(): void {
    for (const w of this.workers) if (w.getState() === 'RUNNING') w.shutdown();
  }

  getState(): ReturnType<Worker['getState']> {
    return this.workers[0]!.getState();
  }

  /** Runs both while `until` runs, then shuts them down (as Worker.runUntil); a worker failing first rejects. */
  async runUntil<R>(until: Promise<R> | (() => Promise<R>)): Promise<R> {
    const running = this.run();
    try {
      const work = typeof until === 'function' ? until() : until;
      return await Promise.race([work, running.then(() => Promise.reject(new Error('the worker stopped before the work was done')))]);
    } finally {
      this.shutdown();
      await running.catch(() => undefined);
    }
  }
}

export async function createWorker(opts: WorkerOptions): Promise<ServiceWorker> {
  const common = {
    connection: opts.connection,
    namespace: opts.namespace,
    activities: opts.activities,
    // Shut down promptly on Ctrl-C: running activities get this long to finish before they are cancelled.
    shutdownGraceTime: '10 seconds',
  } as const;
  const service = await Worker.create({
    ...common,
    taskQueue: opts.taskQueue,
    workflowBundle: opts.workflowBundle ?? { code: (await bundleWorkflows()).code },
    // A workflow task holds its slot while its local activities run (init-payment's five, a webhook's three): with the
    // SDK's 40, fifty shoppers at init-payment took every slot and a success webhook's task waited behind them. 120, the
    // figure the SDK's own guidance gives for short tasks (worker-options.d.ts); measured in the flash sale (docs/deployment.md).
    maxConcurrentWorkflowTaskExecutions: WORKFLOW_TASK_SLOTS,
  });
  // Activities only (no workflows polled): a few at a time, whatever the backlog.
  const background = await Worker.create({
    ...common,
    taskQueue: backgroundTaskQueue(opts.taskQueue),
    maxConcurrentActivityTaskExecutions: opts.backgroundSlots ?? DEFAULT_BACKGROUND_SLOTS,
  });
  return new ServiceWorker([service, background]);
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
    activities: createActivities({ config, db, temporal: { client } }),
    backgroundSlots: config.temporal.backgroundSlots,
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
