// Every screen of the checkout page in every language it speaks (issue 30, item 2): the form, a failed payment, a
// payment not finished, the page confirming a return, the confirmation after a card and after cash on delivery, a
// refunded order, an expired checkout, an unknown link and a merchant's preview, each opened in English, German,
// French, Spanish, Italian and Dutch. On each: `<html lang>` is the language, no `{placeholder}` is left unfilled, and no
// English word of the page's dictionary shows where the language has its own.
//
// Words written into the page's code instead of the dictionary would pass that check whenever they happen to be
// English, so one more round opens every screen with a pseudo-language: every dictionary word wrapped in ⟦ ⟧. Every
// text then shown must come from the dictionary (wrapped) or be the shop's data (the bundle's strings, the shopper's
// details, amounts): anything else was written into the code and would show in English to every shopper.
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { screenshot, useBrowserStack } from './harness.js';
import { api, control, SHOPPER, startPayment, storefrontACheckout, storefrontAMerchant, waitFor, type Json } from '../e2e/checkout-helpers.js';
import { CHECKOUT_LANGUAGES, type CheckoutLanguage, type CheckoutMessages } from '../../domain/checkout/checkout-messages/index.js';

const b = useBrowserStack();

type Screen = { name: string; path: string; token: string; heading: (m: CheckoutMessages) => string };

/** The texts of the page as a person or a screen reader gets them: text nodes and the attributes read out (run in the page). */
const PAGE_TEXTS = `(() => {
  const out = [];
  const skip = 'script, style, noscript, #f-address-country';
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    const text = node.textContent && node.textContent.trim();
    if (el && text && !el.closest(skip)) out.push({ text, where: el.tagName.toLowerCase() + '.' + el.className });
  }
  for (const el of document.body.querySelectorAll('[aria-label], [placeholder], [alt], [title]')) {
    if (el.closest(skip)) continue;
    for (const attr of ['aria-label', 'placeholder', 'alt', 'title']) {
      const v = (el.getAttribute(attr) || '').trim();
      if (v) out.push({ text: v, where: el.tagName.toLowerCase() + '@' + attr });
    }
  }
  return out;
})()`;
const pageTexts = (page: Page) => page.evaluate(PAGE_TEXTS) as Promise<Array<{ text: string; where: string }>>;

/** Every string anywhere in a JSON value. */
function strings(value: unknown, into = new Set<string>()): Set<string> {
  if (typeof value === 'string') into.add(value.trim());
  else if (Array.isArray(value)) for (const v of value) strings(v, into);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, into);
  return into;
}

/** A dictionary word as a whole-text pattern: its `{values}` match anything. */
const wordPattern = (word: string) => new RegExp(`^${word.split(/\{[a-zA-Z]+\}/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.+')}$`, 's');

