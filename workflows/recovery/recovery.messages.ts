// The recovery workflow's identity, input and signal: imported by the workflow, the API (start, stop) and tests.
import { defineSignal } from '@temporalio/workflow';


export interface RecoveryWorkflowInput {
  token: string;
}

/** Ends the series before its next reminder: the shopper unsubscribed or withdrew consent (the reason is kept in the result). */
export const stopRecoverySignal = defineSignal<[string]>('stopRecovery');

export interface RecoveryResult {
  /** The reminders this run sent (1-based steps). */
  sent: number[];
  /** Why the series ended: 'schedule_done', or the reason the last step gave (paid, opted_out, no_consent, …), or the stop signal's. */
  ended: string;
}
