// FX reference rates: fetched from the ECB daily feed and upserted into fx_rates. A failed fetch
// changes nothing (the last rates stay) and the workflow's retry policy tries again.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Db } from '../../prisma/client.js';
import { fetchEcbDailyRates, parseEcbDailyXml, type ReferenceRates } from '../../integrations/ecb/client.js';
import { classifyFailures } from '../failures.js';

export const SNAPSHOT_PATH = fileURLToPath(new URL('../../prisma/seed/ecb-eurofxref-daily.xml', import.meta.url));

export interface SaveFxRatesResult {
  rateDate: string;
  currencies: number;
  /** Currencies whose rate or date changed. */
  changed: number;
}

export function createFxRatesActivities(deps: { db: Db; ratesUrl: string }) {
  return classifyFailures({
    async fetchReferenceRates(): Promise<ReferenceRates> {
      return fetchEcbDailyRates(deps.ratesUrl);
    },
    async saveFxRates(rates: ReferenceRates): Promise<SaveFxRatesResult> {
      return upsertRates(deps.db, rates, 'ecb');
    },
  });
}

export type FxRatesActivities = ReturnType<typeof createFxRatesActivities>;

async function upsertRates(db: Db, rates: ReferenceRates, source: string): Promise<SaveFxRatesResult> {
  const before = new Map((await db.fxRate.findMany()).map((r) => [r.currency, `${r.rate.toString()}@${r.rateDate.toISOString().slice(0, 10)}`]));
  // An older publication (a retried run finishing after a newer one) never overwrites a newer rate.
  await db.$transaction(
    Object.entries(rates.rates).map(([currency, rate]) =>
      db.$executeRaw`
        INSERT INTO fx_rates (currency, rate, rate_date, source, updated_at)
        VALUES (${currency}, ${rate}::numeric, ${rates.date}::date, ${source}, now())
        ON CONFLICT (currency) DO UPDATE
          SET rate = EXCLUDED.rate, rate_date = EXCLUDED.rate_date, source = EXCLUDED.source, updated_at = now()
          WHERE fx_rates.rate_date <= EXCLUDED.rate_date`,
    ),
  );
  const after = await db.fxRate.findMany();
  const changed = after.filter((r) => before.get(r.currency) !== `${r.rate.toString()}@${r.rateDate.toISOString().slice(0, 10)}`).length;
  return { rateDate: rates.date, currencies: Object.keys(rates.rates).length, changed };
}

/** First start on a machine without network: fill an empty rates table from the committed snapshot. */
export async function seedFxRatesIfEmpty(db: Db): Promise<boolean> {
  if ((await db.fxRate.count()) > 0) return false;
  await upsertRates(db, parseEcbDailyXml(readFileSync(SNAPSHOT_PATH, 'utf8')), 'snapshot');
  return true;
}
