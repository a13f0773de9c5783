// The bare baseline of the webhook → order benchmark: a workflow started by signal-with-start that waits
// for its signal and runs one activity writing one row. Only the benchmark uses it: it is bundled on its
// own (bundleWorkflowCode with this file) for a worker on the benchmark's own task queue, and is not part
// of workflows/index.ts.
import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import { PROFILES } from '../../workflows/activity-profiles.js';

export interface RoundTripMessage {
  eventId: string;
  event: string;
  paymentId: string;
}

export interface RoundTripActivities {
  writeBenchRow(ref: string, message: RoundTripMessage): Promise<void>;
}

export const roundTripSignal = defineSignal<[RoundTripMessage]>('benchRoundTrip');

const { writeBenchRow } = proxyActivities<RoundTripActivities>(PROFILES.benchRow);

export async function benchRoundTripWorkflow(ref: string): Promise<void> {
  let message: RoundTripMessage | undefined;
  setHandler(roundTripSignal, (m) => {
    message = m;
  });
  await condition(() => message !== undefined);
  await writeBenchRow(ref, message!);
}
