// The countries the merchant's store ships to, read from the store and kept on the merchant (model/merchant/store-countries.ts):
// at the end of a store connection (storefront A install, storefront B connect) and when the merchant refreshes them.
import type { Db } from '../../prisma/client.js';
import type { SecretBox } from '../../security/secrets.js';
import type { UrlGuard } from '../../security/ssrf.js';
import type { Config } from '../../config/index.js';
import { refreshStoreCountries, type StoreCountriesRead } from '../../model/merchant/store-countries.js';
import { classifyFailures } from '../failures.js';

export interface StoreCountriesActivityDeps {
  config: Pick<Config, 'processor' | 'storefrontA'>;
  db: Db;
  secrets: SecretBox;
  urlGuard?: UrlGuard;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export function createStoreCountriesActivities(deps: StoreCountriesActivityDeps) {
  return classifyFailures({
    /** Reads and keeps the store's ship-to countries; a store failure is kept as the reason, not thrown. */
    async recordStoreCountries(input: { merchantId: string }): Promise<StoreCountriesRead> {
      return refreshStoreCountries(deps, input.merchantId);
    },
  });
}

export type StoreCountriesActivities = ReturnType<typeof createStoreCountriesActivities>;
