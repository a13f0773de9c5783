import { ActivityFailure, proxyActivities } from '@temporalio/workflow';
import type { StorefrontAActivities } from '../../activities/storefront-a/storefront-a.js';
import type { EmailActivities } from '../../activities/email/account-emails.js';
import type { ProcessStorefrontAWebhookResult } from './storefront-a.messages.js';
import { PROFILES } from '../activity-profiles.js';

// Database work only: keep trying for a while, the platform has already been answered.
const { processStorefrontAWebhook } = proxyActivities<StorefrontAActivities>(PROFILES.storefrontAWebhook);
// Emails: a few attempts over about an hour, never a flood.
const { sendStorefrontADataReport } = proxyActivities<StorefrontAActivities>(PROFILES.email);
const { markEmailFailed } = proxyActivities<EmailActivities>(PROFILES.emailFailure);

/**
 * Applies one verified storefront A webhook (uninstall, data request, customer or shop erasure; see
 * docs/privacy.md) once, and emails the merchant the export of a data request.
 */
export async function processStorefrontAWebhookWorkflow(webhookId: string): Promise<ProcessStorefrontAWebhookResult> {
  const outcome = await processStorefrontAWebhook(webhookId);
  if (!outcome.reportEmailId) return { topic: outcome.topic, applied: outcome.applied, reportEmail: null };
  try {
    const sent = await sendStorefrontADataReport({ webhookId, emailId: outcome.reportEmailId });
    return { topic: outcome.topic, applied: outcome.applied, reportEmail: sent.status };
  } catch (err) {
    // The export is stored on the webhook row either way; a failed email is recorded, not retried forever.
    const reason = err instanceof ActivityFailure && err.cause ? err.cause.message : err instanceof Error ? err.message : String(err);
    await markEmailFailed(outcome.reportEmailId, reason);
    return { topic: outcome.topic, applied: outcome.applied, reportEmail: 'FAILED' };
  }
}
