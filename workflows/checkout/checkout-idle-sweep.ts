// The idle sweep: checkout workflows start with the first action that needs them (api/checkout-workflow.ts),
// so a session nobody ever acted on has no workflow to abandon it. Every few minutes (a Temporal Schedule,
// worker/schedules.ts) this workflow finds the OPEN sessions without a workflow whose shopper has been
// idle for the abandonment delay, and starts their checkout workflows; each one loads its session, sees it
// idle for the whole delay and abandons it (workflows/checkout/checkout.ts). The status is still only written by the
// session's own workflow, and every abandoned session is visible in the Web UI like any other.
import { ParentClosePolicy, continueAsNew, proxyActivities, startChild } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { CheckoutSessionActivities, IdleSessionCursor } from '../../activities/checkout/checkout-session.js';
import type { checkoutWorkflow } from './checkout.js';
import { PROFILES } from '../activity-profiles.js';
import { WORKFLOWS } from '../../domain/temporal/workflow-names.js';


const { listIdleSessionsWithoutWorkflow } = proxyActivities<CheckoutSessionActivities>(PROFILES.sweepList);

export interface CheckoutIdleSweepInput {
  /** The configured abandonment delay (config.checkout.abandonAfterMs). */
  abandonAfterMs: number;
  /** Sessions per batch (default 100). */
  batchSize?: number;
  /** Batches per run before continuing as new (default 10: keeps each run's history short). */
  batchesPerRun?: number;
  /** Where the previous run stopped, and the cut-off it used (a continued run keeps both). */
  cursor?: IdleSessionCursor;
  idleBefore?: number;
}

export interface CheckoutIdleSweepResult {
  /** Checkout workflows this run started. */
  woken: number;
}

export async function checkoutIdleSweepWorkflow(input: CheckoutIdleSweepInput): Promise<CheckoutIdleSweepResult> {
  const batchSize = input.batchSize ?? 100;
  const batchesPerRun = input.batchesPerRun ?? 10;
  const idleBefore = input.idleBefore ?? Date.now() - input.abandonAfterMs;
  let cursor = input.cursor;
  let woken = 0;
  for (let batch = 0; batch < batchesPerRun; batch++) {
    const sessions = await listIdleSessionsWithoutWorkflow({ idleBefore, after: cursor, limit: batchSize });
    await Promise.all(sessions.map(async (s) => {
      try {
        await startChild<typeof checkoutWorkflow>(WORKFLOWS.checkout.type, {
          workflowId: WORKFLOWS.checkout.id(s.token),
          args: [{ token: s.token, merchantId: s.merchantId, platform: s.platform, abandonAfterMs: input.abandonAfterMs }],
          // The checkout workflow outlives this run: it is the session's own, not a part of the sweep.
          parentClosePolicy: ParentClosePolicy.ABANDON,
        });
        woken += 1;
      } catch (err) {
        // The shopper acted (or an event arrived) since the list was read: that run owns the session.
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
    }));
    if (sessions.length < batchSize) return { woken };
    const last = sessions[sessions.length - 1]!;
    cursor = { lastActivityAt: last.lastActivityAt, token: last.token };
  }
  // More to do than one run should hold: the next run goes on from the cursor with the same cut-off.
  return await continueAsNew<typeof checkoutIdleSweepWorkflow>({ ...input, cursor, idleBefore });
}
