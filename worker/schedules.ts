// Temporal Schedules the service needs, created or updated idempotently at worker start-up.
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleOptionsAction, type ScheduleSpec } from '@temporalio/client';
import type { Config } from '../config/index.js';
import { FX_SCHEDULE_ID } from '../domain/temporal/schedules.js';
import { CHECKOUT_IDLE_SWEEP_SCHEDULE_ID, PROCESSOR_SWEEP_SCHEDULE_ID } from '../domain/temporal/schedules.js';
import type { CheckoutIdleSweepInput } from '../workflows/checkout/checkout-idle-sweep.js';
import { WORKFLOWS } from '../domain/temporal/workflow-names.js';

/** How often the idle sweep runs: an untouched session is abandoned at most this long after its delay. */
export const CHECKOUT_IDLE_SWEEP_EVERY = '10 minutes';

interface ScheduleDefinition {
  id: string;
  spec: ScheduleSpec;
  action: ScheduleOptionsAction;
  catchupWindow: string;
  /** Run once as soon as the schedule is created (a fresh install then has a visible first run). */
  runAtCreation: boolean;
  note: string;
}

export function scheduleDefinitions(config: Config): ScheduleDefinition[] {
  const taskQueue = config.temporal.taskQueue;
  const sweep: CheckoutIdleSweepInput = { abandonAfterMs: config.checkout.abandonAfterMs };
  return [
    {
      id: FX_SCHEDULE_ID,
      spec: { cronExpressions: [config.fx.refreshCron] },
      action: { type: 'startWorkflow', workflowType: WORKFLOWS.fxRates.type, workflowId: WORKFLOWS.fxRates.id(), taskQueue, args: [] },
      catchupWindow: '1 day',
      runAtCreation: true,
      note: 'Daily refresh of the ECB euro reference rates (fx_rates table)',
    },
    {
      id: CHECKOUT_IDLE_SWEEP_SCHEDULE_ID,
      spec: { intervals: [{ every: CHECKOUT_IDLE_SWEEP_EVERY }] },
      action: { type: 'startWorkflow', workflowType: WORKFLOWS.checkoutIdleSweep.type, workflowId: WORKFLOWS.checkoutIdleSweep.id(), taskQueue, args: [sweep] },
      catchupWindow: '1 hour',
      runAtCreation: false,
      note: 'Starts the checkout workflow of sessions nobody acted on once they are idle long enough to be abandoned',
    },
    {
      // PROCESSOR_SWEEP_MINUTES (default 15): a webhook Whop gave up on (three retries within about a minute) shows
      // within that long; a dispute's response window is days, and a refund is money already back with the shopper.
      // Each run costs two list calls per connected merchant, well inside Whop's rate limits.
      id: PROCESSOR_SWEEP_SCHEDULE_ID,
      spec: { intervals: [{ every: `${config.processor.sweepMinutes} minutes` }] },
      action: { type: 'startWorkflow', workflowType: WORKFLOWS.processorSweep.type, workflowId: WORKFLOWS.processorSweep.id(), taskQueue, args: [] },
      catchupWindow: '1 hour',
      runAtCreation: false,
      note: 'Lists each connected merchant\'s processor refunds and disputes since the last run and applies those whose webhook was lost',
    },
  ];
}

export async function ensureSchedules(client: Client, config: Config): Promise<void> {
  for (const { id, spec, action, catchupWindow, runAtCreation, note } of scheduleDefinitions(config)) {
    try {
      await client.schedule.create({
        scheduleId: id,
        spec,
        action,
        policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow },
        state: { triggerImmediately: runAtCreation, note },
      });
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
      // An existing schedule takes the current spec and action (a changed cron, delay or task queue).
      await client.schedule.getHandle(id).update((prev) => ({ ...prev, spec, action }));
    }
  }
}
