// The shopper's checkout in a real browser, against the whole service: the storefront A shop's checkout
// button (taken over by our theme app extension's app embed script, store-extensions/storefront-a-theme-extension) → the branded checkout page on {slug}.localhost → details → the processor's
// hosted page with a test card → back → the success page; and the outcomes behind it (the session
// COMPLETED, one order in the shop). Screenshots of each key page go to test-artifacts/browser/.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot, useBrowserStack } from './harness.js';
import { api, sessionStatus, storefrontACheckout, storefrontAMerchant, storefrontAOrdersOf, waitFor } from '../e2e/checkout-helpers.js';
import type { SimShop } from '../../sandbox/storefront-a/state.js';
import { CHECKOUT_LANGUAGES, fillMessage, type CheckoutMessages } from '../../domain/checkout/checkout-messages/index.js';

// These flows pay on the processor's hosted page (the payment page a deployment may choose, and the embed's fallback);
// paying inside the page in the processor's embed is checkout-embed.test.ts.
const b = useBrowserStack({ env: { CHECKOUT_PAYMENT_PAGE: 'hosted' } });

const META_PIXEL = '123456789012345';
/** Stands in for Meta's fbevents.js (no internet here): takes over the fbq queue and records each call, as the real tag sends them. */
const META_TAG_STUB = `(function () {
  var fbq = window.fbq, calls = (window.__pixelCalls = window.__pixelCalls || []);
  fbq.callMethod = function () { calls.push(Array.prototype.slice.call(arguments)); };
  (fbq.queue || []).splice(0).forEach(function (args) { calls.push(args); });
})();`;

/** The purchase events this page sent to the Meta tag: [pixel id, event, data, options]. */
async function purchasesSent(page: Page): Promise<unknown[][]> {
  const calls = await page.evaluate(() => (globalThis as unknown as { __pixelCalls?: unknown[][] }).__pixelCalls ?? []);
  return calls.filter((c) => c[0] === 'trackSingle' && c[2] === 'Purchase').map((c) => c.slice(1));
}

/** The shopper in the shop: two of the first product into the cart, then the cart page's checkout button. */
async function clickCheckoutInShop(page: Page, shop: SimShop, storeUrl: string): Promise<void> {
  await page.goto(`${storeUrl}/shops/${shop.host}/`);
  const first = page.locator('.card').first();
  await first.locator('input[name=quantity]').fill('2');
  await first.locator('[data-add-to-cart]').click();
  await page.waitForURL(/\/cart$/);
  await screenshot(page, 'card-0-store-cart');
  await page.locator('[data-storefront-checkout]').click();
}

/** Fills the form by its labels in the page's language (`words`, English unless the browser asks for another). */
async function fillShopperDetails(page: Page, details: { postalCode?: string } = {}, words: CheckoutMessages = CHECKOUT_LANGUAGES.en): Promise<void> {
  await page.getByLabel(words.email, { exact: true }).fill('jane@customer.test');
  // The country first: the fields after it follow it (an en-US browser starts on the US, whose postal code is a ZIP code).
  await page.getByLabel(words.country, { exact: true }).selectOption('DE');
  await page.getByLabel(words.fullName).fill('Jane Doe');
  await page.getByLabel(words.street).fill('Hauptstr. 1');
  await page.getByLabel(words.postalCode).fill(details.postalCode ?? '10115');
  await page.getByLabel(words.city).fill('Berlin');
}

