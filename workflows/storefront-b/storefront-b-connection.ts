// Connecting the merchant's storefront B store: the REST keys are proven against the store before
// anything is saved, then the connection is stored and storefront B becomes the merchant's platform.
import { proxyActivities } from '@temporalio/workflow';
import type { StorefrontBActivities } from '../../activities/storefront-b/storefront-b.js';
import type { StoreCountriesActivities } from '../../activities/merchant/store-countries.js';
import { toStorefrontBFailure, type ConnectStorefrontBResult } from './storefront-b-connection.messages.js';
import { type ConnectStorefrontBInput } from '../../activities/storefront-b/storefront-b.js';
import { PROFILES } from '../activity-profiles.js';

// The merchant waits on the answer: one quick retry of the store call (wrong keys are never retried).
const { validateStorefrontBCredentials } = proxyActivities<StorefrontBActivities>(PROFILES.merchantWaitsOnRemote);
const { saveStorefrontBConnection } = proxyActivities<StorefrontBActivities>(PROFILES.connectionRecord);

// Where the store ships (its selling and shipping locations): read once, kept with its reason when the store refuses.
const { recordStoreCountries } = proxyActivities<StoreCountriesActivities>(PROFILES.merchantWaitsOnRemote);

/** Connects a storefront B store by its REST keys, so its carts can open our checkout and receive orders. */
export async function connectStorefrontBWorkflow(input: ConnectStorefrontBInput): Promise<ConnectStorefrontBResult> {
  try {
    const store = await validateStorefrontBCredentials(input);
    const { connectedAt } = await saveStorefrontBConnection(input);
    // The connection stands whatever happens here: the merchant can read the countries again from the Shipping page.
    await recordStoreCountries({ merchantId: input.merchantId }).catch(() => undefined);
    return { ...store, storeUrl: input.storeUrl, connectedAt };
  } catch (err) {
    throw toStorefrontBFailure(err);
  }
}
