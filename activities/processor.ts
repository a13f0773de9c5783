// Processor connection activities: check the merchant's API key, find the business behind it, create the
// checkout product and register our payment webhook, each step persisted in processor_connections as it
// completes. Secrets stay on this side of Temporal: the API key is read sealed from the row, the webhook
// secret is sealed into the row here, and neither is ever an activity argument or result.
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../config/index.js';
import type { Db } from '../prisma/client.js';
import type { SecretBox } from '../security/secrets.js';
import { createProcessorClient, PROCESSOR_EVENTS, type ProcessorClient } from '../integrations/processor/index.js';
import { isIntegrationError } from '../integrations/errors.js';
import { processorAad, type ProcessorConnectionResult } from '../workflows/processor-connection.messages.js';
import { classifyFailures } from './failures.js';

export const PROCESSOR_WEBHOOK_PATH = '/webhooks/processor/payment-update';
/** The product every checkout payment is booked against (the processor does not split product and shipping). */
export const CHECKOUT_PRODUCT = { name: 'Checkout', description: 'Hosted checkout' } as const;

export interface ProcessorActivityDeps {
  db: Db;
  secrets: SecretBox;
  config: Config;
  /** Per-call time-out of the processor client (default 10 s); tests shorten it. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export function createProcessorActivities(deps: ProcessorActivityDeps) {
  const { db, secrets, config } = deps;

  /** The connection row; the merchant may have disconnected (or started over) while the workflow ran. */
  async function connection(merchantId: string) {
    const row = await db.processorConnection.findUnique({ where: { merchantId } });
    if (!row) throw ApplicationFailure.nonRetryable('The processor connection was removed while it was being set up', 'CONFLICT');
    return row;
  }

  function clientFor(merchantId: string, apiKeyEnc: string): ProcessorClient {
    let apiKey: string;
    try {
      apiKey = secrets.decrypt(apiKeyEnc, processorAad.apiKey(merchantId));
    } catch {
      // A key sealed with another SECRETS_KEY (or tampered with) will not open on a retry either.
      throw ApplicationFailure.nonRetryable('The stored processor API key cannot be read: connect the processor again', 'INTERNAL_ERROR');
    }
    return createProcessorClient({
      apiKey,
      baseUrl: config.processor.apiUrl,
      timeoutMs: deps.timeoutMs,
      fetch: deps.fetch,
    });
  }

  return classifyFailures({
    /** GET /v1/me with the stored key: the business it belongs to is saved on the connection. */
    async validateProcessorKey(merchantId: string): Promise<{ businessId: string }> {
      const row = await connection(merchantId);
      const business = await clientFor(merchantId, row.apiKeyEnc).validateKey();
      await db.processorConnection.update({ where: { merchantId }, data: { businessId: business.id } });
      return { businessId: business.id };
    },

    /** The checkout product; the idempotency key (per merchant) makes a retry or a reconnect answer the same one. */
    async createProcessorProduct(merchantId: string): Promise<{ productId: string }> {
      const row = await connection(merchantId);
      const product = await clientFor(merchantId, row.apiKeyEnc).createProduct({ ...CHECKOUT_PRODUCT }, `checkout-product-${merchantId}`);
      await db.processorConnection.update({ where: { merchantId }, data: { productId: product.id } });
      return { productId: product.id };
    },

    /**
     * Registers our payment webhook for every processor event and seals its signing secret into the row.
     * `idempotencyKey` is per workflow run: a retried activity gets the first endpoint back, secret included.
     */
    async registerProcessorWebhook(input: { merchantId: string; idempotencyKey: string }): Promise<{ webhookId: string }> {
      const { merchantId } = input;
      const row = await connection(merchantId);
      const endpoint = await clientFor(merchantId, row.apiKeyEnc).registerWebhook(
        { url: `${config.publicApiUrl}${PROCESSOR_WEBHOOK_PATH}`, events: [...PROCESSOR_EVENTS] },
        input.idempotencyKey,
      );
      await db.processorConnection.update({
        where: { merchantId },
        data: { webhookId: endpoint.id, webhookSecretEnc: secrets.encrypt(endpoint.secret, processorAad.webhookSecret(merchantId)) },
      });
      return { webhookId: endpoint.id };
    },

    async markProcessorConnected(merchantId: string): Promise<ProcessorConnectionResult> {
      const row = await connection(merchantId);
      if (!row.businessId || !row.productId || !row.webhookId || !row.webhookSecretEnc) {
        throw ApplicationFailure.nonRetryable('The processor connection is incomplete', 'INTERNAL_ERROR');
      }
      const connectedAt = new Date();
      await db.processorConnection.update({ where: { merchantId }, data: { status: 'CONNECTED', connectedAt, lastError: null } });
      return { businessId: row.businessId, productId: row.productId, webhookId: row.webhookId, connectedAt: connectedAt.toISOString() };
    },

    /**
     * Records why the connection failed and drops what it had obtained, so nothing half-made looks usable.
     * A webhook still registered (its removal failed) keeps its id, so a later disconnect can remove it.
     */
    async markProcessorConnectionFailed(merchantId: string, reason: string): Promise<void> {
      await db.processorConnection.updateMany({
        where: { merchantId },
        data: { status: 'FAILED', lastError: reason.slice(0, 500), businessId: null, productId: null, connectedAt: null },
      });
    },

    /** Removes our webhook endpoint at the processor (already gone, or a key the processor no longer accepts: nothing left to do). */
    async unregisterProcessorWebhook(merchantId: string): Promise<{ unregistered: boolean }> {
      const row = await db.processorConnection.findUnique({ where: { merchantId } });
      if (!row?.webhookId) return { unregistered: false };
      let unregistered = true;
      try {
        await clientFor(merchantId, row.apiKeyEnc).deleteWebhook(row.webhookId);
      } catch (err) {
        if (!isIntegrationError(err, 'not_found') && !isIntegrationError(err, 'unauthorized')) throw err;
        unregistered = false;
      }
      await db.processorConnection.updateMany({ where: { merchantId, webhookId: row.webhookId }, data: { webhookId: null, webhookSecretEnc: null } });
      return { unregistered };
    },

    async deleteProcessorConnection(merchantId: string): Promise<{ deleted: boolean }> {
      const { count } = await db.processorConnection.deleteMany({ where: { merchantId } });
      return { deleted: count > 0 };
    },
  });
}

export type ProcessorActivities = ReturnType<typeof createProcessorActivities>;
