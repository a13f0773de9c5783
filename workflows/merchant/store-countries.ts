// Reading which countries the merchant's store ships to, on the merchant's request (the Shipping page's refresh).
// Connecting a store reads them too, as the last step of its own workflow.
import { proxyActivities } from '@temporalio/workflow';
import type { StoreCountriesActivities } from '../../activities/merchant/store-countries.js';
import type { StoreCountriesRead } from '../../model/merchant/store-countries.js';
import { PROFILES } from '../activity-profiles.js';

// The merchant waits on the answer: one store call; a store failure comes back as the answer's error, not a retry.
const { recordStoreCountries } = proxyActivities<StoreCountriesActivities>(PROFILES.storeCountries);


/** Reads the store's ship-to countries again, so rates that follow the store ship where it does now. */
export async function refreshStoreCountriesWorkflow(input: { merchantId: string }): Promise<StoreCountriesRead> {
  return recordStoreCountries(input);
}