describe('the shopper checks out in a browser', () => {
  it('given a storefront A shop with our app embed on / cart → checkout page → a test card on the processor page → the success page, and one paid order in the shop', async () => {
    const { stack } = b;
    const merchant = await storefrontAMerchant(stack, 'Alpha Store');
    const { shop } = merchant;
    const logoUrl = `${stack.urls.storefrontA}/shops/${shop.host}/cdn/products/${shop.products[2]!.handle}.svg`;
    // A very light primary: the page darkens it until buttons and links are readable.
    const branded = await api(stack, 'PATCH', '/api/merchant/config', {
      branding: { primaryColor: '#ffd400', accentColor: '#ffe866', logoUrl },
      checkoutTexts: { headline: 'Almost yours', successMessage: 'Danke! Your order is on its way.' },
    }, merchant.token);
    expect(branded.status, JSON.stringify(branded.body)).toBe(200);
    const pixel = await api(stack, 'POST', '/api/merchant/pixels', { platform: 'meta', trackingId: META_PIXEL, events: ['page_view', 'purchase'] }, merchant.token);
    expect(pixel.status, JSON.stringify(pixel.body)).toBe(201);

    const context = await b.newContext();
    await context.route('https://connect.facebook.net/**', (route) => route.fulfill({ contentType: 'text/javascript', body: META_TAG_STUB }));
    const page = await context.newPage();
    await clickCheckoutInShop(page, shop, stack.urls.storefrontA);
    // What takes over is the app embed (no script tag in the shop): its block's config and the asset we ship.
    expect(shop.scriptTags.size).toBe(0);
    expect(await page.locator('script#hosted-checkout-config').count()).toBe(1);
    expect(await page.locator('script[src*="/checkout-embed.js"]').count()).toBe(1);

    // The embed's script created the session and sent the browser to the merchant's checkout host.
    await page.waitForURL(/^http:\/\/[a-z0-9-]+\.localhost:\d+\/checkout\/cs_[A-Za-z0-9_-]{32}$/, { timeout: 15_000 });
    const token = new URL(page.url()).pathname.split('/').pop()!;
    // The embed sent the storefront's language (its block's request.locale: the shop's primary locale, en).
    expect((await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } })).storeLocale).toBe('en');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Almost yours');
    const pay = page.getByRole('button', { name: /^Pay / });
    // Cheapest rate first and chosen: Standard (€4.90) for 2 × the first product.
    const product = shop.products[0]!.variants[0]!;
    const expectedTotal = 2 * product.price + 490;
    await expect.poll(() => pay.textContent()).toBe(`Pay €${(expectedTotal / 100).toFixed(2)}`);
    await screenshot(page, 'card-1-checkout-page');
    // A wide screen shows the summary open beside the form, without the phone's fold bar.
    expect(await page.getByRole('heading', { name: 'Order summary' }).isVisible()).toBe(true);
    expect(await page.locator('.summary-bar').isVisible()).toBe(false);

    // A postal code that is none in the chosen country: refused next to its field, naming the format (the page applies
    // the API's country rule, domain/address-rules.ts; the API's own messages show the same way: shipping-zones.test.ts).
    await fillShopperDetails(page, { postalCode: '!!' });
    await pay.click();
    const postal = page.getByLabel('Postal code');
    await expect.poll(() => postal.getAttribute('aria-invalid')).toBe('true');
    const describedBy = await postal.getAttribute('aria-describedby');
    expect(await page.locator(`#${describedBy}`).textContent()).toBe('Enter the postal code in the format used in this country, e.g. 26133, 53225.');
    expect(await page.getByRole('alert').textContent()).toMatch(/highlighted field/);
    await screenshot(page, 'card-2-field-error');
    expect(await sessionStatus(stack, token)).toBe('OPEN');

    await postal.fill('10115');
    await pay.click();
    // The processor's hosted payment page.
    await page.waitForURL(new RegExp(`^${stack.urls.processor}/checkout/plan_`), { timeout: 15_000 });
    await screenshot(page, 'card-3-processor-page');
    await page.fill('#card_number', '4242 4242 4242 4242');
    await page.fill('#expiry', '12/34');
    await page.fill('#cvc', '123');
    await page.click('button[type=submit]');

    // Back on the checkout page: confirmed, the success page with the order summary.
    await page.waitForURL((url) => url.pathname === `/checkout/${token}`, { timeout: 15_000 });
    await page.getByRole('heading', { name: 'Danke! Your order is on its way.' }).waitFor({ timeout: 30_000 });
    expect(await page.locator('.summary .grand dd').textContent()).toContain(`€${(expectedTotal / 100).toFixed(2)}`);
    await screenshot(page, 'card-4-success');

    await waitFor('COMPLETED', async () => ((await sessionStatus(stack, token)) === 'COMPLETED' ? true : undefined));
    const orders = await waitFor('the store order', () => (storefrontAOrdersOf(shop, token).length ? storefrontAOrdersOf(shop, token) : undefined));
    expect(orders).toHaveLength(1);
    expect(orders[0]!.total).toBe(expectedTotal);

    // The merchant's pixel got the purchase, with the session token as event id.
    await expect.poll(() => purchasesSent(page), { timeout: 10_000 }).toEqual([[META_PIXEL, 'Purchase', { value: expectedTotal / 100, currency: 'EUR' }, { eventID: token }]]);

    // A reload shows the success page again (the status is read fresh), never the form, and sends no second purchase.
    await page.reload();
    await page.getByRole('heading', { name: 'Danke! Your order is on its way.' }).waitFor();
    expect(await page.getByRole('button', { name: /^Pay / }).count()).toBe(0);
    await expect.poll(() => page.evaluate(() => ((globalThis as unknown as { __pixelCalls?: unknown[][] }).__pixelCalls ?? []).length)).toBeGreaterThan(0);
    // The order's number as the shop names it, not an internal reference.
    await expect.poll(() => page.locator('[data-order-number]').textContent()).toBe(`Order ${orders[0]!.name}`);
    expect(await page.getByText('Checkout reference').count()).toBe(0);
    expect(await purchasesSent(page)).toEqual([]);
  }, 150_000);
});

