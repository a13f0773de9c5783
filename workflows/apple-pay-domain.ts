// Registers the merchant's checkout host for Apple Pay on the embedded checkout with Whop's Domains API: the host
// claimed as a domain on the merchant's Whop company, the `apple_pay` capability added, or checked again once the DNS
// records are published (docs/processor.md, "Apple Pay on the embedded checkout"). One short run per request: the
// merchant waits on it ("Check again" in the dashboard starts the next one).
import { proxyActivities } from '@temporalio/workflow';
import type { ApplePayDomainActivities } from '../activities/apple-pay-domain.js';
import { toApplePayDomainFailure, type ApplePayDomainInput, type ApplePayDomainResult } from './apple-pay-domain.messages.js';

// The merchant waits on the answer: one quick retry of a processor call, then tell them.
const processor = proxyActivities<ApplePayDomainActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '2 seconds', maximumAttempts: 2 },
});

export async function applePayDomainWorkflow({ merchantId }: ApplePayDomainInput): Promise<ApplePayDomainResult> {
  try {
    return await processor.syncApplePayDomain(merchantId);
  } catch (err) {
    throw toApplePayDomainFailure(err);
  }
}
