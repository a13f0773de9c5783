// The merchant's notification settings: which events email the merchant, and to which addresses (domain/merchant/notifications.ts).
import { z } from 'zod';
import { NOTIFICATION_EVENT_LABELS, NOTIFICATION_EVENTS, NOTIFICATION_RECIPIENTS_MAX } from '../../domain/merchant/notifications.js';
import { emailAddress } from './text.js';

const events = z
  .object(Object.fromEntries(NOTIFICATION_EVENTS.map((e) => [e, z.boolean().describe(`${NOTIFICATION_EVENT_LABELS[e].label}: ${NOTIFICATION_EVENT_LABELS[e].covers}`)])) as Record<(typeof NOTIFICATION_EVENTS)[number], z.ZodBoolean>)
  .strict();

export const notificationSettings = z
  .object({
    events,
    recipients: z.array(z.string()).max(NOTIFICATION_RECIPIENTS_MAX).describe('The addresses the notifications go to; empty: the account\'s email'),
    defaultRecipient: z.string().describe('The account\'s email: where notifications go while recipients is empty'),
  })
  .meta({ id: 'NotificationSettings' });

export const notificationSettingsInput = z
  .object({
    events: events.partial().optional().describe('Events to switch on (true) or off (false); those left out keep their setting'),
    recipients: z
      .array(emailAddress('enter a valid email address'))
      .max(NOTIFICATION_RECIPIENTS_MAX, `at most ${NOTIFICATION_RECIPIENTS_MAX} addresses`)
      .optional()
      .describe(`Up to ${NOTIFICATION_RECIPIENTS_MAX} addresses (lower-cased; one typed twice is kept once); [] sends to the account's email. Left out: unchanged`),
  })
  .strict()
  // An address typed twice (in any letter case) is kept once.
  .transform((value) => (value.recipients ? { ...value, recipients: [...new Set(value.recipients)] } : value));