describe('the store\'s language', () => {
  it('given a shop whose storefront is French and a shopper whose browser is English / the app embed sends fr and the checkout page is in French', async () => {
    const { stack } = b;
    const merchant = await storefrontAMerchant(stack, 'Maison Lin', { primaryLocale: 'fr' });
    const fr = CHECKOUT_LANGUAGES.fr;
    const page = await (await b.newContext({ locale: 'en-US' })).newPage();
    await clickCheckoutInShop(page, merchant.shop, stack.urls.storefrontA);
    await page.waitForURL(/\/checkout\/cs_[A-Za-z0-9_-]{32}$/, { timeout: 15_000 });
    const token = new URL(page.url()).pathname.split('/').pop()!;
    expect((await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } })).storeLocale).toBe('fr');
    await page.getByRole('heading', { name: fr.headline, level: 1 }).waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('fr');
    expect(await page.getByRole('heading', { name: fr.orderSummary }).count()).toBe(1);
    expect(await page.getByLabel(fr.postalCode).count()).toBe(1);
    // Money and countries in French too, not in the browser's English: "54,70 €", no United States preselected.
    await expect.poll(() => page.getByRole('button', { name: /^Payer / }).textContent()).toMatch(/^Payer \d+,\d{2}\s€$/);
    expect(await page.locator('#f-address-country').inputValue()).toBe('');
    await page.locator('#f-address-country').focus();
    await expect.poll(() => page.locator('#f-address-country option[value="DE"]').textContent()).toBe('Allemagne');
    await screenshot(page, 'lang-1-french-shop-1280');
  }, 120_000);
});

