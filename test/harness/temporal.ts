// A Temporal client and a worker for one test file, on the harness's dev server (or a time-skipping
// environment), on a task queue of its own so test files never steal each other's tasks.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, DefaultLogger, type Worker } from '@temporalio/worker';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { inject } from 'vitest';
import { createWorker } from '../../activities/worker.js';

let runtimeInstalled = false;
function quietRuntime() {
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

function workflowBundle() {
  return { code: readFileSync(inject('workflowBundlePath'), 'utf8') };
}

export interface TestTemporal {
  client: Client;
  connection: Connection;
  taskQueue: string;
  /** Runs fn while a worker with these activities polls the task queue. */
  withWorker<T>(activities: object, fn: (worker: Worker) => Promise<T>): Promise<T>;
  /** A worker on this task queue that the caller runs and shuts down. */
  createWorker(activities: object): Promise<Worker>;
  close(): Promise<void>;
}

export async function connectTestTemporal(): Promise<TestTemporal> {
  quietRuntime();
  const address = inject('temporalAddress');
  const connection = await Connection.connect({ address });
  const nativeConnection = await NativeConnection.connect({ address });
  const client = new Client({ connection });
  const taskQueue = uniqueTaskQueue();
  return {
    client,
    connection,
    taskQueue,
    async withWorker(activities, fn) {
      const worker = await createWorker({ connection: nativeConnection, namespace: 'default', taskQueue, activities, workflowBundle: workflowBundle() });
      return worker.runUntil(fn(worker));
    },
    createWorker: (activities) => createWorker({ connection: nativeConnection, namespace: 'default', taskQueue, activities, workflowBundle: workflowBundle() }),
    async close() {
      await connection.close();
      await nativeConnection.close();
    },
  };
}

export interface TimeSkippingTemporal {
  env: TestWorkflowEnvironment;
  taskQueue: string;
  withWorker<T>(activities: object, fn: (worker: Worker) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The Java time-skipping test server: timers of hours pass in seconds while no activity runs. */
export async function startTimeSkipping(): Promise<TimeSkippingTemporal> {
  quietRuntime();
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: inject('testServerPath') } },
  });
  const taskQueue = uniqueTaskQueue('ts');
  return {
    env,
    taskQueue,
    async withWorker(activities, fn) {
      const worker = await createWorker({ connection: env.nativeConnection, namespace: env.namespace ?? 'default', taskQueue, activities, workflowBundle: workflowBundle() });
      return worker.runUntil(fn(worker));
    },
    close: () => env.teardown(),
  };
}
