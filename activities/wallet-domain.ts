// Wallet domains at the processor (Whop): which domain checkouts are served at now (the verified custom domain,
// else the subdomain), its honest status, and the merchant's one email naming the domain to add. Whop's API as
// the SDK we use (0.0.42) has no wallet-domain endpoint (docs/processor.md), so the spec's fallback applies: the
// merchant adds the domain in Whop's dashboard and wallets count as ready only once that is confirmed; we never
// report a registration we could not see. Best effort: nothing here blocks a
// checkout; the workflow catches every failure.
import type { Config } from '../config/index.js';
import type { Db } from '../prisma/client.js';
import type { SecretBox } from '../security/secrets.js';
import type { EmailClient } from '../integrations/email/index.js';
import { currentCheckoutDomain } from '../model/checkout-domain.js';
import type { WalletDomainStatus, WalletDomainSync } from '../workflows/wallet-domain.messages.js';
import { classifyFailures } from './failures.js';
import { escapeHtml } from './email-templates.js';
import { recordEmail, sendRecordedEmail, type EmailSendResult } from './email-outbox.js';

export const WALLET_DOMAIN_EMAIL_KIND = 'wallet_domain_action';

export interface WalletDomainActivityDeps {
  db: Db;
  secrets: SecretBox;
  config: Config;
  email: EmailClient;
  /** Per-call time-out of the processor client (default 10 s). */
  timeoutMs?: number;
}

/** The email sent when the processor wants the merchant to add the domain in its dashboard. */
export function renderWalletDomainEmail(data: { shopName: string; domain: string; processorMessage: string | null }) {
  const intro = `Wallet payments (Apple Pay, Google Pay) on the checkout of ${data.shopName} need one step from you at the payment processor.`;
  const action = `Add this domain in your processor dashboard (Settings → Wallet domains): ${data.domain}`;
  const note = 'Card payments keep working meanwhile. We check again regularly and show wallets as ready once the processor reports the domain registered.';
  const paragraphs = [intro, action, ...(data.processorMessage ? [`The processor says: ${data.processorMessage}`] : []), note];
  return {
    subject: `Add ${data.domain} to your processor's wallet domains`,
    html: `<!doctype html><html><body style="font-family:system-ui,sans-serif">${paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}<p><code style="font-size:16px">${escapeHtml(data.domain)}</code></p></body></html>`,
    text: `${paragraphs.join('\n\n')}\n`,
  };
}

export function createWalletDomainActivities(deps: WalletDomainActivityDeps) {
  const { db, config } = deps;
  const outbox = { db, email: deps.email, from: config.email.from };

  return classifyFailures({
    /**
     * The checkout domain's registration at the processor: listed, else registered; the answer is recorded in
     * wallet_domains. Skipped when no processor is connected (nothing to register with).
     */
    async syncWalletDomain(merchantId: string): Promise<WalletDomainSync> {
      const [connection, merchant] = await Promise.all([
        db.processorConnection.findUnique({ where: { merchantId } }),
        db.merchant.findUnique({ where: { id: merchantId }, select: { slug: true, customDomain: { select: { hostname: true, status: true } } } }),
      ]);
      if (!merchant) return { kind: 'skipped', reason: 'the merchant no longer exists' };
      if (!connection || connection.status !== 'CONNECTED' || !connection.businessId) return { kind: 'skipped', reason: 'no processor is connected' };
      const domain = currentCheckoutDomain(config, merchant);
      const now = new Date();
      const previous = await db.walletDomain.findUnique({ where: { merchantId } });
      const sameRegistration = previous?.domain === domain && previous.businessId === connection.businessId;
      // No API to ask: a registration confirmed earlier for this domain and company stands; anything else needs the merchant.
      const found = sameRegistration && previous.status === 'REGISTERED'
        ? { status: 'REGISTERED' as const, status_message: previous.statusMessage }
        : { status: 'NEEDS_ACTION' as const, status_message: "Whop's API offers no wallet domain registration: add this domain in your Whop dashboard (payment settings)." };
      const status: Exclude<WalletDomainStatus, 'ERROR'> = found.status;
      const registeredAt = status === 'REGISTERED' ? ((sameRegistration ? previous.registeredAt : null) ?? now) : null;
      const data = { domain, businessId: connection.businessId, status, statusMessage: found.status_message, lastCheckedAt: now, registeredAt };
      await db.walletDomain.upsert({ where: { merchantId }, create: { merchantId, ...data }, update: data });
      return { kind: 'checked', domain, status, statusMessage: found.status_message };
    },

    /** The processor could not be asked: recorded on an existing row (wallets are not ready while it lasts). */
    async recordWalletDomainError(input: { merchantId: string; message: string }): Promise<void> {
      await db.walletDomain.updateMany({ where: { merchantId: input.merchantId }, data: { status: 'ERROR', statusMessage: input.message.slice(0, 500), lastCheckedAt: new Date() } });
    },

    /** Tells the merchant the exact domain to add at the processor; once per merchant and domain. */
    async sendWalletDomainActionEmail(input: { merchantId: string; domain: string }): Promise<EmailSendResult> {
      const idempotencyKey = `${WALLET_DOMAIN_EMAIL_KIND}:${input.merchantId}:${input.domain}`;
      const existing = await db.emailMessage.findUnique({ where: { idempotencyKey } });
      if (existing?.status === 'SENT') return { status: 'ALREADY_SENT', messageId: existing.providerMessageId };
      const merchant = await db.merchant.findUniqueOrThrow({ where: { id: input.merchantId }, select: { email: true, shopName: true, walletDomain: true } });
      const processorMessage = merchant.walletDomain?.domain === input.domain ? merchant.walletDomain.statusMessage : null;
      const rendered = renderWalletDomainEmail({ shopName: merchant.shopName, domain: input.domain, processorMessage });
      const row = existing ?? (await recordEmail(db, { idempotencyKey, merchantId: input.merchantId, kind: WALLET_DOMAIN_EMAIL_KIND, to: merchant.email, subject: rendered.subject }));
      return sendRecordedEmail(outbox, row, () => ({ ...rendered, tag: WALLET_DOMAIN_EMAIL_KIND, metadata: { merchantId: input.merchantId, domain: input.domain } }));
    },
  });
}

export type WalletDomainActivities = ReturnType<typeof createWalletDomainActivities>;