describe('cash on delivery, discount and order bump, on a phone', () => {
  it('given COD enabled, a 10% code and an order bump / the shopper ticks the bump, applies the code, places a COD order and sees the confirmation; the shop has one pending order with that total', async () => {
    const { stack } = b;
    const merchant = await storefrontAMerchant(stack, 'Cod Corner');
    const { shop } = merchant;
    const setup = await api(stack, 'PATCH', '/api/merchant/config', {
      codEnabled: true, branding: { primaryColor: '#0b6e4f', accentColor: '#08543c' }, checkoutTextTranslations: { de: { headline: 'Fast geschafft' } },
      shippingRates: [{ name: 'Express', basePriceCents: 1290, deliveryDays: { min: 1, max: 1 } }, { name: 'Standard', basePriceCents: 490, deliveryDays: { min: 3, max: 5 } }],
    }, merchant.token);
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    const code = await api(stack, 'POST', '/api/merchant/discounts', { code: 'WELCOME10', type: 'percentage', percentOff: 10 }, merchant.token);
    expect(code.status, JSON.stringify(code.body)).toBe(201);
    const extra = shop.products[1]!;
    const bump = await api(stack, 'POST', '/api/merchant/order-bumps', {
      productId: String(extra.id), variantId: String(extra.variants[0]!.id), title: 'Gift wrapping', description: 'Wrapped by hand, with a card', priceCents: 500, compareAtCents: 800,
    }, merchant.token);
    expect(bump.status, JSON.stringify(bump.body)).toBe(201);
    const token = await storefrontACheckout(stack, shop);
    const { checkoutOrigin } = (await api(stack, 'GET', '/api/merchant/me', undefined, merchant.token)).body as { checkoutOrigin: string };

    // A German browser: the page speaks German (its labels, buttons, messages), the merchant's own words stay as written.
    const de = CHECKOUT_LANGUAGES.de;
    const page = await (await b.newContext({ mobile: true, locale: 'de-DE' })).newPage();
    await page.goto(`${checkoutOrigin}/checkout/${token}`);
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    // The merchant's own headline for German pages.
    await page.getByRole('heading', { name: 'Fast geschafft', level: 1 }).waitFor();
    // On the phone the summary is folded under a bar that shows the total; opening it shows the lines.
    const bar = page.getByRole('button', { name: new RegExp(`^${de.showSummary}`) });
    expect(await bar.getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByRole('heading', { name: de.orderSummary }).count()).toBe(0);
    expect(await page.locator('.summary .item').first().isVisible()).toBe(false);
    // Its chevron turns when it opens (down folded, up open).
    const chevron = () => page.evaluate(`getComputedStyle(document.querySelector('.summary-bar-label'), '::after').transform`);
    const folded = await chevron();
    await bar.click();
    expect(await chevron()).not.toBe(folded);
    const hide = page.getByRole('button', { name: new RegExp(`^${de.hideSummary}`) });
    expect(await hide.getAttribute('aria-expanded')).toBe('true');
    expect(await page.getByRole('heading', { name: de.orderSummary }).count()).toBe(1);
    expect(await page.locator('.summary .item').first().isVisible()).toBe(true);
    await screenshot(page, 'cod-0-summary-open-phone');
    await hide.click();
    // Each rate with the merchant's delivery estimate, in German.
    expect(await page.locator('.choice', { hasText: 'Standard' }).locator('.choice-note').textContent()).toBe(fillMessage(de.deliveryRange, { min: 3, max: 5 }));
    expect(await page.locator('.choice', { hasText: 'Express' }).locator('.choice-note').textContent()).toBe(de.deliveryOneDay);
    await fillShopperDetails(page, {}, de);
    await page.getByRole('checkbox', { name: /Gift wrapping/ }).check();
    await page.getByLabel(de.discountCode).fill('welcome10');
    await page.getByRole('button', { name: de.apply }).click();
    await page.getByText(fillMessage(de.codeApplied, { code: 'WELCOME10' })).waitFor();
    await page.getByRole('radio', { name: de.cashOnDelivery }).check();
    const place = page.getByRole('button', { name: new RegExp(`^${de.placeOrder.split(' ·')[0]}`) });
    expect(await page.getByText('Place order').count()).toBe(0);
    // The API's refusal comes back in the page's language, next to its field.
    const emailField = page.getByLabel(de.email);
    await emailField.fill('jane@');
    await place.click();
    await expect.poll(() => emailField.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator(`#${await emailField.getAttribute('aria-describedby')}`).textContent()).toBe('Geben Sie eine gültige E-Mail-Adresse ein');
    await emailField.fill('jane@customer.test');
    // The merchant's primary (#0b6e4f, dark enough to keep) on the button, as the page route wrote it.
    expect(await page.evaluate(`getComputedStyle(document.querySelector('button.pay')).backgroundColor`)).toBe('rgb(11, 110, 79)');
    await screenshot(page, 'cod-1-checkout-phone');
    const shownTotal = (await page.locator('.summary .grand dd').textContent())!.replace(/^EUR\s*/, '').trim();
    expect(await place.textContent()).toContain(shownTotal);
    // The folded bar's total follows the bump and the code too.
    expect(await page.locator('.summary-bar-total').textContent()).toBe(shownTotal);
    expect(await page.locator('.summary-bar-total').isVisible()).toBe(true);

    await place.click();
    await page.getByRole('heading', { name: de.successMessage }).waitFor({ timeout: 30_000 });
    expect(await page.getByText(de.codPlaced).count()).toBe(1);
    expect(await page.getByText(fillMessage(de.confirmationTo, { email: 'jane@customer.test' })).count()).toBe(1);
    // The confirmation summarizes what was ordered: the bump, the code, the shopper's address, the same total.
    await page.getByText('jane@customer.test').waitFor();
    await expect.poll(() => page.locator('.summary').textContent()).toContain('Gift wrapping');
    expect(await page.locator('.summary .discount dt').textContent()).toContain('WELCOME10');
    expect((await page.locator('.summary .grand dd').textContent())!.replace(/^EUR\s*/, '').trim()).toBe(shownTotal);
    await screenshot(page, 'cod-2-confirmation-phone');

    await waitFor('COD_CONFIRMED', async () => ((await sessionStatus(stack, token)) === 'COD_CONFIRMED' ? true : undefined));
    const session = await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } });
    expect(session.discountCode).toBe('WELCOME10');
    expect(session.discountMinor).toBeGreaterThan(0);
    // The total the page showed (de-DE: "1.234,56 €") is the total charged on delivery.
    expect(shownTotal.replace(/[^\d]/g, '')).toBe(String(session.totalMinor));
    const orders = await waitFor('the store order', () => (storefrontAOrdersOf(shop, token).length ? storefrontAOrdersOf(shop, token) : undefined));
    expect(orders).toHaveLength(1);
    expect(orders[0]!.financialStatus).toBe('PENDING');
    expect(orders[0]!.total).toBe(session.totalMinor);
  }, 120_000);

  it('given a code the shop does not have / the API\'s message shows next to the discount field and nothing is applied', async () => {
    const { stack } = b;
    const merchant = await storefrontAMerchant(stack, 'Code Checkers');
    const token = await storefrontACheckout(stack, merchant.shop);
    const { checkoutOrigin } = (await api(stack, 'GET', '/api/merchant/me', undefined, merchant.token)).body as { checkoutOrigin: string };
    const page = await (await b.newContext()).newPage();
    await page.goto(`${checkoutOrigin}/checkout/${token}`);
    const field = page.getByLabel('Discount code');
    await field.fill('NOPE-NOPE');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator(`#${await field.getAttribute('aria-describedby')}`).textContent()).toMatch(/not valid/);
    expect(await page.locator('.summary .discount').count()).toBe(0);
  }, 60_000);
});

