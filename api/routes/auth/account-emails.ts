// Queues an account email: the row in email_messages is the record (and the idempotency key), the
// workflow does the sending with retries. A Temporal outage does not fail the request: the row stays
// PENDING and the merchant can ask again.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { type RouteDeps } from '../../route-deps.js';
import type { sendAccountEmailWorkflow } from '../../../workflows/merchant/account-email.js';
import { WORKFLOWS } from '../../../domain/temporal/workflow-names.js';

export type AccountEmailKind = 'email_verification' | 'password_reset';

const SUBJECTS: Record<AccountEmailKind, string> = {
  email_verification: 'Confirm your email address',
  password_reset: 'Reset your password',
};

export async function queueAccountEmail(deps: Pick<RouteDeps, 'db' | 'temporal' | 'config'>, log: FastifyBaseLogger, merchant: { id: string; email: string }, kind: AccountEmailKind): Promise<void> {
  const row = await deps.db.emailMessage.create({
    data: { idempotencyKey: `${kind}:${merchant.id}:${randomUUID()}`, merchantId: merchant.id, kind, to: merchant.email, subject: SUBJECTS[kind] },
  });
  try {
    await deps.temporal.client.workflow.start<typeof sendAccountEmailWorkflow>(WORKFLOWS.accountEmail.type, {
      workflowId: WORKFLOWS.accountEmail.id(row.id),
      taskQueue: deps.config.temporal.taskQueue,
      args: [row.id],
    });
  } catch (err) {
    log.error({ err, emailId: row.id }, 'could not start the email workflow; the email stays pending');
  }
}

/**
 * Queues the email of a team invitation: the row goes to the invitee and names the invitation, whose link token the
 * activity mints at send time (activities/email/account-emails.ts), so the token is never in the database or a workflow history.
 */
export async function queueInvitationEmail(deps: Pick<RouteDeps, 'db' | 'temporal' | 'config'>, log: FastifyBaseLogger, invitation: { id: string; merchantId: string; email: string }, shopName: string): Promise<void> {
  const row = await deps.db.emailMessage.create({
    data: { idempotencyKey: `member_invitation:${invitation.id}`, merchantId: invitation.merchantId, kind: 'member_invitation', to: invitation.email, subject: `Join the team of ${shopName}` },
  });
  await deps.db.memberInvitation.update({ where: { id: invitation.id }, data: { emailMessageId: row.id } });
  try {
    await deps.temporal.client.workflow.start<typeof sendAccountEmailWorkflow>(WORKFLOWS.accountEmail.type, { workflowId: WORKFLOWS.accountEmail.id(row.id), taskQueue: deps.config.temporal.taskQueue, args: [row.id] });
  } catch (err) {
    log.error({ err, emailId: row.id }, 'could not start the email workflow; the invitation email stays pending');
  }
}
