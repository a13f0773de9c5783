import type { FxRatesActivities, SaveFxRatesResult } from '../activities/fx-rates.js';
import { backgroundActivities } from './activity-proxies.js';


// The ECB can be down for a while: keep the last rates and retry with backoff for about half a day.
const { fetchReferenceRates } = backgroundActivities<FxRatesActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 minute', backoffCoefficient: 2, maximumInterval: '1 hour', maximumAttempts: 15 },
});
const { saveFxRates } = backgroundActivities<FxRatesActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '5 seconds', maximumInterval: '5 minutes', maximumAttempts: 20 },
});

/** Refreshes the euro reference rates that checkout prices are converted with (runs daily on a Schedule). */
export async function refreshFxRatesWorkflow(): Promise<SaveFxRatesResult> {
  const rates = await fetchReferenceRates();
  return await saveFxRates(rates);
}