describe('the merchant\'s funnel sees shoppers who leave before paying', () => {
  it('given a shopper who enters their email and picks a rate but does not pay / the session records contact entered, then shipping chosen, and the funnel counts both steps', async () => {
    const { stack } = b;
    const merchant = await storefrontAMerchant(stack, 'Funnel Fields');
    const token = await storefrontACheckout(stack, merchant.shop);
    const { checkoutOrigin } = (await api(stack, 'GET', '/api/merchant/me', undefined, merchant.token)).body as { checkoutOrigin: string };
    const milestones = () =>
      stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token }, select: { contactEnteredAt: true, shippingChosenAt: true, paymentStartedAt: true, status: true } });

    const page = await (await b.newContext()).newPage();
    await page.goto(`${checkoutOrigin}/checkout/${token}`);
    // Loading the page, and an address that is not complete yet, report nothing.
    await page.getByLabel('Email').fill('jane@');
    await page.getByLabel('Full name').focus();
    await page.waitForLoadState('networkidle');
    expect(await milestones()).toMatchObject({ contactEnteredAt: null, shippingChosenAt: null });

    await page.getByLabel('Email').fill('jane@customer.test');
    await page.getByLabel('Full name').focus();
    await expect.poll(async () => (await milestones()).contactEnteredAt, { timeout: 10_000 }).not.toBeNull();
    expect((await milestones()).shippingChosenAt).toBeNull();

    await page.getByRole('radio', { name: /Express/ }).check();
    await expect.poll(async () => (await milestones()).shippingChosenAt, { timeout: 10_000 }).not.toBeNull();
    expect(await milestones()).toMatchObject({ paymentStartedAt: null, status: 'OPEN' });
    // Picking another rate and leaving the email again record nothing more: one event per step.
    await page.getByRole('radio', { name: /Standard/ }).check();
    await page.getByLabel('Email').focus();
    await page.getByLabel('Full name').focus();
    await page.waitForLoadState('networkidle');
    const events = await stack.database.db.sessionEvent.findMany({ where: { token, type: { in: ['contact_entered', 'shipping_chosen'] } }, orderBy: { at: 'asc' } });
    expect(events.map((e) => e.type)).toEqual(['contact_entered', 'shipping_chosen']);

    const funnel = await api(stack, 'GET', '/api/merchant/stats/funnel', undefined, merchant.token);
    expect(funnel.status, JSON.stringify(funnel.body)).toBe(200);
    expect(Object.fromEntries((funnel.body.steps as Array<{ step: string; sessions: number }>).map((s) => [s.step, s.sessions]))).toEqual({
      created: 1, contact_entered: 1, shipping_chosen: 1, payment_started: 0, completed: 0,
    });
  }, 60_000);
});

