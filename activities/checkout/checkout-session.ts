// The session's own record: what the shopper entered, the totals computed from it, and every status
// change. The workflow is the only caller, so a session's status is never written around it.
import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '../../prisma/client.js';
import { Prisma } from '../../prisma/client.js';
import { AppError } from '../../domain/errors.js';
import { isConfirmedOrder, isPaidNotRefunded, type CheckoutStatus } from '../../domain/checkout/checkout-status.js';
import type { ShopperDetails } from '../../domain/checkout/checkout-workflow.js';
import { classifyFailures } from '../failures.js';
import { markMilestones, recordSessionEvent } from './session-events.js';
import { milestonesOfEvent } from '../../domain/stats.js';
import { priceCheckout, redeemDiscount, reserveDiscount } from '../../model/checkout/pricing.js';
import { codOffered } from '../../model/merchant/plan-features.js';

export interface PaymentQuote {
  currency: string;
  /** Cart items + accepted order bumps. */
  subtotalMinor: number;
  shippingMinor: number;
  discountMinor: number;
  /** The store's tax (quoteStoreTaxes): inside the prices when taxesIncluded, else part of totalMinor. */
  taxMinor?: number;
  taxesIncluded?: boolean;
  totalMinor: number;
}

/** What a checkout workflow run starts from (recorded in its history). */
export interface LoadedSession {
  status: CheckoutStatus;
  hasOrder: boolean;
  paymentAttempt: number;
  /** Absent in histories recorded before refunds existed. */
  refundRequested?: boolean;
  /** Refunds asked of the processor and not settled yet (absent in histories recorded before partial refunds). */
  refundsPending?: boolean;
  /** The shopper's last progress, epoch ms; absent in histories recorded when the workflow started at create. */
  lastActivityAt?: number;
}

/** Where the idle sweep stopped: sessions are listed in (lastActivityAt, token) order. */
export interface IdleSessionCursor {
  lastActivityAt: number;
  token: string;
}

export interface IdleSession extends IdleSessionCursor {
  merchantId: string;
  platform: 'STOREFRONT_A' | 'STOREFRONT_B';
}

