// The hosted checkout page, server-rendered, one URL per checkout configuration as Whop's purchase_url
// (/checkout/<plan id>/?session=<ch id>): the card form, the 3-D Secure step of a pending payment, or the result.
import type { Payment, Plan } from './store.js';
import { TEST_CARDS } from './store.js';

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A decimal amount in a lowercase currency, as the buyer reads it. */
export function formatAmount(amount: number, currency: string): string {
  return new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() }).format(amount);
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

function header(companyTitle: string, amount: number, currency: string, title: string | null): string {
  return `<h1>${escapeHtml(companyTitle)}</h1>
${title ? `<p>${escapeHtml(title)}</p>` : ''}
<div class="amount">${escapeHtml(formatAmount(amount, currency))}</div>`;
}

export interface CardFormState {
  error?: string;
  /** Echoed back after a validation error; never the full number or the CVC. */
  expiry?: string;
  email?: string;
}

export function cardFormPage(action: string, companyTitle: string, plan: Plan, amount: number, state: CardFormState = {}): string {
  const cards = Object.entries(TEST_CARDS)
    .map(([number, card]) => `<li><code>${number.replace(/(\d{4})(?=\d)/g, '$1 ')}</code> ${escapeHtml(card.label)}</li>`)
    .join('');
  return layout(
    `Pay ${companyTitle}`,
    `${header(companyTitle, amount, plan.currency, plan.title)}
${state.error ? `<div class="error" role="alert">${escapeHtml(state.error)}</div>` : ''}
<form method="post" action="${escapeHtml(action)}">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="email" placeholder="you@example.com" value="${escapeHtml(state.email ?? '')}">
  <label for="card_number">Card number</label>
  <input id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" placeholder="4242 4242 4242 4242" required>
  <div class="row">
    <div><label for="expiry">Expiry (MM/YY)</label>
    <input id="expiry" name="expiry" autocomplete="cc-exp" placeholder="12/34" value="${escapeHtml(state.expiry ?? '')}" required></div>
    <div><label for="cvc">CVC</label>
    <input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" placeholder="123" required></div>
  </div>
  <label><input type="checkbox" name="setup_future_usage" value="off_session" style="width:auto"> Save this card for later one-click purchases</label>
  <p class="hint">Sandbox only: stands for Whop's embedded checkout with <code>setupFutureUsage: "off_session"</code>; Whop's hosted page does not save the card.</p>
  <button type="submit">Pay ${escapeHtml(formatAmount(amount, plan.currency))}</button>
</form>
<div class="hint">Test cards (any future expiry, any CVC):<ul>${cards}</ul></div>`,
  );
}

export function authenticatePage(action: string, companyTitle: string, payment: Payment, last4: string): string {
  return layout(
    'Authenticate payment',
    `${header(companyTitle, payment.total, payment.currency, null)}
<p>Your bank asks you to confirm this payment with the card ending in ${escapeHtml(last4)}.</p>
<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="action" value="complete"><button type="submit">Complete</button></form>
<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="action" value="fail"><button type="submit" class="secondary">Fail authentication</button></form>`,
  );
}

export function statusPage(companyTitle: string, payment: Payment, returnUrl: string | null): string {
  const paid = payment.status === 'paid';
  const text = paid ? (payment.substatus === 'refunded' ? 'This payment was refunded.' : 'Payment succeeded. Thank you!') : `Payment ${payment.substatus}.${payment.failure_message ? ` ${payment.failure_message}` : ''}`;
  return layout(
    `Payment ${payment.substatus}`,
    `${header(companyTitle, payment.total, payment.currency, null)}
<div class="${paid ? 'ok' : 'error'}" role="status" data-status="${escapeHtml(payment.substatus)}">${escapeHtml(text)}</div>
${returnUrl ? `<p><a href="${escapeHtml(returnUrl)}">Return to ${escapeHtml(companyTitle)}</a></p>` : ''}`,
  );
}

export function notFoundPage(): string {
  return layout('Checkout not found', '<h1>Checkout not found</h1><div class="error">This checkout link is not valid.</div>');
}
