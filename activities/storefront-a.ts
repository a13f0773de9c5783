// Storefront A (hosted platform, OAuth app): the code exchange of an install, our script tag at the shop,
// and the effects of the platform's webhooks (uninstall and the three privacy topics, docs/privacy.md).
// Secrets cross workflow history only sealed: the OAuth code and a fresh access token travel as
// ciphertext (security/secrets.ts) and are opened here, in the activity, right before use.
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../config/index.js';
import type { Db } from '../prisma/client.js';
import type { SecretBox } from '../security/secrets.js';
import type { EmailClient } from '../integrations/email/index.js';
import { exchangeCode, type StorefrontAClient } from '../integrations/storefront-a/client.js';
import { installingInputs, NO_PENDING_INPUTS, storefrontAAad, storefrontAClientOf } from '../model/connections.js';
import { isWebhookTopic, webhookPayloadSchemas, type WebhookTopic } from '../integrations/storefront-a/webhooks.js';
import { classifyFailures } from './failures.js';
import { escapeHtml } from './email-templates.js';
import { collectCustomerData, redactCustomerData, redactShopCustomers } from './privacy.js';

/** The script the shop loads on every storefront page to send the checkout button to us. */
export const scriptTagSrc = (config: Pick<Config, 'publicApiUrl'>) => `${config.publicApiUrl}/script-tag.js`;

export const DATA_REQUEST_EMAIL_KIND = 'privacy_data_request';

export interface StorefrontAActivityDeps {
  config: Config;
  db: Db;
  secrets: SecretBox;
  email: EmailClient;
  /** Transport override for the store calls (tests). */
  fetch?: typeof fetch;
}

const fail = (message: string, code: 'CONFLICT' | 'NOT_FOUND' | 'INVALID_SIGNATURE') => ApplicationFailure.nonRetryable(message, code);

