// Emails the service sends. Each send is recorded in email_messages first (status PENDING, unique
// idempotency key); the activity sends only a PENDING row and marks it SENT, so a retried activity or a
// re-run workflow never sends the same email twice in the normal path. Link emails (verification,
// password reset) mint their single-use token here, at send time: the token exists only in the email, the
// database keeps its hash, and no workflow history holds it.
import type { Config } from '../config/index.js';
import type { Db } from '../prisma/client.js';
import type { EmailClient } from '../integrations/email/index.js';
import { newOneTimeToken } from '../security/one-time-tokens.js';
import { classifyFailures } from './failures.js';
import { renderAccountEmail, type AccountEmailKind } from './email-templates.js';

export const LINK_TTL_MS: Record<AccountEmailKind, number> = {
  email_verification: 48 * 60 * 60 * 1000,
  password_reset: 60 * 60 * 1000,
};

const PURPOSE = { email_verification: 'EMAIL_VERIFICATION', password_reset: 'PASSWORD_RESET' } as const;

export function createEmailActivities(deps: { db: Db; email: EmailClient; config: Config }) {
  const { db, email, config } = deps;
  return classifyFailures({
    /** Sends the account email recorded as `emailId` (once). Returns the provider's message id. */
    async sendAccountEmail(emailId: string): Promise<{ status: 'SENT' | 'ALREADY_SENT'; messageId: string | null }> {
      const row = await db.emailMessage.findUniqueOrThrow({ where: { id: emailId }, include: { merchant: true } });
      if (row.status === 'SENT') return { status: 'ALREADY_SENT', messageId: row.providerMessageId };
      const kind = row.kind as AccountEmailKind;
      if (!(kind in PURPOSE) || !row.merchant) throw new Error(`email ${emailId}: not an account email (${row.kind})`);
      const purpose = PURPOSE[kind];
      const { token, hash } = newOneTimeToken();
      // A new link replaces any earlier unused one of the same purpose.
      await db.$transaction([
        db.oneTimeToken.updateMany({ where: { merchantId: row.merchant.id, purpose, usedAt: null }, data: { usedAt: new Date() } }),
        db.oneTimeToken.create({ data: { merchantId: row.merchant.id, purpose, tokenHash: hash, expiresAt: new Date(Date.now() + LINK_TTL_MS[kind]) } }),
      ]);
      const rendered = renderAccountEmail(kind, { shopName: row.merchant.shopName, link: `${config.appOrigin}/${kind === 'password_reset' ? 'reset-password' : 'verify-email'}?token=${token}` });
      try {
        const sent = await email.send({
          from: config.email.from,
          to: row.to,
          subject: rendered.subject,
          html: rendered.html,
          text: rendered.text,
          tag: kind,
          metadata: { emailId, merchantId: row.merchant.id },
        });
        await db.emailMessage.update({ where: { id: emailId }, data: { status: 'SENT', providerMessageId: sent.messageId, sentAt: new Date(), error: null } });
        return { status: 'SENT', messageId: sent.messageId };
      } catch (err) {
        await db.emailMessage.update({ where: { id: emailId }, data: { error: (err as Error).message.slice(0, 500) } });
        throw err;
      }
    },
    async markEmailFailed(emailId: string, reason: string): Promise<void> {
      await db.emailMessage.updateMany({ where: { id: emailId, status: 'PENDING' }, data: { status: 'FAILED', error: reason.slice(0, 500) } });
    },
  });
}

export type EmailActivities = ReturnType<typeof createEmailActivities>;
