// Ids, inputs, results and failure mapping of the processor connection workflows, shared by the workflows
// and the API that starts them. Deterministic: @temporalio/workflow and domain/ only.
//
// No secret ever travels through these types: the API key is sealed into processor_connection_attempts by
// the API before the workflow starts, and the webhook secret is sealed there by the activity that receives it.
import { ApplicationFailure } from '@temporalio/workflow';
import { describeFailure, type Answer, type FailureWording } from '../failures.js';

export interface ProcessorConnectionInput {
  merchantId: string;
  /**
   * Connect: the attempt row holding the key to set up (api/routes/merchant/processor.ts inserts it). Runs
   * started before attempts existed have none and set the key up in processor_connections itself.
   */
  attemptId?: string;
}

export interface ProcessorDisconnectResult {
  /** False when there was no connection row left to delete. */
  deleted: boolean;
  /** Whether a webhook endpoint was removed at the processor (false: none was registered, or it was already gone). */
  webhookUnregistered: boolean;
}

const PROCESSOR_FAILURES: FailureWording = {
  byType: {
    'processor.unauthorized': { code: 'INVALID_PROCESSOR_KEY', message: 'Whop rejected this API key: check that you copied the whole key from Developer → Company API keys in your Whop dashboard' },
    'processor.timeout': { code: 'PROCESSOR_TIMEOUT', message: 'Whop did not answer in time: try again in a minute' },
    'processor.unavailable': { code: 'UPSTREAM_ERROR', message: 'Whop is unavailable: try again in a minute' },
    'processor.rate_limited': { code: 'UPSTREAM_ERROR', message: 'Whop is rate limiting us: try again in a minute' },
    'processor.rejected': { code: 'UPSTREAM_ERROR', message: 'Whop refused to set up the connection: give the API key the Admin role (or permissions to read your business, create products, checkout configurations and webhooks, and read and refund payments)' },
    'processor.not_found': { code: 'UPSTREAM_ERROR', message: 'Whop does not know a resource of this connection: connect again' },
    'processor.conflict': { code: 'UPSTREAM_ERROR', message: 'Whop reported a conflicting request: try again' },
    'processor.invalid_response': { code: 'UPSTREAM_ERROR', message: 'Whop answered something we could not read: try again in a minute' },
  },
  timeout: { code: 'PROCESSOR_TIMEOUT', message: 'Whop did not answer in time: try again in a minute' },
  otherwise: { code: 'INTERNAL_ERROR', message: 'The connection could not be completed: try again' },
};

/** The error code and a human message (no secrets, no internals) for whatever ended a processor workflow. */
export function describeProcessorFailure(err: unknown): Answer {
  return describeFailure(err, PROCESSOR_FAILURES) ?? PROCESSOR_FAILURES.otherwise;
}

/** The same, as the failure a workflow ends with (the API answers its type as the error code). */
export function toProcessorFailure(err: unknown): ApplicationFailure {
  const { code, message } = describeProcessorFailure(err);
  return ApplicationFailure.nonRetryable(message, code);
}
