// Abandoned-checkout recovery (docs/recovery.md, workflows/recovery/recovery.ts): the plan of a session's reminders and the
// send of each one. A reminder goes only to a session whose shopper consented (explicit opt-in, recorded with time and
// wording), did not unsubscribe and has not paid, of a merchant whose recovery is on; it is recorded in
// email_messages under `recovery-<token>-<step>` before it is sent, so it goes at most once whatever the retries.
import type { Config } from '../../config/index.js';
import type { Db } from '../../prisma/client.js';
import type { EmailClient } from '../../integrations/email/index.js';
import { checkoutOrigin } from '../../domain/checkout/checkout-origin.js';
import { formatMoney } from '../../domain/money.js';
import { REMINDABLE_STATUSES, recoveryDelaysProblem, type ReminderOutcome } from '../../domain/recovery.js';
import { shopperMoneyLocale } from '../../domain/checkout/shopper-emails/index.js';
import { sessionLines } from '../../model/checkout/checkout-session.js';
import { recoveryLinkSignature } from '../../security/recovery-links.js';
import { classifyFailures } from '../failures.js';
import { recordEmail, sendRecordedEmail } from '../email/email-outbox.js';
import { recordSessionEvent } from '../checkout/session-events.js';
import { renderRecoveryReminder } from './recovery-email.js';

export type RecoveryPlan =
  | { ok: true; consentAt: number; delaysMinutes: number[]; remindersSent: number }
  | { ok: false; reason: 'gone' | 'no_consent' | 'opted_out' | 'recovery_off' | 'no_email' };

export const reminderIdempotencyKey = (token: string, step: number) => `recovery-${token}-${step}`;

