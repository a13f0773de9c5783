// Temporal Schedules the service needs, created or updated idempotently at worker start-up.
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Config } from '../../config/index.js';
import { FX_SCHEDULE_ID, FX_WORKFLOW_ID } from '../../workflows/fx-rates.js';

export async function ensureSchedules(client: Client, config: Config): Promise<void> {
  const action = {
    type: 'startWorkflow' as const,
    workflowType: 'refreshFxRatesWorkflow',
    workflowId: FX_WORKFLOW_ID,
    taskQueue: config.temporal.taskQueue,
    args: [],
  };
  const spec = { cronExpressions: [config.fx.refreshCron] };
  try {
    // A new schedule runs once right away, so a fresh install has today's rates and a visible run.
    await client.schedule.create({
      scheduleId: FX_SCHEDULE_ID,
      spec,
      action,
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' },
      state: { triggerImmediately: true, note: 'Daily refresh of the ECB euro reference rates (fx_rates table)' },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule.getHandle(FX_SCHEDULE_ID).update((prev) => ({ ...prev, spec, action }));
  }
}
