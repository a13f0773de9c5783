// The processor sweep's decisions, fast: its activities are plain functions over memory (no database, no processor).
// What is asserted: every connected merchant's refunds and disputes are read page by page up to the run's bound, the
// cursor carrying the first page's query, then its open disputes are read again up to the run's bound; a merchant whose
// key is refused is skipped, one whose processor keeps failing is logged and left for the next run, and neither stops
// the others; more merchants than a run holds continue as new.
// The same sweep against PostgreSQL and the local Whop is tested in test/e2e/processor-sweep.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplicationFailure } from '@temporalio/common';
import type { DisputeRecheckInput, DisputeRecheckResult, SweepPageInput, SweepPageResult } from '../../activities/processor/processor-sweep.js';
import { processorSweepWorkflow, type ProcessorSweepInput } from '../../workflows/processor/processor-sweep.js';
import { connectTestTemporal, type TestTemporal } from '../harness/temporal.js';

let temporal: TestTemporal;
beforeAll(async () => {
  temporal = await connectTestTemporal();
});
afterAll(async () => {
  await temporal?.close();
});

/** Pages of each list, and open disputes (of which `final` are found final when read again). */
type Behaviour = { pages: number; openDisputes?: number; final?: number } | 'refused' | 'broken';

/** Merchants by id with what their processor does; every page and every reading of open disputes asked for is recorded. */
function world(merchants: Record<string, Behaviour>) {
  const asked: SweepPageInput[] = [];
  const rechecks: DisputeRecheckInput[] = [];
  const ids = Object.keys(merchants).sort();
  const activities = {
    async listSweepMerchants(input: { after?: string; limit: number }): Promise<string[]> {
      return ids.filter((id) => input.after === undefined || id > input.after).slice(0, input.limit);
    },
    async sweepProcessorPage(input: SweepPageInput): Promise<SweepPageResult> {
      asked.push(input);
      const behaviour = merchants[input.merchantId]!;
      if (behaviour === 'refused') return { state: 'skipped', reason: 'processor: GET /refunds answered 401' };
      if (behaviour === 'broken') throw ApplicationFailure.nonRetryable('processor: GET /disputes answered 500', 'processor.unavailable');
      const page = input.cursor ? Number(input.cursor) : 0;
      const more = page + 1 < behaviour.pages;
      return { state: 'swept', createdAfter: input.createdAfter ?? `start-of-${input.merchantId}-${input.kind}`, listed: 2, cued: 2, nextCursor: more ? String(page + 1) : null };
    },
    async recheckOpenDisputes(input: DisputeRecheckInput): Promise<DisputeRecheckResult> {
      rechecks.push(input);
      const behaviour = merchants[input.merchantId] as Exclude<Behaviour, string>;
      const read = Math.min(behaviour.openDisputes ?? 0, input.limit);
      return { state: 'checked', read, resolved: Math.min(behaviour.final ?? 0, read) };
    },
  };
  return { asked, rechecks, activities };
}

function run(activities: object, input: ProcessorSweepInput) {
  return temporal.withWorker(activities, () =>
    temporal.client.workflow.execute(processorSweepWorkflow, { taskQueue: temporal.taskQueue, workflowId: `processor-sweep-fast-${Date.now()}-${Math.random()}`, args: [input] }));
}

describe('the processor sweep', () => {
  it('given merchants with one, three and nine pages of each list / each list is read up to 5 pages a run, the cursor carrying the first page\'s createdAfter', async () => {
    const { asked, activities } = world({ a: { pages: 1 }, b: { pages: 3 }, c: { pages: 9 } });
    const result = await run(activities, { pagesPerList: 5, merchantsPerBatch: 2 });
    const pagesOf = (merchantId: string, kind: string) => asked.filter((p) => p.merchantId === merchantId && p.kind === kind);
    expect([pagesOf('a', 'refunds').length, pagesOf('b', 'disputes').length, pagesOf('c', 'refunds').length, pagesOf('c', 'disputes').length]).toEqual([1, 3, 5, 5]);
    expect(pagesOf('b', 'refunds')).toEqual([
      { merchantId: 'b', kind: 'refunds', pageSize: 100 },
      { merchantId: 'b', kind: 'refunds', pageSize: 100, createdAfter: 'start-of-b-refunds', cursor: '1' },
      { merchantId: 'b', kind: 'refunds', pageSize: 100, createdAfter: 'start-of-b-refunds', cursor: '2' },
    ].map((p) => expect.objectContaining(p)));
    expect(pagesOf('b', 'refunds')[0]!.cursor).toBeUndefined();
    expect(result).toEqual({ merchants: 3, cued: 2 * (2 * (1 + 3 + 5)), disputesRead: 0, skipped: 0 });
  });

  it('given a merchant whose key is refused and one whose processor keeps failing / both are skipped and logged, the others swept', async () => {
    const { asked, rechecks, activities } = world({ a: 'refused', b: 'broken', c: { pages: 1 }, d: { pages: 2 } });
    const result = await run(activities, { merchantsPerBatch: 2 });
    expect(result).toEqual({ merchants: 4, cued: 2 * (2 * (1 + 2)), disputesRead: 0, skipped: 2 });
    // Their open disputes are not read either; the others' are.
    expect(rechecks.map((r) => r.merchantId).sort()).toEqual(['c', 'd']);
    // Refused at the first list: the second is not asked for.
    expect(asked.filter((p) => p.merchantId === 'a').map((p) => p.kind)).toEqual(['refunds']);
    expect(asked.filter((p) => p.merchantId === 'd').map((p) => p.kind)).toEqual(['refunds', 'refunds', 'disputes', 'disputes']);
  });

  it('given merchants with open disputes, some final now / each merchant\'s are read after its lists, at most 20 a run by default (or the run\'s bound), the final ones cued', async () => {
    const { asked, rechecks, activities } = world({ a: { pages: 1, openDisputes: 3, final: 1 }, b: { pages: 1, openDisputes: 50, final: 2 }, c: { pages: 1 } });
    const result = await run(activities, {});
    expect([...rechecks].sort((x, y) => x.merchantId.localeCompare(y.merchantId))).toEqual([{ merchantId: 'a', limit: 20 }, { merchantId: 'b', limit: 20 }, { merchantId: 'c', limit: 20 }]);
    expect(result).toEqual({ merchants: 3, cued: 3 * 2 * 2 + 1 + 2, disputesRead: 3 + 20, skipped: 0 });
    // Read once both lists were swept (a dispute the list finds is cued before it is read again).
    expect(asked.filter((p) => p.merchantId === 'a').map((p) => p.kind)).toEqual(['refunds', 'disputes']);

    const bounded = world({ a: { pages: 1, openDisputes: 50 } });
    expect(await run(bounded.activities, { disputeRechecksPerRun: 5 })).toMatchObject({ disputesRead: 5 });
    expect(bounded.rechecks).toEqual([{ merchantId: 'a', limit: 5 }]);
  });

  it('given more merchants than a run holds / it continues as new after the last one swept, and every merchant is swept once', async () => {
    const { asked, activities } = world(Object.fromEntries(['m1', 'm2', 'm3', 'm4', 'm5'].map((id) => [id, { pages: 1 }])));
    await run(activities, { merchantsPerBatch: 2, batchesPerRun: 1 });
    expect(asked.filter((p) => p.kind === 'refunds').map((p) => p.merchantId).sort()).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
  });
});
