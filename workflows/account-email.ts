import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { EmailActivities } from '../activities/email.js';

// Emails: a few attempts over about an hour, never a flood; a permanent refusal is recorded and ends it.
const { sendAccountEmail } = proxyActivities<EmailActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 3, maximumInterval: '20 minutes', maximumAttempts: 6 },
});
const { markEmailFailed } = proxyActivities<EmailActivities>({ startToCloseTimeout: '10 seconds' });

/** Sends one account email (verification or password reset link) recorded in email_messages. */
export async function sendAccountEmailWorkflow(emailId: string): Promise<{ status: string }> {
  try {
    return await sendAccountEmail(emailId);
  } catch (err) {
    const reason = err instanceof Error ? (err.cause instanceof ApplicationFailure ? err.cause.message : err.message) : String(err);
    await markEmailFailed(emailId, reason);
    throw err;
  }
}
