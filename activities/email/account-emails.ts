// Account emails, each recorded in email_messages first and sent once (email-outbox.ts). Link emails
// (verification, password reset) mint their single-use token here, at send time: the token exists only in
// the email, the database keeps its hash, and no workflow history holds it.
import type { Config } from '../../config/index.js';
import type { Db } from '../../prisma/client.js';
import type { EmailClient } from '../../integrations/email/index.js';
import { newOneTimeToken } from '../../security/one-time-tokens.js';
import { classifyFailures } from '../failures.js';
import { renderAccountEmail, renderInvitationEmail, type AccountEmailKind } from './account-email-templates.js';
import { sendRecordedEmail, type EmailSendResult } from './email-outbox.js';

export const LINK_TTL_MS: Record<Exclude<AccountEmailKind, 'member_invitation'>, number> = {
  email_verification: 48 * 60 * 60 * 1000,
  password_reset: 60 * 60 * 1000,
};

const PURPOSE = { email_verification: 'EMAIL_VERIFICATION', password_reset: 'PASSWORD_RESET' } as const;

export function createEmailActivities(deps: { db: Db; email: EmailClient; config: Config }) {
  const { db, email, config } = deps;
  return classifyFailures({
    /** Sends the account email recorded as `emailId` (once). Returns the provider's message id. */
    async sendAccountEmail(emailId: string): Promise<EmailSendResult> {
      const row = await db.emailMessage.findUniqueOrThrow({ where: { id: emailId }, include: { merchant: true } });
      const kind = row.kind as AccountEmailKind;
      const { merchant } = row;
      return sendRecordedEmail({ db, email, from: config.email.from }, row, async () => {
        if (kind === 'member_invitation') {
          // The invitation's token is minted here and only its hash kept; a resend replaces the link.
          const invitation = await db.memberInvitation.findUnique({ where: { emailMessageId: row.id } });
          if (!invitation || !merchant) throw new Error(`email ${emailId}: its invitation is gone`);
          const { token, hash } = newOneTimeToken();
          await db.memberInvitation.update({ where: { id: invitation.id }, data: { tokenHash: hash } });
          const rendered = renderInvitationEmail({ shopName: merchant.shopName, invitedBy: invitation.invitedBy, role: invitation.role.toLowerCase(), link: `${config.appOrigin}/accept-invite?token=${token}` });
          return { ...rendered, tag: kind, metadata: { emailId, merchantId: merchant.id } };
        }
        if (!(kind in PURPOSE) || !merchant) throw new Error(`email ${emailId}: not an account email (${row.kind})`);
        const purpose = PURPOSE[kind];
        const { token, hash } = newOneTimeToken();
        // A new link replaces any earlier unused one of the same purpose.
        await db.$transaction([
          db.oneTimeToken.updateMany({ where: { merchantId: merchant.id, purpose, usedAt: null }, data: { usedAt: new Date() } }),
          db.oneTimeToken.create({ data: { merchantId: merchant.id, purpose, tokenHash: hash, expiresAt: new Date(Date.now() + LINK_TTL_MS[kind]) } }),
        ]);
        const rendered = renderAccountEmail(kind, { shopName: merchant.shopName, link: `${config.appOrigin}/${kind === 'password_reset' ? 'reset-password' : 'verify-email'}?token=${token}` });
        return { ...rendered, tag: kind, metadata: { emailId, merchantId: merchant.id } };
      });
    },
    async markEmailFailed(emailId: string, reason: string): Promise<void> {
      await db.emailMessage.updateMany({ where: { id: emailId, status: 'PENDING' }, data: { status: 'FAILED', error: reason.slice(0, 500) } });
    },
  });
}

export type EmailActivities = ReturnType<typeof createEmailActivities>;
