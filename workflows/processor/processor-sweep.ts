// The processor sweep: refunds and disputes reconciled by polling, so a lost webhook cannot hide them. A refund made in
// Whop's dashboard and a dispute reach us by webhook; Whop gives up on a delivery after three retries in about a
// minute, and an endpoint that was down or disabled loses it for good. Every few minutes (a Temporal Schedule,
// worker/schedules.ts) this workflow lists each connected merchant's Whop refunds and disputes created since the
// last page it applied and feeds each into the path its webhook takes (model/checkout/processor-cues.ts): a refund to its
// session's checkout workflow, a dispute to the merchant's dispute events, once per fact. Whop lists by creation
// only, so the merchant's open disputes (recorded, not final) are then read one by one for the final status a lost
// dispute.updated would have brought.
//
// Bounded: at most `pagesPerList` pages of `pageSize` per merchant and list per run (the rest is the next run's,
// from the watermark), `disputeRechecksPerRun` open disputes read per merchant and run (least recently read first,
// each at most hourly), merchants in batches of `merchantsPerBatch`, `batchesPerRun` batches before continuing as new.
// A merchant whose key fails is skipped and logged; any other failure of one merchant's page (after its retries)
// is logged and the run goes on with the next merchant.
import { ActivityFailure, continueAsNew, log, patched } from '@temporalio/workflow';
import type { ProcessorSweepActivities, SweepKind } from '../../activities/processor/processor-sweep.js';
import { backgroundActivities } from '../activity-proxies.js';
import { PROFILES } from '../activity-profiles.js';

const { listSweepMerchants } = backgroundActivities<ProcessorSweepActivities>(PROFILES.sweepList);

// A page is one list call plus a lookup and a signal per item: a minute covers a slow processor; few attempts, as
// the next run asks again anyway.
const { sweepProcessorPage } = backgroundActivities<ProcessorSweepActivities>(PROFILES.sweepPage);

// Up to one GET per open dispute, each answered within the client's 10 s: 5 minutes covers the default 20.
const { recheckOpenDisputes } = backgroundActivities<ProcessorSweepActivities>(PROFILES.disputeRecheck);

/** Runs started before the open disputes were read again do not read them (their histories replay as they ran). */
const DISPUTE_RECHECKS = 'processor-sweep-dispute-rechecks';

export interface ProcessorSweepInput {
  /** Items per page (Whop's `first`; default 100, its maximum). */
  pageSize?: number;
  /** Pages per merchant and list per run (default 5: 500 refunds and 500 disputes). */
  pagesPerList?: number;
  /** Merchants swept side by side (default 4). */
  merchantsPerBatch?: number;
  /**
   * Open disputes read again per merchant and run (default 20: with a run every 15 minutes and each read at most
   * hourly, 80 open disputes a merchant are each read every hour, at most 20 GETs per merchant and run).
   */
  disputeRechecksPerRun?: number;
  /** Batches per run before continuing as new (default 25: keeps each run's history short). */
  batchesPerRun?: number;
  /** Where the previous run stopped (merchant id order). */
  afterMerchant?: string;
}

export interface ProcessorSweepResult {
  merchants: number;
  /** Refunds and disputes fed into their webhook's path (disputes read again and found final included). */
  cued: number;
  /** Open disputes read again. */
  disputesRead: number;
  /** Merchants skipped (key refused, no longer connected) or failed this run. */
  skipped: number;
}

const KINDS: readonly SweepKind[] = ['refunds', 'disputes'];

export async function processorSweepWorkflow(input: ProcessorSweepInput = {}): Promise<ProcessorSweepResult> {
  const pageSize = input.pageSize ?? 100;
  const pagesPerList = input.pagesPerList ?? 5;
  const batchSize = input.merchantsPerBatch ?? 4;
  const batchesPerRun = input.batchesPerRun ?? 25;
  const disputeRechecks = input.disputeRechecksPerRun ?? 20;
  const result: ProcessorSweepResult = { merchants: 0, cued: 0, disputesRead: 0, skipped: 0 };
  let after = input.afterMerchant;

  /** One merchant's list, page by page up to the bound; false when the merchant is skipped. */
  async function sweepList(merchantId: string, kind: SweepKind): Promise<boolean> {
    let createdAfter: string | undefined;
    let cursor: string | undefined;
    for (let page = 0; page < pagesPerList; page++) {
      const swept = await sweepProcessorPage({ merchantId, kind, pageSize, createdAfter, cursor });
      if (swept.state === 'skipped') {
        log.warn('processor sweep: merchant skipped', { merchantId, kind, reason: swept.reason });
        return false;
      }
      result.cued += swept.cued;
      if (!swept.nextCursor) return true;
      createdAfter = swept.createdAfter;
      cursor = swept.nextCursor;
    }
    return true;
  }

  async function sweepMerchant(merchantId: string): Promise<void> {
    result.merchants += 1;
    try {
      for (const kind of KINDS) {
        if (!(await sweepList(merchantId, kind))) {
          result.skipped += 1;
          return;
        }
      }
      // After the lists, which find the new ones (one just found may not be recorded yet: the next run reads it).
      if (disputeRechecks > 0 && patched(DISPUTE_RECHECKS)) {
        const rechecked = await recheckOpenDisputes({ merchantId, limit: disputeRechecks });
        if (rechecked.state === 'skipped') {
          log.warn('processor sweep: merchant skipped', { merchantId, kind: 'open disputes', reason: rechecked.reason });
          result.skipped += 1;
          return;
        }
        result.disputesRead += rechecked.read;
        result.cued += rechecked.resolved;
      }
    } catch (err) {
      // The processor unreachable for this merchant through the retries: the next run asks again from the watermark.
      if (!(err instanceof ActivityFailure)) throw err;
      log.warn('processor sweep: merchant failed; the next run tries again', { merchantId, error: err.cause?.message ?? err.message });
      result.skipped += 1;
    }
  }

  for (let batch = 0; batch < batchesPerRun; batch++) {
    const merchants = await listSweepMerchants({ after, limit: batchSize });
    await Promise.all(merchants.map(sweepMerchant));
    if (merchants.length < batchSize) return result;
    after = merchants[merchants.length - 1];
  }
  // More merchants than one run should hold: the next run goes on after the last one swept.
  return await continueAsNew<typeof processorSweepWorkflow>({ ...input, afterMerchant: after });
}
