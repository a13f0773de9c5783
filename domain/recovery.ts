// Abandoned-checkout recovery (docs/recovery.md): the merchant's schedule, the consent wording's version, and which
// sessions a reminder may go to. Pure: shared by api/, the recovery workflow and activities.

/** At most this many reminders per session. */
export const MAX_RECOVERY_REMINDERS = 3;
/** The earliest a reminder may go (the shopper may still be deciding), and the latest (a cart a month old is gone). */
export const MIN_RECOVERY_DELAY_MINUTES = 30;
export const MAX_RECOVERY_DELAY_MINUTES = 30 * 24 * 60;
export const DEFAULT_RECOVERY_DELAYS_MINUTES: readonly number[] = [60, 24 * 60, 72 * 60];

/**
 * The version of the consent sentence the page shows (domain/checkout-messages: `recoveryConsent`), recorded with each
 * consent as `v<version>:<language>`. Raise it whenever that sentence changes in any language, so every recorded
 * consent still names the words the shopper agreed to.
 */
export const RECOVERY_CONSENT_VERSION = 1;
export const consentWording = (language: string): string => `v${RECOVERY_CONSENT_VERSION}:${language}`;

/** Why a schedule is refused, or null when it is good: 1 to 3 delays, strictly ascending, each within the bounds. */
export function recoveryDelaysProblem(delays: readonly number[]): string | null {
  if (delays.length < 1 || delays.length > MAX_RECOVERY_REMINDERS) return `between 1 and ${MAX_RECOVERY_REMINDERS} reminders`;
  for (const [i, d] of delays.entries()) {
    if (!Number.isInteger(d) || d < MIN_RECOVERY_DELAY_MINUTES || d > MAX_RECOVERY_DELAY_MINUTES) {
      return `each delay is whole minutes from ${MIN_RECOVERY_DELAY_MINUTES} to ${MAX_RECOVERY_DELAY_MINUTES} (30 days)`;
    }
    if (i > 0 && d <= delays[i - 1]!) return 'each reminder comes after the one before';
  }
  return null;
}

/**
 * Statuses whose shopper has not paid and may be reminded. PAYMENT_PENDING is not one: a payment may be completing at
 * the processor (a bank transfer, 3-D Secure), so that reminder is skipped and the next one looks again.
 */
export const REMINDABLE_STATUSES: ReadonlySet<string> = new Set(['OPEN', 'FAILED', 'ABANDONED']);

/** What the reminder step found: sent, or why not, and whether the series ends there. */
export type ReminderOutcome =
  | { sent: true; step: number }
  | { sent: false; reason: 'paid' | 'opted_out' | 'no_consent' | 'recovery_off' | 'no_email' | 'gone'; final: true }
  | { sent: false; reason: 'payment_pending'; final: false };
