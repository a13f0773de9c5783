// The hosted test payment page, server-rendered. One URL per payment (/pay/:id) shows whatever the
// payment needs next: the card form, the extra authentication step, or its final state.
import type { Payment } from '../../integrations/processor/schemas.js';
import { TEST_CARDS } from './state.js';

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Integer minor units in the currency's own number of decimals (EUR 2, JPY 0, KWD 3). */
export function formatAmount(amount: number, currency: string): string {
  const format = new Intl.NumberFormat('en', { style: 'currency', currency });
  return format.format(amount / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
  body{font-family:system-ui,sans-serif;background:#f4f5f7;color:#1a1f36;margin:0;padding:2rem 1rem}
  main{max-width:26rem;margin:0 auto;background:#fff;border-radius:10px;box-shadow:0 2px 12px #0001;padding:1.75rem}
  .badge{display:inline-block;font-size:.75rem;background:#ffe8b3;color:#7a4a00;border-radius:4px;padding:.1rem .4rem}
  h1{font-size:1.25rem;margin:.75rem 0 .25rem} .amount{font-size:1.75rem;font-weight:600;margin:.25rem 0 1rem}
  label{display:block;font-size:.85rem;margin:.75rem 0 .25rem} .row{display:flex;gap:.75rem} .row>div{flex:1}
  input{width:100%;box-sizing:border-box;padding:.6rem;border:1px solid #cfd7df;border-radius:6px;font-size:1rem}
  button{margin-top:1.25rem;width:100%;padding:.75rem;border:0;border-radius:6px;background:#635bff;color:#fff;font-size:1rem;cursor:pointer}
  button.secondary{background:#e3e8ee;color:#1a1f36}
  .error{background:#fde8e8;color:#a11;border-radius:6px;padding:.6rem;margin:.75rem 0}
  .ok{background:#e6f6ec;color:#146c2e;border-radius:6px;padding:.6rem;margin:.75rem 0}
  .hint{font-size:.8rem;color:#697386;margin-top:1.25rem} code{font-size:.8rem}
</style></head><body><main><span class="badge">Test mode</span>${body}</main></body></html>`;
}

function header(payment: Payment, businessName: string): string {
  return `<h1>${escapeHtml(businessName)}</h1>
${payment.description ? `<p>${escapeHtml(payment.description)}</p>` : ''}
<div class="amount">${escapeHtml(formatAmount(payment.amount, payment.currency))}</div>`;
}

export interface CardFormState {
  error?: string;
  /** Echoed back after a validation error; never the full number or the CVC. */
  expiry?: string;
}

export function cardFormPage(payment: Payment, businessName: string, state: CardFormState = {}): string {
  const cards = Object.entries(TEST_CARDS)
    .map(([number, card]) => `<li><code>${number.replace(/(\d{4})(?=\d)/g, '$1 ')}</code> ${escapeHtml(card.label)}</li>`)
    .join('');
  return layout(
    `Pay ${businessName}`,
    `${header(payment, businessName)}
${state.error ? `<div class="error" role="alert">${escapeHtml(state.error)}</div>` : ''}
<form method="post" action="/pay/${escapeHtml(payment.id)}">
  <label for="card_number">Card number</label>
  <input id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" placeholder="4242 4242 4242 4242" required>
  <div class="row">
    <div><label for="expiry">Expiry (MM/YY)</label>
    <input id="expiry" name="expiry" autocomplete="cc-exp" placeholder="12/34" value="${escapeHtml(state.expiry ?? '')}" required></div>
    <div><label for="cvc">CVC</label>
    <input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" placeholder="123" required></div>
  </div>
  <button type="submit">Pay ${escapeHtml(formatAmount(payment.amount, payment.currency))}</button>
</form>
<div class="hint">Test cards (any future expiry, any CVC):<ul>${cards}</ul></div>`,
  );
}

export function authenticatePage(payment: Payment, businessName: string): string {
  const action = `/pay/${escapeHtml(payment.id)}/authenticate`;
  return layout(
    'Authenticate payment',
    `${header(payment, businessName)}
<p>Your bank asks you to confirm this payment with the card ending in ${escapeHtml(payment.card_last4 ?? '')}.</p>
<form method="post" action="${action}"><input type="hidden" name="action" value="complete"><button type="submit">Complete</button></form>
<form method="post" action="${action}"><input type="hidden" name="action" value="fail"><button type="submit" class="secondary">Fail authentication</button></form>`,
  );
}

const STATE_TEXT: Record<Payment['status'], { cls: string; text: string }> = {
  requires_payment: { cls: 'error', text: 'This payment can no longer be paid.' },
  requires_action: { cls: 'error', text: 'This payment is waiting for authentication.' },
  succeeded: { cls: 'ok', text: 'Payment succeeded. Thank you!' },
  failed: { cls: 'error', text: 'Payment failed.' },
  refunded: { cls: 'ok', text: 'This payment was refunded.' },
};

export function statusPage(payment: Payment, businessName: string, returnUrl: string | null): string {
  const { cls, text } = STATE_TEXT[payment.status];
  const reason = payment.status === 'failed' && payment.failure_reason ? ` Reason: ${payment.failure_reason.replace(/_/g, ' ')}.` : '';
  const card = payment.card_last4 ? `<p>Card ending in ${escapeHtml(payment.card_last4)}</p>` : '';
  return layout(
    `Payment ${payment.status}`,
    `${header(payment, businessName)}
<div class="${cls}" role="status" data-status="${escapeHtml(payment.status)}">${escapeHtml(text + reason)}</div>${card}
${returnUrl ? `<p><a href="${escapeHtml(returnUrl)}">Return to ${escapeHtml(businessName)}</a></p>` : ''}`,
  );
}

export function notFoundPage(id: string): string {
  return layout('Payment not found', `<h1>Payment not found</h1><div class="error">No payment ${escapeHtml(id)} exists.</div>`);
}
