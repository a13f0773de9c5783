// The barrel the worker bundles: every workflow of the service.
export { refreshFxRatesWorkflow } from './fx-rates.js';
export { sendAccountEmailWorkflow } from './account-email.js';
export { installStorefrontAWorkflow } from './storefront-a-install.js';
export { ensureStorefrontAScriptTagWorkflow, checkStorefrontAScriptTagWorkflow, removeStorefrontAScriptTagWorkflow } from './storefront-a-script-tag.js';
export { processStorefrontAWebhookWorkflow } from './storefront-a-webhook.js';
export { connectProcessorWorkflow, disconnectProcessorWorkflow } from './processor-connection.js';
export { connectStorefrontBWorkflow } from './storefront-b-connection.js';
export { refreshStoreCountriesWorkflow } from './store-countries.js';
export { verifyCustomDomainWorkflow } from './custom-domain.js';
export { walletDomainWorkflow } from './wallet-domain.js';
export { setupVerificationWorkflow } from './setup-verification.js';
export { checkoutWorkflow } from './checkout.js';
export { platformSubscriptionWorkflow } from './platform-subscription.js';
export { checkoutIdleSweepWorkflow } from './checkout-idle-sweep.js';
export { merchantWebhookDeliveryWorkflow } from './merchant-webhook-delivery.js';
export { webhookEndpointHealthWorkflow } from './webhook-endpoint-health.js';
export { recordMerchantEventWorkflow } from './merchant-event.js';
export { processorSweepWorkflow } from './processor-sweep.js';
