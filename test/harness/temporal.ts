// A Temporal client and a worker for one test file, on the harness's dev server (or a time-skipping
// environment), on a task queue of its own so test files never steal each other's tasks.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { WorkflowBundle } from '@temporalio/worker';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import proto from '@temporalio/proto';
import { inject } from 'vitest';
import { createWorker, type ServiceWorker } from '../../worker/worker.js';
import { searchAttributeKeys } from '../../workflows/search-attributes.js';
import { connectTemporal, quietRuntime, uniqueTaskQueue, type TemporalHandles } from '../../scripts/lib/stack/service-stack.js';
import { freeLowPort, untilAccepting } from '../../scripts/lib/ports.js';

export { uniqueTaskQueue };

/** The workflow bundle the global setup built once for every test worker. */
export function testWorkflowBundle(): WorkflowBundle {
  return { code: readFileSync(inject('workflowBundlePath'), 'utf8') };
}

export type TestTemporal = TemporalHandles;

export function connectTestTemporal(): Promise<TestTemporal> {
  return connectTemporal(inject('temporalAddress'), testWorkflowBundle);
}

export interface TimeSkippingTemporal {
  env: TestWorkflowEnvironment;
  taskQueue: string;
  withWorker<T>(activities: object, fn: (worker: ServiceWorker) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * The Java time-skipping test server: timers of hours pass in seconds while no activity runs. It rejects
 * search attributes it does not know (and has no option to register them at start), so ours are added
 * through its operator service, as the dev server gets them with --search-attribute.
 *
 * We start the JVM ourselves and wait for its port for up to a minute: the SDK's own launcher gives it
 * about 5 s, which a busy 2-core machine (the whole suite in parallel) misses. The environment is then
 * built on that server with time skipping on — the SDK's `create` with an existing server, which is what
 * its public `createTimeSkipping` does after launching one.
 */
export async function startTimeSkipping(opts: { taskQueue?: string } = {}): Promise<TimeSkippingTemporal> {
  quietRuntime();
  const server = await launchTestServer(inject('testServerPath'));
  let env: TestWorkflowEnvironment;
  try {
    env = await (TestWorkflowEnvironment as unknown as ExistingServerFactory).create({
      server: { type: 'existing' },
      address: server.address,
      namespace: 'default',
      supportsTimeSkipping: true,
    });
  } catch (err) {
    await server.stop();
    throw err;
  }
  const teardown = async () => {
    await env.teardown().catch(() => undefined);
    await server.stop();
  };
  try {
    await addOurSearchAttributes(env);
  } catch (err) {
    await teardown();
    throw err;
  }
  // A given queue: the one the activities' configuration starts workflows on (an event's deliveries).
  const taskQueue = opts.taskQueue ?? uniqueTaskQueue('ts');
  return {
    env,
    taskQueue,
    async withWorker(activities, fn) {
      const worker = await createWorker({ connection: env.nativeConnection, namespace: env.namespace ?? 'default', taskQueue, activities, workflowBundle: testWorkflowBundle() });
      return worker.runUntil(fn(worker));
    },
    close: teardown,
  };
}

const GRPC_ALREADY_EXISTS = 6;

/**
 * Registers our search attributes on the test server. The client retries a call whose answer was lost (a busy
 * machine: UNAVAILABLE after the server applied it), and the retry then answers ALREADY_EXISTS. The test server
 * cannot list them, so each is then added alone: ALREADY_EXISTS for each says it is there.
 */
export async function addOurSearchAttributes(env: TestWorkflowEnvironment): Promise<void> {
  const namespace = env.namespace ?? 'default';
  const wanted = Object.values(searchAttributeKeys).map((key) => [key.name, proto.temporal.api.enums.v1.IndexedValueType[`INDEXED_VALUE_TYPE_${key.type}`]] as const);
  const add = async (entries: ReadonlyArray<readonly [string, number]>) => {
    try {
      await env.connection.operatorService.addSearchAttributes({ namespace, searchAttributes: Object.fromEntries(entries) });
      return true;
    } catch (err) {
      if ((err as { code?: number }).code !== GRPC_ALREADY_EXISTS) throw err;
      return false;
    }
  };
  if (await add(wanted)) return;
  for (const entry of wanted) await add([entry]);
}

/** `TestWorkflowEnvironment.create` is not in the SDK's typings; createTimeSkipping/createFromExistingServer call it. */
interface ExistingServerFactory {
  create(opts: { server: { type: 'existing' }; address: string; namespace: string; supportsTimeSkipping: boolean }): Promise<TestWorkflowEnvironment>;
}

/** Runs the test server script on a free port and resolves once the port accepts connections (≤ 60 s). */
async function launchTestServer(executable: string): Promise<{ address: string; stop(): Promise<void> }> {
  const port = await freeLowPort();
  const child = spawn(executable, [String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  try {
    await untilAccepting(port, child, 60_000);
  } catch (err) {
    await stop();
    throw new Error(`the time-skipping test server ${(err as Error).message}${stderr ? `: ${stderr}` : ''}`);
  }
  return { address: `127.0.0.1:${port}`, stop };
}

