// The hosted checkout (Whop's purchase_url, /checkout/<plan id>/?session=<ch id>): the buyer enters an email and a
// test card; the payment succeeds, is declined, or first needs the 3-D Secure step. Card data never leaves this
// request (only the last four digits are kept). The form's `setup_future_usage=off_session` (a checkbox, off by
// default) stands for Whop's embedded checkout with setupFutureUsage: "off_session": the card is also saved for the
// member's later off-session charges; Whop's hosted page in payment mode saves nothing. A paid checkout redirects (303) to the configuration's
// redirect_url with `payment_id=pay_…&checkout_status=success` appended, as Whop does.
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { authenticatePage, cardFormPage, notFoundPage, statusPage } from './pages.js';
import { TEST_CARDS, WhopError, type CheckoutConfiguration, type Payment, type WhopStore } from './store.js';

const form = z.record(z.string(), z.string());
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/** Validates the card form like a real payment page; answers the card number or the message to show. */
export function readCard(fields: Record<string, string>, today = new Date()): { number: string } | { error: string } {
  const number = (fields.card_number ?? '').replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(number) || !luhnValid(number)) return { error: 'Your card number is invalid.' };
  const expiry = /^(\d{1,2})\s*\/\s*(\d{2}|\d{4})$/.exec((fields.expiry ?? '').trim());
  const month = Number(expiry?.[1]);
  const year = expiry?.[2]?.length === 2 ? 2000 + Number(expiry[2]) : Number(expiry?.[2]);
  if (!expiry || month < 1 || month > 12) return { error: "Your card's expiration date is invalid." };
  if (Date.UTC(year, month) <= today.getTime()) return { error: "Your card's expiration date is in the past." };
  if (!/^\d{3,4}$/.test((fields.cvc ?? '').trim())) return { error: "Your card's security code is invalid." };
  return { number };
}

/** Where a paid checkout sends the buyer: redirect_url with Whop's two parameters. */
export function redirectFor(checkout: CheckoutConfiguration, payment: Payment): string | null {
  if (!checkout.redirect_url) return null;
  const url = new URL(checkout.redirect_url);
  url.searchParams.set('payment_id', payment.id);
  url.searchParams.set('checkout_status', 'success');
  return url.toString();
}

export async function hostedPageRoutes(app: FastifyInstance, { store }: { store: WhopStore }): Promise<void> {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  const html = (reply: FastifyReply, status: number, page: string) => reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page);
  app.setErrorHandler<FastifyError>((error, request, reply) => {
    const status = error instanceof WhopError ? error.status : typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status === 404) return html(reply, 404, notFoundPage());
    if (status >= 500) request.log.error({ err: error }, 'whop sandbox: hosted page error');
    return reply.code(status).type('text/plain').send(status < 500 ? error.message : 'Internal error');
  });

  /** The checkout of this URL: the plan in the path must be the session's plan. */
  const load = (params: unknown, query: unknown) => {
    const { planId } = z.object({ planId: z.string() }).catch({ planId: '' }).parse(params);
    const { session } = z.object({ session: z.string() }).catch({ session: '' }).parse(query);
    const checkout = store.checkouts.get(session);
    if (!checkout || checkout.plan_id !== planId) throw new WhopError(404, 'not_found', 'No such checkout');
    return { checkout, plan: store.plans.get(planId)!, title: store.companyRef(checkout.company_id).title, action: `/checkout/${planId}/?session=${checkout.id}` };
  };
  const latest = (checkout: CheckoutConfiguration) => store.paymentsOf(checkout).at(-1);
  const authAction = (payment: Payment) => `/checkout/payments/${payment.id}/authenticate`;

  const render = (params: unknown, query: unknown, reply: FastifyReply, status = 200) => {
    const { checkout, plan, title, action } = load(params, query);
    const last = latest(checkout);
    if (last?.status === 'pending' && last.substatus === 'pending') return html(reply, status, authenticatePage(authAction(last), title, last, store.paymentMethods.get(last.payment_method_id!)?.last4 ?? ''));
    if (!store.payable(checkout)) return html(reply, status, statusPage(title, last!, redirectFor(checkout, last!)));
    return html(reply, status, cardFormPage(action, title, plan, store.firstCharge(plan)));
  };
  /** Post/redirect/get: paid → the redirect_url; anything else → this page, showing the new state. */
  const after = (checkout: CheckoutConfiguration, payment: Payment, reply: FastifyReply) =>
    reply.redirect((payment.status === 'paid' && redirectFor(checkout, payment)) || `/checkout/${checkout.plan_id}/?session=${checkout.id}`, 303);

  app.get('/checkout/:planId/', async (request, reply) => render(request.params, request.query, reply));

  app.post('/checkout/:planId/', async (request, reply) => {
    const { checkout, plan, title, action } = load(request.params, request.query);
    if (!store.payable(checkout)) return render(request.params, request.query, reply, 409);
    const fields = form.catch({}).parse(request.body);
    const email = (fields.email ?? '').trim() || 'buyer@example.com';
    const amount = store.firstCharge(plan);
    const again = (error: string, status: number) => html(reply, status, cardFormPage(action, title, plan, amount, { error, expiry: fields.expiry, email: fields.email }));
    if (!EMAIL.test(email)) return again('Enter a valid email address.', 400);
    const card = readCard(fields);
    if ('error' in card) return again(card.error, 400);
    const testCard = TEST_CARDS[card.number];
    if (!testCard) return again('Your card was declined: this is test mode, use one of the test cards below.', 402);
    const setupFutureUsage = fields.setup_future_usage === 'off_session' ? 'off_session' : null;
    const payment = store.purchase(checkout, { email, last4: card.number.slice(-4), outcome: testCard.outcome, setupFutureUsage });
    return after(checkout, payment, reply);
  });

  app.post('/checkout/payments/:id/authenticate', async (request, reply) => {
    const { id } = z.object({ id: z.string() }).parse(request.params);
    const payment = store.payments.get(id);
    const checkout = payment?.checkout_configuration_id ? store.checkouts.get(payment.checkout_configuration_id) : undefined;
    if (!payment || !checkout) throw new WhopError(404, 'not_found', 'No such payment');
    if (payment.status !== 'pending') return reply.redirect(`/checkout/${checkout.plan_id}/?session=${checkout.id}`, 303);
    const { action } = form.catch({}).parse(request.body);
    if (action !== 'complete' && action !== 'fail') return reply.code(400).type('text/plain').send('action must be complete or fail');
    store.authenticate(payment, action === 'complete');
    return after(checkout, payment, reply);
  });
}
