// The durable rebuild of the daily statistics rollups (docs/orders-and-stats.md, "Daily rollups"): recounts
// merchant_stats_daily and merchant_upsells_daily from the sessions, one UTC day per transaction
// (stats_rollup_rebuild() in prisma/migrations/20261129160000_stats_daily_rollups), so writers wait at most one day's
// recount. Triggers keep the rows exact on every write; the rebuild repairs them after a manual data fix, a restore,
// or a change of definition.
import type { Db } from '../../prisma/client.js';
import { classifyFailures } from '../failures.js';

export interface StatsRollupsActivityDeps {
  db: Db;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const dayOf = (d: Date) => d.toISOString().slice(0, 10);

export function createStatsRollupsActivities(deps: StatsRollupsActivityDeps) {
  return classifyFailures({
    /** The UTC days holding sessions of the merchant (all merchants without one): [fromDay, toDay), null when none. */
    async statsRollupSpan(input: { merchantId?: string }): Promise<{ fromDay: string; toDay: string } | null> {
      const [row] = await deps.db.$queryRaw<Array<{ first: Date | null; last: Date | null }>>`
        SELECT min(created_at) AS first, max(created_at) AS last FROM checkout_sessions
        WHERE (${input.merchantId ?? null}::uuid IS NULL OR merchant_id = ${input.merchantId ?? null}::uuid)`;
      if (!row?.first || !row.last) return null;
      return { fromDay: dayOf(row.first), toDay: dayOf(new Date(row.last.getTime() + DAY_MS)) };
    },

    /** Recounts the rollups of [fromDay, toDay) (YYYY-MM-DD), a day per transaction; idempotent, so retries are safe. */
    async rebuildStatsRollupDays(input: { merchantId?: string; fromDay: string; toDay: string }): Promise<{ days: number; rows: number }> {
      let days = 0;
      let rows = 0;
      for (let t = Date.parse(`${input.fromDay}T00:00:00Z`); t < Date.parse(`${input.toDay}T00:00:00Z`); t += DAY_MS) {
        const [r] = await deps.db.$queryRaw<Array<{ n: number }>>`
          SELECT stats_rollup_rebuild(${input.merchantId ?? null}::uuid, ${dayOf(new Date(t))}::date, ${dayOf(new Date(t + DAY_MS))}::date) AS n`;
        days += 1;
        rows += r?.n ?? 0;
      }
      return { days, rows };
    },
  });
}

export type StatsRollupsActivities = ReturnType<typeof createStatsRollupsActivities>;
