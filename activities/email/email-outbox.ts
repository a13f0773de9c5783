// "Record, then send once", the part every email of the service shares. An email is a row of
// email_messages (unique idempotency key) before it is sent; only a row that is not SENT yet is sent, and
// it is marked SENT with the provider's message id right after. A retried activity or a re-run workflow
// therefore never sends the same email twice. Postmark has no idempotency keys, so a crash between Postmark
// accepting a message and the row being marked (a worker killed there: `npm run drill` saw it) is closed
// by the message itself: it carries a digest of its idempotency key in its metadata, and a retried attempt
// asks Postmark's message search for it before sending again.
import { createHash } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { EmailMessage as EmailRow } from '../../generated/prisma/client.js';
import type { Db } from '../../prisma/client.js';
import type { EmailClient, EmailMessage } from '../../integrations/email/index.js';

/** What a rendered email adds to its row: the content and how to find it again at the provider. */
export type OutgoingEmail = Pick<EmailMessage, 'subject' | 'html' | 'text' | 'tag' | 'metadata' | 'replyTo'> & {
  /** Defaults to the service's sender (config EMAIL_FROM). */
  from?: string;
};

export interface EmailSendResult {
  /** SWITCHED_OFF: a merchant notification the merchant's settings switch off (nothing recorded, nothing sent). */
  status: 'SENT' | 'ALREADY_SENT' | 'SWITCHED_OFF';
  messageId: string | null;
}

export interface Outbox {
  db: Db;
  email: EmailClient;
  /** The service's sender, config EMAIL_FROM. */
  from: string;
}

/**
 * The row of this idempotency key, created PENDING on the first call; later calls get the same row. One statement
 * when the row is new (INSERT … ON CONFLICT DO NOTHING RETURNING), a read after it when it was there: Prisma's
 * upsert with nothing to update is a transaction of four (issue 32: statements per checkout).
 */
export async function recordEmail(
  db: Db,
  data: { idempotencyKey: string; merchantId: string | null; kind: string; to: string; subject: string },
): Promise<EmailRow> {
  const [created] = await db.emailMessage.createManyAndReturn({ data: [data], skipDuplicates: true });
  return created ?? db.emailMessage.findUniqueOrThrow({ where: { idempotencyKey: data.idempotencyKey } });
}

/**
 * Sends the recorded email `row` unless it already went out. `render` runs only when the email is about
 * to be sent (a link email mints its single-use token there). A failed send keeps the row PENDING with
 * the error, so the activity's retry sends it then.
 */
export async function sendRecordedEmail(outbox: Outbox, row: EmailRow, render: () => OutgoingEmail | Promise<OutgoingEmail>): Promise<EmailSendResult> {
  if (row.status === 'SENT') return { status: 'ALREADY_SENT', messageId: row.providerMessageId };
  const markSent = (messageId: string) =>
    outbox.db.emailMessage.update({ where: { id: row.id }, data: { status: 'SENT', providerMessageId: messageId, sentAt: new Date(), error: null } });
  const key = emailKeyOf(row.idempotencyKey);
  if (isRetriedAttempt()) {
    // An earlier attempt may have been stopped after Postmark accepted the message and before the row was marked.
    // Postmark's search takes one recipient: the first of a list ("a@x.test, b@y.test") finds the message.
    const earlier = await outbox.email.findSent({ recipient: row.to.split(',')[0]!.trim(), metadata: { [EMAIL_KEY_METADATA]: key } });
    if (earlier) {
      await markSent(earlier);
      return { status: 'ALREADY_SENT', messageId: earlier };
    }
  }
  const { from, ...content } = await render();
  try {
    const sent = await outbox.email.send({ ...content, metadata: { ...content.metadata, [EMAIL_KEY_METADATA]: key }, from: from ?? outbox.from, to: row.to });
    await markSent(sent.messageId);
    return { status: 'SENT', messageId: sent.messageId };
  } catch (err) {
    await outbox.db.emailMessage.update({ where: { id: row.id }, data: { error: (err as Error).message.slice(0, 500) } });
    throw err;
  }
}

/** Metadata field every recorded email carries: finds it again at the provider after a crash. */
export const EMAIL_KEY_METADATA = 'email_key';

/** A short digest of the idempotency key (Postmark metadata values are at most 80 characters). */
export function emailKeyOf(idempotencyKey: string): string {
  return createHash('sha256').update(idempotencyKey).digest('base64url').slice(0, 32);
}

/** True inside an activity attempt after the first (outside an activity: a first send). */
function isRetriedAttempt(): boolean {
  try {
    return Context.current().info.attempt > 1;
  } catch {
    return false;
  }
}