describe('a checkout preview', () => {
  it('given a merchant opening a preview / the page shows the Preview banner, the placeholder cart and a disabled pay button', async () => {
    const { stack } = b;
    const merchant = await storefrontAMerchant(stack, 'Preview Palace');
    const preview = await api(stack, 'POST', '/api/merchant/preview', {}, merchant.token);
    expect(preview.status, JSON.stringify(preview.body)).toBe(201);
    const page = await (await b.newContext()).newPage();
    await page.goto(preview.body.previewUrl as string);
    await page.getByText('This is how shoppers see your checkout. Payment is disabled.').waitFor();
    expect(await page.locator('.summary .item').count()).toBe(2);
    const pay = page.getByRole('button', { name: /^Pay / });
    expect(await pay.isDisabled()).toBe(true);
    await screenshot(page, 'preview-1-banner');
    // A merchant trying the form in a preview is no shopper: nothing reaches the funnel.
    await page.getByLabel('Email').fill('merchant@shop.test');
    await page.getByRole('radio').first().check();
    await page.waitForLoadState('networkidle');
    const token = new URL(preview.body.previewUrl as string).pathname.split('/').pop()!;
    const row = await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } });
    expect([row.contactEnteredAt, row.shippingChosenAt]).toEqual([null, null]);
  }, 60_000);
});

describe('failure and expiry', () => {
  it('given a declined card / the shopper comes back to the form with the failure message and pays with another card', async () => {
    const { stack } = b;
    const merchant = await storefrontAMerchant(stack, 'Decline Depot');
    const token = await storefrontACheckout(stack, merchant.shop);
    const { checkoutOrigin } = (await api(stack, 'GET', '/api/merchant/me', undefined, merchant.token)).body as { checkoutOrigin: string };
    const page = await (await b.newContext()).newPage();
    await page.goto(`${checkoutOrigin}/checkout/${token}`);
    await fillShopperDetails(page);

    const payWith = async (card: string) => {
      await page.getByRole('button', { name: /^Pay / }).click();
      await page.waitForURL(new RegExp(`^${stack.urls.processor}/checkout/plan_`), { timeout: 15_000 });
      await page.fill('#card_number', card);
      await page.fill('#expiry', '12/34');
      await page.fill('#cvc', '123');
      await page.click('button[type=submit]');
    };
    await payWith('4000 0000 0000 0002');
    // Whop's page keeps its card form after a decline (no redirect: only a paid checkout goes to redirect_url);
    // the shopper goes back to the shop's checkout.
    await page.locator('#card_number').waitFor();
    await page.goto(`${checkoutOrigin}/checkout/${token}`);
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent(), { timeout: 30_000 }).toMatch(/did not go through/);
    await screenshot(page, 'failed-1-payment-declined');
    expect(await sessionStatus(stack, token)).toBe('FAILED');
    // The details are still there; another card pays.
    expect(await page.getByLabel('Email').inputValue()).toBe('jane@customer.test');
    await payWith('4242 4242 4242 4242');
    await page.getByRole('heading', { name: 'Thank you for your order!' }).waitFor({ timeout: 30_000 });
    await waitFor('COMPLETED', async () => ((await sessionStatus(stack, token)) === 'COMPLETED' ? true : undefined));
  }, 120_000);

  it('given a session abandoned for a day / the page says the checkout expired, with no form', async () => {
    const { stack } = b;
    const merchant = await storefrontAMerchant(stack, 'Expired Emporium');
    const token = await storefrontACheckout(stack, merchant.shop);
    // What the workflow writes after 24 hours without progress (its timer is tested with time skipping).
    await stack.database.db.checkoutSession.update({ where: { token }, data: { status: 'ABANDONED' } });
    const { checkoutOrigin } = (await api(stack, 'GET', '/api/merchant/me', undefined, merchant.token)).body as { checkoutOrigin: string };
    const page = await (await b.newContext()).newPage();
    await page.goto(`${checkoutOrigin}/checkout/${token}`);
    await page.getByRole('heading', { name: 'This checkout has expired' }).waitFor();
    expect(await page.locator('form').count()).toBe(0);
    await screenshot(page, 'expired-1-notice');
  }, 60_000);
});
