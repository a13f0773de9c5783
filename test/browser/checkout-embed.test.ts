// Paying inside our own checkout page (issue 30 item 1): after init-payment the payment step mounts Whop's embedded
// checkout (@whop/checkout's util module, loaded only then) on the branded page, pointed at the processor simulator's
// embed (sandbox/processor/embedded-page.ts), prefilled with the shopper's email and address. The shopper pays by card
// in it at 1280 and at 390 px in German; the embed's completion makes the page confirm as after the hosted page (POST
// pay, then the session), the webhook completes the session, and the store gets one order, the processor one charge.
// When the embed's script or its iframe does not come, the page falls back to Whop's hosted page as before.
// Screenshots: test-artifacts/browser/embed-*.png.
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { screenshot, useBrowserStack } from './harness.js';
import { api, storefrontACheckout, storefrontAMerchant, storefrontAOrdersOf, waitFor } from '../e2e/checkout-helpers.js';
import { CHECKOUT_LANGUAGES, type CheckoutMessages } from '../../domain/checkout/checkout-messages/index.js';
import { embedFrame, payInEmbed } from './embed.js';

const b = useBrowserStack();
const de = CHECKOUT_LANGUAGES.de;
const en = CHECKOUT_LANGUAGES.en;

async function fillShopperDetails(page: Page, words: CheckoutMessages): Promise<void> {
  // The country first: the address fields follow it (an en-US browser starts on the US, its "ZIP code").
  await page.getByLabel(words.country, { exact: true }).selectOption('DE');
  await page.getByLabel(words.email, { exact: true }).fill('jane@customer.test');
  await page.getByLabel(words.fullName).fill('Jane Doe');
  await page.getByLabel(words.street).fill('Hauptstr. 1');
  await page.getByLabel(words.postalCode).fill('10115');
  await page.getByLabel(words.city).fill('Berlin');
}

/** A storefront A merchant with the processor connected, a cart's checkout, and where its page is. */
async function checkout(name: string) {
  const { stack } = b;
  const merchant = await storefrontAMerchant(stack, name);
  const token = await storefrontACheckout(stack, merchant.shop);
  const { checkoutOrigin } = (await api(stack, 'GET', '/api/merchant/me', undefined, merchant.token)).body as { checkoutOrigin: string };
  return { ...merchant, token, checkoutOrigin };
}

/** The processor's charges for this checkout session (our metadata on Whop's payments). */
const chargesOf = (token: string) =>
  [...b.stack.sims.processor.store.payments.values()].filter((p) => p.metadata?.checkout_session_token === token);

/** The shown grand total ("EUR 58,41 €" → its digits) is the stored total, in minor units. */
const shownTotalDigits = async (page: Page) => (await page.locator('.summary .grand dd').textContent())!.replace(/[^\d]/g, '');

async function expectPaidOnce(token: string, shop: Parameters<typeof storefrontAOrdersOf>[0]): Promise<number> {
  const { stack } = b;
  await waitFor('the store order', () => (storefrontAOrdersOf(shop, token).length ? true : undefined));
  await stack.sims.processor.webhooks.idle();
  const row = await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } });
  expect(row.status).toBe('COMPLETED');
  expect(storefrontAOrdersOf(shop, token)).toHaveLength(1);
  expect(storefrontAOrdersOf(shop, token)[0]!.total).toBe(row.totalMinor);
  const paid = chargesOf(token).filter((p) => p.status === 'paid');
  expect(paid).toHaveLength(1);
  expect(Math.round(paid[0]!.total * 100)).toBe(row.totalMinor);
  return row.totalMinor!;
}

/** The fallback: a good card on the processor's hosted page, back on our page at the confirmation. */
async function payOnHostedPage(page: Page, token: string): Promise<void> {
  await page.fill('#card_number', '4242 4242 4242 4242');
  await page.fill('#expiry', '12/34');
  await page.fill('#cvc', '123');
  await Promise.all([page.waitForURL((url) => url.pathname === `/checkout/${token}`, { timeout: 15_000 }), page.click('button[type=submit]')]);
  await page.getByRole('heading', { name: en.successMessage }).waitFor({ timeout: 30_000 });
}

