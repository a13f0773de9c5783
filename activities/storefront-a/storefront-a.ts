// Storefront A (Shopify, merchant-owned app; docs/storefront-a.md): the code exchange of an install, setting
// up the shop (Storefront API token, webhook subscriptions, the app embed's config, CORS origins), the app
// embed's status in the published theme (what script-tag/status reports), legacy script tag removal, and the
// effects of Shopify's webhooks (uninstall, the three privacy topics, shop/domain changes, theme publish).
// Secrets cross workflow history only sealed: the OAuth code and a fresh access token travel as
// ciphertext (security/secrets.ts) and are opened here, in the activity, right before use.
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../../config/index.js';
import type { Db } from '../../prisma/client.js';
import type { SecretBox } from '../../security/secrets.js';
import type { EmailClient } from '../../integrations/email/index.js';
import { APP_EMBED_HANDLE, exchangeCode, type StorefrontAClient } from '../../integrations/storefront-a/client.js';
import { shopBaseUrl } from '../../integrations/storefront-a/oauth.js';
import { isWebhookTopic, SUBSCRIBED_TOPICS, webhookPayloadSchemas, type WebhookTopic } from '../../integrations/storefront-a/webhooks.js';
import { installingInputs, NO_PENDING_INPUTS, storefrontAAad, storefrontAClientOf } from '../../model/connections.js';
import { classifyFailures } from '../failures.js';
import { escapeHtml } from '../email/account-email-templates.js';
import { collectCustomerData, redactCustomerData, redactShopCustomers } from './privacy.js';

/** The theme editor's activation deep link for our app embed (docs: "App embed block deep linking"). */
export const embedActivationUrl = (shopUrl: string, clientId: string) =>
  `${shopUrl}/admin/themes/current/editor?context=apps&activateAppId=${encodeURIComponent(clientId)}/${APP_EMBED_HANDLE}`;

/** The script legacy installs put in the shop as a script tag (removed now; the app embed replaces it). */
export const scriptTagSrc = (config: Pick<Config, 'publicApiUrl'>) => `${config.publicApiUrl}/script-tag.js`;

