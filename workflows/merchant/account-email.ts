import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { EmailActivities } from '../../activities/email/account-emails.js';
import { PROFILES } from '../activity-profiles.js';

// Emails: a few attempts over about an hour, never a flood; a permanent refusal is recorded and ends it.
const { sendAccountEmail } = proxyActivities<EmailActivities>(PROFILES.email);
const { markEmailFailed } = proxyActivities<EmailActivities>(PROFILES.emailFailure);

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
