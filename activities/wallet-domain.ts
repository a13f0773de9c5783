// Wallet domains at the processor (Whop): which domain checkouts are served at now (the verified custom domain,
// else the subdomain), its honest status, and the merchant's one email naming the domain to add. Whop's API as
// the SDK we use (0.0.42) has no wallet-domain endpoint (docs/processor.md), so the spec's fallback applies: the
// merchant adds the domain in Whop's dashboard and wallets count as ready only once the merchant confirms it
// appears there (POST /api/merchant/processor/wallet-domain/confirm); we never report a registration on our own
// say-so. Best effort: nothing here blocks a checkout; the workflow catches every failure.
import type { Config } from '../config/index.js';
import type { Db } from '../prisma/client.js';
import type { SecretBox } from '../security/secrets.js';
import type { EmailClient } from '../integrations/email/index.js';
import { checkWalletDomain, type WalletDomainRowStatus } from '../model/wallet-domain.js';
import type { WalletDomainSync } from '../workflows/wallet-domain.messages.js';
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
export function renderWalletDomainEmail(data: { shopName: string; domain: string; confirmUrl: string }) {
  const intro = `Wallet payments (Apple Pay, Google Pay) on the checkout of ${data.shopName} need one step from you at the payment processor.`;
  const action = `Add this domain in your processor dashboard (Settings → Wallet domains): ${data.domain}`;
  const confirm = `Once it appears there, confirm it on your dashboard (Store & payments → Payments): ${data.confirmUrl}`;
  const note = "Card payments keep working meanwhile. The processor's API cannot tell us about wallet domains, so wallets count as ready only once you confirm.";
  const paragraphs = [intro, action, confirm, note];
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
     * One check of the checkout domain's wallet registration, recorded in wallet_domains (model/wallet-domain.ts):
     * registered once the merchant confirmed this domain for this Whop company, else it needs their action.
     * Skipped when no processor is connected (nothing to register with).
     */
    async syncWalletDomain(merchantId: string): Promise<WalletDomainSync> {
      const checked = await checkWalletDomain(db, config, merchantId);
      if (!checked.ok) return { kind: 'skipped', reason: checked.reason };
      const { row } = checked;
      return { kind: 'checked', domain: row.domain, status: row.status as WalletDomainRowStatus, statusMessage: row.statusMessage };
    },

    /** A check failed: recorded on an existing row the merchant has not confirmed (a confirmation outlives a failed check). */
    async recordWalletDomainError(input: { merchantId: string; message: string }): Promise<void> {
      await db.walletDomain.updateMany({ where: { merchantId: input.merchantId, confirmedAt: null }, data: { status: 'ERROR', statusMessage: input.message.slice(0, 500), lastCheckedAt: new Date() } });
    },

    /** Tells the merchant the exact domain to add at the processor; once per merchant and domain. */
    async sendWalletDomainActionEmail(input: { merchantId: string; domain: string }): Promise<EmailSendResult> {
      const idempotencyKey = `${WALLET_DOMAIN_EMAIL_KIND}:${input.merchantId}:${input.domain}`;
      const existing = await db.emailMessage.findUnique({ where: { idempotencyKey } });
      if (existing?.status === 'SENT') return { status: 'ALREADY_SENT', messageId: existing.providerMessageId };
      const merchant = await db.merchant.findUniqueOrThrow({ where: { id: input.merchantId }, select: { email: true, shopName: true } });
      const rendered = renderWalletDomainEmail({ shopName: merchant.shopName, domain: input.domain, confirmUrl: `${config.appOrigin}/dashboard/connections` });
      const row = existing ?? (await recordEmail(db, { idempotencyKey, merchantId: input.merchantId, kind: WALLET_DOMAIN_EMAIL_KIND, to: merchant.email, subject: rendered.subject }));
      return sendRecordedEmail(outbox, row, () => ({ ...rendered, tag: WALLET_DOMAIN_EMAIL_KIND, metadata: { merchantId: input.merchantId, domain: input.domain } }));
    },
  });
}

export type WalletDomainActivities = ReturnType<typeof createWalletDomainActivities>;
