// Test timings for the checkout workflows the API starts: the API builds the workflow's input itself
// (api/checkout-workflow.ts: update-with-start for the shopper's and merchant's actions, signal-with-start for webhooks), so a test stack adds its overrides
// (e.g. a shorter storeRetryInitialMs) through an interceptor on the API's Temporal client.
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { CheckoutWorkflowInput } from '../../../domain/checkout/checkout-workflow.js';
import { WORKFLOWS } from '../../../domain/temporal/workflow-names.js';

type Overrides = Partial<Omit<CheckoutWorkflowInput, 'token' | 'merchantId' | 'platform'>>;

function withOverrides<T extends { workflowType: string; options: { args: unknown[] } }>(input: T, overrides: Overrides): T {
  if (input.workflowType !== WORKFLOWS.checkout.type) return input;
  const [first, ...rest] = input.options.args;
  return { ...input, options: { ...input.options, args: [{ ...(first as CheckoutWorkflowInput), ...overrides }, ...rest] } };
}

/** Adds `overrides` to the input of every checkout workflow started (or signal-with-started) through the client. */
export function checkoutInputInterceptor(overrides: Overrides): WorkflowClientInterceptor {
  return {
    startWithDetails: (input, next) => next(withOverrides(input, overrides)),
    signalWithStart: (input, next) => next(withOverrides(input, overrides)),
    startUpdateWithStart: (input, next) => {
      if (input.workflowType !== WORKFLOWS.checkout.type) return next(input);
      const options = input.workflowStartOptions;
      const [first, ...rest] = options.args;
      return next({ ...input, workflowStartOptions: { ...options, args: [{ ...(first as CheckoutWorkflowInput), ...overrides }, ...rest] } });
    },
  };
}
