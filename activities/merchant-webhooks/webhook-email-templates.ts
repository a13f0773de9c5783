// The emails about a merchant's failing webhook endpoint (the service's own emails to merchants, in the account
// layout): a warning on day 1 and day 3 of continuous failure, and the notice that it was disabled on day 5.
// Every interpolated value is escaped for HTML.
import { accountLayout, type RenderedEmail } from '../email/account-email-templates.js';
import type { EndpointHealthStep } from '../../domain/merchant-webhooks/merchant-webhooks.js';

export const WEBHOOK_EMAIL_KINDS = { warning_day_1: 'webhook_endpoint_failing', warning_day_3: 'webhook_endpoint_failing', disable: 'webhook_endpoint_disabled' } as const satisfies Record<EndpointHealthStep, string>;

export interface WebhookEmailData {
  shopName: string;
  url: string;
  /** When the failures began (YYYY-MM-DD HH:MM UTC). */
  failingSince: string;
  /** When the endpoint will be (or was) disabled. */
  disableAt: string;
  lastError: string | null;
  /** The dashboard's webhooks page. */
  manageUrl: string;
}

export function renderWebhookEmail(step: EndpointHealthStep, d: WebhookEmailData): RenderedEmail {
  const button = { label: 'Open webhooks', href: d.manageUrl };
  const cause = d.lastError ? `The last attempt: ${d.lastError}.` : '';
  const paragraphs = step === 'disable'
    ? [
      `Every delivery to your webhook endpoint ${d.url} failed since ${d.failingSince}, so we disabled it: ${d.shopName} sends it no more events.`,
      cause,
      'Fix the endpoint, enable it again in the dashboard, and replay the failed deliveries from the dead-letter list (one, or all since a time).',
    ]
    : [
      `Deliveries to your webhook endpoint ${d.url} have failed since ${d.failingSince}. We keep retrying each one for more than 24 hours.`,
      cause,
      `If no delivery succeeds by ${d.disableAt}, the endpoint will be disabled. Failed deliveries stay in the dead-letter list, ready to replay.`,
    ];
  const kept = paragraphs.filter(Boolean);
  const subject = step === 'disable' ? `Webhook endpoint disabled: ${d.url}` : `Your webhook endpoint is failing: ${d.url}`;
  return { subject, html: accountLayout(subject, kept, button), text: `${kept.join('\n\n')}\n\n${button.label}: ${button.href}\n` };
}
