// Whop's embedded checkout, the iframe side: the page @whop/checkout 0.5.0 mounts in an <iframe> on the merchant's
// own page, at /embedded/checkout/<ch id>/?session=<ch id>&h=<the embedding page's origin>&v=3&email=…&name=…&address.*=…
// (the URL its getEmbeddedCheckoutIframeUrl builds: the configuration's id in the path when there is one, else the plan's). Written from that package (docs/processor.md, "The embedded
// checkout", names its files): nothing of it is copied here, this is our own implementation of the other end.
//
// The card logic is the hosted page's (same test cards, decline, 3-D Secure step, payment and webhooks through the
// store); what differs is how the buyer's page hears of it, by window.postMessage to the `h` origin only:
//   iframe → host: resize {height}, state {state: "ready"}, complete {plan_id, receipt_id}, payment-error {message, code},
//                  and the answers get-email-result, set-email-result, get-address-result, set-address-result,
//                  set-display-currency-result, each with the request's event_id;
//   host → iframe (__scope "whop-embedded-checkout", only from the parent window at `h`): get-email, set-email,
//                  get-address, set-address, set-display-currency, submit, overlay-closed, update-search-params.
// After a paid checkout the iframe stays (skip_redirect=true, what the package sends when the host handles completion)
// or sends the whole tab to payment_redirect_url (else the configuration's redirect_url) with payment_id, status=success
// and checkout_status=success, as Whop's "returnUrl" (docs) and hosted redirect (tutorials) say.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { readCard } from './hosted-page.js';
import { escapeHtml, formatAmount, notFoundPage } from './pages.js';
import { TEST_CARDS, WhopError, type CheckoutConfiguration, type Payment, type Plan, type WhopStore } from './store.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const form = z.record(z.string(), z.string());
/** The billing address keys of the package's URL (`address.line1`, …) and of the form. */
export const ADDRESS_KEYS = ['line1', 'line2', 'city', 'state', 'postal_code', 'country'] as const;

/** The query the package builds; only what the simulator acts on is read, the rest (utm_*, theme.*, wuid, a, …) is ignored. */
const embedQuery = z.object({
  session: z.string().min(1).optional(),
  h: z.string().optional(),
  email: z.string().optional(),
  name: z.string().optional(),
  skip_redirect: z.string().optional(),
  payment_redirect_url: z.string().optional(),
  setup_future_usage: z.string().optional(),
  hide_price: z.string().optional(),
  hide_submit_button: z.string().optional(),
  'email.hidden': z.string().optional(),
  'email.disabled': z.string().optional(),
  'address.hidden': z.string().optional(),
  theme: z.string().optional(),
  'theme.accentColor': z.string().optional(),
  ...Object.fromEntries(ADDRESS_KEYS.map((k) => [`address.${k}`, z.string().optional()])),
}).catchall(z.unknown());
type EmbedQuery = z.infer<typeof embedQuery>;

/** The embedding page's origin (`h`): messages go to it alone, and only its messages are heard. */
function hostOrigin(h: string | undefined): string | null {
  if (!h || !URL.canParse(h)) return null;
  const url = new URL(h);
  return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === h.replace(/\/+$/, '') ? url.origin : null;
}

/** Where a paid embedded checkout sends the whole tab when the host did not ask to handle it (no skip_redirect). */
export function embedReturnUrl(returnUrl: string | null, payment: Payment): string | null {
  if (!returnUrl || !URL.canParse(returnUrl)) return null;
  const url = new URL(returnUrl);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  url.searchParams.set('payment_id', payment.id);
  url.searchParams.set('status', 'success');
  url.searchParams.set('checkout_status', 'success');
  return url.toString();
}

interface EmbedView {
  host: string;
  action: string;
  authAction?: string;
  companyTitle: string;
  plan: Plan;
  amount: number;
  query: EmbedQuery;
  values: Record<string, string>;
  error?: { message: string; code: string };
  /** A payment the buyer must confirm with the bank (3-D Secure) first. */
  authenticate?: Payment;
  /** Paid: the message for the host, and where the tab goes (null: the host handles it). */
  paid?: { payment: Payment; redirect: string | null };
  /** Nothing to pay any more (already paid, or pending elsewhere). */
  closed?: string;
}