export function createStorefrontAActivities(deps: StorefrontAActivityDeps) {
  const { config, db, secrets, email } = deps;
  const apiUrlTemplate = config.storefrontA.apiTemplate;
  const src = scriptTagSrc(config);

  async function connectionOf(merchantId: string) {
    const row = await db.storefrontAConnection.findUnique({ where: { merchantId } });
    if (!row) throw fail('No storefront A connection: save the install inputs first', 'NOT_FOUND');
    return row;
  }

  /** A client with the given sealed token (of an install: the shop being installed), or else the stored one of a connected shop. */
  async function clientOf(merchantId: string, sealedAccessToken?: string): Promise<StorefrontAClient> {
    const row = await connectionOf(merchantId);
    const sealed = sealedAccessToken ?? (row.connected ? row.accessTokenEnc : null);
    if (!sealed) throw fail('Storefront A is not connected: install the app first', 'CONFLICT');
    const shop = sealedAccessToken ? installingInputs(row).shop : row.shop;
    return storefrontAClientOf(deps, merchantId, shop, sealed);
  }

  const ours = (tags: Array<{ id: string; src: string }>) => tags.find((t) => t.src === src);

  return classifyFailures({
    /** Trades the callback's code for the shop's access token; answers the token sealed, never in clear. */
    async exchangeStorefrontACode(input: { merchantId: string; shop: string; sealedCode: string }): Promise<{ sealedAccessToken: string; scopes: string[] }> {
      const installing = installingInputs(await connectionOf(input.merchantId));
      if (installing.shop !== input.shop) throw fail('The storefront A inputs changed during the install: start it again', 'CONFLICT');
      const { accessToken, scopes } = await exchangeCode({
        shop: installing.shop,
        clientId: installing.clientId,
        clientSecret: secrets.decrypt(installing.clientSecretEnc, storefrontAAad.clientSecret(input.merchantId)),
        code: secrets.decrypt(input.sealedCode, storefrontAAad.oauthCode(input.merchantId)),
        apiUrlTemplate,
        shopSuffix: config.storefrontA.shopSuffix,
        fetch: deps.fetch,
      });
      return { sealedAccessToken: secrets.encrypt(accessToken, storefrontAAad.accessToken(input.merchantId)), scopes };
    },

    /** Our script tag at the shop: found, or created. Writes nothing here (the workflow records it). */
    async ensureStorefrontAScriptTag(input: { merchantId: string; sealedAccessToken?: string }): Promise<{ scriptTagId: string; src: string; created: boolean }> {
      const client = await clientOf(input.merchantId, input.sealedAccessToken);
      const existing = ours(await client.listScriptTags());
      if (existing) return { scriptTagId: existing.id, src, created: false };
      const tag = await client.createScriptTag(src);
      return { scriptTagId: tag.id, src, created: true };
    },

    /** Looks at the shop, live: is our script tag there? */
    async checkStorefrontAScriptTag(input: { merchantId: string }): Promise<{ installed: boolean; scriptTagId: string | null; src: string }> {
      const client = await clientOf(input.merchantId);
      const existing = ours(await client.listScriptTags());
      return { installed: existing !== undefined, scriptTagId: existing?.id ?? null, src };
    },

    async recordStorefrontAScriptTag(input: { merchantId: string; scriptTagId: string | null }): Promise<{ checkedAt: string }> {
      const checkedAt = new Date();
      await db.storefrontAConnection.updateMany({ where: { merchantId: input.merchantId }, data: { scriptTagId: input.scriptTagId, scriptTagCheckedAt: checkedAt } });
      return { checkedAt: checkedAt.toISOString() };
    },

    /**
     * The install's one write: token (sealed), scopes, connected, script tag, all at once. Inputs that were
     * waiting for this install replace the connection's in the same write (and become the merchant's shop);
     * until here the connection they replace kept working.
     */
    async saveStorefrontAInstall(input: { merchantId: string; shop: string; sealedAccessToken: string; scopes: string[]; scriptTagId: string }): Promise<{ installedAt: string }> {
      const now = new Date();
      const installed = {
        accessTokenEnc: input.sealedAccessToken,
        scopes: input.scopes.join(','),
        connected: true,
        installedAt: now,
        uninstalledAt: null,
        scriptTagId: input.scriptTagId,
        scriptTagCheckedAt: now,
      };
      const changed = () => fail('The storefront A inputs changed during the install: start it again', 'CONFLICT');
      await db.$transaction(async (tx) => {
        const row = await tx.storefrontAConnection.findUnique({ where: { merchantId: input.merchantId } });
        if (!row) throw changed();
        const installing = installingInputs(row);
        if (installing.shop !== input.shop) throw changed();
        // Written only if the inputs are still the ones read here (a save meanwhile wins; this install starts again).
        const unchanged = { merchantId: input.merchantId, shop: row.shop, clientId: row.clientId, pendingShop: row.pendingShop, pendingClientId: row.pendingClientId, pendingClientSecretEnc: row.pendingClientSecretEnc };
        if (!installing.pending) {
          if ((await tx.storefrontAConnection.updateMany({ where: unchanged, data: installed })).count === 0) throw changed();
          return;
        }
        if (installing.shop !== row.shop) {
          // The shop goes to whoever completes OAuth, unless another merchant's install of it works.
          const holder = await tx.storefrontAConnection.findUnique({ where: { shop: installing.shop } });
          if (holder && holder.merchantId !== input.merchantId) {
            if (holder.connected) throw fail('This shop is connected to another account', 'CONFLICT');
            await tx.storefrontAConnection.delete({ where: { merchantId: holder.merchantId } });
            await tx.merchant.updateMany({ where: { id: holder.merchantId, shopDomain: installing.shop }, data: { shopDomain: null } });
          }
        }
        const { count } = await tx.storefrontAConnection.updateMany({
          where: unchanged,
          data: { ...installed, shop: installing.shop, clientId: installing.clientId, clientSecretEnc: installing.clientSecretEnc, ...NO_PENDING_INPUTS },
        });
        if (count === 0) throw changed();
        await tx.merchant.update({ where: { id: input.merchantId }, data: { storePlatform: 'STOREFRONT_A', shopDomain: installing.shop } });
      });
      return { installedAt: now.toISOString() };
    },

    /** Deletes our script tags at the shop (disconnect). A shop that no longer lets us in has none of ours left to delete. */
    async removeStorefrontAScriptTags(input: { merchantId: string }): Promise<{ removed: number }> {
      const row = await db.storefrontAConnection.findUnique({ where: { merchantId: input.merchantId } });
      if (!row?.connected || !row.accessTokenEnc) return { removed: 0 };
      const client = await clientOf(input.merchantId);
      let tags;
      try {
        tags = await client.listScriptTags();
      } catch (err) {
        if ((err as { kind?: string }).kind === 'unauthorized') return { removed: 0 };
        throw err;
      }
      let removed = 0;
      for (const tag of tags.filter((t) => t.src === src || t.id === row.scriptTagId)) {
        try {
          await client.deleteScriptTag(tag.id);
          removed++;
        } catch (err) {
          if ((err as { kind?: string }).kind !== 'not_found') throw err;
        }
      }
      return { removed };
    },

    /**
     * Applies one verified webhook (docs/privacy.md). Idempotent: a processed delivery answers
     * `applied: false`; every effect is written before `processedAt`, and each can run twice safely.
     */
    async processStorefrontAWebhook(webhookId: string): Promise<{ topic: string; applied: boolean; reportEmailId: string | null }> {
      const row = await db.storefrontAWebhook.findUnique({ where: { id: webhookId } });
      if (!row) throw fail(`webhook ${webhookId} not found`, 'NOT_FOUND');
      if (!row.hmacValid || !row.merchantId) throw fail('webhook was not verified: nothing to apply', 'INVALID_SIGNATURE');
      const reportKey = `storefront-a-data-request:${row.id}`;
      if (row.processedAt) {
        const report = row.topic === 'customers/data_request' ? await db.emailMessage.findUnique({ where: { idempotencyKey: reportKey }, select: { id: true, status: true } }) : null;
        return { topic: row.topic, applied: false, reportEmailId: report?.status === 'PENDING' ? report.id : null };
      }
      if (!isWebhookTopic(row.topic)) throw fail(`unknown topic ${row.topic}`, 'NOT_FOUND');
      const merchantId = row.merchantId;
      const topic: WebhookTopic = row.topic;
      let result: Record<string, unknown>;
      let reportEmailId: string | null = null;

      if (topic === 'app/uninstalled') {
        const now = new Date();
        // The platform deleted the app's tokens and script tags: forget ours too.
        const { count } = await db.storefrontAConnection.updateMany({
          where: { merchantId, shop: row.shop },
          data: { connected: false, uninstalledAt: now, accessTokenEnc: null, scopes: null, scriptTagId: null, scriptTagCheckedAt: null },
        });
        result = { connected: false, uninstalledAt: now.toISOString(), connectionsUpdated: count };
      } else if (topic === 'shop/redact') {
        const subject = { merchantId, shop: row.shop };
        const redacted = await redactShopCustomers(db, subject);
        const connection = await db.storefrontAConnection.deleteMany({ where: subject });
        const states = await db.oAuthState.deleteMany({ where: subject });
        await db.merchant.updateMany({ where: { id: merchantId, shopDomain: row.shop }, data: { shopDomain: null } });
        await db.merchant.updateMany({ where: { id: merchantId, storePlatform: 'STOREFRONT_A', shopDomain: null }, data: { storePlatform: null } });
        result = { redacted, deleted: { storefront_a_connections: connection.count, oauth_states: states.count } };
      } else {
        const payload = webhookPayloadSchemas[topic].parse(row.payload);
        const customerEmail = payload.customer.email;
        const subject = customerEmail ? { merchantId, shop: row.shop, email: customerEmail } : null;
        if (topic === 'customers/redact') {
          result = { customer: { id: payload.customer.id }, redacted: subject ? await redactCustomerData(db, subject) : {}, ...(subject ? {} : { note: 'the customer has no email address: we hold nothing keyed to them' }) };
        } else {
          const p = webhookPayloadSchemas['customers/data_request'].parse(row.payload);
          const data = subject ? await collectCustomerData(db, subject) : {};
          const merchant = await db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { email: true } });
          const report = await db.emailMessage.upsert({
            where: { idempotencyKey: reportKey },
            create: { idempotencyKey: reportKey, merchantId, kind: DATA_REQUEST_EMAIL_KIND, to: merchant.email, subject: `Customer data request ${p.data_request.id} from ${row.shop}` },
            update: {},
          });
          reportEmailId = report.status === 'PENDING' ? report.id : null;
          result = {
            dataRequestId: p.data_request.id,
            customer: { id: p.customer.id, email: p.customer.email, phone: p.customer.phone },
            ordersRequested: p.orders_requested,
            data,
            reportEmailId: report.id,
          };
        }
      }
      await db.storefrontAWebhook.update({ where: { id: row.id }, data: { result: result as object, processedAt: new Date() } });
      return { topic, applied: true, reportEmailId };
    },

    /** Emails the merchant the data we hold about the customer of a data request, so they can answer it. */
    async sendStorefrontADataReport(input: { webhookId: string; emailId: string }): Promise<{ status: 'SENT' | 'ALREADY_SENT'; messageId: string | null }> {
      const row = await db.emailMessage.findUniqueOrThrow({ where: { id: input.emailId } });
      if (row.status === 'SENT') return { status: 'ALREADY_SENT', messageId: row.providerMessageId };
      const webhook = await db.storefrontAWebhook.findUniqueOrThrow({ where: { id: input.webhookId } });
      const result = (webhook.result ?? {}) as { dataRequestId?: number; customer?: { email?: string | null } };
      const json = JSON.stringify(webhook.result, null, 2);
      const intro = `Storefront A forwarded a customer data request (request ${result.dataRequestId ?? '?'}) for ${webhook.shop}. ` +
        'This is every piece of personal data the checkout service holds about that customer; send it to them as the platform requires.';
      try {
        const sent = await email.send({
          from: config.email.from,
          to: row.to,
          subject: row.subject,
          text: `${intro}\n\n${json}\n`,
          html: `<p>${escapeHtml(intro)}</p><pre>${escapeHtml(json)}</pre>`,
          tag: DATA_REQUEST_EMAIL_KIND,
          metadata: { emailId: row.id, webhookId: webhook.id },
        });
        await db.emailMessage.update({ where: { id: row.id }, data: { status: 'SENT', providerMessageId: sent.messageId, sentAt: new Date(), error: null } });
        return { status: 'SENT', messageId: sent.messageId };
      } catch (err) {
        await db.emailMessage.update({ where: { id: row.id }, data: { error: (err as Error).message.slice(0, 500) } });
        throw err;
      }
    },
  });
}

export type StorefrontAActivities = ReturnType<typeof createStorefrontAActivities>;
