// Every workflow's contract with its callers: its type name (what a client starts it by) and its workflow id. The API,
// the activities, the model, the scripts and the workflows that start children name workflows through WORKFLOWS only:
// never a string of their own, never an imported workflow function (that would pull workflow code into the caller; a
// caller wanting the types uses `start<typeof fn>(WORKFLOWS.x.type, …)` with `import type`). In domain/ so that
// activities/ and model/ may import it (they import workflows/ for types only); workflows/workflow-names.test.ts checks
// each type name against the worker's barrel (workflows/index.ts).

const perMerchant = (prefix: string) => (merchantId: string) => `${prefix}-${merchantId}`;

export const WORKFLOWS = {
  /** One workflow per checkout session; the id is derived from the token so any event finds it. */
  checkout: { type: 'checkoutWorkflow', id: (token: string) => `checkout-${token}` },
  /** The abandoned-cart reminders of one session. */
  checkoutRecovery: { type: 'checkoutRecoveryWorkflow', id: (token: string): string => `recovery-${token}` },
  /** Started by its schedule (domain/temporal/schedules.ts): one run at a time. */
  checkoutIdleSweep: { type: 'checkoutIdleSweepWorkflow', id: () => 'checkout-idle-sweep' },
  /** Started by its schedule (domain/temporal/schedules.ts): one run at a time. */
  processorSweep: { type: 'processorSweepWorkflow', id: () => 'processor-sweep' },
  /** Started by its schedule (domain/temporal/schedules.ts): one run at a time. */
  fxRates: { type: 'refreshFxRatesWorkflow', id: () => 'fx-rates-refresh' },
  /** One account email (verification, password reset), by its email_messages row. */
  accountEmail: { type: 'sendAccountEmailWorkflow', id: (emailId: string) => `email-${emailId}` },
  storefrontAInstall: { type: 'installStorefrontAWorkflow', id: perMerchant('storefront-a-install') },
  /** The app embed (which replaced the script tag): the workflow types and ids keep their first names, since Temporal
   * stores them with every run and the spec's paths (`/api/merchant/script-tag/*`) still say script tag. */
  storefrontAAppEmbed: { type: 'ensureStorefrontAScriptTagWorkflow', id: perMerchant('storefront-a-script-tag') },
  storefrontAAppEmbedCheck: { type: 'checkStorefrontAScriptTagWorkflow', id: perMerchant('storefront-a-script-tag-check') },
  /** Legacy script tags removed when the merchant disconnects the store. */
  storefrontAAppEmbedRemove: { type: 'removeStorefrontAScriptTagWorkflow', id: perMerchant('storefront-a-disconnect') },
  /** One storefront A webhook, by its delivery id (or, without one, its row id). */
  storefrontAWebhook: { type: 'processStorefrontAWebhookWorkflow', id: (deliveryIdOrRowId: string) => `storefront-a-webhook-${deliveryIdOrRowId}` },
  storefrontBConnect: { type: 'connectStorefrontBWorkflow', id: perMerchant('storefront-b-connection') },
  processorConnect: { type: 'connectProcessorWorkflow', id: perMerchant('processor-connection') },
  processorDisconnect: { type: 'disconnectProcessorWorkflow', id: perMerchant('processor-disconnect') },
  storeCountries: { type: 'refreshStoreCountriesWorkflow', id: perMerchant('store-countries') },
  customDomain: { type: 'verifyCustomDomainWorkflow', id: perMerchant('custom-domain') },
  walletDomain: { type: 'walletDomainWorkflow', id: perMerchant('wallet-domain') },
  applePayDomain: { type: 'applePayDomainWorkflow', id: perMerchant('apple-pay-domain') },
  setupVerification: { type: 'setupVerificationWorkflow', id: perMerchant('setup-verification') },
  platformSubscription: { type: 'platformSubscriptionWorkflow', id: perMerchant('platform-subscription') },
  /** One delivery of a merchant webhook; a replay is a new run under an id of its own. */
  merchantWebhookDelivery: {
    type: 'merchantWebhookDeliveryWorkflow',
    id: (deliveryId: string, run = 0) => (run === 0 ? `merchant-webhook-${deliveryId}` : `merchant-webhook-${deliveryId}-replay-${run}`),
  },
  webhookEndpointHealth: { type: 'webhookEndpointHealthWorkflow', id: (endpointId: string) => `webhook-endpoint-health-${endpointId}` },
  /** One merchant event, by its fact key (exactly once per fact). */
  merchantEvent: { type: 'recordMerchantEventWorkflow', id: (factKey: string) => `merchant-event-${factKey}` },
  statsRollups: { type: 'rebuildStatsRollupsWorkflow', id: (merchantId?: string) => `stats-rollups-rebuild-${merchantId ?? 'all'}` },
} as const;

/**
 * The benchmarks' bare workflows (scripts/bench/*-workflow.ts): bundled on their own for the benchmark's worker, not
 * part of workflows/index.ts.
 */
export const BENCH_WORKFLOWS = {
  roundTrip: { type: 'benchRoundTripWorkflow', id: (ref: string) => `bench-round-trip-${ref}` },
  activities: { type: 'benchActivitiesWorkflow', id: (ref: string) => `bench-bare-${ref}` },
} as const;
