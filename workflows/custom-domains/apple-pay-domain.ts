// Registers the merchant's checkout host for Apple Pay on the embedded checkout with Whop's Domains API: the host
// added as a domain on the merchant's Whop company with the `apple_pay` capability, or checked again once the merchant
// did what Whop's issue asks (docs/processor.md, "Apple Pay on the embedded checkout"). One short run per request: the
// merchant waits on it ("Check again" in the dashboard starts the next one).
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ApplePayDomainActivities } from '../../activities/custom-domains/apple-pay-domain.js';
import { toApplePayDomainFailure, type ApplePayDomainInput } from './apple-pay-domain.messages.js';
import { type ApplePayDomainResult } from '../../activities/custom-domains/apple-pay-domain.js';
import { PROFILES } from '../activity-profiles.js';

// The merchant waits on the answer: one quick retry of a processor call, then tell them.
const processor = proxyActivities<ApplePayDomainActivities>(PROFILES.merchantWaitsOnRemote);

export async function applePayDomainWorkflow({ merchantId }: ApplePayDomainInput): Promise<ApplePayDomainResult> {
  try {
    // The run id keys Whop's create: a retried activity replays it; the merchant's next request is a new run.
    return await processor.syncApplePayDomain(merchantId, workflowInfo().runId);
  } catch (err) {
    throw toApplePayDomainFailure(err);
  }
}
