// Ids, input, result and signals of the custom domain verification workflow, shared with the API.
// Deterministic: @temporalio/workflow only.
import { defineSignal } from '@temporalio/workflow';

export interface CustomDomainInput {
  merchantId: string;
  /** The custom_domains row being verified: a deleted or replaced claim makes every later write a no-op. */
  domainId: string;
}

export interface CustomDomainResult {
  status: 'VERIFIED' | 'EXPIRED' | 'FAILED' | 'DELETED';
  /** Checks made by this run. */
  checks: number;
}

/** POST /api/merchant/domain/verify: check the DNS now instead of at the next scheduled check. */
export const recheckDomainSignal = defineSignal('recheckDomain');
/** DELETE /api/merchant/domain: the claim is gone, stop. */
export const removeDomainSignal = defineSignal('removeDomain');

