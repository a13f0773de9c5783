// The session's payment at the processor (Whop). A payment attempt is a Whop checkout configuration (`ch_…`:
// the session's processorPaymentId holds the current attempt's), created once per attempt (the idempotency key is
// the token and the attempt number, so a retried activity or a double click gets the same checkout); the payment
// itself (`pay_…`) exists once the shopper paid on its purchase_url, and is found by listing the payments of the
// session's checkouts. Looked up for status syncs, reconciliation and the refund.
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../config/index.js';
import type { Db } from '../prisma/client.js';
import type { SecretBox } from '../security/secrets.js';
import type { Payment, ProcessorClient } from '../integrations/processor/index.js';
import { processorClientFor } from '../model/connections.js';
import { checkoutOrigin } from '../domain/checkout-origin.js';
import { isIntegrationError } from '../integrations/errors.js';
import { classifyFailures } from './failures.js';
import { recordSessionEvent } from './session-events.js';
import { sessionFxRates } from '../model/checkout-session.js';
import { upsellPrices } from '../model/pricing.js';
import { nextUpsellState, upsellOutcomeOf, type UpsellCharge, type UpsellChargeOutcome, type UpsellPurchaseState } from '../domain/upsell-purchase.js';
import type { UpsellPurchase } from '../generated/prisma/client.js';

/** One refund per session, whatever retries or clicks happen: the processor answers a repeated key with the first answer. */
export const refundIdempotencyKey = (token: string) => `refund-${token}`;

/** The one idempotency key of an upsell's charge: a retry, a double click or a new run charges the same payment. */
export const upsellChargeIdempotencyKey = (token: string, upsellId: string) => `upsell-${token}-${upsellId}`;

const chargeOf = (row: UpsellPurchase): UpsellCharge => ({
  upsellId: row.upsellId, state: upsellOutcomeOf(row.status as UpsellPurchaseState), amountMinor: row.amountMinor, currency: row.currency,
  paymentId: row.processorPaymentId, failureReason: row.failureReason,
});

const notAvailable = (message: string) => ApplicationFailure.nonRetryable(message, 'UPSELL_NOT_AVAILABLE');

/** Payment states as the checkout workflow's status sync names them (workflows/checkout.messages.ts PAYMENT_STATUS_EVENTS). */
const SYNC_STATUS: Readonly<Record<Payment['state'], string>> = { paid: 'succeeded', failed: 'failed', refunded: 'refunded', pending: 'pending' };

const merchantPageFields = { slug: true, shopName: true, customDomain: { select: { hostname: true, status: true } } } as const;

export function createCheckoutPaymentActivities(deps: { db: Db; secrets: SecretBox; config: Config; timeoutMs?: number }) {
  const { db, config } = deps;

  /** The session's checkout page, where the shopper comes back to: the verified custom domain, else the subdomain. */
  const checkoutPageUrl = (merchant: { slug: string; customDomain: { hostname: string; status: string } | null }, token: string) =>
    `${checkoutOrigin(merchant.slug, { production: config.env === 'production', serviceDomain: config.serviceDomain, port: config.api.port }, merchant.customDomain?.status === 'VERIFIED' ? merchant.customDomain.hostname : null)}/checkout/${token}`;

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

  /** Moves an upsell purchase on by the processor's word (domain/upsell-purchase.ts); the timeline notes each change. */
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

  return classifyFailures({
    /**
     * The full refund of a COMPLETED card session, with idempotency key `refund-<token>` (a retry or a second
     * call answers the same refund). Records it as requested; REFUNDED follows the processor's event.
     */
    async refundProcessorPayment(token: string): Promise<{ refundId: string; paymentId: string }> {
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
    },

    /**
     * One hosted checkout for the session's total (a one-time price on the merchant's checkout product), carrying
     * checkout_session_token in its metadata: Whop copies it onto the payment, so webhooks find the session.
     */
    async createProcessorPayment(token: string, attempt: number): Promise<{ paymentId: string; paymentUrl: string }> {
      const session = await db.checkoutSession.findUniqueOrThrow({ where: { token }, include: { merchant: { select: merchantPageFields } } });
      if (session.totalMinor === null) throw ApplicationFailure.nonRetryable('The shopper details are missing', 'INVALID_INPUT');
      const { client, productId } = await clientFor(session.merchantId);
      const checkout = await client.createCheckout(
        {
          price: { productId, amountMinor: session.totalMinor, currency: session.currency, title: `${session.merchant.shopName} order` },
          metadata: { checkout_session_token: token },
          redirectUrl: checkoutPageUrl(session.merchant, token),
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
     * merchant's product; idempotency key upsell-<token>-<upsellId>). The purchase row is written before the
     * charge and keeps what was offered; a second acceptance answers the same purchase. A decline is an
     * answer (state failed), not an error.
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
      const paid = await sessionPayment(client, businessId, token, session.processorPaymentId);
      if (!paid || paid.state !== 'paid' || !paid.memberId || !paid.paymentMethodId) {
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
          companyId: businessId, memberId: paid.memberId, paymentMethodId: paid.paymentMethodId,
          price: { productId, amountMinor: row.amountMinor, currency: row.currency, title: `${session.merchant.shopName}: ${row.title}`.slice(0, 60) },
          // The session's token leads the webhook to the session's secret and workflow; the upsell id to this purchase.
          metadata: { checkout_session_token: token, checkout_upsell_id: upsellId },
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
