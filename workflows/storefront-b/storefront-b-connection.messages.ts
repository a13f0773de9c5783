// Ids, input, result and failure mapping of the storefront B connection workflow, shared by the workflow
// and the API that starts it. Deterministic: @temporalio/workflow and domain/ only.
import { ApplicationFailure } from '@temporalio/workflow';
import { describeFailure, type FailureWording } from '../failures.js';
import type { StorefrontBStoreInfo } from '../../activities/storefront-b/storefront-b.js';

export interface ConnectStorefrontBResult extends StorefrontBStoreInfo {
  storeUrl: string;
  connectedAt: string;
}

const STOREFRONT_B_FAILURES: FailureWording = {
  byType: {
  'storefront-b.unauthorized': {
    code: 'INVALID_STORE_CREDENTIALS',
    message: 'WooCommerce refused these REST API keys: check the consumer key and secret (WooCommerce → Settings → Advanced → REST API; they need Read/Write permission)',
  },
  'storefront-b.timeout': { code: 'STORE_TIMEOUT', message: 'The store did not answer in time: check that it is online and try again' },
  'storefront-b.not_found': { code: 'INVALID_INPUT', message: 'No WooCommerce REST API answers at this store URL: check the address (your store\'s home page, https://…) and that WordPress permalinks are not set to Plain' },
  'storefront-b.rejected': { code: 'INVALID_INPUT', message: 'The store refused the connection check: check the store URL' },
  'storefront-b.unavailable': { code: 'UPSTREAM_ERROR', message: 'The store could not be reached or failed: try again in a minute' },
  'storefront-b.rate_limited': { code: 'UPSTREAM_ERROR', message: 'The store is rate limiting us: try again in a minute' },
  'storefront-b.invalid_response': { code: 'UPSTREAM_ERROR', message: 'The store answered something that is not a WooCommerce REST API: check the store URL' },
  },
  timeout: { code: 'STORE_TIMEOUT', message: 'The store did not answer in time: check that it is online and try again' },
  otherwise: { code: 'INTERNAL_ERROR', message: 'The store connection could not be completed: try again' },
};

/** The failure a storefront B workflow ends with: its type is one of our error codes, its message human. */
export function toStorefrontBFailure(err: unknown): ApplicationFailure {
  const { code, message } = describeFailure(err, STOREFRONT_B_FAILURES) ?? STOREFRONT_B_FAILURES.otherwise;
  return ApplicationFailure.nonRetryable(message, code);
}
