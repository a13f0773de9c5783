// A stack for tests that kill workers: no in-process worker, so its task queue is served only by worker processes
// the test starts (startWorker) and kills; close() stops the ones still running, then the stack.
import { inject } from 'vitest';
import { startTestStack, type TestStack, type TestStackOptions } from './stack.js';
import { startWorkerProcess, type WorkerProcess } from './worker-process.js';

export interface CrashStack extends TestStack {
  /** A worker process on the stack's task queue; with `holdAfterStoreOrderCreated` it stops right after the store's answer to an order create. */
  startWorker(holdAfterStoreOrderCreated: boolean): Promise<WorkerProcess>;
}

export async function startCrashStack(opts: Omit<TestStackOptions, 'worker'> = {}): Promise<CrashStack> {
  const stack = await startTestStack({}, { ...opts, worker: false });
  const workers: WorkerProcess[] = [];
  return {
    ...stack,
    async startWorker(holdAfterStoreOrderCreated: boolean) {
      const worker = await startWorkerProcess({
        config: stack.config,
        databaseUrl: stack.database.url,
        temporalAddress: inject('temporalAddress'),
        workflowBundlePath: inject('workflowBundlePath'),
        allowedOrigins: Object.values(stack.urls),
        holdAfterStoreOrderCreated,
      });
      workers.push(worker);
      return worker;
    },
    async close() {
      for (const worker of workers) await worker.kill('SIGTERM');
      await stack.close();
    },
  };
}
