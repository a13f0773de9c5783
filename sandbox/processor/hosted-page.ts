// The hosted test payment page (/pay/:id): the customer enters a test card; the payment succeeds, is
// declined, or first needs the extra authentication step. Card data never leaves this request: only the
// last four digits are kept. Success redirects (303) to the payment's return_url with ?payment_id=.
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import type { Payment } from '../../integrations/processor/schemas.js';
import { authenticatePage, cardFormPage, notFoundPage, statusPage } from './pages.js';
import { ApiError, TEST_CARDS, type ProcessorState } from './state.js';
import { parse } from './validation.js';

const idParams = z.object({ id: z.string().min(1).max(100) });
const form = z.record(z.string(), z.string());

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

export function returnUrlFor(payment: Payment): string | null {
  if (!payment.return_url) return null;
  const url = new URL(payment.return_url);
  url.searchParams.set('payment_id', payment.id);
  if (payment.membership_id) url.searchParams.set('membership_id', payment.membership_id);
  return url.toString();
}

export async function hostedPageRoutes(app: FastifyInstance, { state }: { state: ProcessorState }): Promise<void> {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  const html = (reply: FastifyReply, status: number, page: string) => reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page);
  app.setErrorHandler<FastifyError>((error, request, reply) => {
    const status = error instanceof ApiError ? error.status : typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status === 404) return html(reply, 404, notFoundPage(idParams.catch({ id: '' }).parse(request.params).id));
    if (status >= 500) request.log.error({ err: error }, 'processor sandbox: hosted page error');
    return reply.code(status).type('text/plain').send(status < 500 ? error.message : 'Internal error');
  });

  /** The payment of this URL; an unknown id throws the 404 the error handler renders. */
  const load = (params: unknown): Payment => state.getPayment(undefined, parse(idParams, params).id);
  const render = (payment: Payment, reply: FastifyReply, status = 200) => {
    const business = state.businessName(payment.business_id);
    if (state.payable(payment)) return html(reply, status, cardFormPage(payment, business));
    if (payment.status === 'requires_action') return html(reply, status, authenticatePage(payment, business));
    return html(reply, status, statusPage(payment, business, returnUrlFor(payment)));
  };
  /** Post/redirect/get: paid → the merchant's return URL; anything else → this page, showing the new state. */
  const after = (payment: Payment, reply: FastifyReply) =>
    reply.redirect((payment.status === 'succeeded' && returnUrlFor(payment)) || `/pay/${encodeURIComponent(payment.id)}`, 303);

  app.get('/pay/:id', async (request, reply) => render(load(request.params), reply));

  app.post('/pay/:id', async (request, reply) => {
    const payment = load(request.params);
    if (!state.payable(payment)) return render(payment, reply, 409);
    const fields = form.catch({}).parse(request.body);
    const card = readCard(fields);
    const business = state.businessName(payment.business_id);
    if ('error' in card) return html(reply, 400, cardFormPage(payment, business, { error: card.error, expiry: fields.expiry }));
    const testCard = TEST_CARDS[card.number];
    if (!testCard) {
      return html(reply, 402, cardFormPage(payment, business, { error: 'Your card was declined: this is test mode, use one of the test cards below.', expiry: fields.expiry }));
    }
    state.submitCard(payment, card.number.slice(-4), testCard.outcome);
    return after(payment, reply);
  });

  app.post('/pay/:id/authenticate', async (request, reply) => {
    const payment = load(request.params);
    if (payment.status !== 'requires_action') return render(payment, reply, 409);
    const { action } = form.catch({}).parse(request.body);
    if (action !== 'complete' && action !== 'fail') return html(reply, 400, authenticatePage(payment, state.businessName(payment.business_id)));
    state.authenticate(payment, action === 'complete');
    return after(payment, reply);
  });
}
