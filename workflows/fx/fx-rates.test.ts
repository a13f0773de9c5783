import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WorkflowFailedError } from '@temporalio/client';
import { createEcbSimulator } from '../../sandbox/ecb/index.js';
import type { Simulator } from '../../sandbox/shared/simulator.js';
import { createFxRatesActivities, seedFxRatesIfEmpty } from '../../activities/fx/fx-rates.js';
import { refreshFxRatesWorkflow } from './fx-rates.js';
import { createTestDatabase, type TestDatabase } from '../../test/harness/db.js';
import { connectTestTemporal, startTimeSkipping, type TestTemporal } from '../../test/harness/temporal.js';

let ecb: Simulator;
let ecbUrl: string;
let database: TestDatabase;
let temporal: TestTemporal;

const rateOf = async (currency: string) => (await database.db.fxRate.findUniqueOrThrow({ where: { currency } })).rate.toString();
const setFeed = (body: unknown) =>
  fetch(`${ecbUrl}/_control/rates`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const injectFaults = (count: number, status = 503) =>
  fetch(`${ecbUrl}/_control/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ mode: 'error', status, count }) });

beforeAll(async () => {
  ecb = createEcbSimulator();
  ecbUrl = await ecb.app.listen({ port: 0, host: '127.0.0.1' });
  database = await createTestDatabase();
  temporal = await connectTestTemporal();
});
afterAll(async () => {
  await temporal?.close();
  await database?.drop();
  await ecb?.app.close();
});
beforeEach(async () => {
  await ecb.reset();
  await database.db.fxRate.deleteMany();
  await seedFxRatesIfEmpty(database.db);
});

const activities = () => createFxRatesActivities({ db: database.db, ratesUrl: `${ecbUrl}/stats/eurofxref/eurofxref-daily.xml` });

describe('daily FX refresh', () => {
  it('given seeded rates / when the workflow runs against the ECB feed / it upserts the published rates', async () => {
    expect(await rateOf('USD')).toBe('1.1562');
    await setFeed({ date: '2030-01-02', rates: { USD: '1.2345', JPY: '150', GBP: '0.85' } });

    const result = await temporal.withWorker(activities(), () =>
      temporal.client.workflow.execute(refreshFxRatesWorkflow, { taskQueue: temporal.taskQueue, workflowId: `fx-${Date.now()}` }),
    );

    expect(result).toEqual({ rateDate: '2030-01-02', currencies: 3, changed: 3 });
    expect(await rateOf('USD')).toBe('1.2345');
    expect(await rateOf('JPY')).toBe('150');
    const usd = await database.db.fxRate.findUniqueOrThrow({ where: { currency: 'USD' } });
    expect(usd.source).toBe('ecb');
    expect(usd.rateDate.toISOString().slice(0, 10)).toBe('2030-01-02');
    // Currencies the feed no longer lists keep their last rate.
    expect(await rateOf('CHF')).toBe('0.9287');
  });

  it('given a newer rate in the table / when an older publication arrives / the newer rate stays', async () => {
    await setFeed({ date: '2030-02-01', rates: { USD: '1.30' } });
    await temporal.withWorker(activities(), () =>
      temporal.client.workflow.execute(refreshFxRatesWorkflow, { taskQueue: temporal.taskQueue, workflowId: `fx-new-${Date.now()}` }),
    );
    await setFeed({ date: '2030-01-15', rates: { USD: '1.10' } });
    const result = await temporal.withWorker(activities(), () =>
      temporal.client.workflow.execute(refreshFxRatesWorkflow, { taskQueue: temporal.taskQueue, workflowId: `fx-old-${Date.now()}` }),
    );
    expect(result.changed).toBe(0);
    expect(await rateOf('USD')).toBe('1.3');
  });

  it('given a malformed feed / when the workflow runs / it fails without touching the rates', async () => {
    await fetch(`${ecbUrl}/_control/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ mode: 'error', status: 404, count: 100 }) });
    const run = temporal.withWorker(activities(), () =>
      temporal.client.workflow.execute(refreshFxRatesWorkflow, { taskQueue: temporal.taskQueue, workflowId: `fx-bad-${Date.now()}` }),
    );
    // 404 is permanent (non-retryable): the workflow fails at once rather than retrying for hours.
    await expect(run).rejects.toBeInstanceOf(WorkflowFailedError);
    expect(await rateOf('USD')).toBe('1.1562');
  });
});

describe('daily FX refresh while the ECB is down (time-skipping)', () => {
  it('given the feed fails for hours / when it comes back / the workflow has retried through the outage and stores the new rates', async () => {
    const ts = await startTimeSkipping();
    try {
      await setFeed({ date: '2030-03-03', rates: { USD: '1.4242' } });
      await injectFaults(7); // retries back off 1, 2, 4, 8, 16, 32, 60 minutes: ~2 hours of outage
      const startedAt = await ts.env.currentTimeMs();

      const result = await ts.withWorker(activities(), async () => {
        const handle = await ts.env.client.workflow.start(refreshFxRatesWorkflow, { taskQueue: ts.taskQueue, workflowId: `fx-ts-${Date.now()}` });
        return handle.result();
      });

      // Hours of back-off were skipped, not waited: the test server's own clock moved by them.
      const skippedMs = (await ts.env.currentTimeMs()) - startedAt;
      expect(skippedMs).toBeGreaterThanOrEqual(2 * 60 * 60 * 1000);
      expect(result.rateDate).toBe('2030-03-03');
      expect(await rateOf('USD')).toBe('1.4242');
      const { faults } = (await (await fetch(`${ecbUrl}/_control/faults`)).json()) as { faults: unknown[] };
      expect(faults).toHaveLength(0); // every injected failure was consumed by a retry
    } finally {
      await ts.close();
    }
  });
});
