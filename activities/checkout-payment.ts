// The session's payment at the processor: created once per attempt (the idempotency key is the token and
// the attempt number, so a retried activity or a double click gets the same payment), and looked up for
// status syncs and reconciliation.
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../config/index.js';
import type { Db } from '../prisma/client.js';
import type { SecretBox } from '../security/secrets.js';
import type { ProcessorClient } from '../integrations/processor/index.js';
import { processorClientFor } from '../model/connections.js';
import { checkoutOrigin } from '../domain/checkout-origin.js';
import { isIntegrationError } from '../integrations/errors.js';
import { classifyFailures } from './failures.js';
import { recordSessionEvent } from './session-events.js';

/** One refund per session, whatever retries or clicks happen: the processor answers a repeated key with the first refund. */
export const refundIdempotencyKey = (token: string) => `refund-${token}`;

export function createCheckoutPaymentActivities(deps: { db: Db; secrets: SecretBox; config: Config; timeoutMs?: number }) {
  const { db, config } = deps;

  const clientFor = (merchantId: string) => processorClientFor(deps, merchantId);

  /** The session's paid payment: the current attempt's, or (after a retry) the one of its attempts the processor shows as paid. */
  async function paidPayment(client: ProcessorClient, token: string, paymentId: string | null) {
    const current = paymentId ? await client.getPayment(paymentId) : null;
    if (current && (current.status === 'succeeded' || current.status === 'refunded')) return current;
    const all = await client.listPayments({ checkoutSessionToken: token });
    return all.find((p) => p.status === 'succeeded' || p.status === 'refunded') ?? current;
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
      const { client } = await clientFor(session.merchantId);
      const { refund, paymentId } = await (async () => {
        try {
          const paid = await paidPayment(client, token, session.processorPaymentId);
          if (!paid || (paid.status !== 'succeeded' && paid.status !== 'refunded')) {
            throw ApplicationFailure.nonRetryable('The processor shows no paid payment for this checkout: nothing to refund', 'NOT_REFUNDABLE');
          }
          return { refund: await client.refundPayment(paid.id, refundIdempotencyKey(token)), paymentId: paid.id };
        } catch (err) {
          // A refusal is for the merchant to read; a transient failure keeps its kind so the activity retries.
          if (isIntegrationError(err) && !err.retryable) throw ApplicationFailure.nonRetryable(`The processor refused the refund: ${err.message}`, 'UPSTREAM_ERROR');
          throw err;
        }
      })();
      await db.$transaction(async (tx) => {
        const { count } = await tx.checkoutSession.updateMany({ where: { token, refundRequestedAt: null }, data: { refundRequestedAt: new Date(), processorRefundId: refund.id, lastActivityAt: new Date() } });
        if (count > 0) await tx.sessionEvent.create({ data: { token, type: 'refund_requested', data: { refundId: refund.id, paymentId, amount: refund.amount, currency: refund.currency } } });
      });
      return { refundId: refund.id, paymentId };
    },

    /** One payment for the session's total, carrying checkout_session_token so webhooks find the session. */
    async createProcessorPayment(token: string, attempt: number): Promise<{ paymentId: string; paymentUrl: string }> {
      const session = await db.checkoutSession.findUniqueOrThrow({ where: { token }, include: { merchant: { select: { slug: true, shopName: true, customDomain: { select: { hostname: true, status: true } } } } } });
      if (session.totalMinor === null) throw ApplicationFailure.nonRetryable('The shopper details are missing', 'INVALID_INPUT');
      const { client, productId } = await clientFor(session.merchantId);
      const payment = await client.createPayment(
        {
          amount: session.totalMinor,
          currency: session.currency,
          product_id: productId,
          metadata: { checkout_session_token: token },
          // Back to where the shopper paid from: the verified custom domain, else the subdomain.
          return_url: `${checkoutOrigin(session.merchant.slug, { production: config.env === 'production', serviceDomain: config.serviceDomain, port: config.api.port }, session.merchant.customDomain?.status === 'VERIFIED' ? session.merchant.customDomain.hostname : null)}/checkout/${token}`,
          description: `${session.merchant.shopName} order`,
        },
        `checkout-${token}-${attempt}`,
      );
      await db.checkoutSession.update({
        where: { token },
        data: { processorPaymentId: payment.id, paymentUrl: payment.payment_url, paymentMethod: 'card', paymentAttempt: attempt, lastActivityAt: new Date() },
      });
      await recordSessionEvent(db, token, 'payment_started', { paymentId: payment.id, attempt, amount: session.totalMinor, currency: session.currency });
      return { paymentId: payment.id, paymentUrl: payment.payment_url };
    },

    /** The processor's word on the session's current payment (for pay, refresh-status and reconciliation). */
    async getProcessorPaymentStatus(token: string): Promise<{ paymentId: string; status: string } | null> {
      const session = await db.checkoutSession.findUniqueOrThrow({ where: { token } });
      if (!session.processorPaymentId) return null;
      const { client } = await clientFor(session.merchantId);
      const payment = await client.getPayment(session.processorPaymentId);
      return { paymentId: payment.id, status: payment.status };
    },
  });
}

export type CheckoutPaymentActivities = ReturnType<typeof createCheckoutPaymentActivities>;
