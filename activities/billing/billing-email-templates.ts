// The texts of the platform billing emails to the merchant: plan activated, a renewal charge failed (and
// when the next one runs), the account returned to Demo (after the grace period, or because the processor ended
// the membership), the plan cancelled.
// Every interpolated value is escaped for HTML.
import { accountLayout, type RenderedEmail } from '../email/account-email-templates.js';

export const BILLING_EMAIL_KINDS = ['billing_activated', 'billing_renewal_failed', 'billing_downgraded', 'billing_cancelled'] as const;
export type BillingEmailKind = (typeof BILLING_EMAIL_KINDS)[number];

export interface BillingEmailData {
  shopName: string;
  planName: string;
  /** Formatted monthly price, e.g. "€29.00". */
  price: string;
  /** Where the merchant manages billing (the dashboard's billing page). */
  billingUrl: string;
  /** billing_activated: end of the first period (YYYY-MM-DD). */
  periodEnd?: string;
  /** billing_renewal_failed: this failure's number, out of how many attempts, and when the next runs (null: none left). */
  attempt?: number;
  attempts?: number;
  nextRetry?: string | null;
  /** billing_renewal_failed: when the account returns to Demo unless a charge succeeds. */
  graceUntil?: string;
  /** billing_downgraded: the grace period ran out (default), or the processor ended the membership. */
  downgradeReason?: 'grace_expired' | 'membership_ended';
}

function email(subject: string, paragraphs: string[], button: { label: string; href: string }): RenderedEmail {
  return { subject, html: accountLayout(subject, paragraphs, button), text: `${paragraphs.join('\n\n')}\n\n${button.label}: ${button.href}\n` };
}

export function renderBillingEmail(kind: BillingEmailKind, d: BillingEmailData): RenderedEmail {
  const manage = { label: 'Manage billing', href: d.billingUrl };
  switch (kind) {
    case 'billing_activated':
      return email(`Your ${d.planName} plan is active`, [
        `Thank you! ${d.shopName} is on the ${d.planName} plan (${d.price} per month): shoppers now check out on your hosted checkout.`,
        `The plan renews automatically on ${d.periodEnd ?? 'the end of each period'} with the card you paid with.`,
      ], manage);
    case 'billing_renewal_failed': {
      const next = d.nextRetry
        ? `We will try again on ${d.nextRetry}. Your checkout keeps working until ${d.graceUntil ?? d.nextRetry}; if no charge succeeds by then, ${d.shopName} returns to the Demo plan.`
        : `That was the last attempt: ${d.shopName} returns to the Demo plan.`;
      return email(`We could not renew your ${d.planName} plan`, [
        `The renewal charge of ${d.price} for ${d.shopName} failed (attempt ${d.attempt ?? 1} of ${d.attempts ?? 1}).`,
        next,
        'To keep the plan without waiting, pay again from your billing page.',
      ], { label: 'Update payment', href: d.billingUrl });
    }
    case 'billing_downgraded':
      return email(`${d.shopName} is back on the Demo plan`, [
        d.downgradeReason === 'membership_ended'
          ? `The ${d.planName} subscription of ${d.shopName} was ended at our payment provider (cancelled, refunded or disputed there), so ${d.shopName} is now on the Demo plan.`
          : `We could not renew the ${d.planName} plan during the grace period, so ${d.shopName} is now on the Demo plan.`,
        "Shoppers use your store's own checkout again. Subscribe again at any time to turn the hosted checkout back on.",
      ], { label: 'Choose a plan', href: d.billingUrl });
    case 'billing_cancelled':
      return email(`Your ${d.planName} plan is cancelled`, [
        `As you asked, the ${d.planName} plan of ${d.shopName} is cancelled and nothing more will be charged.`,
        "The account is on the Demo plan now: shoppers use your store's own checkout until you subscribe again.",
      ], { label: 'Choose a plan', href: d.billingUrl });
  }
}
