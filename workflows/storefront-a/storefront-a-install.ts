import { proxyActivities } from '@temporalio/workflow';
import type { StorefrontAActivities } from '../../activities/storefront-a/storefront-a.js';
import type { StoreCountriesActivities } from '../../activities/merchant/store-countries.js';
import { toStorefrontAFailure, type InstallStorefrontAInput, type InstallStorefrontAResult } from './storefront-a.messages.js';
import { PROFILES } from '../activity-profiles.js';

// A merchant's browser waits on this (the OAuth callback): a few quick attempts, then a clear error.
const store = proxyActivities<StorefrontAActivities>(PROFILES.storefrontACall);
const { saveStorefrontAInstall } = proxyActivities<StorefrontAActivities>(PROFILES.setupRecord);
// Where the shop ships (Shop.shipsToCountries), once installed: kept with its reason when the shop refuses.
const { recordStoreCountries } = proxyActivities<StoreCountriesActivities>(PROFILES.storefrontACall);

/**
 * Completes a storefront A app install: trades the OAuth code for the access token, sets the shop up (private
 * Storefront API token, webhooks, app embed config, origins; legacy script tags removed), then stores it all in one
 * write, so a failure stores nothing; then reads where the shop ships. Short-lived (seconds): no history of it is kept for replay.
 */
export async function installStorefrontAWorkflow(input: InstallStorefrontAInput): Promise<InstallStorefrontAResult> {
  let exchanged;
  try {
    exchanged = await store.exchangeStorefrontACode(input);
  } catch (err) {
    throw toStorefrontAFailure(err, {
      'storefront-a.unauthorized': { code: 'INVALID_INPUT', message: 'Shopify refused the client ID or client secret: copy both again from your app\'s Settings in the Dev Dashboard, save them and reinstall' },
      'storefront-a.rejected': { code: 'INVALID_TOKEN', message: 'Shopify refused the authorization code (expired or already used): start the install again' },
    });
  }
  try {
    const setUp = await store.setUpStorefrontAShop({ merchantId: input.merchantId, sealedAccessToken: exchanged.sealedAccessToken });
    const saved = await saveStorefrontAInstall({
      merchantId: input.merchantId, shop: input.shop, sealedAccessToken: exchanged.sealedAccessToken, scopes: exchanged.scopes,
      scriptTagId: setUp.status.scriptTagId, sealedStorefrontPrivateToken: setUp.sealedStorefrontPrivateToken, origins: setUp.origins, embedActive: setUp.status.installed,
    });
    // The install stands whatever happens here: the merchant can read the countries again from the Shipping page.
    await recordStoreCountries({ merchantId: input.merchantId }).catch(() => undefined);
    return { scopes: exchanged.scopes, scriptTagId: setUp.status.scriptTagId, installedAt: saved.installedAt, embedActive: setUp.status.installed, activationUrl: setUp.status.activationUrl };
  } catch (err) {
    throw toStorefrontAFailure(err, {
      'storefront-a.unauthorized': { code: 'CONFLICT', message: 'Shopify did not grant the access the checkout needs (draft orders, themes, storefront cart): approve every requested access and install again' },
    });
  }
}
