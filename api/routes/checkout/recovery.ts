// Abandoned-checkout recovery, the shopper's side (docs/recovery.md): the consent the checkout page records when the
// shopper ticks "email me a reminder" (explicit opt-in, unticked by default, recorded with time and wording), and the
// two signed links of a reminder: back to the checkout with the cart re-priced by the store, and unsubscribe.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { type RouteDeps } from '../../route-deps.js';
import { AppError } from '../../../domain/errors.js';
import { isOpen, isCheckoutStatus } from '../../../domain/checkout/checkout-status.js';
import { isPreviewToken, isSessionToken } from '../../../domain/tokens.js';
import { consentWording, REMINDABLE_STATUSES } from '../../../domain/recovery.js';
import { checkoutLanguageOf, fillMessage } from '../../../domain/checkout/checkout-messages/index.js';
import { SHOPPER_EMAIL_LANGUAGES, shopperEmailLanguage } from '../../../domain/checkout/shopper-emails/index.js';
import { MoneyError } from '../../../domain/money.js';
import { sessionLines } from '../../../model/checkout/checkout-session.js';
import { verifyRecoveryLink } from '../../../security/recovery-links.js';
import { stopRecoverySignal, type RecoveryWorkflowInput } from '../../../workflows/recovery/recovery.messages.js';
import { checkoutUrlOf } from '../../checkout-host.js';
import { newSessionToken, repriceSessionCart, snapshotFxRates, subtotalOf } from '../../cart-sources.js';
import { limit } from '../../plugins/rate-limits.js';
import { errorResponse } from '../../schemas/common.js';
import { tokenParams } from '../../schemas/checkout.js';
import { acceptedLanguages } from '../../schemas/shopper-language.js';
import { trimmed } from '../../schemas/text.js';
import { WORKFLOWS } from '../../../domain/temporal/workflow-names.js';

const tags = ['checkout'];
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const noSession = () => new AppError('NOT_FOUND', 'No such checkout session');
const badLink = () => new AppError('INVALID_SIGNATURE', 'This link is not valid: open it from the reminder email again');

