// The whole service on loopback, on a database and a Temporal server the caller provides: every simulator
// on port 0, the API listening on a real port (so simulators can call its webhooks), and a worker with
// every activity on a task queue of its own. test/harness/stack.ts starts it on a per-file database and
// the harness's Temporal server; `npm run bench` starts it on servers of its own. Shared by both, so it lives in
// scripts/lib/ (scripts never import test/; test/harness re-exports it). Nothing here may import vitest (no
// inject()): the bench runs outside it.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type WorkflowBundle } from '@temporalio/worker';
import { buildApp } from '../../../api/app.js';
import { createActivities, createWorker, type ServiceWorker } from '../../../worker/worker.js';
import { startSandboxes, type Sandboxes } from './sandboxes.js';
import type { Config } from '../../../config/index.js';
import { createDb, type Db } from '../../../prisma/client.js';
import { freeLowPort } from '../ports.js';
import { testConfig } from './config.js';
import { createUrlGuard } from '../../../security/ssrf.js';
import { checkoutInputInterceptor } from './checkout-input.js';

let runtimeInstalled = false;
/** The Temporal SDK's Rust core logs errors only (once per process, before the first native connection). */
export function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Already installed by an earlier call in this process.
  }
}

export function uniqueTaskQueue(prefix = 'test'): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/** A Temporal client and workers on one task queue of a server at `address`. */
export interface TemporalHandles {
  client: Client;
  connection: Connection;
  nativeConnection: NativeConnection;
  taskQueue: string;
  /** Runs fn while a worker with these activities polls the task queue. */
  withWorker<T>(activities: object, fn: (worker: ServiceWorker) => Promise<T>): Promise<T>;
  /** A worker on this task queue that the caller runs and shuts down. */
  createWorker(activities: object): Promise<ServiceWorker>;
  close(): Promise<void>;
}

/** Connects to the server at `address`; workers run the service's workflows from `workflowBundle()`. */
export async function connectTemporal(address: string, workflowBundle: () => WorkflowBundle, taskQueue = uniqueTaskQueue()): Promise<TemporalHandles> {
  quietRuntime();
  const connection = await Connection.connect({ address });
  const nativeConnection = await NativeConnection.connect({ address });
  const client = new Client({ connection });
  const worker = (activities: object) => createWorker({ connection: nativeConnection, namespace: 'default', taskQueue, activities, workflowBundle: workflowBundle() });
  return {
    client,
    connection,
    nativeConnection,
    taskQueue,
    async withWorker(activities, fn) {
      const w = await worker(activities);
      return w.runUntil(fn(w));
    },
    createWorker: worker,
    async close() {
      await connection.close();
      await nativeConnection.close();
    },
  };
}

export interface ServiceStackOptions {
  /** A migrated database. */
  databaseUrl: string;
  /** An open client on it, kept open by close(); without one the stack opens (and closes) its own. */
  db?: Db;
  /** host:port of a Temporal server with the service's search attributes registered. */
  temporalAddress: string;
  /** The bundle of workflows/index.ts (built once by the caller). */
  workflowBundle: () => WorkflowBundle;
  /** Configuration variables on top of the test configuration and the stack's own addresses. */
  env?: Record<string, string>;
  logger?: FastifyServerOptions['logger'];
  /** false: no worker polls the task queue (a test runs its own, e.g. in a child process it can kill). Default true. */
  worker?: boolean;
  /** Added to the input of every checkout workflow the API starts (tests shorten its timings this way). */
  checkoutWorkflowInput?: Parameters<typeof checkoutInputInterceptor>[0];
  /** How the URL guard resolves merchants' host names (default: the system resolver); the simulators are always reachable. */
  resolveHost?: (host: string) => Promise<string[]>;
}

export interface ServiceStack {
  app: FastifyInstance;
  /** http://127.0.0.1:<port> of the API. */
  apiUrl: string;
  config: Config;
  db: Db;
  temporal: TemporalHandles;
  /** null when started with `worker: false`. */
  worker: ServiceWorker | null;
  sims: Sandboxes['sims'];
  urls: Sandboxes['urls'];
  close(): Promise<void>;
}


export async function startServiceStack(opts: ServiceStackOptions): Promise<ServiceStack> {
  // Below the ephemeral range: a simulator listening on port 0 or an outgoing connection cannot take it before the API binds.
  const apiPort = await freeLowPort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const sandboxes = await startSandboxes({ serviceUrl: apiUrl, resolveHost: opts.resolveHost });
  const { sims, urls } = sandboxes;

  const db = opts.db ?? createDb(opts.databaseUrl, { max: 10 });
  const temporal = await connectTemporal(opts.temporalAddress, opts.workflowBundle);
  const base = testConfig({
    API_PORT: String(apiPort),
    PUBLIC_API_URL: apiUrl,
    APP_ORIGIN: apiUrl,
    TEMPORAL_TASK_QUEUE: temporal.taskQueue,
    ...sandboxes.env,
    ...opts.env,
  });
  // These simulators are the sandbox: their pages are allowed origins (CORS) as the fixed-port ones are for
  // `npm start`, so the script tag can call the API from the shop's page in a browser test.
  const config: Config = { ...base, sandbox: { ...base.sandbox, urls: { ...base.sandbox.urls, ...urls } } };
  // The simulators, and the local stores the configuration names (LOCAL_STORE_ORIGINS: the real WooCommerce tier's).
  const urlGuard = createUrlGuard({ allowedOrigins: [...Object.values(urls), ...config.localStoreOrigins], resolve: opts.resolveHost });
  const worker = opts.worker === false ? null : await temporal.createWorker(createActivities({ config, db, urlGuard, temporal: { client: temporal.client } }));
  const running = worker?.run();

  const apiClient = opts.checkoutWorkflowInput
    ? new Client({ connection: temporal.connection, interceptors: { workflow: [checkoutInputInterceptor(opts.checkoutWorkflowInput)] } })
    : temporal.client;
  const app = await buildApp({ config, db, temporal: { client: apiClient, connection: temporal.connection }, logger: opts.logger ?? false, urlGuard });
  await app.listen({ port: apiPort, host: '127.0.0.1' });

  return {
    app,
    apiUrl,
    config,
    db,
    temporal,
    worker,
    sims,
    urls,
    async close() {
      await app.close();
      worker?.shutdown();
      await running;
      await temporal.close();
      await sandboxes.close();
      if (!opts.db) await db.$disconnect();
    },
  };
}
