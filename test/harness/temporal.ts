// A Temporal client and a worker for one test file, on the harness's dev server (or a time-skipping
// environment), on a task queue of its own so test files never steal each other's tasks.
import { readFileSync } from 'node:fs';
import type { Worker, WorkflowBundle } from '@temporalio/worker';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import proto from '@temporalio/proto';
import { inject } from 'vitest';
import { createWorker } from '../../activities/worker.js';
import { searchAttributeKeys } from '../../workflows/search-attributes.js';
import { connectTemporal, quietRuntime, uniqueTaskQueue, type TemporalHandles } from './service-stack.js';

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
  withWorker<T>(activities: object, fn: (worker: Worker) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * The Java time-skipping test server: timers of hours pass in seconds while no activity runs. It rejects
 * search attributes it does not know (and has no option to register them at start), so ours are added
 * through its operator service, as the dev server gets them with --search-attribute.
 */
export async function startTimeSkipping(): Promise<TimeSkippingTemporal> {
  quietRuntime();
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: inject('testServerPath') } },
  });
  try {
    await env.connection.operatorService.addSearchAttributes({
      namespace: env.namespace ?? 'default',
      searchAttributes: Object.fromEntries(
        Object.values(searchAttributeKeys).map((key) => [key.name, proto.temporal.api.enums.v1.IndexedValueType[`INDEXED_VALUE_TYPE_${key.type}`]]),
      ),
    });
  } catch (err) {
    await env.teardown();
    throw err;
  }
  const taskQueue = uniqueTaskQueue('ts');
  return {
    env,
    taskQueue,
    async withWorker(activities, fn) {
      const worker = await createWorker({ connection: env.nativeConnection, namespace: env.namespace ?? 'default', taskQueue, activities, workflowBundle: testWorkflowBundle() });
      return worker.runUntil(fn(worker));
    },
    close: () => env.teardown(),
  };
}