/** The script of every embedded page: resize, state, the host's requests, and the page's own outcome. Data comes from #embed-data. */
const SCRIPT = `(() => {
  const data = JSON.parse(document.getElementById('embed-data').textContent);
  const host = data.host;
  const post = (message) => parent.postMessage(message, host);
  const form = document.getElementById('pay');
  const field = (name) => form && form.elements.namedItem(name);
  let height = 0;
  const measure = () => {
    const h = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (h !== height) { height = h; post({ event: 'resize', height: h }); }
  };
  new ResizeObserver(measure).observe(document.documentElement);
  measure();
  const address = () => {
    const a = {};
    for (const [key, name] of [['name', 'name'], ['line1', 'address.line1'], ['line2', 'address.line2'], ['city', 'address.city'], ['state', 'address.state'], ['postalCode', 'address.postal_code'], ['country', 'address.country']]) {
      const input = field(name);
      a[key] = input ? input.value.trim() : '';
    }
    return a;
  };
  window.addEventListener('message', (e) => {
    if (e.source !== parent || e.origin !== host) return;
    const m = e.data;
    if (!m || typeof m !== 'object' || m.__scope !== 'whop-embedded-checkout') return;
    const reply = (event, rest) => post(Object.assign({ event, event_id: m.event_id }, rest));
    const email = field('email');
    switch (m.event) {
      case 'get-email': return reply('get-email-result', { email: email ? email.value : '' });
      case 'set-email':
        if (!email) return reply('set-email-result', { ok: false, error: 'The checkout is not collecting an email' });
        if (data.emailDisabled) return reply('set-email-result', { ok: false, error: 'The email field is disabled' });
        if (typeof m.email !== 'string' || !/^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$/.test(m.email)) return reply('set-email-result', { ok: false, error: 'Invalid email address' });
        email.value = m.email;
        return reply('set-email-result', { ok: true });
      case 'get-address': {
        if (!form) return reply('get-address-result', { ok: false, error: 'The checkout is not collecting an address' });
        const a = address();
        return reply('get-address-result', { ok: true, address: a, is_complete: !!(a.name && a.line1 && a.city && a.postalCode && a.country) });
      }
      case 'set-address': {
        const a = m.address;
        if (!form || data.addressHidden) return reply('set-address-result', { ok: false, error: 'The checkout is not collecting an address' });
        if (!a || typeof a !== 'object') return reply('set-address-result', { ok: false, error: 'Invalid address' });
        for (const [key, name] of [['name', 'name'], ['line1', 'address.line1'], ['line2', 'address.line2'], ['city', 'address.city'], ['state', 'address.state'], ['postalCode', 'address.postal_code'], ['country', 'address.country']]) {
          if (typeof a[key] === 'string' && field(name)) field(name).value = a[key];
        }
        return reply('set-address-result', { ok: true });
      }
      case 'set-display-currency': return reply('set-display-currency-result', { ok: false, error: 'Display currencies are not offered for this checkout' });
      case 'submit': if (form) form.requestSubmit(); return;
      default: return;
    }
  });
  if (form) form.addEventListener('submit', () => post({ event: 'state', state: 'disabled' }));
  if (data.message) post(data.message);
  post({ event: 'state', state: form ? 'ready' : 'disabled' });
  if (data.redirect) top.location.href = data.redirect;
})();`;

