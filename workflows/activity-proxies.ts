// How workflows call activities beyond the SDK's defaults: on the background queue (what nobody waits on), and as
// local activities that fail the way remote ones do.
import {
  ActivityFailure, CancelledFailure, proxyActivities, proxyLocalActivities, TemporalFailure, workflowInfo, type ActivityInterfaceFor, type ActivityOptions,
  type LocalActivityOptions,
} from '@temporalio/workflow';
import { backgroundTaskQueue } from '../domain/temporal/task-queues.js';

type Calls = Record<string, (...args: unknown[]) => Promise<unknown>>;

/** An object whose every property is `call(name)`, resolved when the function is called (workflow context only then). */
function lazyCalls<A>(call: (name: string, args: unknown[]) => Promise<unknown>): A {
  return new Proxy({} as Calls, {
    get: (_target, name) => (typeof name === 'string' ? (...args: unknown[]) => call(name, args) : undefined),
  }) as A;
}

/**
 * Activities nobody waits on (emails, merchant events, the store cart emptied after the order, FX, sweeps) go to the
 * service's background task queue (domain/temporal/task-queues.ts), which a worker of its own polls with few slots: under a
 * flash sale they queue up at Temporal, and the steps a shopper or merchant waits on keep the CPU. Replay-safe: a
 * command's task queue is not part of the determinism check, so histories recorded when these ran on the workflow's
 * own queue replay unchanged (workflows/replay.test.ts).
 */
export function backgroundActivities<A>(options: Omit<ActivityOptions, 'taskQueue'>): ActivityInterfaceFor<A> {
  return lazyCalls((name, args) => {
    const proxy = proxyActivities<Calls>({ ...options, taskQueue: backgroundTaskQueue(workflowInfo().taskQueue) });
    return proxy[name]!(...args);
  });
}

/**
 * Local activities (run by the worker that runs the workflow task: no round trip through Temporal's task queue) for
 * short steps someone waits on. Their failure reaches workflow code as the activity's own error (an ApplicationFailure,
 * a TimeoutFailure), not wrapped in an ActivityFailure as a remote activity's is: it is wrapped here, so callers read
 * one shape whichever way the activity ran. Retries backing off 10 s or more wait on a workflow timer (durable, and
 * skipped by the time-skipping test server) instead of in the worker.
 */
export function localActivities<A>(options: LocalActivityOptions): ActivityInterfaceFor<A> {
  const local = proxyLocalActivities<Calls>({ localRetryThreshold: '10 seconds', ...options });
  return lazyCalls(async (name, args) => {
    try {
      return await local[name]!(...args);
    } catch (err) {
      if (err instanceof ActivityFailure || err instanceof CancelledFailure || !(err instanceof TemporalFailure)) throw err;
      throw new ActivityFailure(err.message, name, undefined, undefined, undefined, err);
    }
  });
}
