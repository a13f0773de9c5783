// Rebuilding the daily statistics rollups (docs/orders-and-stats.md, "Daily rollups"): the days of a merchant (or
// of every merchant) recounted from the sessions, a month per activity and a day per transaction. Durable: a worker
// restart resumes at the month it was in; each month's recount is idempotent.
import type { StatsRollupsActivities } from '../../activities/stats/stats-rollups.js';
import { backgroundActivities } from '../activity-proxies.js';
import { PROFILES } from '../activity-profiles.js';

const { statsRollupSpan, rebuildStatsRollupDays } = backgroundActivities<StatsRollupsActivities>(PROFILES.statsRollup);

const DAY_MS = 24 * 60 * 60 * 1000;
const CHUNK_DAYS = 31;


export interface RebuildStatsRollupsInput {
  /** Without it: every merchant. */
  merchantId?: string;
  /** [fromDay, toDay), YYYY-MM-DD (UTC); without them: every day that has sessions. */
  fromDay?: string;
  toDay?: string;
}

/** Recounts the rollups of the days asked for; answers how many days and rollup rows it wrote. */
export async function rebuildStatsRollupsWorkflow(input: RebuildStatsRollupsInput): Promise<{ days: number; rows: number }> {
  const span = input.fromDay && input.toDay ? { fromDay: input.fromDay, toDay: input.toDay } : await statsRollupSpan({ merchantId: input.merchantId });
  if (!span) return { days: 0, rows: 0 };
  const end = Date.parse(`${span.toDay}T00:00:00Z`);
  let days = 0;
  let rows = 0;
  for (let t = Date.parse(`${span.fromDay}T00:00:00Z`); t < end; t += CHUNK_DAYS * DAY_MS) {
    const chunkEnd = Math.min(end, t + CHUNK_DAYS * DAY_MS);
    const done = await rebuildStatsRollupDays({
      merchantId: input.merchantId,
      fromDay: new Date(t).toISOString().slice(0, 10),
      toDay: new Date(chunkEnd).toISOString().slice(0, 10),
    });
    days += done.days;
    rows += done.rows;
  }
  return { days, rows };
}
