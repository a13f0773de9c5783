// The checkout workflow's names as callers outside workflow code spell them (the API, the processor sweep): its type,
// its id per session and the processor-event signal. One spelling, shared with workflows/checkout.messages.ts.

/** The checkout workflow's type name: started by name so callers do not import workflow code. */
export const CHECKOUT_WORKFLOW = 'checkoutWorkflow';

/** One workflow per session; the id is derived from the token so any event finds it. */
export const checkoutWorkflowId = (token: string) => `checkout-${token}`;

/** The signal a processor event (a webhook, a status sync, the sweep's cue) reaches the session's workflow by. */
export const PROCESSOR_EVENT_SIGNAL = 'processorEvent';
