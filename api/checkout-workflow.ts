// How the API reaches a checkout session's workflow (checkout-<token>). There is one way in for each kind of
// message, and both start the workflow when it is not running:
//
//   - a shopper's or merchant's action (init-payment, pay, refresh-status, complete-cod, refund,
//     backfill-status) is an update-with-start (conflict policy USE_EXISTING: the running workflow gets it;
//     none running, a new run starts, loads the session from PostgreSQL and handles it);
//   - a processor event is a signal-with-start.
//
// Create does not start the workflow. A session that is never paid needs no durable process until it is
// abandoned, and most carts that reach checkout are never paid; create stays one database write (the
// speed target of docs/operations.md). The idle sweep (workflows/checkout/checkout-idle-sweep.ts) starts the
// workflow of a session nobody touched, once it has been idle long enough to be abandoned, so every
// session's status is still only ever written by its own workflow.
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import type { SignalDefinition, UpdateDefinition } from '@temporalio/common';
import type { Config } from '../config/index.js';
import { checkoutStartOptions, signalProcessorEvent, type CheckoutRef } from '../model/checkout/processor-cues.js';
import type { CheckoutWorkflowInput, ProcessorEventMessage } from '../domain/checkout/checkout-workflow.js';
import { WORKFLOWS } from '../domain/temporal/workflow-names.js';

// The session's identity and the workflow's input are the model's: the processor sweep (a worker) starts the workflow too.
export { checkoutWorkflowInput, type CheckoutRef } from '../model/checkout/processor-cues.js';

export interface CheckoutWorkflowDeps {
  config: Config;
  temporal: { client: Client };
}

/** Runs `update` on the session's workflow, starting it first if no run is open; answers the update's result. */
export function updateCheckout<Ret, Args extends unknown[]>(deps: CheckoutWorkflowDeps, session: CheckoutRef, update: UpdateDefinition<Ret, Args>, ...args: Args): Promise<Ret> {
  const startWorkflowOperation = new WithStartWorkflowOperation<(input: CheckoutWorkflowInput) => Promise<unknown>>(WORKFLOWS.checkout.type, {
    ...checkoutStartOptions(deps, session),
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  return deps.temporal.client.workflow.executeUpdateWithStart(update, { startWorkflowOperation, args });
}

/** Delivers a processor event to the session's workflow, starting it first if no run is open. */
export async function signalCheckout(deps: CheckoutWorkflowDeps, session: CheckoutRef, message: ProcessorEventMessage): Promise<void> {
  await signalProcessorEvent(deps, session, message);
}

/** Delivers a signal (a processor event, a refund made in the store) to the session's workflow, starting it if no run is open. */
export async function signalCheckoutWith<Arg>(deps: CheckoutWorkflowDeps, session: CheckoutRef, signal: SignalDefinition<[Arg]>, arg: Arg): Promise<void> {
  await deps.temporal.client.workflow.signalWithStart<(input: CheckoutWorkflowInput) => Promise<unknown>, [Arg]>(WORKFLOWS.checkout.type, {
    ...checkoutStartOptions(deps, session),
    signal,
    signalArgs: [arg],
  });
}
