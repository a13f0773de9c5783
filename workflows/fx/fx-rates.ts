import type { FxRatesActivities, SaveFxRatesResult } from '../../activities/fx/fx-rates.js';
import { backgroundActivities } from '../activity-proxies.js';
import { PROFILES } from '../activity-profiles.js';


// The ECB can be down for a while: keep the last rates and retry with backoff for about half a day.
const { fetchReferenceRates } = backgroundActivities<FxRatesActivities>(PROFILES.fxFetch);
const { saveFxRates } = backgroundActivities<FxRatesActivities>(PROFILES.fxSave);

/** Refreshes the euro reference rates that checkout prices are converted with (runs daily on a Schedule). */
export async function refreshFxRatesWorkflow(): Promise<SaveFxRatesResult> {
  const rates = await fetchReferenceRates();
  return await saveFxRates(rates);
}
