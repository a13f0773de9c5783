// The session's payment at the processor: created once per attempt (the idempotency key is the token and
// the attempt number, so a retried activity or a double click gets the same payment), and looked up for
// status syncs and reconciliation.
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../config/index.js';
import type { Db } from '../prisma/client.js';
import type { SecretBox } from '../security/secrets.js';
import { createProcessorClient } from '../integrations/processor/index.js';
import { processorAad } from '../workflows/processor-connection.messages.js';
import { checkoutOrigin } from '../domain/checkout-origin.js';
import { classifyFailures } from './failures.js';

export function createCheckoutPaymentActivities(deps: { db: Db; secrets: SecretBox; config: Config; timeoutMs?: number }) {
  const { db, secrets, config } = deps;

  async function clientFor(merchantId: string) {
    const connection = await db.processorConnection.findUnique({ where: { merchantId } });
    if (!connection || connection.status !== 'CONNECTED' || !connection.productId) {
      throw ApplicationFailure.nonRetryable('This store cannot take card payments: its processor is not connected', 'CONFLICT');
    }
    const apiKey = secrets.decrypt(connection.apiKeyEnc, processorAad.apiKey(merchantId));
    return { client: createProcessorClient({ apiKey, baseUrl: config.processor.apiUrl, timeoutMs: deps.timeoutMs }), productId: connection.productId };
  }

  return classifyFailures({
    /** One payment for the session's total, carrying checkout_session_token so webhooks find the session. */
    async createProcessorPayment(token: string, attempt: number): Promise<{ paymentId: string; paymentUrl: string }> {
      const session = await db.checkoutSession.findUniqueOrThrow({ where: { token }, include: { merchant: { select: { slug: true, shopName: true } } } });
      if (session.totalMinor === null) throw ApplicationFailure.nonRetryable('The shopper details are missing', 'INVALID_INPUT');
      const { client, productId } = await clientFor(session.merchantId);
      const payment = await client.createPayment(
        {
          amount: session.totalMinor,
          currency: session.currency,
          product_id: productId,
          metadata: { checkout_session_token: token },
          return_url: `${checkoutOrigin(session.merchant.slug, { production: config.env === 'production', serviceDomain: config.serviceDomain, port: config.api.port })}/checkout/${token}`,
          description: `${session.merchant.shopName} order`,
        },
        `checkout-${token}-${attempt}`,
      );
      await db.checkoutSession.update({
        where: { token },
        data: { processorPaymentId: payment.id, paymentUrl: payment.payment_url, paymentMethod: 'card', paymentAttempt: attempt, lastActivityAt: new Date() },
      });
      await db.sessionEvent.create({ data: { token, type: 'payment_started', data: { paymentId: payment.id, attempt, amount: session.totalMinor, currency: session.currency } } });
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