export function createRecoveryActivities(deps: { db: Db; email: EmailClient; config: Config }) {
  const { db, config } = deps;
  const outbox = { db, email: deps.email, from: config.email.from };
  if (!config.secretsKey) throw new Error('SECRETS_KEY must be set (the recovery links are signed with a key derived from it)');
  const secretsKey = config.secretsKey;

  const sessionOf = (token: string) =>
    db.checkoutSession.findUnique({
      where: { token },
      include: { merchant: { select: { shopName: true, email: true, slug: true, primaryColor: true, recoveryEnabled: true, recoveryDelaysMinutes: true, customDomain: { select: { hostname: true, status: true } } } } },
    });
  type Session = NonNullable<Awaited<ReturnType<typeof sessionOf>>>;

  /** Why `s` gets no reminder at all, or null. */
  function refusal(s: Session | null): Exclude<RecoveryPlan, { ok: true }>['reason'] | null {
    if (!s) return 'gone';
    if (!s.merchant.recoveryEnabled) return 'recovery_off';
    if (s.recoveryOptedOutAt) return 'opted_out';
    if (!s.recoveryConsentAt) return 'no_consent';
    if (!s.email) return 'no_email';
    return null;
  }

  /** The shop's sender name; replies reach the merchant (as the order emails). */
  function brandedSender(shopName: string): string {
    const address = /<([^>]+)>/.exec(config.email.from)?.[1] ?? config.email.from.trim();
    const name = shopName.replace(/["\\<>\r\n]/g, '').trim();
    return name ? `"${name}" <${address}>` : config.email.from;
  }

  const linksOf = (s: Session) => {
    const origin = checkoutOrigin(s.merchant.slug, { production: config.env === 'production', serviceDomain: config.serviceDomain, port: config.api.port }, s.merchant.customDomain?.status === 'VERIFIED' ? s.merchant.customDomain.hostname : null);
    const link = (purpose: 'restore' | 'unsubscribe', path: string) => `${origin}/api/checkout/${s.token}/${path}?s=${recoveryLinkSignature(secretsKey, purpose, s.token)}`;
    return { restoreUrl: link('restore', 'recover'), unsubscribeUrl: link('unsubscribe', 'unsubscribe') };
  };

  return classifyFailures({
    /** The schedule of the session's reminders as the merchant set it, from the consent on; or why there is none. */
    async planRecoveryReminders(token: string): Promise<RecoveryPlan> {
      const s = await sessionOf(token);
      const reason = refusal(s);
      if (reason || !s) return { ok: false, reason: reason ?? 'gone' };
      const delays = s.merchant.recoveryDelaysMinutes;
      // The API checks delays as they are set; a row edited by hand falls back to no reminder rather than a flood.
      if (recoveryDelaysProblem(delays) !== null) return { ok: false, reason: 'recovery_off' };
      return { ok: true, consentAt: s.recoveryConsentAt!.getTime(), delaysMinutes: delays, remindersSent: s.recoveryRemindersSent };
    },

    /** Sends reminder `step` (0-based) unless the session was paid, consent is gone or recovery is off; once per session and step. */
    async sendRecoveryReminder(input: { token: string; step: number }): Promise<ReminderOutcome> {
      const { token, step } = input;
      const key = reminderIdempotencyKey(token, step);
      const s = await sessionOf(token);
      const earlier = await db.emailMessage.findUnique({ where: { idempotencyKey: key } });
      // Sent by an earlier attempt that stopped before counting it: count it, never send again.
      if (s && earlier?.status === 'SENT') {
        await countReminder(token, step, earlier.sentAt ?? new Date());
        return { sent: true, step: step + 1 };
      }
      const reason = refusal(s);
      if (reason || !s) return { sent: false, reason: reason ?? 'gone', final: true };
      if (s.status === 'PAYMENT_PENDING') return { sent: false, reason: 'payment_pending', final: false };
      if (!REMINDABLE_STATUSES.has(s.status)) return { sent: false, reason: 'paid', final: true };
      const moneyLocale = shopperMoneyLocale(s.shopperLocale ?? s.storeLocale);
      const fmt = (minor: number) => formatMoney({ amount: minor, currency: s.currency }, moneyLocale);
      const rendered = renderRecoveryReminder({
        shop: { name: s.merchant.shopName, primaryColor: s.merchant.primaryColor },
        locale: s.shopperLocale ?? s.storeLocale,
        lines: sessionLines(s.items).map((l) => ({ label: `${l.quantity} × ${l.variantTitle ? `${l.title} (${l.variantTitle})` : l.title}`, amount: fmt(l.unitPrice * l.quantity) })),
        subtotal: fmt(s.subtotalMinor),
        ...linksOf(s),
      });
      const row = earlier ?? (await recordEmail(db, { idempotencyKey: key, merchantId: s.merchantId, kind: 'recovery_reminder', to: s.email!, subject: rendered.subject }));
      const sent = await sendRecordedEmail(outbox, row, () => ({
        ...rendered, from: brandedSender(s.merchant.shopName), replyTo: s.merchant.email, tag: 'recovery_reminder', metadata: { emailId: row.id, merchantId: s.merchantId, step: String(step + 1) },
      }));
      await countReminder(token, step, new Date());
      await recordSessionEvent(db, token, 'recovery_reminder_sent', { step: step + 1, emailId: row.id, messageId: sent.messageId });
      return { sent: true, step: step + 1 };
    },

    async markRecoveryReminderFailed(input: { token: string; step: number; reason: string }): Promise<void> {
      await db.emailMessage.updateMany({ where: { idempotencyKey: reminderIdempotencyKey(input.token, input.step), status: 'PENDING' }, data: { status: 'FAILED', error: input.reason.slice(0, 500) } });
    },
  });

  /** The session's count of reminders moves to step + 1 once (and the first one's time is kept for the stats). */
  async function countReminder(token: string, step: number, at: Date): Promise<void> {
    await db.$executeRaw`
      UPDATE checkout_sessions SET recovery_reminders_sent = ${step + 1}, recovery_reminder_sent_at = COALESCE(recovery_reminder_sent_at, ${at})
      WHERE token = ${token} AND recovery_reminders_sent <= ${step}`;
  }
}

export type RecoveryActivities = ReturnType<typeof createRecoveryActivities>;