/** What script-tag/status reports: the app embed in the published theme, and any legacy script tag. */
export interface InterceptionStatus {
  installed: boolean;
  scriptTagId: string | null;
  src: string;
  activationUrl: string;
  themeName: string | null;
}

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
    if (!row) throw fail('No Shopify shop is connected: save the shop address, client ID and client secret first', 'NOT_FOUND');
    return row;
  }

  /** A client with the given sealed token (of an install: the shop being installed), or else the stored one of a connected shop. */
  async function clientOf(merchantId: string, sealedAccessToken?: string): Promise<StorefrontAClient> {
    const row = await connectionOf(merchantId);
    const sealed = sealedAccessToken ?? (row.connected ? row.accessTokenEnc : null);
    if (!sealed) throw fail('Your Shopify shop is not connected: install the app first', 'CONFLICT');
    const shop = sealedAccessToken ? installingInputs(row).shop : row.shop;
    return storefrontAClientOf(deps, merchantId, shop, sealed);
  }

  /** The embed's status and our legacy script tags; `removeLegacy` deletes those (create is refused since 2026-10-01). */
  async function interception(merchantId: string, client: StorefrontAClient, removeLegacy: boolean): Promise<InterceptionStatus> {
    const row = await connectionOf(merchantId);
    let tags = await client.listScriptTags();
    if (removeLegacy) {
      for (const tag of tags) await client.deleteScriptTag(tag.id);
      tags = [];
    }
    const embed = await client.embedStatus();
    const shopUrl = shopBaseUrl(apiUrlTemplate, client.shop, config.storefrontA.shopSuffix);
    return { installed: embed.active, scriptTagId: tags[0]?.id ?? null, src, activationUrl: embedActivationUrl(shopUrl, installingInputs(row).pending ? installingInputs(row).clientId : row.clientId), themeName: embed.themeName };
  }

  return classifyFailures({
    /** Trades the callback's code for the shop's access token; answers the token sealed, never in clear. */
    async exchangeStorefrontACode(input: { merchantId: string; shop: string; sealedCode: string }): Promise<{ sealedAccessToken: string; scopes: string[] }> {
      const installing = installingInputs(await connectionOf(input.merchantId));
      if (installing.shop !== input.shop) throw fail('The Shopify app details changed during the install: start it again', 'CONFLICT');
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

    /**
     * Sets up a freshly installed shop: a private Storefront API token (server-side cart reads with the shopper's IP),
     * webhook subscriptions (uninstall, shop and domain changes, theme publish), the app embed's config (app-data
     * metafields), the shop's origins (CORS), and the embed status; legacy script tags go. Writes nothing here (the
     * workflow records it).
     */
    async setUpStorefrontAShop(input: { merchantId: string; sealedAccessToken: string }): Promise<{ sealedStorefrontPrivateToken: string; origins: string[]; status: InterceptionStatus }> {
      const client = await clientOf(input.merchantId, input.sealedAccessToken);
      const storefrontToken = await client.createStorefrontPrivateToken();
      await client.subscribeWebhooks(`${config.publicApiUrl}/webhooks/storefront-a`, SUBSCRIBED_TOPICS);
      await client.setAppConfig({ api_base: config.publicApiUrl, shop: client.shop });
      const shop = await client.getShop();
      const status = await interception(input.merchantId, client, true);
      return { sealedStorefrontPrivateToken: secrets.encrypt(storefrontToken, storefrontAAad.storefrontPrivateToken(input.merchantId)), origins: shop.origins, status };
    },

    /** Drives interception: removes legacy script tags and answers the embed's status with its activation link. */
    async ensureStorefrontAScriptTag(input: { merchantId: string }): Promise<InterceptionStatus> {
      const client = await clientOf(input.merchantId);
      await client.setAppConfig({ api_base: config.publicApiUrl, shop: client.shop });
      return interception(input.merchantId, client, true);
    },

    /** Looks at the shop, live: is our app embed on in the published theme, is a legacy script tag left? */
    async checkStorefrontAScriptTag(input: { merchantId: string }): Promise<InterceptionStatus> {
      return interception(input.merchantId, await clientOf(input.merchantId), false);
    },

    async recordStorefrontAScriptTag(input: { merchantId: string; scriptTagId: string | null; embedActive?: boolean }): Promise<{ checkedAt: string }> {
      const checkedAt = new Date();
      await db.storefrontAConnection.updateMany({ where: { merchantId: input.merchantId }, data: { scriptTagId: input.scriptTagId, scriptTagCheckedAt: checkedAt, ...(input.embedActive === undefined ? {} : { appEmbedActive: input.embedActive }) } });
      return { checkedAt: checkedAt.toISOString() };
    },

    /** Re-reads the shop's domains (shop/update, domains/*): its origins join the CORS allowlist. */
    async refreshStorefrontAOrigins(input: { merchantId: string }): Promise<{ origins: string[] }> {
      const { origins } = await (await clientOf(input.merchantId)).getShop();
      await db.storefrontAConnection.updateMany({ where: { merchantId: input.merchantId, connected: true }, data: { shopOrigins: origins } });
      return { origins };
    },

    /**
     * The install's one write: token (sealed), scopes, connected, script tag, all at once. Inputs that were
     * waiting for this install replace the connection's in the same write (and become the merchant's shop);
     * until here the connection they replace kept working.
     */
    async saveStorefrontAInstall(input: { merchantId: string; shop: string; sealedAccessToken: string; scopes: string[]; scriptTagId: string | null; sealedStorefrontPrivateToken?: string; origins?: string[]; embedActive?: boolean }): Promise<{ installedAt: string }> {
      const now = new Date();
      const installed = {
        accessTokenEnc: input.sealedAccessToken,
        scopes: input.scopes.join(','),
        connected: true,
        installedAt: now,
        uninstalledAt: null,
        scriptTagId: input.scriptTagId,
        scriptTagCheckedAt: now,
        // The private token replaces a public one an older install made.
        storefrontTokenEnc: null,
        storefrontPrivateTokenEnc: input.sealedStorefrontPrivateToken ?? null,
        shopOrigins: input.origins ?? [],
        appEmbedActive: input.embedActive ?? false,
      };
      const changed = () => fail('The Shopify app details changed during the install: start it again', 'CONFLICT');
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
      // Every script tag of this app in the shop is ours (Shopify scopes them per app).
      for (const tag of tags) {
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
      // The report is keyed on the request Shopify names in the signed body, not on the delivery: a copy replayed under
      // fresh (unsigned) Event-Id and Webhook-Id headers is a new row but the same request, so it emails nothing more.
      const requestId = row.topic === 'customers/data_request' ? webhookPayloadSchemas['customers/data_request'].safeParse(row.payload).data?.data_request.id : undefined;
      const reportKey = requestId === undefined ? `storefront-a-data-request:${row.id}` : `storefront-a-data-request:${row.merchantId}:${row.shop}:${requestId}`;
      if (row.processedAt) {
        const report = row.topic === 'customers/data_request' ? await db.emailMessage.findUnique({ where: { idempotencyKey: reportKey }, select: { id: true, status: true } }) : null;
        return { topic: row.topic, applied: false, reportEmailId: report?.status === 'PENDING' ? report.id : null };
      }
      if (!isWebhookTopic(row.topic)) throw fail(`unknown topic ${row.topic}`, 'NOT_FOUND');
      const merchantId = row.merchantId;
      const topic: WebhookTopic = row.topic;
      let result: Record<string, unknown>;
      let reportEmailId: string | null = null;

      if (topic === 'refunds/create') {
        // Applied by the webhook route itself (a signal to the session's workflow); nothing is left for this activity.
        result = { skipped: 'refunds are applied by the webhook route' };
      } else if (topic === 'app/uninstalled') {
        const now = new Date();
        // The platform deleted the app's tokens and script tags: forget ours too.
        const { count } = await db.storefrontAConnection.updateMany({
          where: { merchantId, shop: row.shop },
          data: { connected: false, uninstalledAt: now, accessTokenEnc: null, storefrontTokenEnc: null, storefrontPrivateTokenEnc: null, shopOrigins: [], appEmbedActive: false, scopes: null, scriptTagId: null, scriptTagCheckedAt: null },
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
      } else if (topic === 'shop/update' || topic.startsWith('domains/') || topic === 'themes/publish') {
        // The payloads' shapes are not relied on: the shop is read again through the Admin API.
        const connection = await db.storefrontAConnection.findUnique({ where: { merchantId } });
        if (!connection?.connected || connection.shop !== row.shop) result = { skipped: 'the shop is not connected' };
        else {
          const client = await clientOf(merchantId);
          if (topic === 'themes/publish') {
            const embed = await client.embedStatus();
            await db.storefrontAConnection.updateMany({ where: { merchantId, shop: row.shop }, data: { appEmbedActive: embed.active, scriptTagCheckedAt: new Date() } });
            result = { embedActive: embed.active, theme: embed.themeName };
          } else {
            const { origins } = await client.getShop();
            await db.storefrontAConnection.updateMany({ where: { merchantId, shop: row.shop, connected: true }, data: { shopOrigins: origins } });
            result = { origins };
          }
        }
      } else {
        const payload = webhookPayloadSchemas[topic as 'customers/redact' | 'customers/data_request'].parse(row.payload);
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
      const intro = `Shopify forwarded a customer data request (request ${result.dataRequestId ?? '?'}) for ${webhook.shop}. ` +
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
