// The session's payment at the processor (Whop). A payment attempt is a Whop checkout configuration (`ch_…`:
// the session's processorPaymentId holds the current attempt's), created once per attempt (the idempotency key is
// the token and the attempt number, so a retried activity or a double click gets the same checkout); the payment
// itself (`pay_…`) exists once the shopper paid on its purchase_url, and is found by listing the payments of the
// session's checkouts. Looked up for status syncs, reconciliation and the refund.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../../config/index.js';
import { type Prisma, type Db } from '../../prisma/client.js';
import type { SecretBox } from '../../security/secrets.js';
import type { Payment, ProcessorClient, Refund as ProcessorRefund } from '../../integrations/processor/index.js';
import { processorClientFor } from '../../model/connections.js';
import { checkoutOrigin } from '../../domain/checkout/checkout-origin.js';
import { isIntegrationError } from '../../integrations/errors.js';
import { classifyFailures } from '../failures.js';
import { recordSessionEvent } from './session-events.js';
import { sessionFxRates } from '../../model/checkout/checkout-session.js';
import { upsellPrices } from '../../model/checkout/pricing.js';
import { walletsOffered } from '../../model/merchant/plan-features.js';
import { nextUpsellState, upsellOutcomeOf, type UpsellCharge, type UpsellChargeOutcome, type UpsellPurchaseState } from '../../domain/checkout/upsell-purchase.js';
import type { UpsellPurchase } from '../../generated/prisma/client.js';
import { type CheckoutStatus } from '../../domain/checkout/checkout-status.js';
import { refundRefusal } from '../../domain/checkout/refunds.js';
import { type HoldReason } from '../../domain/checkout/processor-events.js';
import { judgePayment, type PaymentVerdict } from '../../domain/checkout/payment-check.js';
import type { RefundRequest, RefundsState } from '../../domain/checkout/checkout-workflow.js';

/** The processor's idempotency key of one refund: per refund row (a legacy full refund used the session's token). */
export const refundIdempotencyKey = (token: string) => `refund-${token}`;
export const refundRowIdempotencyKey = (refundId: string) => `refund-${refundId}`;

/** A processor refund counts as money back once it succeeded; failed and canceled ones never will. */
const REFUND_SETTLED: Readonly<Record<string, 'succeeded' | 'failed' | undefined>> = { succeeded: 'succeeded', failed: 'failed', canceled: 'failed' };

/** The one idempotency key of an upsell's charge: a retry, a double click or a new run charges the same payment. */
export const upsellChargeIdempotencyKey = (token: string, upsellId: string) => `upsell-${token}-${upsellId}`;

const chargeOf = (row: UpsellPurchase): UpsellCharge => ({
  upsellId: row.upsellId, state: upsellOutcomeOf(row.status as UpsellPurchaseState), amountMinor: row.amountMinor, currency: row.currency,
  paymentId: row.processorPaymentId, failureReason: row.failureReason,
});

const notAvailable = (message: string) => ApplicationFailure.nonRetryable(message, 'UPSELL_NOT_AVAILABLE');
/** Our clock and Whop's may disagree: a lost charge is looked for from this long before its purchase row. */
const CLOCK_SKEW_MS = 5 * 60_000;

/** Payment states as the checkout workflow's status sync names them (workflows/checkout/checkout.messages.ts PAYMENT_STATUS_EVENTS). */
const SYNC_STATUS: Readonly<Record<Payment['state'], string>> = { paid: 'succeeded', failed: 'failed', refunded: 'refunded', pending: 'pending' };

/** The workflow's view of a session's refunds, from its rows. */
function refundsStateOf(totalMinor: number, rows: ReadonlyArray<{ id: string; state: string; storeState: string; amountMinor: number }>): RefundsState {
  const succeeded = rows.filter((r) => r.state === 'succeeded');
  return {
    totalMinor,
    refundedMinor: succeeded.reduce((n, r) => n + r.amountMinor, 0),
    pendingMinor: rows.filter((r) => r.state === 'requested').reduce((n, r) => n + r.amountMinor, 0),
    succeeded: succeeded.map((r) => r.id),
    toStore: succeeded.filter((r) => r.storeState === 'pending').map((r) => r.id),
  };
}

