// Ids of the service's Temporal Schedules: the worker that creates the schedules (worker/schedules.ts) and the tests
// name them alike. The workflows they start, and those workflows' ids: domain/temporal/workflow-names.ts.

/** The daily refresh of the ECB reference rates (workflows/fx/fx-rates.ts). */
export const FX_SCHEDULE_ID = 'fx-rates-daily';

/** The sweep that starts the workflow of sessions nobody acted on (workflows/checkout/checkout-idle-sweep.ts). */
export const CHECKOUT_IDLE_SWEEP_SCHEDULE_ID = 'checkout-idle-sweep';

/** The sweep that lists each merchant's processor refunds and disputes, in case a webhook was lost (workflows/processor/processor-sweep.ts). */
export const PROCESSOR_SWEEP_SCHEDULE_ID = 'processor-sweep';
