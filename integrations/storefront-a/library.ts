// The official library (@shopify/shopify-api) where it serves us: OAuth callback HMAC validation and webhook
// validation, exactly as Shopify's own code does them. Each merchant owns their app, so each client secret
// gets its own library instance (the library keys every check with config.apiSecretKey).
import '@shopify/shopify-api/adapters/node';
import { shopifyApi, LogSeverity, type ApiVersion, type Shopify } from '@shopify/shopify-api';
import { STOREFRONT_A_API_VERSION } from './api-version.js';

const instances = new Map<string, Shopify>();
const MAX_INSTANCES = 1000;

/** The library configured for one merchant-owned app (cached by client id and secret). */
export function shopifyFor(app: { clientId: string; clientSecret: string; hostName?: string }): Shopify {
  const key = `${app.clientId}\u0000${app.clientSecret}`;
  let instance = instances.get(key);
  if (!instance) {
    if (instances.size >= MAX_INSTANCES) instances.delete(instances.keys().next().value!);
    instance = shopifyApi({
      apiKey: app.clientId,
      apiSecretKey: app.clientSecret,
      hostName: app.hostName ?? 'localhost',
      apiVersion: STOREFRONT_A_API_VERSION as ApiVersion,
      isEmbeddedApp: false,
      logger: { level: LogSeverity.Error },
    });
    instances.set(key, instance);
  }
  return instance;
}