const merchantPageFields = { slug: true, shopName: true, customDomain: { select: { hostname: true, status: true } } } as const;

export function createCheckoutPaymentActivities(deps: { db: Db; secrets: SecretBox; config: Config; timeoutMs?: number }) {
  const { db, config } = deps;

  /** The session's checkout page, where the shopper comes back to: the verified custom domain, else the subdomain. */
  const checkoutPageUrl = (merchant: { slug: string; customDomain: { hostname: string; status: string } | null }, token: string) =>
    `${checkoutOrigin(merchant.slug, { production: config.env === 'production', https: config.publicHttps, serviceDomain: config.serviceDomain, port: config.api.port }, merchant.customDomain?.status === 'VERIFIED' ? merchant.customDomain.hostname : null)}/checkout/${token}`;

  const clientFor = (merchantId: string) => processorClientFor(deps, merchantId);

  /** Every checkout (payment attempt) the session started at the processor, the current one last. */
  async function attemptsOf(token: string, current: string | null): Promise<string[]> {
    const started = await db.sessionEvent.findMany({ where: { token, type: 'payment_started' }, orderBy: { at: 'asc' }, select: { data: true } });
    const ids = started.map((e) => (e.data as { paymentId?: unknown } | null)?.paymentId).filter((id): id is string => typeof id === 'string');
    return [...new Set([...ids, ...(current ? [current] : [])])];
  }

  /**
   * The session's payment as the processor has it: a paid (or refunded) one of any of its attempts, else the
   * current attempt's latest. `pay_…` ids (sessions from before checkouts) are read directly.
   */
  async function sessionPayment(client: ProcessorClient, companyId: string, token: string, current: string | null): Promise<Payment | null> {
    if (current?.startsWith('pay_')) return client.getPayment(current);
    const checkoutIds = (await attemptsOf(token, current)).filter((id) => id.startsWith('ch_'));
    if (!checkoutIds.length) return null;
    const payments = await client.listPayments({ companyId, checkoutIds });
    return payments.find((p) => p.state === 'paid' || p.state === 'refunded') ?? payments.find((p) => p.checkoutId === current) ?? null;
  }

  /** Moves an upsell purchase on by the processor's word (domain/checkout/upsell-purchase.ts); the timeline notes each change. */
  async function settleUpsell(row: UpsellPurchase, outcome: { state: UpsellChargeOutcome; paymentId: string | null; reason: string | null }): Promise<UpsellPurchase> {
    const next = nextUpsellState(row.status as UpsellPurchaseState, outcome.state);
    const paymentId = row.processorPaymentId ?? outcome.paymentId;
    if (next === row.status && paymentId === row.processorPaymentId) return row;
    return db.$transaction(async (tx) => {
      const { count } = await tx.upsellPurchase.updateMany({
        where: { id: row.id, status: row.status },
        data: {
          status: next, processorPaymentId: paymentId,
          ...(next === 'PAID' && !row.paidAt ? { paidAt: new Date() } : {}),
          ...(next === 'FAILED' ? { failureReason: outcome.reason ?? 'declined' } : {}),
        },
      });
      // Someone else moved it first: theirs stands.
      if (count === 0) return tx.upsellPurchase.findUniqueOrThrow({ where: { id: row.id } });
      if (next !== row.status) {
        await tx.sessionEvent.create({ data: { token: row.token, type: 'upsell_payment', data: { upsellId: row.upsellId, from: row.status, to: next, paymentId, amount: row.amountMinor, currency: row.currency } } });
      }
      return tx.upsellPurchase.findUniqueOrThrow({ where: { id: row.id } });
    });
  }

  /** The payment a session's refunds are made on: its paid (or refunded) one, else none. */
  async function paidPaymentOf(client: ProcessorClient, companyId: string, session: { token: string; processorPaymentId: string | null }): Promise<Payment | null> {
    const paid = await sessionPayment(client, companyId, session.token, session.processorPaymentId);
    return paid && (paid.state === 'paid' || paid.state === 'refunded') ? paid : null;
  }

  /**
   * The processor's refunds of the session's payment made into our rows: each processor refund is matched to its row
   * by id, else adopted by a row of ours still waiting for its id with the same amount (a refund whose answer was
   * lost), else recorded as made at the processor (the merchant refunded in Whop's dashboard). States follow the
   * processor; the session's refunded amount is the sum of the succeeded ones. Answers the refunds as they stand.
   */
  async function reconcileRefunds(token: string, processorRefunds: readonly ProcessorRefund[], chargedMinor?: number): Promise<RefundsState> {
    return db.$transaction(async (tx) => {
      // One reconciliation at a time per session: two webhooks at once must not record one refund twice.
      await tx.$queryRaw`SELECT token FROM checkout_sessions WHERE token = ${token} FOR UPDATE`;
      const session = await tx.checkoutSession.findUniqueOrThrow({ where: { token } });
      const rows = await tx.refund.findMany({ where: { token }, orderBy: { createdAt: 'asc' } });
      const now = new Date();
      for (const r of [...processorRefunds].sort((a, b) => a.createdAt.localeCompare(b.createdAt))) {
        const state = REFUND_SETTLED[r.status] ?? 'requested';
        let row = rows.find((x) => x.processorRefundId === r.id)
          ?? rows.find((x) => x.processorRefundId === null && x.state === 'requested' && x.amountMinor === r.amountMinor);
        if (!row) {
          row = await tx.refund.create({
            data: { token, merchantId: session.merchantId, amountMinor: r.amountMinor, currency: r.currency, origin: 'processor', state: 'requested', processorRefundId: r.id, reason: 'Refunded at the processor' },
          });
          rows.push(row);
          await tx.sessionEvent.create({ data: { token, type: 'refund_requested', data: { refundId: row.id, processorRefundId: r.id, amount: r.amountMinor, currency: r.currency, origin: 'processor' } } });
        }
        if (row.processorRefundId !== r.id || row.state !== state) {
          const updated = await tx.refund.update({
            where: { id: row.id },
            data: { processorRefundId: r.id, state, ...(state === 'succeeded' && !row.succeededAt ? { succeededAt: now } : {}), ...(state === 'failed' ? { failureReason: `The processor reports the refund ${r.status}` } : {}) },
          });
          if (row.state !== state && state !== 'requested') {
            await tx.sessionEvent.create({ data: { token, type: state === 'succeeded' ? 'refund_succeeded' : 'refund_failed', data: { refundId: row.id, processorRefundId: r.id, amount: r.amountMinor, currency: r.currency } } });
          }
          rows.splice(rows.indexOf(row), 1, updated);
        }
      }
      const refundedMinor = rows.filter((x) => x.state === 'succeeded').reduce((n, x) => n + x.amountMinor, 0);
      if (refundedMinor !== session.refundedMinor) await tx.checkoutSession.update({ where: { token }, data: { refundedMinor } });
      return refundsStateOf(chargedMinor ?? session.totalMinor ?? 0, rows);
    });
  }

    /**
     * The full refund of a COMPLETED card session, with idempotency key `refund-<token>` (a retry or a second
     * call answers the same refund). Records it as requested; REFUNDED follows the processor's event.
     */
  async function legacyFullRefund(token: string): Promise<{ refundId: string; paymentId: string }> {
      const session = await db.checkoutSession.findUniqueOrThrow({ where: { token } });
      if (session.status !== 'COMPLETED' || session.paymentMethod !== 'card') {
        throw ApplicationFailure.nonRetryable(`Only a completed card payment can be refunded (this checkout is ${session.status.toLowerCase()})`, 'NOT_REFUNDABLE');
      }
      const { client, businessId } = await clientFor(session.merchantId);
      const refunded = await (async () => {
        try {
          const paid = await sessionPayment(client, businessId, token, session.processorPaymentId);
          if (!paid || (paid.state !== 'paid' && paid.state !== 'refunded')) {
            throw ApplicationFailure.nonRetryable('The processor shows no paid payment for this checkout: nothing to refund', 'NOT_REFUNDABLE');
          }
          if (paid.state === 'refunded') return paid;
          try {
            return await client.refundPayment(paid.id, refundIdempotencyKey(token));
          } catch (err) {
            // Whop refuses a second refund (400): after a lost answer, the payment read again shows ours done.
            if (!isIntegrationError(err, 'rejected')) throw err;
            const again = await client.getPayment(paid.id);
            if (again.state !== 'refunded') throw err;
            return again;
          }
        } catch (err) {
          // A refusal is for the merchant to read; a transient failure keeps its kind so the activity retries.
          if (isIntegrationError(err) && !err.retryable) throw ApplicationFailure.nonRetryable(`The processor refused the refund: ${err.message}`, 'UPSTREAM_ERROR');
          throw err;
        }
      })();
      // Whop answers the payment; its newest refund (rf_…) is the reference, else the payment's own id.
      const refundId = refunded.refundId ?? refunded.id;
      await db.$transaction(async (tx) => {
        const { count } = await tx.checkoutSession.updateMany({ where: { token, refundRequestedAt: null }, data: { refundRequestedAt: new Date(), processorRefundId: refundId, lastActivityAt: new Date() } });
        if (count > 0) await tx.sessionEvent.create({ data: { token, type: 'refund_requested', data: { refundId, paymentId: refunded.id, amount: refunded.amountMinor, currency: refunded.currency } } });
      });
      return { refundId, paymentId: refunded.id };
    }

  /** A refund of `request.amountMinor` (or what is left), once per refund row: see refundProcessorPayment. */
  async function requestRefund(token: string, request: RefundRequest): Promise<{ refundId: string; paymentId: string; id: string; amountMinor: number; currency: string }> {
    const refusal = (code: string, message: string, details?: Record<string, unknown>) => ApplicationFailure.create({ type: code, message, nonRetryable: true, details: details ? [details] : [] });
    // What was charged is the processor's word (a payment held for another amount than the checkout's total).
    const charged = await (async () => {
      const s = await db.checkoutSession.findUniqueOrThrow({ where: { token } });
      if (s.paymentMethod !== 'card' || !s.processorPaymentId) return null;
      const { client, businessId } = await clientFor(s.merchantId);
      return (await paidPaymentOf(client, businessId, s))?.amountMinor ?? null;
    })();
    // The row first, checked against what is left under the session's lock (or found again on a retry).
    let storeRefusal = '';
    const row = await db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT token FROM checkout_sessions WHERE token = ${token} FOR UPDATE`;
      const existing = await tx.refund.findUnique({ where: { id: request.refundId } });
      if (existing) return existing;
      const session = await tx.checkoutSession.findUniqueOrThrow({ where: { token } });
      if (request.storeRefundId) {
        // A refund the merchant made in the store: one processor refund per store refund, whoever tells us first.
        const same = await tx.refund.findFirst({ where: { token, storeRefundId: request.storeRefundId } });
        if (same) return same;
      }
      const rows = await tx.refund.findMany({ where: { token } });
      const pendingMinor = rows.filter((r) => r.state === 'requested').reduce((n, r) => n + r.amountMinor, 0);
      const balance = { status: session.status as CheckoutStatus, paymentMethod: session.paymentMethod, totalMinor: charged ?? session.totalMinor, refundedMinor: session.refundedMinor, pendingMinor };
      const refused = refundRefusal(balance, request.amountMinor);
      if (refused) {
        // A refund made in the store that cannot be mirrored (a COD order, more than is left) stays on the timeline.
        if (request.origin === 'store') {
          storeRefusal = refused.message;
          await tx.sessionEvent.create({ data: { token, type: 'store_refund_not_refunded', data: { storeRefundId: request.storeRefundId ?? null, amount: request.amountMinor ?? null, why: refused.message } } });
          return null;
        }
        throw refusal(refused.code, refused.message, refused.refundableMinor === undefined ? undefined : { refundableMinor: refused.refundableMinor });
      }
      const amountMinor = request.amountMinor ?? (balance.totalMinor ?? 0) - session.refundedMinor - pendingMinor;
      const created = await tx.refund.create({
        data: {
          id: request.refundId, token, merchantId: session.merchantId, amountMinor, currency: session.currency, reason: request.reason ?? null, restock: request.restock ?? false,
          lines: (request.lines ?? []) as unknown as Prisma.InputJsonValue, origin: request.origin ?? 'merchant',
          ...(request.storeRefundId ? { storeRefundId: request.storeRefundId, storeState: 'created' } : {}),
        },
      });
      await tx.checkoutSession.updateMany({ where: { token, refundRequestedAt: null }, data: { refundRequestedAt: new Date() } });
      await tx.checkoutSession.update({ where: { token }, data: { lastActivityAt: new Date() } });
      await tx.sessionEvent.create({ data: { token, type: 'refund_requested', data: { refundId: created.id, amount: amountMinor, currency: session.currency, origin: created.origin, reason: created.reason, restock: created.restock } } });
      return created;
    });
    if (!row) throw refusal('NOT_REFUNDABLE', `The refund made in the store cannot be refunded at the processor: ${storeRefusal || 'see the order\'s timeline'}`);
    const answer = (paymentId: string) => ({ id: row.id, refundId: row.processorRefundId ?? row.id, paymentId, amountMinor: row.amountMinor, currency: row.currency });
    if (row.state === 'failed') throw refusal('UPSTREAM_ERROR', `The processor refused the refund: ${row.failureReason ?? 'no reason given'}`);
    const session = await db.checkoutSession.findUniqueOrThrow({ where: { token } });
    const { client, businessId } = await clientFor(session.merchantId);
    const paid = await paidPaymentOf(client, businessId, session);
    if (!paid) {
      await failRefund(row.id, token, 'The processor shows no paid payment for this checkout');
      throw refusal('NOT_REFUNDABLE', 'The processor shows no paid payment for this checkout: nothing to refund');
    }
    if (row.processorRefundId) return answer(paid.id);
    const claimId = async (processorRefundId: string) => {
      await db.refund.updateMany({ where: { id: row.id, processorRefundId: null }, data: { processorRefundId } });
      const again = await db.refund.findUniqueOrThrow({ where: { id: row.id } });
      await db.checkoutSession.updateMany({ where: { token, processorRefundId: null }, data: { processorRefundId: again.processorRefundId } });
      return { ...answer(paid.id), refundId: again.processorRefundId ?? again.id };
    };
    /** A processor refund of this amount that no row claims: ours, made by an earlier attempt whose answer was lost. */
    const unclaimed = async () => {
      const claimed = new Set((await db.refund.findMany({ where: { token, processorRefundId: { not: null } }, select: { processorRefundId: true } })).map((r) => r.processorRefundId));
      return (await client.listRefunds(paid.id)).find((r) => !claimed.has(r.id) && r.amountMinor === row.amountMinor && r.status !== 'failed' && r.status !== 'canceled') ?? null;
    };
    if (Context.current().info.attempt > 1) {
      const found = await unclaimed();
      if (found) return claimId(found.id);
    }
    try {
      await client.refundPayment(paid.id, refundRowIdempotencyKey(row.id), { amountMinor: row.amountMinor, currency: row.currency });
    } catch (err) {
      if (isIntegrationError(err) && !err.retryable) {
        // Whop refuses (nothing left, a payment that cannot be refunded): that refund is over; the merchant reads why.
        const found = await unclaimed().catch(() => null);
        if (found) return claimId(found.id);
        await failRefund(row.id, token, err.message);
        throw refusal('UPSTREAM_ERROR', `The processor refused the refund: ${err.message}`);
      }
      throw err;
    }
    const made = await unclaimed();
    return made ? claimId(made.id) : answer(paid.id);
  }

  async function failRefund(id: string, token: string, reason: string): Promise<void> {
    await db.$transaction(async (tx) => {
      const { count } = await tx.refund.updateMany({ where: { id, state: 'requested' }, data: { state: 'failed', failureReason: reason.slice(0, 500), storeState: 'none' } });
      if (count > 0) await tx.sessionEvent.create({ data: { token, type: 'refund_failed', data: { refundId: id, reason: reason.slice(0, 500) } } });
    });
  }

  return classifyFailures({
    /**
     * Whether the payment behind a success event can become the session's order (domain/checkout/payment-check.ts): read at
     * the processor — the event's own payment when it names one of this session's, else the session's paid payment —
     * and judged against the session's total. A payment of another checkout is no payment of this one.
     */
    async checkSessionPayment(token: string, paymentId: string): Promise<PaymentVerdict & { paymentId: string | null }> {
      const session = await db.checkoutSession.findUniqueOrThrow({ where: { token } });
      const { client, businessId } = await clientFor(session.merchantId);
      let payment: Payment | null = null;
      if (paymentId.startsWith('pay_')) {
        payment = await client.getPayment(paymentId);
        const attempts = await attemptsOf(token, session.processorPaymentId);
        const ours = payment.metadata.checkout_session_token === token || (payment.checkoutId !== null && attempts.includes(payment.checkoutId));
        if (!ours) return { verdict: 'unpaid', paymentId: null };
      } else {
        payment = await sessionPayment(client, businessId, token, session.processorPaymentId);
      }
      if (session.totalMinor === null) return { verdict: 'unpaid', paymentId: payment?.id ?? null };
      return { ...judgePayment(payment, { amountMinor: session.totalMinor, currency: session.currency }), paymentId: payment?.id ?? null };
    },

    /** A paid session held instead of becoming an order: why, on the session and its timeline (once per reason). */
    async recordPaymentHold(token: string, hold: { reason: HoldReason; message: string; paymentId: string | null }): Promise<void> {
      await db.$transaction(async (tx) => {
        const { count } = await tx.checkoutSession.updateMany({
          where: { token, OR: [{ holdReason: null }, { holdReason: { not: hold.reason } }] },
          data: { holdReason: hold.reason, holdMessage: hold.message.slice(0, 1000) },
        });
        if (count > 0) await tx.sessionEvent.create({ data: { token, type: 'payment_held', data: { reason: hold.reason, message: hold.message.slice(0, 1000), paymentId: hold.paymentId } } });
      });
    },

    /**
     * A refund of the session's card payment (`request`; none: the legacy full refund of histories recorded before
     * partial refunds). Checked against what is left under a lock on the session (two clicks cannot both take the
     * last euro), recorded as a refund row first, then asked of the processor with the row's idempotency key. Before a
     * retry re-sends it (an answer lost), the payment's refunds are read: one of this amount not claimed by any row is
     * this refund. Answers the row; the money is back once the processor's refund succeeds (syncProcessorRefunds).
     */
    async refundProcessorPayment(token: string, request?: RefundRequest): Promise<{ refundId: string; paymentId: string; id?: string; amountMinor?: number; currency?: string }> {
      if (request) return requestRefund(token, request);
      return legacyFullRefund(token);
    },

    /** The processor's refunds of the session's payment, reconciled with ours (webhook, poll or status sync). */
    async syncProcessorRefunds(token: string): Promise<RefundsState> {
      const session = await db.checkoutSession.findUniqueOrThrow({ where: { token } });
      if (session.paymentMethod !== 'card' || !session.processorPaymentId) return reconcileRefunds(token, []);
      const { client, businessId } = await clientFor(session.merchantId);
      const paid = await paidPaymentOf(client, businessId, session);
      return reconcileRefunds(token, paid ? await client.listRefunds(paid.id) : [], paid?.amountMinor);
    },

    /**
     * One hosted checkout for the session's total (a one-time price on the merchant's checkout product), carrying
     * checkout_session_token in its metadata: Whop copies it onto the payment, so webhooks find the session.
     */
    async createProcessorPayment(token: string, attempt: number): Promise<{ paymentId: string; paymentUrl: string }> {
      const session = await db.checkoutSession.findUniqueOrThrow({ where: { token }, include: { merchant: { select: { ...merchantPageFields, platformSubscription: { select: { planId: true, status: true } } } } } });
      if (session.totalMinor === null) throw ApplicationFailure.nonRetryable('The shopper details are missing', 'INVALID_INPUT');
      const { client, productId } = await clientFor(session.merchantId);
      const checkout = await client.createCheckout(
        {
          price: { productId, amountMinor: session.totalMinor, currency: session.currency, title: `${session.merchant.shopName} order` },
          metadata: { checkout_session_token: token },
          redirectUrl: checkoutPageUrl(session.merchant, token),
          // Whop's page offers wallets unless told not to: the plan decides (model/merchant/wallets.ts).
          wallets: walletsOffered(session.merchant.platformSubscription, { preview: session.source === 'preview' }),
        },
        `checkout-${token}-${attempt}`,
      );
      await db.checkoutSession.update({
        where: { token },
        data: { processorPaymentId: checkout.id, paymentUrl: checkout.purchaseUrl, paymentMethod: 'card', paymentAttempt: attempt, lastActivityAt: new Date() },
      });
      await recordSessionEvent(db, token, 'payment_started', { paymentId: checkout.id, attempt, amount: session.totalMinor, currency: session.currency });
      return { paymentId: checkout.id, paymentUrl: checkout.purchaseUrl };
    },

    /**
     * A checkout whose total is 0 (a 100 % code with free shipping): nothing to charge, so no processor
     * payment; the session's payment method becomes `free` (once: the timeline notes it once). Answers the
     * checkout page, where the shopper sees the order confirmed.
     */
    async confirmNothingToPay(token: string): Promise<{ returnUrl: string }> {
      const session = await db.checkoutSession.findUniqueOrThrow({ where: { token }, include: { merchant: { select: merchantPageFields } } });
      if (session.totalMinor !== 0) throw ApplicationFailure.nonRetryable(`The total of checkout ${token} is not 0: it must be paid`, 'CONFLICT');
      const { count } = await db.checkoutSession.updateMany({
        where: { token, OR: [{ paymentMethod: null }, { paymentMethod: { not: 'free' } }] },
        data: { paymentMethod: 'free', lastActivityAt: new Date() },
      });
      if (count > 0) await recordSessionEvent(db, token, 'nothing_to_pay', { totalMinor: 0, currency: session.currency });
      return { returnUrl: checkoutPageUrl(session.merchant, token) };
    },

    /**
     * The shopper accepted a post-purchase upsell on a checkout paid by card: its offer price (in the session's
     * currency, with its FX snapshot) is charged once on the payment method of the checkout's payment, off
     * session (Whop POST /payments with company_id, member_id, payment_method_id and a one-time plan on the
     * merchant's product; idempotency key upsell-<token>-<upsellId>) — only when Whop keeps that method for the
     * member's off-session charges (GET /payment_methods?member_id): a card paid on Whop's hosted page in payment
     * mode is not, and the offer is then for a new order. The purchase row is written before the charge and keeps
     * what was offered; a second acceptance answers the same purchase. Before any retry of the charge (its row
     * exists without a payment: a later attempt or run) the payment is looked up by our metadata and adopted: Whop
     * may not honour Idempotency-Key on POST /payments, so a lost answer must never become a second charge.
     * A decline is an answer (state failed), not an error.
     */
    async chargeUpsell(token: string, upsellId: string): Promise<UpsellCharge> {
      const session = await db.checkoutSession.findUnique({ where: { token }, include: { merchant: { select: { shopName: true } } } });
      if (!session) throw ApplicationFailure.nonRetryable(`No checkout session ${token}`, 'NOT_FOUND');
      if (session.status !== 'COMPLETED' || session.paymentMethod !== 'card') throw notAvailable('Offers can be added with one click only to an order paid by card');
      const existing = await db.upsellPurchase.findUnique({ where: { token_upsellId: { token, upsellId } } });
      if (existing?.processorPaymentId || existing?.status === 'FAILED') return chargeOf(existing);
      const upsell = await db.upsell.findFirst({ where: { id: upsellId, merchantId: session.merchantId } });
      if (!existing && (!upsell || !upsell.active || upsell.placement !== 'post_purchase')) throw notAvailable('This offer is not available any more');

      const { client, businessId, productId } = await clientFor(session.merchantId);
      const metadata = { checkout_session_token: token, checkout_upsell_id: upsellId };
      // The row is written before the charge, so a row without a payment is the only sign of an earlier attempt (or run)
      // that may have charged and lost the answer: its payment is found by our metadata and adopted, never made again.
      if (existing) {
        const since = new Date(existing.createdAt.getTime() - CLOCK_SKEW_MS);
        const made = await client.findPayment({ companyId: businessId, productId, createdAfter: since, metadata });
        if (made) return chargeOf(await settleUpsell(existing, { state: made.state, paymentId: made.id, reason: made.failureMessage }));
      }
      const paid = await sessionPayment(client, businessId, token, session.processorPaymentId);
      const card = paid?.state === 'paid' && paid.memberId && paid.paymentMethodId ? { memberId: paid.memberId, paymentMethodId: paid.paymentMethodId } : null;
      if (!card || !(await client.listSavedPaymentMethods(card.memberId)).some((m) => m.id === card.paymentMethodId)) {
        throw notAvailable('The payment method of this order cannot be charged again: the offer can be bought as a new order');
      }
      const row = existing ?? await (async () => {
        const { offerPrice } = upsellPrices(upsell!, session.currency, sessionFxRates(session.fxRates));
        if (offerPrice.amount <= 0) throw notAvailable('This offer has no price to charge');
        return db.upsellPurchase.upsert({
          where: { token_upsellId: { token, upsellId } },
          create: {
            token, merchantId: session.merchantId, upsellId, title: upsell!.title, productId: upsell!.productId, variantId: upsell!.variantId,
            amountMinor: offerPrice.amount, currency: session.currency,
          },
          update: {},
        });
      })();
      let payment: Payment;
      try {
        payment = await client.chargeSavedMethod({
          companyId: businessId, memberId: card.memberId, paymentMethodId: card.paymentMethodId,
          price: { productId, amountMinor: row.amountMinor, currency: row.currency, title: `${session.merchant.shopName}: ${row.title}`.slice(0, 60) },
          // The session's token leads the webhook to the session's secret and workflow; the upsell id to this purchase
          // (and a lost answer to its payment, findPayment above).
          metadata,
        }, upsellChargeIdempotencyKey(token, upsellId));
      } catch (err) {
        if (isIntegrationError(err) && !err.retryable) {
          // Whop refused the charge itself (the method cannot be used off session, ...): a final answer for the shopper.
          const failed = await settleUpsell(row, { state: 'failed', paymentId: null, reason: err.message.slice(0, 500) });
          return chargeOf(failed);
        }
        throw err;
      }
      const settled = await settleUpsell(row, { state: payment.state, paymentId: payment.id, reason: payment.failureMessage });
      return chargeOf(settled);
    },

    /** The processor's word on an accepted upsell's charge (a webhook, or the workflow's poll while it is pending). */
    async recordUpsellPayment(token: string, upsellId: string, outcome: { state: UpsellChargeOutcome; paymentId: string | null; reason?: string | null }): Promise<UpsellCharge> {
      const row = await db.upsellPurchase.findUnique({ where: { token_upsellId: { token, upsellId } } });
      if (!row) throw ApplicationFailure.nonRetryable(`No upsell ${upsellId} was accepted on checkout ${token}`, 'NOT_FOUND');
      return chargeOf(await settleUpsell(row, { ...outcome, reason: outcome.reason ?? null }));
    },

    /** Asks the processor about a pending upsell charge and records what it says. */
    async getUpsellPaymentStatus(token: string, upsellId: string): Promise<UpsellCharge> {
      const row = await db.upsellPurchase.findUnique({ where: { token_upsellId: { token, upsellId } } });
      if (!row) throw ApplicationFailure.nonRetryable(`No upsell ${upsellId} was accepted on checkout ${token}`, 'NOT_FOUND');
      if (!row.processorPaymentId) return chargeOf(row);
      const { client } = await clientFor(row.merchantId);
      const payment = await client.getPayment(row.processorPaymentId);
      return chargeOf(await settleUpsell(row, { state: payment.state, paymentId: payment.id, reason: payment.failureMessage }));
    },

    /** The processor's word on the session's current payment (for pay, refresh-status and reconciliation). */
    async getProcessorPaymentStatus(token: string): Promise<{ paymentId: string; status: string } | null> {
      const session = await db.checkoutSession.findUniqueOrThrow({ where: { token } });
      if (!session.processorPaymentId) return null;
      const { client, businessId } = await clientFor(session.merchantId);
      const payment = await sessionPayment(client, businessId, token, session.processorPaymentId);
      // Not paid on the hosted page yet: the attempt itself, pending.
      if (!payment) return { paymentId: session.processorPaymentId, status: 'pending' };
      return { paymentId: payment.id, status: SYNC_STATUS[payment.state] };
    },
  });
}

export type CheckoutPaymentActivities = ReturnType<typeof createCheckoutPaymentActivities>;