const consentBody = z.object({
  email: trimmed(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be an email address', { max: 254 }).describe('The email the shopper entered on the page'),
  consent: z.boolean().describe('true: the box is ticked (opt-in); false: it was unticked again (consent withdrawn)'),
});
const consentResponse = z.object({
  recorded: z.boolean().describe('false on a preview, or where the merchant has recovery off: nothing stored'),
  consentAt: z.string().nullable(),
  wording: z.string().nullable().describe('The version and language of the sentence the shopper saw, e.g. v1:de'),
});
const signedQuery = z.object({ s: z.string().max(100).describe('The signature the reminder email carries') });

export const checkoutRecoveryRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, db, temporal } = deps;
  const secretsKey = config.secretsKey!;

  app.put('/api/checkout/:token/recovery-consent', {
    config: limit(config, 'checkoutProgress'),
    schema: {
      tags,
      summary: 'The shopper ticks (or unticks) "email me a reminder if I do not finish": explicit consent to recovery reminders',
      description:
        'Recorded only while the merchant has recovery on (the page shows the box only then) and the checkout is open: the email, the time and the ' +
        'wording (RECOVERY_CONSENT_VERSION and the language of the page, from Accept-Language), on the session and its timeline. Giving consent ' +
        'starts the session\'s reminder schedule (workflow recovery-<token>); withdrawing it clears the consent and stops the schedule. A ' +
        'preview records nothing. A checkout that is paid or abandoned: CONFLICT. Shares the progress rate limiter.',
      params: tokenParams,
      body: consentBody,
      response: { 200: consentResponse, 400: errorResponse, 404: errorResponse, 409: errorResponse, 429: errorResponse },
    },
  }, async (request) => {
    const { token } = request.params;
    if (!isSessionToken(token)) throw noSession();
    const session = await db.checkoutSession.findUnique({ where: { token }, select: { status: true, merchant: { select: { recoveryEnabled: true } } } });
    if (!session || !isCheckoutStatus(session.status)) throw noSession();
    if (isPreviewToken(token) || !session.merchant.recoveryEnabled) return { recorded: false, consentAt: null, wording: null };
    if (!isOpen(session.status)) throw new AppError('CONFLICT', `This checkout is ${session.status.toLowerCase().replace('_', ' ')}`);
    const { email, consent } = request.body;
    const at = new Date();
    const wording = consent ? consentWording(checkoutLanguageOf(acceptedLanguages(request.headers['accept-language']))) : null;
    await db.$transaction([
      db.checkoutSession.update({
        where: { token },
        // The email is kept before payment only with consent: it is what the reminders go to.
        data: consent ? { email: email.toLowerCase(), recoveryConsentAt: at, recoveryConsentWording: wording } : { recoveryConsentAt: null, recoveryConsentWording: null },
      }),
      db.sessionEvent.create({ data: { token, type: consent ? 'recovery_consent_given' : 'recovery_consent_withdrawn', data: consent ? { wording } : {}, at } }),
    ]);
    if (consent) {
      try {
        await temporal.client.workflow.start(WORKFLOWS.checkoutRecovery.type, {
          taskQueue: config.temporal.taskQueue,
          workflowId: WORKFLOWS.checkoutRecovery.id(token),
          args: [{ token } satisfies RecoveryWorkflowInput],
        });
      } catch (err) {
        // Already running (consent given again after an untick): that run reads the new consent before each reminder.
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
    } else {
      await stopRecovery(token, 'consent_withdrawn');
    }
    return { recorded: true, consentAt: consent ? at.toISOString() : null, wording };
  });

  /** Ends a running schedule at once (none running: nothing to do; every reminder re-checks consent anyway). */
  async function stopRecovery(token: string, why: string): Promise<void> {
    await temporal.client.workflow.getHandle(WORKFLOWS.checkoutRecovery.id(token)).signal(stopRecoverySignal, why).catch(() => undefined);
  }

  app.get('/api/checkout/:token/recover', {
    schema: {
      tags,
      summary: "A reminder's link back to the checkout: the cart re-priced by the store, then the checkout page (303)",
      description:
        'The signature (s) is the reminder\'s, made for this session. An open or failed checkout gets its lines at the store\'s current prices (and ' +
        'stock: a line the store no longer sells ends the restore), so the page shows the re-checked total. An abandoned checkout cannot reopen ' +
        '(its status is final): a new checkout is made from its cart at current prices, with the shopper\'s email, address and consent, marked as ' +
        'recovered from it, and the link leads there (a later click leads to that same new checkout while it is open). A paid checkout leads to its page as it is. The store no longer having the cart: NOT_FOUND.',
      params: tokenParams,
      querystring: signedQuery,
      response: { 303: z.null(), 401: errorResponse, 404: errorResponse, 502: errorResponse, 504: errorResponse },
    },
  }, async (request, reply) => {
    const { token } = request.params;
    if (!isSessionToken(token) || isPreviewToken(token)) throw noSession();
    if (!verifyRecoveryLink(secretsKey, 'restore', token, request.query.s)) throw badLink();
    const session = await db.checkoutSession.findUnique({ where: { token }, include: { merchant: { select: { id: true, slug: true } } } });
    if (!session || !isCheckoutStatus(session.status)) throw noSession();
    let target: string = token;
    if (REMINDABLE_STATUSES.has(session.status)) {
      const cart = await repriceSessionCart(deps, { ...session, items: sessionLines(session.items) });
      let subtotalMinor: number;
      try {
        subtotalMinor = subtotalOf(cart.items, cart.currency).amount;
      } catch (err) {
        if (err instanceof MoneyError) throw Object.assign(new AppError('UPSTREAM_ERROR', 'The store answered prices that cannot be charged'), { cause: err });
        throw err;
      }
      const pricesChanged = subtotalMinor !== session.subtotalMinor || JSON.stringify(cart.items) !== JSON.stringify(sessionLines(session.items));
      const reopened = session.status !== 'ABANDONED' && cart.currency === session.currency
        // Only while it is still open or failed: a payment that started meanwhile keeps the lines it is charging for.
        ? (await db.checkoutSession.updateMany({ where: { token, status: { in: ['OPEN', 'FAILED'] } }, data: { items: cart.items, subtotalMinor } })).count === 1
        : false;
      if (!reopened) {
        // A second click on an abandoned checkout's link goes back to the checkout the first one made (re-priced too).
        const earlier = await db.checkoutSession.findFirst({ where: { recoveredFrom: token, status: { in: ['OPEN', 'FAILED'] }, currency: cart.currency }, select: { token: true } });
        const again = earlier && (await db.checkoutSession.updateMany({ where: { token: earlier.token, status: { in: ['OPEN', 'FAILED'] } }, data: { items: cart.items, subtotalMinor } })).count === 1;
        target = again ? earlier.token : await recreate(session, cart, subtotalMinor);
      }
      await db.sessionEvent.create({ data: { token, type: 'recovery_link_opened', data: { pricesChanged, ...(target !== token ? { restoredAs: target } : {}) } } });
    }
    reply.header('cache-control', 'no-store');
    return reply.redirect(await checkoutUrlOf(db, config, session.merchant, target), 303);
  });

  type LeftSession = NonNullable<Awaited<ReturnType<typeof db.checkoutSession.findUnique>>>;

  /** A new open checkout from an abandoned one's cart at the store's current prices, with what the shopper had entered. */
  async function recreate(s: LeftSession, cart: Awaited<ReturnType<typeof repriceSessionCart>>, subtotalMinor: number): Promise<string> {
    const newToken = newSessionToken();
    const fx = await snapshotFxRates(db);
    await db.checkoutSession.create({
      data: {
        token: newToken, merchantId: s.merchantId, platform: s.platform, source: 'store_cart', storeCartRef: s.storeCartRef, currency: cart.currency,
        fxRates: fx as object, items: cart.items, subtotalMinor, email: s.email, shopperLocale: s.shopperLocale, storeLocale: s.storeLocale,
        shippingAddress: s.shippingAddress ?? undefined, billingAddress: s.billingAddress ?? undefined,
        contactEnteredAt: s.email ? new Date() : null,
        // The reminders already went from the left session: this one is what they recovered, and gets none of its own.
        recoveryConsentAt: s.recoveryConsentAt, recoveryConsentWording: s.recoveryConsentWording, recoveryRemindersSent: s.recoveryRemindersSent,
        recoveryReminderSentAt: s.recoveryReminderSentAt, recoveredFrom: s.token,
        events: { create: [{ type: 'created', data: { platform: s.platform, lines: cart.items.length, currency: cart.currency, subtotalMinor, fxDate: fx.date, recoveredFrom: s.token } }] },
      },
    });
    return newToken;
  }

  const unsubscribePage = (session: { shopperLocale: string | null; storeLocale: string | null; merchant: { shopName: string } }, done: boolean, action: string) => {
    const words = SHOPPER_EMAIL_LANGUAGES[shopperEmailLanguage(session.shopperLocale ?? session.storeLocale)];
    const say = (text: string) => escapeHtml(fillMessage(text, { shop: session.merchant.shopName }));
    const body = done
      ? `<h1>${say(words.unsubscribedTitle)}</h1><p>${say(words.unsubscribedBody)}</p>`
      : `<h1>${say(words.reminderUnsubscribe)}</h1><form method="post" action="${escapeHtml(action)}"><button type="submit">${say(words.reminderUnsubscribe)}</button></form>`;
    return `<!doctype html><html lang="${shopperEmailLanguage(session.shopperLocale ?? session.storeLocale)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${say(words.unsubscribedTitle)}</title>` +
      `<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;line-height:1.5}button{font:inherit;padding:.6rem 1rem}</style></head><body>${body}</body></html>`;
  };

  const unsubscribeSchema = (method: string) => ({
    tags,
    summary: method === 'GET' ? 'The unsubscribe link of a reminder: a page with one button (mail scanners that open links unsubscribe nobody)' : 'Unsubscribe from this checkout\'s reminders: the opt-out is recorded and the schedule stopped',
    description: 'Signed like the restore link (purpose unsubscribe). The answer is an HTML page in the shopper\'s language. Recording twice changes nothing.',
    params: tokenParams,
    querystring: signedQuery,
    response: { 200: z.string().describe('text/html'), 401: errorResponse, 404: errorResponse },
  });

  const signedSession = async (token: string, signature: string) => {
    if (!isSessionToken(token) || isPreviewToken(token)) throw noSession();
    if (!verifyRecoveryLink(secretsKey, 'unsubscribe', token, signature)) throw badLink();
    const session = await db.checkoutSession.findUnique({ where: { token }, select: { shopperLocale: true, storeLocale: true, recoveryOptedOutAt: true, merchant: { select: { shopName: true } } } });
    if (!session) throw noSession();
    return session;
  };

  app.get('/api/checkout/:token/unsubscribe', { schema: unsubscribeSchema('GET') }, async (request, reply) => {
    const session = await signedSession(request.params.token, request.query.s);
    reply.header('cache-control', 'no-store').type('text/html; charset=utf-8');
    return unsubscribePage(session, session.recoveryOptedOutAt !== null, `/api/checkout/${request.params.token}/unsubscribe?s=${encodeURIComponent(request.query.s)}`);
  });

  app.post('/api/checkout/:token/unsubscribe', { schema: unsubscribeSchema('POST') }, async (request, reply) => {
    const { token } = request.params;
    const session = await signedSession(token, request.query.s);
    const at = new Date();
    const { count } = await db.checkoutSession.updateMany({ where: { token, recoveryOptedOutAt: null }, data: { recoveryOptedOutAt: at } });
    if (count === 1) await db.sessionEvent.create({ data: { token, type: 'recovery_opted_out', data: {}, at } });
    await stopRecovery(token, 'opted_out');
    reply.header('cache-control', 'no-store').type('text/html; charset=utf-8');
    return unsubscribePage(session, true, '');
  });
};