function page(view: EmbedView, body: string, data: Record<string, unknown>): string {
  const dark = view.query.theme === 'dark';
  const accent = /^#[0-9a-fA-F]{3,8}$/.test(view.query['theme.accentColor'] ?? '') ? view.query['theme.accentColor']! : '#635bff';
  const json = JSON.stringify({ host: view.host, ...data }).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Checkout</title>
<style>
  html,body{margin:0;background:transparent}
  body{font-family:system-ui,sans-serif;color:${dark ? '#f4f5f7' : '#1a1f36'};padding:2px}
  .badge{display:inline-block;font-size:.75rem;background:#ffe8b3;color:#7a4a00;border-radius:4px;padding:.1rem .4rem}
  .amount{font-size:1.5rem;font-weight:600;margin:.5rem 0}
  label{display:block;font-size:.85rem;margin:.6rem 0 .25rem} .row{display:flex;gap:.75rem} .row>div{flex:1;min-width:0}
  input{width:100%;box-sizing:border-box;padding:.6rem;border:1px solid #cfd7df;border-radius:6px;font-size:1rem;background:${dark ? '#1a1f36' : '#fff'};color:inherit}
  fieldset{border:0;padding:0;margin:.75rem 0 0} legend{font-weight:600;font-size:.9rem;padding:0}
  button{margin-top:1rem;width:100%;padding:.75rem;border:0;border-radius:6px;background:${accent};color:#fff;font-size:1rem;cursor:pointer}
  button.secondary{background:#e3e8ee;color:#1a1f36}
  .error{background:#fde8e8;color:#a11;border-radius:6px;padding:.6rem;margin:.75rem 0}
  .ok{background:#e6f6ec;color:#146c2e;border-radius:6px;padding:.6rem;margin:.75rem 0}
  .hint{font-size:.8rem;color:#697386;margin-top:1rem} code{font-size:.8rem} ul{padding-left:1.1rem;margin:.25rem 0}
</style></head><body><span class="badge">Test mode</span>
${view.query.hide_price === 'true' ? '' : `<div class="amount">${escapeHtml(formatAmount(view.amount, view.plan.currency))}</div>`}
${body}
<script id="embed-data" type="application/json">${json}</script>
<script>${SCRIPT}</script></body></html>`;
}

function cardForm(view: EmbedView): string {
  const v = (name: string) => escapeHtml(view.values[name] ?? '');
  const emailHidden = view.query['email.hidden'] === '1';
  const emailDisabled = view.query['email.disabled'] === '1';
  const cards = Object.entries(TEST_CARDS).map(([number, card]) => `<li><code>${number.replace(/(\d{4})(?=\d)/g, '$1 ')}</code> ${escapeHtml(card.label)}</li>`).join('');
  const email = emailHidden
    ? `<input type="hidden" name="email" value="${v('email')}">`
    : `<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="email" value="${v('email')}"${emailDisabled ? ' readonly' : ''}>`;
  const addressField = (name: string, label: string, auto: string) =>
    `<label for="${name}">${label}</label><input id="${name}" name="${name}" autocomplete="${auto}" value="${v(name)}">`;
  const address = view.query['address.hidden'] === '1'
    ? ['name', ...ADDRESS_KEYS.map((k) => `address.${k}`)].map((n) => `<input type="hidden" name="${n}" value="${v(n)}">`).join('')
    : `<fieldset><legend>Billing address</legend>
  ${addressField('name', 'Name on card', 'cc-name')}
  ${addressField('address.line1', 'Address', 'billing address-line1')}
  <div class="row"><div>${addressField('address.postal_code', 'Postal code', 'billing postal-code')}</div><div>${addressField('address.city', 'City', 'billing address-level2')}</div></div>
  <div class="row"><div>${addressField('address.state', 'State / region', 'billing address-level1')}</div><div>${addressField('address.country', 'Country (ISO code)', 'billing country')}</div></div>
  <input type="hidden" name="address.line2" value="${v('address.line2')}"></fieldset>`;
  return page(view, `${view.error ? `<div class="error" role="alert">${escapeHtml(view.error.message)}</div>` : ''}
<form id="pay" method="post" action="${escapeHtml(view.action)}">
  ${email}
  <label for="card_number">Card number</label>
  <input id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" placeholder="4242 4242 4242 4242">
  <div class="row">
    <div><label for="expiry">Expiry (MM/YY)</label><input id="expiry" name="expiry" autocomplete="cc-exp" placeholder="12/34" value="${v('expiry')}"></div>
    <div><label for="cvc">CVC</label><input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" placeholder="123"></div>
  </div>
  ${address}
  ${view.query.hide_submit_button === 'true' ? '' : `<button type="submit">Pay ${escapeHtml(formatAmount(view.amount, view.plan.currency))}</button>`}
</form>
<div class="hint">Test cards (any future expiry, any CVC):<ul>${cards}</ul></div>`, {
    emailDisabled,
    addressHidden: view.query['address.hidden'] === '1',
    message: view.error ? { event: 'payment-error', message: view.error.message, code: view.error.code } : undefined,
  });
}

function authenticateView(view: EmbedView, payment: Payment, last4: string): string {
  return page(view, `<p>Your bank asks you to confirm this payment with the card ending in ${escapeHtml(last4)}.</p>
<form method="post" action="${escapeHtml(view.authAction!)}"><input type="hidden" name="action" value="complete"><button type="submit">Complete</button></form>
<form method="post" action="${escapeHtml(view.authAction!)}"><input type="hidden" name="action" value="fail"><button type="submit" class="secondary">Fail authentication</button></form>`, {});
}

function paidView(view: EmbedView, payment: Payment, redirect: string | null): string {
  return page(view, `<div class="ok" role="status" data-status="succeeded">Payment succeeded. Thank you!</div>`, {
    message: { event: 'complete', plan_id: view.plan.id, receipt_id: payment.id },
    redirect,
  });
}

function closedView(view: EmbedView, text: string): string {
  return page(view, `<div class="error" role="status">${escapeHtml(text)}</div>`, {});
}

export async function embeddedPageRoutes(app: FastifyInstance, { store }: { store: WhopStore }): Promise<void> {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  const html = (reply: FastifyReply, status: number, body: string) => reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(body);
  app.setErrorHandler<FastifyError>((error, request, reply) => {
    const status = error instanceof WhopError ? error.status : typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status === 404) return html(reply, 404, notFoundPage());
    if (status >= 500) request.log.error({ err: error }, 'whop sandbox: embedded checkout error');
    return reply.code(status).type('text/plain').send(status < 500 ? error.message : 'Internal error');
  });

  /** The checkout of this URL (the plan in the path must be the session's), the embedding origin, and the page's own URL. */
  const load = (request: FastifyRequest, pathId = z.object({ id: z.string() }).catch({ id: '' }).parse(request.params).id) => {
    const query = embedQuery.catch({}).parse(request.query);
    const host = hostOrigin(query.h);
    // The package always sends h (window.location.origin): without it no message could be addressed.
    if (!host) throw new WhopError(400, 'invalid_request', 'h must be the origin of the page embedding the checkout');
    // A plan without a checkout configuration (data-whop-checkout-plan-id alone) is not simulated: every checkout here is a configuration.
    if (!query.session) throw new WhopError(404, 'not_found', 'No such checkout');
    const checkout = store.checkouts.get(query.session);
    // The package puts the configuration's id in the path when it has one (`ch_…`), else the plan's.
    if (!checkout?.plan_id || (pathId !== checkout.id && pathId !== checkout.plan_id)) throw new WhopError(404, 'not_found', 'No such checkout');
    const plan = store.plans.get(checkout.plan_id)!;
    const search = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
    const view: EmbedView = {
      host, action: `/embedded/checkout/${pathId}/${search}`, companyTitle: store.companyRef(checkout.company_id).title, plan, amount: store.firstCharge(plan), query,
      values: Object.fromEntries(['email', 'name', ...ADDRESS_KEYS.map((k) => `address.${k}`)].map((k) => [k, typeof query[k] === 'string' ? (query[k] as string) : ''])),
    };
    return { checkout, view, search };
  };

  const redirectOf = (checkout: CheckoutConfiguration, query: EmbedQuery, payment: Payment) =>
    query.skip_redirect === 'true' ? null : embedReturnUrl(query.payment_redirect_url ?? checkout.redirect_url, payment);

  /** The page for the checkout's state: the 3-D Secure step, paid, closed, or the card form. */
  const render = (checkout: CheckoutConfiguration, view: EmbedView, search: string, reply: FastifyReply, status = 200) => {
    const last = store.paymentsOf(checkout).at(-1);
    if (last?.status === 'pending' && last.substatus === 'pending') {
      return html(reply, status, authenticateView({ ...view, authAction: `/embedded/checkout/payments/${last.id}/authenticate${search}` }, last, store.paymentMethods.get(last.payment_method_id!)?.last4 ?? ''));
    }
    if (last?.status === 'paid') return html(reply, status, closedView(view, 'This checkout has already been paid.'));
    if (!store.payable(checkout)) return html(reply, status, closedView(view, 'This checkout can no longer be paid.'));
    return html(reply, status, cardForm(view));
  };

  /** Where a payment leaves the buyer: paid (complete, maybe the redirect), the bank's step, or the form with the reason. */
  const after = (checkout: CheckoutConfiguration, view: EmbedView, search: string, payment: Payment, reply: FastifyReply) => {
    if (payment.status === 'paid') return html(reply, 200, paidView(view, payment, redirectOf(checkout, view.query, payment)));
    if (payment.status === 'pending') return render(checkout, view, search, reply);
    return html(reply, 402, cardForm({ ...view, error: { message: payment.failure_message ?? 'Your card was declined.', code: 'card_declined' } }));
  };

  app.get('/embedded/checkout/:id/', async (request, reply) => {
    const { checkout, view, search } = load(request);
    return render(checkout, view, search, reply);
  });

  app.post('/embedded/checkout/:id/', async (request, reply) => {
    const { checkout, view, search } = load(request);
    if (!store.payable(checkout)) return render(checkout, view, search, reply, 409);
    const fields = form.catch({}).parse(request.body);
    const values: Record<string, string> = { ...view.values, expiry: fields.expiry ?? '' };
    for (const key of Object.keys(view.values)) values[key] = fields[key] ?? view.values[key]!;
    const again = (message: string, status: number, code = 'invalid_request') => html(reply, status, cardForm({ ...view, values, error: { message, code } }));
    const email = (values.email ?? '').trim();
    if (!EMAIL.test(email)) return again('Enter a valid email address.', 400);
    const card = readCard(fields);
    if ('error' in card) return again(card.error, 400, 'invalid_card');
    const testCard = TEST_CARDS[card.number];
    if (!testCard) return again('Your card was declined: this is test mode, use one of the test cards below.', 402, 'card_declined');
    const setupFutureUsage = view.query.setup_future_usage === 'off_session' ? 'off_session' : null;
    const payment = store.purchase(checkout, { email, last4: card.number.slice(-4), outcome: testCard.outcome, setupFutureUsage });
    return after(checkout, { ...view, values }, search, payment, reply);
  });

  app.post('/embedded/checkout/payments/:id/authenticate', async (request, reply) => {
    const { id } = z.object({ id: z.string() }).parse(request.params);
    const payment = store.payments.get(id);
    const checkout = payment?.checkout_configuration_id ? store.checkouts.get(payment.checkout_configuration_id) : undefined;
    if (!payment || !checkout?.plan_id) throw new WhopError(404, 'not_found', 'No such payment');
    // The page's own query (h, skip_redirect, …) travels with the form, as on the card form.
    const loaded = load(request, checkout.id);
    if (loaded.checkout !== checkout) throw new WhopError(404, 'not_found', 'No such payment');
    const { view, search } = loaded;
    if (payment.status !== 'pending') return render(checkout, view, search, reply);
    const { action } = form.catch({}).parse(request.body);
    if (action !== 'complete' && action !== 'fail') return reply.code(400).type('text/plain').send('action must be complete or fail');
    store.authenticate(payment, action === 'complete');
    return after(checkout, view, search, payment, reply);
  });
}
