// The processor sweep's steps (workflows/processor/processor-sweep.ts): which merchants have a connected processor, one page
// of a merchant's Whop refunds or disputes created since the last page applied, each fed into the path its webhook
// takes (model/checkout/processor-cues.ts), and the merchant's open disputes read again for a final status their lost
// dispute.updated would have brought. The watermark moves only after a page was applied, so a crash in the middle reads
// the page again (every cue is idempotent: the checkout workflow reconciles refunds from the processor and dedupes by
// event id; a dispute is recorded once per fact key).
import { log } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Config } from '../../config/index.js';
import type { Db } from '../../prisma/client.js';
import type { SecretBox } from '../../security/secrets.js';
import { AppError } from '../../domain/errors.js';
import { factKeyOf, FINAL_DISPUTE_STATUSES } from '../../domain/merchant-webhooks/merchant-webhooks.js';
import { IntegrationError } from '../../integrations/errors.js';
import { processorClientFor } from '../../model/connections.js';
import { cueCheckout, cueDispute, sessionOfProcessorPayment, type PaymentSession } from '../../model/checkout/processor-cues.js';
import { classifyFailures } from '../failures.js';

export type SweepKind = 'refunds' | 'disputes';

const HOUR_MS = 60 * 60 * 1000;
/**
 * An open dispute is read again at most once an hour: a dispute moves in days (evidence is due by needs_response_by,
 * about a week; the bank decides weeks later), so an hour late is early enough, and a merchant with many open
 * disputes costs at most one GET per dispute an hour rather than one per run.
 */
export const DISPUTE_RECHECK_EVERY_MS = HOUR_MS;
/**
 * How long after its dispute.created a dispute is followed: 180 days covers a chargeback's whole course (the shopper
 * may dispute up to about 120 days after the sale; a contested one goes through pre-arbitration and arbitration for
 * weeks to months more). One still open after that is left to Whop's dashboard, so the list read again never grows
 * without end: it holds the disputes of the last 180 days that are not final.
 */
export const DISPUTE_FOLLOW_MS = 180 * 24 * HOUR_MS;
const FINAL = [...FINAL_DISPUTE_STATUSES];

/**
 * Read again on every run: Whop's created_after is a timestamp filter of unstated precision and strictness, so the
 * next run starts a little before the newest item applied (reapplying it is harmless) rather than risk skipping one
 * created in the same instant.
 */
export const SWEEP_OVERLAP_MS = 1000;

export interface SweepPageInput {
  merchantId: string;
  kind: SweepKind;
  /** Items per page (Whop's `first`, at most 100). */
  pageSize: number;
  /** A continued listing: the query of its first page and the cursor of the next one. */
  createdAfter?: string;
  cursor?: string;
}

export type SweepPageResult =
  | { state: 'skipped'; reason: string }
  | { state: 'swept'; createdAfter: string; listed: number; cued: number; nextCursor: string | null };

export interface DisputeRecheckInput {
  merchantId: string;
  /** Disputes read in this call, at most (the run's bound per merchant). */
  limit: number;
}

export type DisputeRecheckResult =
  | { state: 'skipped'; reason: string }
  | { state: 'checked'; read: number; resolved: number };

/** What a merchant's dispute.created recorded of the dispute (its payload's data): the facts a later status keeps. */
interface OpenDispute {
  disputeId: string;
  openedAt: Date;
  currency: string | null;
  paymentId: string | null;
}

