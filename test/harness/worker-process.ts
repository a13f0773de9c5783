// A worker in a process of its own, for tests that kill it (SIGKILL) in the middle of an activity and start
// another: the service's activities (createActivities, with the stack's configuration and SSRF allowances)
// and the harness's workflow bundle, on the stack's task queue. startWorkerProcess() forks this file
// under tsx; the child's part is main() below (nothing here may import vitest).
//
// With `holdAfterStoreOrderCreated`, the store clients' fetch, once the store answered an order create
// (POST …/orders[.json], or Shopify's draftOrderComplete, 2xx), tells the parent { type: 'store-order-created' } and holds the activity
// before it records or returns the order: a kill on that message lands right after the store call.
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { Client } from '@temporalio/client';
import type { Config } from '../../config/index.js';
import { createActivities, createWorker } from '../../worker/worker.js';
import { createFulfilmentActivities } from '../../activities/checkout/checkout-fulfilment.js';
import { createEmailClient } from '../../integrations/email/index.js';
import { createDb } from '../../prisma/client.js';
import { createSecretBox } from '../../security/secrets.js';
import { createUrlGuard } from '../../security/ssrf.js';

export interface WorkerProcessOptions {
  /** The stack's configuration (its task queue, secrets key and simulator URLs included). */
  config: Config;
  databaseUrl: string;
  temporalAddress: string;
  workflowBundlePath: string;
  /** Origins the SSRF guard lets through (the stack's simulators). */
  allowedOrigins: string[];
  holdAfterStoreOrderCreated?: boolean;
}

export type WorkerProcessMessage = { type: 'ready' } | { type: 'store-order-created'; url: string; status: number };

export interface WorkerProcess {
  pid: number;
  /** Resolves when the child reports a store order created (only with holdAfterStoreOrderCreated). */
  storeOrderCreated: Promise<Extract<WorkerProcessMessage, { type: 'store-order-created' }>>;
  /** Resolves with the exit signal (or code) once the process is gone. */
  exited: Promise<NodeJS.Signals | number | null>;
  /** Sends `signal` to this process (only this one, by its pid) and waits for its exit. */
  kill(signal: NodeJS.Signals): Promise<NodeJS.Signals | number | null>;
}

const OPTIONS_ENV = 'CHECKOUT_WORKER_PROCESS';

/** Forks a worker process; resolves once its worker is polling the task queue. */
export async function startWorkerProcess(opts: WorkerProcessOptions): Promise<WorkerProcess> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, [OPTIONS_ENV]: JSON.stringify(opts) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  const message = <T extends WorkerProcessMessage['type']>(type: T) =>
    new Promise<Extract<WorkerProcessMessage, { type: T }>>((resolve) => {
      const listener = (m: WorkerProcessMessage) => {
        if (m.type !== type) return;
        child.off('message', listener);
        resolve(m as Extract<WorkerProcessMessage, { type: T }>);
      };
      child.on('message', listener);
    });
  const storeOrderCreated = message('store-order-created');
  const ready = await Promise.race([message('ready'), exited.then((how) => how)]);
  if (typeof ready !== 'object' || ready === null) throw new Error(`the worker process exited before it was ready (${String(ready)})`);
  return {
    pid: child.pid!,
    storeOrderCreated,
    exited,
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, signal);
      return exited;
    },
  };
}

/** The store clients' fetch that stops the activity right after the store created an order. */
function holdingFetch(send: (m: WorkerProcessMessage) => void): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    // Storefront B: POST …/orders; storefront A (Shopify): the GraphQL draftOrderComplete that makes the order.
    const orderCall = /\/orders(\.json)?$/.test(url.pathname) || (/\/graphql\.json$/.test(url.pathname) && typeof init?.body === 'string' && init.body.includes('draftOrderComplete'));
    if (method !== 'POST' || !orderCall || !res.ok) return res;
    // Read now: the client's per-call time-out would abort a body read after the hold.
    const body = await res.arrayBuffer();
    send({ type: 'store-order-created', url: url.pathname, status: res.status });
    await new Promise((r) => setTimeout(r, 60_000)); // the parent kills the process meanwhile
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

async function main(): Promise<void> {
  const opts = JSON.parse(process.env[OPTIONS_ENV]!) as WorkerProcessOptions;
  const send = (m: WorkerProcessMessage) => process.send?.(m);
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const { config } = opts;
  const db = createDb(opts.databaseUrl, { max: 5 });
  const urlGuard = createUrlGuard({ allowedOrigins: opts.allowedOrigins });
  const connection = await NativeConnection.connect({ address: opts.temporalAddress });
  // The activities that start workflows (an event's deliveries) use the worker's own connection.
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const activities = createActivities({ config, db, urlGuard, temporal: { client } });
  if (opts.holdAfterStoreOrderCreated) {
    const email = createEmailClient({ serverToken: config.email.serverToken ?? '', apiUrl: config.email.apiUrl });
    Object.assign(activities, createFulfilmentActivities({ config, db, urlGuard, email, secrets: createSecretBox(config.secretsKey!), fetch: holdingFetch(send) }));
  }
  const worker = await createWorker({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    activities,
    workflowBundle: { code: readFileSync(opts.workflowBundlePath, 'utf8') },
  });
  // The test process went away: stop too (SIGTERM and SIGINT shut the worker down through the SDK).
  process.once('disconnect', () => worker.shutdown());
  const running = worker.run();
  send({ type: 'ready' });
  await running;
  await connection.close();
  await db.$disconnect();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error('worker process:', err);
      process.exit(1);
    },
  );
}