async function openPage(context: BrowserContext, origin: string, token: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${origin}/checkout/${token}`);
  return page;
}

describe('the shopper pays inside our checkout page (the processor\'s embedded checkout)', () => {
  it('given a German shopper at 1280 px / the card form appears on our page prefilled, the card is paid there, and the success page shows the paid total with one store order and one charge', async () => {
    const { stack } = b;
    const m = await checkout('Embed Laden');
    const context = await b.newContext({ locale: 'de-DE' });
    const page = await context.newPage();
    const response = await page.goto(`${m.checkoutOrigin}/checkout/${m.token}`);
    // The page may frame the processor's embed origin, nothing else.
    expect(response!.headers()['content-security-policy']).toContain(`frame-src ${stack.urls.processor};`);
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    await fillShopperDetails(page, de);
    const shown = await shownTotalDigits(page);
    // Not one byte of the processor's package before the payment step.
    const scripts: string[] = [];
    page.on('request', (r) => r.resourceType() === 'script' && scripts.push(new URL(r.url()).pathname));
    await page.getByRole('button', { name: /bezahlen$/ }).click();

    const frame = await embedFrame(page);
    expect(scripts.some((s) => /\/assets\/checkout\/whop-checkout-[\w-]+\.js$/.test(s))).toBe(true);
    // Still our page, our brand and summary; the payment step in German.
    expect(new URL(page.url()).pathname).toBe(`/checkout/${m.token}`);
    await page.getByRole('heading', { name: de.paymentHeading, level: 1 }).waitFor();
    expect(await shownTotalDigits(page)).toBe(shown);
    const src = new URL((await page.locator('.embed iframe').getAttribute('src'))!);
    expect(src.origin).toBe(stack.urls.processor);
    expect(src.pathname).toMatch(/^\/embedded\/checkout\/ch_\w+\/$/);
    expect(Object.fromEntries(src.searchParams)).toMatchObject({
      email: 'jane@customer.test', name: 'Jane Doe', 'address.line1': 'Hauptstr. 1', 'address.postal_code': '10115', 'address.country': 'DE',
      h: m.checkoutOrigin, skip_redirect: 'true', payment_redirect_url: `${m.checkoutOrigin}/checkout/${m.token}`, locale: 'de',
    });
    expect(await frame.inputValue('#email')).toBe('jane@customer.test');
    expect(await frame.inputValue('[name="address.city"]')).toBe('Berlin');
    await screenshot(page, 'embed-1-payment-step-de-1280');

    await payInEmbed(frame, '4242 4242 4242 4242');
    await page.getByRole('heading', { name: de.successMessage }).waitFor({ timeout: 30_000 });
    expect(new URL(page.url()).pathname).toBe(`/checkout/${m.token}`);
    const total = await expectPaidOnce(m.token, m.shop);
    expect(await shownTotalDigits(page)).toBe(String(total));
    expect(shown).toBe(String(total));
    await screenshot(page, 'embed-2-success-de-1280');
  }, 120_000);

  it('given a German shopper on a 390 px phone whose first card is declined / the decline shows inside the embed, the second card pays, and the order is created once', async () => {
    const m = await checkout('Embed Handy');
    const page = await openPage(await b.newContext({ mobile: true, locale: 'de-DE' }), m.checkoutOrigin, m.token);
    await fillShopperDetails(page, de);
    await page.getByRole('button', { name: /bezahlen$/ }).click();
    let frame = await embedFrame(page);
    await screenshot(page, 'embed-3-payment-step-de-390');

    await payInEmbed(frame, '4000 0000 0000 0002', { declined: true });
    frame = await embedFrame(page);
    await frame.getByText('Your card was declined.').waitFor();
    // The decline's webhook makes the session FAILED; the page keeps the shopper on the payment step, not the failure view.
    await waitFor('FAILED', async () => ((await b.stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token: m.token } })).status === 'FAILED' ? true : undefined));
    await page.waitForTimeout(3_500);
    expect(await page.locator('.embed iframe').count()).toBe(1);
    expect(await page.getByText(de.paymentFailed).count()).toBe(0);
    await screenshot(page, 'embed-4-declined-de-390');

    await payInEmbed(frame, '4242 4242 4242 4242');
    await page.getByRole('heading', { name: de.successMessage }).waitFor({ timeout: 30_000 });
    const total = await expectPaidOnce(m.token, m.shop);
    expect(await shownTotalDigits(page)).toBe(String(total));
    expect(chargesOf(m.token).map((p) => p.substatus).sort()).toEqual(['failed', 'succeeded']);
    await screenshot(page, 'embed-5-success-de-390');
  }, 120_000);
});

describe('the hosted page stays the fallback', () => {
  it('given the embed\'s script blocked / the shopper lands on the processor\'s hosted page and pays there', async () => {
    const { stack } = b;
    const m = await checkout('Embed Blocked Script');
    const context = await b.newContext();
    await context.route('**/assets/checkout/embed-*.js', (route) => route.abort());
    const page = await openPage(context, m.checkoutOrigin, m.token);
    await fillShopperDetails(page, en);
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.waitForURL(new RegExp(`^${stack.urls.processor}/checkout/plan_`), { timeout: 15_000 });
    await screenshot(page, 'embed-6-fallback-hosted-1280');
    await payOnHostedPage(page, m.token);
    await expectPaidOnce(m.token, m.shop);
  }, 120_000);

  it('given the embed\'s iframe blocked / after a few seconds of waiting the shopper lands on the hosted page and pays there', async () => {
    const { stack } = b;
    const m = await checkout('Embed Blocked Frame');
    const context = await b.newContext();
    await context.route(`${stack.urls.processor}/embedded/**`, (route) => route.abort());
    const page = await openPage(context, m.checkoutOrigin, m.token);
    await fillShopperDetails(page, en);
    const started = Date.now();
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.locator('.embed').getByText(en.loading).waitFor();
    await page.waitForURL(new RegExp(`^${stack.urls.processor}/checkout/plan_`), { timeout: 20_000 });
    expect(Date.now() - started).toBeGreaterThan(5_000);
    await payOnHostedPage(page, m.token);
    await expectPaidOnce(m.token, m.shop);
  }, 120_000);
});