export function createProcessorSweepActivities(deps: { config: Config; db: Db; secrets: SecretBox; temporal: { readonly client: Client } }) {
  const { db } = deps;

  /** Moves the watermark forward (never back: two overlapping runs cannot rewind it). */
  async function advance(merchantId: string, companyId: string, kind: SweepKind, to: Date): Promise<void> {
    await db.$executeRaw`
      INSERT INTO processor_sweep_watermarks (merchant_id, company_id, kind, swept_to, updated_at)
      VALUES (${merchantId}::uuid, ${companyId}, ${kind}, ${to}, now())
      ON CONFLICT (merchant_id, company_id, kind) DO UPDATE SET swept_to = GREATEST(processor_sweep_watermarks.swept_to, EXCLUDED.swept_to), updated_at = now()`;
  }

  /** Where a listing starts: a little before the watermark, else when the processor was connected (nothing of ours is older). */
  async function startOf(merchantId: string, companyId: string, kind: SweepKind, connectedAt: Date | null): Promise<string> {
    const mark = await db.processorSweepWatermark.findUnique({ where: { merchantId_companyId_kind: { merchantId, companyId, kind } } });
    const from = mark ? new Date(mark.sweptTo.getTime() - SWEEP_OVERLAP_MS) : (connectedAt ?? new Date());
    return from.toISOString();
  }

  /** The merchant's Whop client, or `skipped` when it is no longer connected or its key is refused (an AppError). */
  async function connectedOrSkipped(merchantId: string): Promise<Awaited<ReturnType<typeof processorClientFor>> | { state: 'skipped'; reason: string }> {
    try {
      return await processorClientFor({ ...deps }, merchantId);
    } catch (err) {
      if (err instanceof AppError) return { state: 'skipped', reason: err.message };
      throw err;
    }
  }

  return classifyFailures({
    /** Merchants whose processor is connected, after `after` (merchant id order), at most `limit`. */
    async listSweepMerchants(input: { after?: string; limit: number }): Promise<string[]> {
      const rows = await db.processorConnection.findMany({
        where: { status: 'CONNECTED', businessId: { not: null }, ...(input.after ? { merchantId: { gt: input.after } } : {}) },
        select: { merchantId: true },
        orderBy: { merchantId: 'asc' },
        take: input.limit,
      });
      return rows.map((r) => r.merchantId);
    },

    /**
     * One page of the merchant's refunds or disputes created after the watermark, oldest first, each cued as its
     * webhook would be; then the watermark moves to the newest one. A merchant no longer connected, or whose key
     * Whop refuses, is skipped (and logged), not failed: the run goes on with the next merchant.
     */
    async sweepProcessorPage(input: SweepPageInput): Promise<SweepPageResult> {
      const { merchantId, kind } = input;
      const connected = await connectedOrSkipped(merchantId);
      if ('state' in connected) return connected;
      const { client, businessId } = connected;
      // A payment Whop no longer shows is no sale of ours to reconcile (its refund would otherwise block the watermark).
      const readPayment = (id: string) => client.getPayment(id).catch((err: unknown) => {
        if (err instanceof IntegrationError && err.kind === 'not_found') return { metadata: {}, checkoutId: null };
        throw err;
      });
      const connection = await db.processorConnection.findUniqueOrThrow({ where: { merchantId }, select: { connectedAt: true } });
      const createdAfter = input.createdAfter ?? (await startOf(merchantId, businessId, kind, connection.connectedAt));
      const query = { companyId: businessId, createdAfter, first: input.pageSize, ...(input.cursor ? { after: input.cursor } : {}) };
      try {
        let cued = 0;
        let newest: number | null = null;
        const seen = (at: string | null) => {
          const t = at ? Date.parse(at) : NaN;
          if (!Number.isNaN(t)) newest = Math.max(newest ?? t, t);
        };
        if (kind === 'refunds') {
          const page = await client.listCompanyRefunds(query);
          // One session lookup per payment: a payment refunded in parts lists several refunds.
          const sessions = new Map<string, Promise<PaymentSession | null>>();
          for (const refund of page.items) {
            let session = sessions.get(refund.paymentId);
            if (!session) sessions.set(refund.paymentId, (session = sessionOfProcessorPayment(db, readPayment, merchantId, refund.paymentId)));
            const ref = await session;
            // A refund of a sale we did not make (the company's own products): not ours, as its webhook would be.
            // An upsell's charge: the upsell's purchase is what was refunded (as the webhook's metadata says), and it takes
            // the refund's word as it stands, so only a succeeded refund is one (as refund.updated with status succeeded).
            // A checkout's own payment: its workflow reconciles the payment's refunds, whatever this one's status.
            if (ref?.upsellId !== undefined) {
              if (refund.status === 'succeeded') {
                await cueCheckout(deps, ref, `sweep:${refund.id}:${refund.status}`, { specEvent: 'payment_refunded', paymentId: refund.paymentId, metadata: { checkout_upsell_id: ref.upsellId } });
                cued += 1;
              }
            } else if (ref) {
              await cueCheckout(deps, ref, `sweep:${refund.id}:${refund.status}`, { specEvent: 'payment_refunded', paymentId: refund.paymentId, metadata: {} });
              cued += 1;
            }
            seen(refund.createdAt);
          }
          if (newest !== null) await advance(merchantId, businessId, kind, new Date(newest));
          return { state: 'swept', createdAfter, listed: page.items.length, cued, nextCursor: page.nextCursor };
        }
        const page = await client.listCompanyDisputes(query);
        for (const dispute of page.items) {
          // The worker finds the session (or none: a dispute of a sale we did not make records nothing).
          if (dispute.paymentId && dispute.currency) {
            await cueDispute(deps, merchantId, { id: dispute.id, status: dispute.status, amountMinor: dispute.amountMinor, currency: dispute.currency, reason: dispute.reason, paymentId: dispute.paymentId });
            cued += 1;
          }
          seen(dispute.createdAt);
        }
        if (newest !== null) await advance(merchantId, businessId, kind, new Date(newest));
        return { state: 'swept', createdAfter, listed: page.items.length, cued, nextCursor: page.nextCursor };
      } catch (err) {
        // The key was revoked or lost its permissions: this merchant waits for a reconnect, the others are swept.
        if (err instanceof IntegrationError && err.kind === 'unauthorized') {
          log.warn('processor sweep: the merchant\'s processor key is refused; skipped', { merchantId, kind, error: err.message });
          return { state: 'skipped', reason: err.message };
        }
        throw err;
      }
    },

    /**
     * The merchant's disputes recorded (dispute.created) and not final (no dispute.resolved), of the last
     * DISPUTE_FOLLOW_MS, not read in the last DISPUTE_RECHECK_EVERY_MS, least recently read first, at most `limit`:
     * each read with GET /disputes/{id}, and one now final fed into the path its dispute.updated takes (cueDispute, the
     * same fact keys: recorded once, whoever saw it first). Whop's lists filter by creation only, so this is how a
     * dispute created before the watermark is seen resolved when its webhook was lost.
     */
    async recheckOpenDisputes(input: DisputeRecheckInput): Promise<DisputeRecheckResult> {
      const { merchantId } = input;
      const connected = await connectedOrSkipped(merchantId);
      if ('state' in connected) return connected;
      const { client } = connected;
      const now = Date.now();
      const since = new Date(now - DISPUTE_FOLLOW_MS);
      const due = new Date(now - DISPUTE_RECHECK_EVERY_MS);
      // Out of the window: followed no more.
      await db.processorDisputeCheck.deleteMany({ where: { merchantId, openedAt: { lt: since } } });
      const open = await db.$queryRaw<OpenDispute[]>`
        SELECT e.payload #>> '{data,dispute_id}' AS "disputeId", e.created_at AS "openedAt",
               e.payload #>> '{data,currency}' AS currency, e.payload #>> '{data,processor_payment_id}' AS "paymentId"
        FROM merchant_events e
        LEFT JOIN processor_dispute_checks c ON c.dispute_id = e.payload #>> '{data,dispute_id}'
        WHERE e.merchant_id = ${merchantId}::uuid AND e.type = 'dispute.created' AND e.created_at >= ${since}
          AND NOT EXISTS (SELECT 1 FROM merchant_events r WHERE r.fact_key = ${factKeyOf('dispute.resolved', '')} || (e.payload #>> '{data,dispute_id}'))
          AND (c.dispute_id IS NULL OR (c.checked_at <= ${due} AND NOT c.status = ANY(${FINAL}::text[])))
        ORDER BY c.checked_at ASC NULLS FIRST, e.created_at ASC
        LIMIT ${input.limit}`;
      const checked = (row: OpenDispute, status: string) => db.processorDisputeCheck.upsert({
        where: { disputeId: row.disputeId },
        create: { disputeId: row.disputeId, merchantId, openedAt: row.openedAt, checkedAt: new Date(), status },
        update: { checkedAt: new Date(), status },
      });
      let read = 0;
      let resolved = 0;
      for (const row of open) {
        let dispute;
        try {
          dispute = await client.getDispute(row.disputeId);
        } catch (err) {
          if (!(err instanceof IntegrationError)) throw err;
          if (err.kind === 'unauthorized') {
            log.warn('processor sweep: the merchant\'s processor key is refused; open disputes not read', { merchantId, error: err.message });
            return { state: 'skipped', reason: err.message };
          }
          // The processor down or throttling: the rest waits for the next attempt or run.
          if (err.retryable) throw err;
          // This dispute cannot be read (gone, another company's, an answer out of shape): read again an hour later, not
          // before the others, and never past the window.
          log.warn('processor sweep: an open dispute could not be read', { merchantId, disputeId: row.disputeId, kind: err.kind, error: err.message });
          await checked(row, err.kind);
          continue;
        }
        read += 1;
        if (!FINAL_DISPUTE_STATUSES.has(dispute.status)) {
          await checked(row, dispute.status);
          continue;
        }
        const currency = dispute.currency ?? row.currency;
        const paymentId = dispute.paymentId ?? row.paymentId;
        if (currency && paymentId) {
          await cueDispute(deps, merchantId, { id: dispute.id, status: dispute.status, amountMinor: dispute.amountMinor, currency, reason: dispute.reason, paymentId });
          resolved += 1;
        }
        // Final: never read again, also while its dispute.resolved is being recorded (the row goes with the window).
        await checked(row, dispute.status);
      }
      return { state: 'checked', read, resolved };
    },
  });
}

export type ProcessorSweepActivities = ReturnType<typeof createProcessorSweepActivities>;