/** A GET of `url` sent to loopback with its own Host header: what Chromium does for *.localhost, which Node's resolver does not. */
function loopback(url: URL, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: Number(url.port), path: `${url.pathname}${url.search}`, headers: { ...headers, host: url.host, 'accept-encoding': 'identity' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const flat: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined && k !== 'content-length') flat[k] = Array.isArray(v) ? v.join(', ') : v;
        resolve({ status: res.statusCode ?? 500, headers: flat, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** The shopper's language as the browser says it. */
const LOCALES: Record<CheckoutLanguage, string> = { en: 'en-US', de: 'de-DE', fr: 'fr-FR', es: 'es-ES', it: 'it-IT', nl: 'nl-NL' };

/** The pseudo-language: German's words, each wrapped, so anything unwrapped on the page did not come from the dictionary. */
const PSEUDO = Object.fromEntries(Object.entries(CHECKOUT_LANGUAGES.de).map(([k, v]) => [k, `⟦${v}⟧`])) as unknown as CheckoutMessages;

async function open(context: BrowserContext, origin: string, screen: Screen, messages: CheckoutMessages): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${origin}${screen.path}`);
  await page.getByRole('heading', { level: 1 }).filter({ hasText: screen.heading(messages) }).waitFor({ timeout: 15_000 });
  return page;
}

describe('every screen in every language', () => {
  it('given a session in each state / each screen speaks each language: its lang, no unfilled value, no English word of the dictionary, and (pseudo-language) no word outside it', async () => {
    const { stack } = b;
    const m = await storefrontAMerchant(stack, 'Polyglot Goods');
    const cod = await api(stack, 'PATCH', '/api/merchant/config', { codEnabled: true }, m.token);
    expect(cod.status, JSON.stringify(cod.body)).toBe(200);
    // Recovery on: the open form shows the reminder consent box, which must speak each language too.
    const recovery = await api(stack, 'PATCH', '/api/merchant/recovery', { enabled: true }, m.token);
    expect(recovery.status, JSON.stringify(recovery.body)).toBe(200);
    const { checkoutOrigin } = (await api(stack, 'GET', '/api/merchant/me', undefined, m.token)).body as { checkoutOrigin: string };

    // One session in each state, through the API as the page and the processor drive it.
    const [open_, failed, pending, paid, codOrder, refunded, expired] = await Promise.all(Array.from({ length: 7 }, () => storefrontACheckout(stack, m.shop)));
    const attemptOf = async (token: string) => (await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } })).processorPaymentId!;
    const statusIs = (token: string, status: string) => waitFor(`${token} ${status}`, async () => ((await api(stack, 'GET', `/api/checkout/session/${token}`)).body.status === status ? true : undefined));
    for (const token of [failed!, pending!, paid!, refunded!]) await startPayment(stack, token);
    for (const [token, card] of [[failed!, '4000000000000002'], [paid!, '4242424242424242'], [refunded!, '4242424242424242']] as const) {
      const done = await control(stack.urls.processor, 'POST', `checkout_configurations/${await attemptOf(token)}/pay`, { card });
      expect(done.status, JSON.stringify(done.body)).toBeLessThan(300);
    }
    const bundle = (await api(stack, 'GET', `/api/checkout/session-bundle/${codOrder!}`)).body as Json;
    const placed = await api(stack, 'POST', `/api/checkout/${codOrder!}/complete-cod`, { ...SHOPPER, shippingRateId: bundle.shipping[0].id });
    expect(placed.status, JSON.stringify(placed.body)).toBe(200);
    await Promise.all([statusIs(failed!, 'FAILED'), statusIs(paid!, 'COMPLETED'), statusIs(refunded!, 'COMPLETED'), statusIs(codOrder!, 'COD_CONFIRMED')]);
    await waitFor('the refunded order on the store', async () => ((await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token: refunded! } })).storeOrderId ? true : undefined));
    const refund = await api(stack, 'POST', `/api/checkout/merchant/orders/${refunded!}/refund`, {}, m.token);
    expect(refund.status, JSON.stringify(refund.body)).toBeLessThan(300);
    await statusIs(refunded!, 'REFUNDED');
    // What the workflow writes after a day without progress (its timer is tested with time skipping).
    await stack.database.db.checkoutSession.update({ where: { token: expired! }, data: { status: 'ABANDONED' } });
    const preview = await api(stack, 'POST', '/api/merchant/preview', undefined, m.token);
    expect(preview.status, JSON.stringify(preview.body)).toBeLessThan(300);
    const previewToken = new URL(preview.body.previewUrl as string).pathname.split('/').pop()!;
    // The app embed said the storefront's language (en), which would come first: these carts say none, so the
    // browser's language decides.
    const tokens = [open_!, failed!, pending!, paid!, codOrder!, refunded!, expired!];
    await stack.database.db.checkoutSession.updateMany({ where: { token: { in: tokens } }, data: { storeLocale: null } });

    const screens: Screen[] = [
      { name: 'form', path: `/checkout/${open_!}`, token: open_!, heading: (w) => w.headline },
      { name: 'failed', path: `/checkout/${failed!}`, token: failed!, heading: (w) => w.headline },
      { name: 'pending', path: `/checkout/${pending!}`, token: pending!, heading: (w) => w.pendingTitle },
      { name: 'confirming', path: `/checkout/${pending!}?payment_id=pay_unknown&checkout_status=success`, token: pending!, heading: (w) => w.confirming },
      { name: 'paid', path: `/checkout/${paid!}`, token: paid!, heading: (w) => w.successMessage },
      { name: 'cod', path: `/checkout/${codOrder!}`, token: codOrder!, heading: (w) => w.successMessage },
      { name: 'refunded', path: `/checkout/${refunded!}`, token: refunded!, heading: (w) => w.refundedTitle },
      { name: 'expired', path: `/checkout/${expired!}`, token: expired!, heading: (w) => w.expiredTitle },
      { name: 'not-found', path: '/checkout/cs_thisTokenDoesNotExist0000', token: '', heading: (w) => w.notFoundTitle },
      { name: 'preview', path: `/checkout/${previewToken}`, token: previewToken, heading: (w) => w.headline },
    ];

    const problems: string[] = [];
    const en = CHECKOUT_LANGUAGES.en;
    for (const language of Object.keys(CHECKOUT_LANGUAGES) as CheckoutLanguage[]) {
      const words = CHECKOUT_LANGUAGES[language];
      // English words this language says otherwise: none of them may show.
      const english = (Object.keys(en) as Array<keyof CheckoutMessages>).filter((k) => words[k] !== en[k]).map((k) => ({ key: k, pattern: wordPattern(en[k]) }));
      const context = await b.newContext({ locale: LOCALES[language], mobile: language === 'de' });
      for (const screen of screens) {
        const page = await open(context, checkoutOrigin, screen, words);
        const where = `${language} ${screen.name}`;
        if ((await page.locator('html').getAttribute('lang')) !== language) problems.push(`${where}: <html lang="${await page.locator('html').getAttribute('lang')}">`);
        for (const { text, where: at } of await pageTexts(page)) {
          if (/\{[a-zA-Z]+\}/.test(text)) problems.push(`${where}: unfilled value in "${text}" (${at})`);
          const leak = english.find((e) => e.pattern.test(text));
          if (leak) problems.push(`${where}: English "${text}" (${leak.key}) at ${at}`);
        }
        if (screen.name === 'form' || screen.name === 'paid') await screenshot(page, `lang-all-${language}-${screen.name}${language === 'de' ? '-390' : ''}`);
        await page.close();
      }
    }

    // The pseudo-language: the page route's embedded words replaced on the way to the browser.
    const context = await b.newContext({ locale: 'de-DE' });
    await context.route(/\/checkout\/[^/?]+(\?.*)?$/, async (route) => {
      // Fetched here (Node does not resolve *.localhost as Chromium does): the same request, to loopback.
      const url = new URL(route.request().url());
      const response = await loopback(url, route.request().headers());
      const html = response.body;
      const rewritten = html.replace(/(<script id="checkout-data" type="application\/json">)(.*?)(<\/script>)/s, (_all, open: string, json: string, close: string) => {
        const data = JSON.parse(json) as { messages?: unknown };
        data.messages = PSEUDO;
        return `${open}${JSON.stringify(data).replace(/</g, '\\u003c')}${close}`;
      });
      await route.fulfill({ status: response.status, headers: response.headers, body: rewritten });
    });
    for (const screen of screens) {
      // The shop's own data may show as it is: every string the API answers about the session, and the shopper's details.
      const data = new Set<string>([...strings(SHOPPER), new Intl.DisplayNames(['de'], { type: 'region' }).of(SHOPPER.address.country)!]);
      if (screen.token) {
        strings((await api(stack, 'GET', `/api/checkout/session-bundle/${screen.token}`)).body, data);
        strings((await api(stack, 'GET', `/api/checkout/session/${screen.token}`)).body, data);
      }
      const page = await open(context, checkoutOrigin, screen, PSEUDO);
      for (const { text, where: at } of await pageTexts(page)) {
        const fromDictionary = text.includes('⟦') || text.includes('⟧');
        // Amounts, counts, punctuation, a currency code, a product's initial standing in for its picture.
        const noWords = !/\p{L}/u.test(text) || /^[A-Z]{3}$/.test(text) || [...text].length === 1;
        const shopData = data.has(text) || [...data].some((d) => d.length > 2 && text.includes(d) && text.replace(d, '').replace(/[\s·,.:()#-]/g, '') === '');
        if (!fromDictionary && !noWords && !shopData) problems.push(`pseudo ${screen.name}: "${text}" at ${at} is not from the dictionary`);
      }
      await page.close();
    }

    expect(problems).toEqual([]);
  }, 300_000);
});
