// Processor connection activities: check the merchant's API key, find the business behind it, create the
// checkout product and register our payment webhook, each step persisted as it completes on the row of the
// key being set up: its attempt (processor_connection_attempts), which replaces processor_connections in one
// transaction only once complete, so a refused key never breaks a working connection; or, for runs started
// before attempts existed, the connection row itself. Secrets stay on this side of Temporal: the API key is
// read sealed from the row, the webhook secret is sealed into the row here, and neither is ever an activity
// argument or result.
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../../config/index.js';
import type { Db } from '../../prisma/client.js';
import type { SecretBox } from '../../security/secrets.js';
import { SUBSCRIBED_EVENTS, type ProcessorClient } from '../../integrations/processor/index.js';
import { PROCESSOR_WEBHOOK_PATH, processorAad, processorClientOf } from '../../model/connections.js';
import { isIntegrationError } from '../../integrations/errors.js';
import { classifyFailures } from '../failures.js';

/** Where the key being set up lives: an attempt, or (a bare merchant id) the connection row of a run from before attempts. */
export type ProcessorKeyRef = string | { merchantId: string; attemptId: string };
export interface ProcessorConnectionResult {
  businessId: string;
  productId: string;
  webhookId: string;
  connectedAt: string;
}

/** The product every checkout payment is booked against (the processor does not split product and shipping). */
export const CHECKOUT_PRODUCT = { title: 'Checkout' } as const;

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

  type SetupFields = { businessId?: string; productId?: string; webhookId?: string | null; webhookSecretEnc?: string | null };

  /**
   * The row of the key being set up, and how to record a step on it: the attempt, which must still be
   * CONNECTING (a newer connect or a disconnect may have ended it), or, for a bare merchant id (runs started
   * before attempts existed), the connection row.
   */
  async function keyBeingSetUp(ref: ProcessorKeyRef) {
    if (typeof ref === 'string') {
      const row = await connection(ref);
      return { merchantId: ref, row, record: (data: SetupFields) => db.processorConnection.update({ where: { merchantId: ref }, data }) };
    }
    const row = await db.processorConnectionAttempt.findFirst({ where: { id: ref.attemptId, merchantId: ref.merchantId } });
    if (!row || row.status !== 'CONNECTING' || !row.apiKeyEnc) {
      throw ApplicationFailure.nonRetryable('This connection attempt was replaced or removed while it was being set up', 'CONFLICT');
    }
    return {
      merchantId: ref.merchantId,
      row: { ...row, apiKeyEnc: row.apiKeyEnc },
      record: (data: SetupFields) => db.processorConnectionAttempt.update({ where: { id: ref.attemptId }, data }),
    };
  }

  const clientFor = (merchantId: string, apiKeyEnc: string): ProcessorClient => processorClientOf(deps, merchantId, apiKeyEnc);

  /** Deletes a webhook endpoint with the key it was registered with; false when it was already gone or the key no longer opens the account. */
  async function deleteWebhookWith(merchantId: string, apiKeyEnc: string, webhookId: string): Promise<boolean> {
    try {
      await clientFor(merchantId, apiKeyEnc).deleteWebhook(webhookId);
      return true;
    } catch (err) {
      if (isIntegrationError(err, 'not_found') || isIntegrationError(err, 'unauthorized')) return false;
      throw err;
    }
  }

  return classifyFailures({
    /** GET /accounts/me with the key being set up: the company (Business ID) it belongs to is saved with it. */
    async validateProcessorKey(ref: ProcessorKeyRef): Promise<{ businessId: string }> {
      const { merchantId, row, record } = await keyBeingSetUp(ref);
      const business = await clientFor(merchantId, row.apiKeyEnc).getAccount();
      await record({ businessId: business.id });
      return { businessId: business.id };
    },

    /** The checkout product; the idempotency key (per merchant) makes a retry or a reconnect answer the same one. */
    async createProcessorProduct(ref: ProcessorKeyRef): Promise<{ productId: string }> {
      const { merchantId, row, record } = await keyBeingSetUp(ref);
      if (!row.businessId) throw ApplicationFailure.nonRetryable('The processor key was not checked yet', 'INTERNAL_ERROR');
      const product = await clientFor(merchantId, row.apiKeyEnc).createProduct({ companyId: row.businessId, ...CHECKOUT_PRODUCT }, `checkout-product-${merchantId}`);
      await record({ productId: product.id });
      return { productId: product.id };
    },

    /**
     * Registers our payment webhook for every processor event and seals its signing secret with the key.
     * `idempotencyKey` is per workflow run: a retried activity gets the first endpoint back, secret included.
     */
    async registerProcessorWebhook(input: { merchantId: string; attemptId?: string; idempotencyKey: string }): Promise<{ webhookId: string; refusedEvents?: string[] }> {
      const { merchantId, row, record } = await keyBeingSetUp(input.attemptId ? { merchantId: input.merchantId, attemptId: input.attemptId } : input.merchantId);
      if (!row.businessId) throw ApplicationFailure.nonRetryable('The processor key was not checked yet', 'INTERNAL_ERROR');
      const endpoint = await clientFor(merchantId, row.apiKeyEnc).createWebhook(
        { companyId: row.businessId, url: `${config.publicApiUrl}${PROCESSOR_WEBHOOK_PATH}`, events: SUBSCRIBED_EVENTS },
        input.idempotencyKey,
      );
      await record({ webhookId: endpoint.id, webhookSecretEnc: secrets.encrypt(endpoint.secret, processorAad.webhookSecret(merchantId)) });
      // A name Whop refused does not fail the connection: the endpoint carries the rest; the names stay in the
      // activity's result (the workflow history) for the operator.
      return { webhookId: endpoint.id, ...(endpoint.refusedEvents.length ? { refusedEvents: endpoint.refusedEvents } : {}) };
    },

    /**
     * The attempt becomes the connection, in one transaction: processor_connections takes its key, business,
     * product and webhook; the connection it replaces (if any) stays behind in the attempt row as REPLACED, so
     * its webhook can be removed with its own key (removeStaleProcessorWebhooks). Idempotent: a retry after a
     * lost answer finds the connection already carrying `webhookId`.
     */
    async promoteProcessorAttempt(input: { merchantId: string; attemptId: string; webhookId: string }): Promise<ProcessorConnectionResult> {
      const { merchantId, attemptId } = input;
      return db.$transaction(async (tx) => {
        const live = await tx.processorConnection.findUnique({ where: { merchantId } });
        const attempt = await tx.processorConnectionAttempt.findFirst({ where: { id: attemptId, merchantId } });
        if (live?.webhookId === input.webhookId && live.status === 'CONNECTED' && live.connectedAt && live.businessId && live.productId) {
          return { businessId: live.businessId, productId: live.productId, webhookId: input.webhookId, connectedAt: live.connectedAt.toISOString() };
        }
        if (!attempt || attempt.status !== 'CONNECTING' || !attempt.apiKeyEnc) {
          throw ApplicationFailure.nonRetryable('This connection attempt was replaced or removed while it was being set up', 'CONFLICT');
        }
        const { apiKeyEnc, businessId, productId, webhookId, webhookSecretEnc } = attempt;
        if (!businessId || !productId || !webhookId || !webhookSecretEnc) throw ApplicationFailure.nonRetryable('The processor connection is incomplete', 'INTERNAL_ERROR');
        const connectedAt = new Date();
        const fields = { apiKeyEnc, apiKeyLast4: attempt.apiKeyLast4, businessId, productId, webhookId, webhookSecretEnc, status: 'CONNECTED' as const, lastError: null, connectedAt };
        await tx.processorConnection.upsert({ where: { merchantId }, create: { merchantId, ...fields }, update: fields });
        if (live) {
          await tx.processorConnectionAttempt.update({
            where: { id: attemptId },
            data: { status: 'REPLACED', apiKeyEnc: live.apiKeyEnc, apiKeyLast4: live.apiKeyLast4, businessId: live.businessId, productId: live.productId, webhookId: live.webhookId, webhookSecretEnc: null, lastError: null },
          });
        } else {
          await tx.processorConnectionAttempt.delete({ where: { id: attemptId } });
        }
        return { businessId, productId, webhookId, connectedAt: connectedAt.toISOString() };
      });
    },

    /**
     * Records why the attempt failed. Its key stays only while a webhook registered with it is still there (its
     * removal failed): the next successful connect, or a disconnect, removes it with that key.
     */
    async markProcessorAttemptFailed(input: { merchantId: string; attemptId: string }, reason: string): Promise<void> {
      const row = await db.processorConnectionAttempt.findFirst({ where: { id: input.attemptId, merchantId: input.merchantId } });
      if (!row || row.status !== 'CONNECTING') return;
      await db.processorConnectionAttempt.update({
        where: { id: row.id },
        data: { status: 'FAILED', lastError: reason.slice(0, 500), apiKeyEnc: row.webhookId ? row.apiKeyEnc : null, webhookSecretEnc: null },
      });
    },

    /**
     * Removes, with their own keys, the webhooks attempts left behind: the replaced connection's, and any a failed
     * attempt could not remove. Replaced attempts are then forgotten; failed ones keep only their reason.
     */
    async removeStaleProcessorWebhooks(merchantId: string): Promise<{ removed: number }> {
      const stale = await db.processorConnectionAttempt.findMany({ where: { merchantId, OR: [{ status: 'REPLACED' }, { status: 'FAILED', webhookId: { not: null } }] } });
      let removed = 0;
      for (const row of stale) {
        if (row.webhookId && row.apiKeyEnc && (await deleteWebhookWith(merchantId, row.apiKeyEnc, row.webhookId))) removed++;
        if (row.status === 'REPLACED') await db.processorConnectionAttempt.deleteMany({ where: { id: row.id, status: 'REPLACED' } });
        else await db.processorConnectionAttempt.updateMany({ where: { id: row.id, status: 'FAILED' }, data: { webhookId: null, webhookSecretEnc: null, apiKeyEnc: null } });
      }
      return { removed };
    },

    /** Runs started before attempts existed: the connection row becomes CONNECTED. */
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
     * Runs started before attempts existed: records why the connection failed and drops what it had obtained.
     * A webhook still registered (its removal failed) keeps its id, so a later disconnect can remove it.
     */
    async markProcessorConnectionFailed(merchantId: string, reason: string): Promise<void> {
      await db.processorConnection.updateMany({
        where: { merchantId },
        data: { status: 'FAILED', lastError: reason.slice(0, 500), businessId: null, productId: null, connectedAt: null },
      });
    },

    /**
     * Removes the webhook endpoint registered with a key (the connection's for a merchant id, an attempt's for
     * an attempt) at the processor; already gone, or a key the processor no longer accepts: nothing left to do.
     */
    async unregisterProcessorWebhook(ref: ProcessorKeyRef): Promise<{ unregistered: boolean }> {
      if (typeof ref !== 'string') {
        const row = await db.processorConnectionAttempt.findFirst({ where: { id: ref.attemptId, merchantId: ref.merchantId } });
        if (!row?.webhookId || !row.apiKeyEnc) return { unregistered: false };
        const unregistered = await deleteWebhookWith(ref.merchantId, row.apiKeyEnc, row.webhookId);
        await db.processorConnectionAttempt.updateMany({ where: { id: row.id, webhookId: row.webhookId }, data: { webhookId: null, webhookSecretEnc: null } });
        return { unregistered };
      }
      const merchantId = ref;
      const row = await db.processorConnection.findUnique({ where: { merchantId } });
      if (!row?.webhookId) return { unregistered: false };
      const unregistered = await deleteWebhookWith(merchantId, row.apiKeyEnc, row.webhookId);
      await db.processorConnection.updateMany({ where: { merchantId, webhookId: row.webhookId }, data: { webhookId: null, webhookSecretEnc: null } });
      return { unregistered };
    },

    /** Forgets the connection and every attempt (their webhooks were removed before). */
    async deleteProcessorConnection(merchantId: string): Promise<{ deleted: boolean }> {
      const [{ count }] = await db.$transaction([
        db.processorConnection.deleteMany({ where: { merchantId } }),
        db.processorConnectionAttempt.deleteMany({ where: { merchantId } }),
      ]);
      return { deleted: count > 0 };
    },
  });
}

export type ProcessorActivities = ReturnType<typeof createProcessorActivities>;
