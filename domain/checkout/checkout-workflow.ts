// The checkout workflow's processor-event signal as callers outside workflow code spell it (the API, the processor
// sweep), shared with workflows/checkout/checkout.messages.ts. Its type name and id: domain/temporal/workflow-names.ts.

/** The signal a processor event (a webhook, a status sync, the sweep's cue) reaches the session's workflow by. */
export const PROCESSOR_EVENT_SIGNAL = 'processorEvent';
