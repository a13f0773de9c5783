// The bare baseline of the flash-sale benchmark: a workflow that runs `count` activities one after the
// other, each writing one row, i.e. the Temporal work of a checkout (the same number of activities) with
// none of its business logic. Bundled on its own for a worker on the benchmark's own task queue; not part
// of workflows/index.ts.
import { proxyActivities } from '@temporalio/workflow';
import { PROFILES } from '../../workflows/activity-profiles.js';

export interface BareActivities {
  writeBareRow(ref: string, step: number): Promise<void>;
}

const { writeBareRow } = proxyActivities<BareActivities>(PROFILES.benchRow);

export async function benchActivitiesWorkflow(ref: string, count: number): Promise<void> {
  for (let step = 0; step < count; step++) await writeBareRow(ref, step);
}
