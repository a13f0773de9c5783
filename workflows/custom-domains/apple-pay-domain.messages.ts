// Id, result and failure wording of the Apple Pay domain workflow (workflows/custom-domains/apple-pay-domain.ts), shared with the API
// that starts it. Deterministic: @temporalio/workflow and workflows/failures only.
import { ApplicationFailure } from '@temporalio/workflow';
import { describeFailure, type FailureWording } from '../failures.js';

export interface ApplePayDomainInput {
  merchantId: string;
}

const APPLE_PAY_DOMAIN_FAILURES: FailureWording = {
  byType: {
    // A 403 (the key lacks domain:read / domain:manage) is worded by the activity itself; a 401 is the key refused.
    'processor.unauthorized': { code: 'INVALID_PROCESSOR_KEY', message: 'Whop refused the processor API key: connect the processor again with a valid key' },
    'processor.rejected': { code: 'UPSTREAM_ERROR', message: 'Whop refused to register the checkout domain' },
    'processor.conflict': { code: 'UPSTREAM_ERROR', message: 'Whop refused the change while the checkout domain is busy (being checked or released): try again in a minute' },
    'processor.invalid_response': { code: 'UPSTREAM_ERROR', message: 'Whop answered something we could not read' },
  },
  timeout: { code: 'PROCESSOR_TIMEOUT', message: 'The processor did not answer in time: try again in a minute' },
  otherwise: { code: 'UPSTREAM_ERROR', message: 'The checkout domain could not be registered with Whop: try again in a minute' },
};

/** The failure the workflow ends with (the API answers its type as the error code). */
export function toApplePayDomainFailure(err: unknown): unknown {
  const answer = describeFailure(err, APPLE_PAY_DOMAIN_FAILURES);
  return answer ? ApplicationFailure.nonRetryable(answer.message, answer.code) : err;
}
