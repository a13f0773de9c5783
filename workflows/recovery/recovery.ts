// Reminds a shopper who consented and left their checkout: up to three emails on the merchant's schedule
// (docs/recovery.md). One run per session (`recovery-<token>`), started when the shopper gives consent with an email.
// Each reminder's activity looks at the session first (paid, unsubscribed, consent withdrawn, recovery switched off:
// the series ends) and sends at most once per session and step (email_messages' idempotency key), so a retried
// activity or a re-run workflow never sends a reminder twice. An unsubscribe signals the run to stop at once.
import { ActivityFailure, condition, log, setHandler } from '@temporalio/workflow';
import type { RecoveryActivities } from '../../activities/recovery/recovery.js';
import { stopRecoverySignal, type RecoveryResult, type RecoveryWorkflowInput } from './recovery.messages.js';
import { backgroundActivities } from '../activity-proxies.js';
import { PROFILES } from '../activity-profiles.js';

const MINUTE = 60_000;

// Our own database: retried until it answers.
const records = backgroundActivities<RecoveryActivities>(PROFILES.recoveryRecord);
// Emails: a few attempts, never a flood (the send itself is idempotent per session and step).
const emails = backgroundActivities<RecoveryActivities>(PROFILES.recoveryEmail);

export async function checkoutRecoveryWorkflow(input: RecoveryWorkflowInput): Promise<RecoveryResult> {
  const { token } = input;
  let stopped: string | null = null;
  setHandler(stopRecoverySignal, (why) => {
    stopped ??= why;
  });
  const plan = await records.planRecoveryReminders(token);
  const sent: number[] = [];
  if (!plan.ok) return { sent, ended: plan.reason };
  for (let step = plan.remindersSent; step < plan.delaysMinutes.length; step++) {
    // Each reminder is due its delay after the consent: a re-run (after a restart) waits only for what is left.
    const wait = plan.consentAt + plan.delaysMinutes[step]! * MINUTE - Date.now();
    if (wait > 0) await condition(() => stopped !== null, wait);
    if (stopped !== null) return { sent, ended: stopped };
    try {
      const outcome = await emails.sendRecoveryReminder({ token, step });
      if (outcome.sent) sent.push(step + 1);
      else if (outcome.final) return { sent, ended: outcome.reason };
    } catch (err) {
      // The mail service refused through every attempt: this reminder is lost (recorded FAILED), the next one may go.
      if (!(err instanceof ActivityFailure)) throw err;
      log.warn('recovery reminder not sent', { token, step, error: err.cause?.message ?? err.message });
      await records.markRecoveryReminderFailed({ token, step, reason: err.cause?.message ?? err.message });
    }
  }
  return { sent, ended: 'schedule_done' };
}