export function createCheckoutSessionActivities(deps: { db: Db }) {
  const { db } = deps;

  // With the funnel milestone the event marks (a status that means an order marks the payment step).
  const event = (token: string, type: string, data: Prisma.InputJsonValue = {}) => recordSessionEvent(db, token, type, data);

  return classifyFailures({
    /**
     * The session's persisted status, which a workflow run resumes from, and when the shopper last made
     * progress (epoch ms). Stamps workflow_started_at the first time: from then on the idle sweep leaves the
     * session to its workflow.
     */
    async loadSessionStatus(token: string): Promise<LoadedSession> {
      const rows = await db.$queryRaw<Array<{ status: string; hasOrder: boolean; paymentAttempt: number; refundRequested: boolean; refundsPending: boolean; lastActivityAt: Date }>>`
        UPDATE checkout_sessions SET workflow_started_at = COALESCE(workflow_started_at, now())
        WHERE token = ${token}
        RETURNING status, (store_order_id IS NOT NULL OR store_order_error IS NOT NULL) AS "hasOrder", payment_attempt AS "paymentAttempt",
                  (refund_requested_at IS NOT NULL) AS "refundRequested",
                  EXISTS (SELECT 1 FROM refunds r WHERE r.token = checkout_sessions.token AND (r.state = 'requested' OR (r.state = 'succeeded' AND r.store_state = 'pending'))) AS "refundsPending",
                  last_activity_at AS "lastActivityAt"`;
      const session = rows[0];
      if (!session) throw ApplicationFailure.nonRetryable(`No checkout session ${token}`, 'NOT_FOUND');
      return { ...session, status: session.status as CheckoutStatus, lastActivityAt: session.lastActivityAt.getTime() };
    },

    /**
     * OPEN sessions that never got a workflow and whose shopper's last step is older than idleBefore (epoch ms),
     * after the cursor, oldest first: the idle sweep (workflows/checkout/checkout-idle-sweep.ts) wakes their workflows.
     * Served by the (status, workflow_started_at, last_activity_at) index; previews never get a workflow.
     */
    async listIdleSessionsWithoutWorkflow(query: { idleBefore: number; after?: IdleSessionCursor; limit: number }): Promise<IdleSession[]> {
      const after = query.after ? Prisma.sql`AND (last_activity_at, token) > (${new Date(query.after.lastActivityAt)}, ${query.after.token})` : Prisma.empty;
      const rows = await db.$queryRaw<Array<{ token: string; merchantId: string; platform: IdleSession['platform']; lastActivityAt: Date }>>`
        SELECT token, merchant_id AS "merchantId", platform, last_activity_at AS "lastActivityAt" FROM checkout_sessions
        WHERE status = 'OPEN' AND workflow_started_at IS NULL AND last_activity_at < ${new Date(query.idleBefore)} AND source <> 'preview' ${after}
        ORDER BY last_activity_at, token
        LIMIT ${query.limit}`;
      return rows.map((r) => ({ ...r, lastActivityAt: r.lastActivityAt.getTime() }));
    },

    /**
     * Prices the checkout (model/checkout/pricing.ts: items + accepted order bumps + the chosen shipping
     * rate − a discount code re-validated now, with the session's own FX snapshot) and stores the shopper's
     * details with the totals, one amount. A discount code's use is reserved in the same transaction, under a
     * lock on the code, so a usage limit holds when shoppers race for its last use. A total of 0 is stored
     * like any other: the workflow completes such a checkout without the processor.
     */
    async recordShopperDetails(token: string, details: ShopperDetails): Promise<PaymentQuote> {
      const session = await db.checkoutSession.findUniqueOrThrow({ where: { token }, include: { merchant: { include: { shippingRates: true } } } });
      const rates = [...session.merchant.shippingRates].sort((a, b) => a.position - b.position);
      const input = { shippingRateId: details.shippingRateId, discountCode: details.discountCode, orderBumpIds: details.orderBumpIds, email: details.email, country: details.address.country };
      try {
        return await db.$transaction(async (tx) => {
          const priced = await priceCheckout(tx, session, rates, input, { lock: true });
          const { totals } = priced;
          await reserveDiscount(tx, token, priced, details.email);
          await tx.checkoutSession.update({
            where: { token },
            data: {
              email: details.email,
              ...(details.locale ? { shopperLocale: details.locale } : {}),
              shippingAddress: details.address as unknown as Prisma.InputJsonValue,
              // Absent: billed to the shipping address (a later call without one clears an earlier one).
              billingAddress: details.billingAddress ? (details.billingAddress as unknown as Prisma.InputJsonValue) : Prisma.DbNull,
              shippingRateId: priced.shipping!.id,
              shippingName: priced.shipping!.name,
              shippingMinor: totals.shipping.amount,
              subtotalMinor: priced.items.amount,
              orderBumps: priced.bumps as unknown as Prisma.InputJsonValue,
              discountId: priced.discount?.id ?? null,
              discountCode: priced.discount?.code ?? null,
              discountMinor: totals.discount.amount,
              totalMinor: totals.total.amount,
              // The store's tax follows (quoteStoreTaxes): until then none is counted.
              taxMinor: 0,
              taxesIncluded: false,
              lastActivityAt: new Date(),
            },
          });
          await tx.sessionEvent.create({
            data: {
              token,
              type: 'details_entered',
              data: {
                shippingRateId: priced.shipping!.id,
                shippingMinor: totals.shipping.amount,
                totalMinor: totals.total.amount,
                ...(priced.bumps.length ? { orderBumpIds: priced.bumps.map((b) => b.bumpId), orderBumpsMinor: totals.merchandise.amount - priced.items.amount } : {}),
                ...(priced.discount ? { discountCode: priced.discount.code, discountMinor: totals.discount.amount } : {}),
              },
            },
          });
          // Contact and shipping arrive together here: both funnel milestones (unless the page reported them earlier).
          await markMilestones(tx, token, milestonesOfEvent('details_entered', {}), new Date());
          return {
            currency: session.currency,
            subtotalMinor: totals.merchandise.amount,
            shippingMinor: totals.shipping.amount,
            discountMinor: totals.discount.amount,
            totalMinor: totals.total.amount,
          };
        });
      } catch (err) {
        // The shopper's answer (unknown rate or bump, a code that does not apply): final, with the API's code.
        if (err instanceof AppError) throw ApplicationFailure.create({ type: err.code, message: err.message, nonRetryable: true, details: err.details ? [err.details] : [] });
        throw err;
      }
    },

    /** Persists a status the workflow decided, with the cause on the timeline. */
    async recordSessionStatus(token: string, status: CheckoutStatus, cause: string): Promise<void> {
      const before = await db.checkoutSession.findUniqueOrThrow({ where: { token }, select: { status: true, completedAt: true, refundedAt: true } });
      // Counted here, also when a retry finds the status already written: the redemption row is unique per session.
      if (isConfirmedOrder(status)) await redeemDiscount(db, token);
      if (before.status === status) return;
      await db.checkoutSession.update({
        where: { token },
        data: {
          status,
          lastActivityAt: new Date(),
          // The processor confirmed the payment: COMPLETED, or ON_HOLD (paid, but held before its order).
          ...(isPaidNotRefunded(status) && !before.completedAt ? { completedAt: new Date() } : {}),
          ...(status === 'REFUNDED' && !before.refundedAt ? { refundedAt: new Date() } : {}),
        },
      });
      await event(token, 'status_changed', { from: before.status, to: status, cause });
    },

    /**
     * Cash on delivery chosen (after recordShopperDetails stored the details and totals): refused while the
     * merchant has COD switched off; otherwise the session is a COD order from here on.
     */
    async confirmCashOnDelivery(token: string): Promise<void> {
      const session = await db.checkoutSession.findUniqueOrThrow({ where: { token }, select: { totalMinor: true, currency: true, merchant: { select: { codEnabled: true, platformSubscription: { select: { planId: true, status: true } } } } } });
      // The plan in force decides too (domain/merchant/plan-features.ts): switched on under Growth, off after a downgrade.
      if (!codOffered(session.merchant, { preview: false })) throw ApplicationFailure.nonRetryable('This store does not offer cash on delivery', 'COD_NOT_ENABLED');
      if (session.totalMinor === null) throw ApplicationFailure.nonRetryable('The shopper details are missing', 'INVALID_INPUT');
      // Once: a retried activity finds the session a COD order already (the status change is on the timeline too).
      const { count } = await db.checkoutSession.updateMany({
        where: { token, OR: [{ paymentMethod: null }, { paymentMethod: { not: 'cod' } }] },
        data: { paymentMethod: 'cod', lastActivityAt: new Date() },
      });
      if (count > 0) await event(token, 'cod_confirmed', { totalMinor: session.totalMinor, currency: session.currency });
    },
  });
}

export type CheckoutSessionActivities = ReturnType<typeof createCheckoutSessionActivities>;
