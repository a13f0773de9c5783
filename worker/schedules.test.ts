import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEcbSimulator } from '../sandbox/ecb/index.js';
import type { Simulator } from '../sandbox/shared/simulator.js';
import { createFxRatesActivities } from '../activities/fx/fx-rates.js';
import { FX_SCHEDULE_ID } from '../domain/temporal/schedules.js';
import { CHECKOUT_IDLE_SWEEP_SCHEDULE_ID, PROCESSOR_SWEEP_SCHEDULE_ID } from '../domain/temporal/schedules.js';
import { ensureSchedules } from './schedules.js';
import { createTestDatabase, type TestDatabase } from '../test/harness/db.js';
import { connectTestTemporal, type TestTemporal } from '../test/harness/temporal.js';
import { testConfig } from '../scripts/lib/stack/config.js';
import { WORKFLOWS } from '../domain/temporal/workflow-names.js';

let ecb: Simulator;
let database: TestDatabase;
let temporal: TestTemporal;

beforeAll(async () => {
  ecb = createEcbSimulator();
  await ecb.app.listen({ port: 0, host: '127.0.0.1' });
  database = await createTestDatabase();
  temporal = await connectTestTemporal();
});
afterAll(async () => {
  await temporal.client.schedule.getHandle(FX_SCHEDULE_ID).delete().catch(() => undefined);
  await temporal.client.schedule.getHandle(CHECKOUT_IDLE_SWEEP_SCHEDULE_ID).delete().catch(() => undefined);
  await temporal.client.schedule.getHandle(PROCESSOR_SWEEP_SCHEDULE_ID).delete().catch(() => undefined);
  await temporal?.close();
  await database?.drop();
  await ecb?.app.close();
});

describe('schedules', () => {
  it('given a fresh Temporal / ensureSchedules creates the daily FX schedule (run once at once) the idle sweep and the processor sweep, and is idempotent', async () => {
    const address = ecb.app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const config = testConfig({ TEMPORAL_TASK_QUEUE: temporal.taskQueue, FX_RATES_URL: `http://127.0.0.1:${port}/stats/eurofxref/eurofxref-daily.xml` });
    const activities = createFxRatesActivities({ db: database.db, ratesUrl: config.fx.url });

    await temporal.withWorker(activities, async () => {
      await ensureSchedules(temporal.client, config);
      await ensureSchedules(temporal.client, config); // a second start updates, never duplicates or fails

      const handle = temporal.client.schedule.getHandle(FX_SCHEDULE_ID);
      const description = await handle.describe();
      expect(description.spec.calendars?.length ?? 0).toBeGreaterThan(0);
      expect(description.action).toMatchObject({ type: 'startWorkflow', workflowType: 'refreshFxRatesWorkflow', taskQueue: temporal.taskQueue });

      // The immediate run writes today's rates from the feed through Prisma.
      const deadline = Date.now() + 20_000;
      let rows = 0;
      while (Date.now() < deadline && rows === 0) {
        rows = await database.db.fxRate.count({ where: { source: 'ecb' } });
        if (rows === 0) await new Promise((r) => setTimeout(r, 200));
      }
      expect(rows).toBe(29);
      expect((await handle.describe()).info.recentActions.length).toBe(1);

      // The idle sweep: every 10 minutes with the configured abandonment delay, not run at creation.
      const sweep = await temporal.client.schedule.getHandle(CHECKOUT_IDLE_SWEEP_SCHEDULE_ID).describe();
      expect(sweep.spec.intervals).toEqual([expect.objectContaining({ every: 10 * 60_000 })]);
      expect(sweep.action).toMatchObject({ type: 'startWorkflow', workflowType: 'checkoutIdleSweepWorkflow', taskQueue: temporal.taskQueue, args: [{ abandonAfterMs: config.checkout.abandonAfterMs }] });
      expect(sweep.info.recentActions).toHaveLength(0);

      // The processor sweep: every PROCESSOR_SWEEP_MINUTES (default 15), not run at creation.
      const processorSweep = await temporal.client.schedule.getHandle(PROCESSOR_SWEEP_SCHEDULE_ID).describe();
      expect(processorSweep.spec.intervals).toEqual([expect.objectContaining({ every: 15 * 60_000 })]);
      expect(processorSweep.action).toMatchObject({ type: 'startWorkflow', workflowType: 'processorSweepWorkflow', workflowId: WORKFLOWS.processorSweep.id(), taskQueue: temporal.taskQueue });
      expect(processorSweep.info.recentActions).toHaveLength(0);
    });
  });
});
