// Shipping zones and plan rules in a real browser, against the whole service: the checkout's country list holds only
// the countries some rate ships to, the rates listed follow the chosen country, and an address elsewhere that reaches
// the API anyway (a tampered request) comes back as the field error next to Country. The checkout of a Starter
// merchant offers no cash on delivery. The dashboard's shipping page picks countries per rate and shows the API's
// field errors; the COD box says why it is off and links to billing. Screenshots at 1280 and 390 px go to
// test-artifacts/browser/.
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { screenshot, useBrowserStack } from './harness.js';
import { api, sessionStatus, storefrontACheckout, storefrontAMerchant, type Json, type Merchant } from '../e2e/checkout-helpers.js';
import { givePaidPlan } from '../../scripts/lib/stack/billing.js';
import { CHECKOUT_LANGUAGES } from '../../domain/checkout/checkout-messages/index.js';

const b = useBrowserStack({ targets: ['checkout', 'checkout-takeover', 'dashboard'] });
const PASSWORD = 'correct horse battery 9';

const optionValues = (page: Page) => page.locator('#f-address-country option').evaluateAll((options) => options.map((o) => o.getAttribute('value') ?? '').filter(Boolean));
const rateNames = (page: Page) => page.locator('input[name=shippingRateId]').evaluateAll((inputs) => inputs.map((i) => i.closest('label')!.querySelector('.choice-name')!.textContent));

async function checkoutUrlOf(merchant: Merchant, token: string): Promise<string> {
  const me = await api(b.stack, 'GET', '/api/merchant/me', undefined, merchant.token);
  return `${me.body.checkoutOrigin as string}/checkout/${token}`;
}

async function openCheckout(context: BrowserContext, merchant: Merchant & { shop: { host: string } }, shop: Parameters<typeof storefrontACheckout>[1]): Promise<{ page: Page; token: string }> {
  const token = await storefrontACheckout(b.stack, shop);
  const page = await context.newPage();
  await page.goto(await checkoutUrlOf(merchant, token));
  await page.getByRole('heading', { level: 1 }).waitFor();
  return { page, token };
}

async function logIn(page: Page, merchant: Merchant, next: string): Promise<void> {
  await b.stack.database.db.merchant.update({ where: { id: merchant.id }, data: { emailVerifiedAt: new Date(), onboardingCompletedAt: new Date() } });
  await page.goto(`${b.stack.apiUrl}/login?next=${next}`);
  await page.getByLabel('Email').fill(merchant.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(`${b.stack.apiUrl}${next}`);
}

describe('the checkout ships only where the merchant ships', () => {
  it('given rates for Germany and Austria, the store\'s countries and Switzerland / the country list holds exactly those, the rates follow the country, and North Korea sent through the API shows its field error', async () => {
    const { stack } = b;
    const merchant = await storefrontAMerchant(stack, 'Zones Store', { shipsTo: ['DE', 'AT', 'FR'] });
    const rates = await api(stack, 'PATCH', '/api/merchant/config', {
      shippingRates: [{ name: 'DHL', basePriceCents: 490, countries: ['DE', 'AT'] }, { name: 'World', basePriceCents: 2990 }, { name: 'Swiss Post', basePriceCents: 1490, countries: ['CH'] }],
    }, merchant.token);
    expect(rates.status, JSON.stringify(rates.body)).toBe(200);

    for (const mobile of [false, true]) {
      const { page, token } = await openCheckout(await b.newContext({ mobile, locale: 'de-DE' }), merchant, merchant.shop);
      // The shopper's locale country is offered, so it is chosen; its rates only, cheapest first.
      expect(await page.locator('#f-address-country').inputValue()).toBe('DE');
      expect(await rateNames(page)).toEqual(['DHL', 'World']);
      await page.locator('#f-address-country').focus();
      await expect.poll(() => optionValues(page)).toHaveLength(4);
      expect([...await optionValues(page)].sort()).toEqual(['AT', 'CH', 'DE', 'FR']);
      await screenshot(page, `zones-1-checkout-${mobile ? 390 : 1280}`);

      await page.locator('#f-address-country').selectOption('CH');
      expect(await rateNames(page)).toEqual(['Swiss Post']);
      expect(await page.locator('input[name=shippingRateId]:checked').count()).toBe(1);
      await page.locator('#f-address-country').selectOption('FR');
      expect(await rateNames(page)).toEqual(['World']);
      await screenshot(page, `zones-2-checkout-france-${mobile ? 390 : 1280}`);
      if (mobile) break;

      // A tampered request: the page sends Germany, the request that reaches the API says North Korea.
      await page.locator('#f-address-country').selectOption('DE');
      // The browser asks for German: the page's labels are German, and so is the API's field message.
      const de = CHECKOUT_LANGUAGES.de;
      await page.getByLabel(de.email, { exact: true }).fill('jane@customer.test');
      await page.getByLabel(de.fullName).fill('Jane Doe');
      await page.getByLabel(de.street).fill('Hauptstr. 1');
      await page.getByLabel(de.postalCode).fill('10115');
      await page.getByLabel(de.city).fill('Berlin');
      await page.route('**/init-payment', async (route) => {
        const body = JSON.parse(route.request().postData() ?? '{}') as Json;
        await route.continue({ postData: JSON.stringify({ ...body, address: { ...body.address, country: 'KP' } }) });
      });
      await page.getByRole('button', { name: /bezahlen$/ }).click();
      const country = page.locator('#f-address-country');
      await expect.poll(() => country.getAttribute('aria-invalid')).toBe('true');
      expect(await page.locator(`#${await country.getAttribute('aria-describedby')}`).textContent()).toBe('Dieser Shop liefert nicht nach Nordkorea');
      expect(await page.getByRole('alert').first().textContent()).toContain(de.checkField);
      await screenshot(page, 'zones-3-checkout-field-error-1280');
      expect(await sessionStatus(stack, token)).toBe('OPEN');
      await page.unroute('**/init-payment');
    }
  }, 150_000);
});

describe('cash on delivery follows the plan in force', () => {
  it('given COD switched on / a Growth merchant\'s checkout offers it; after a downgrade to Starter the checkout does not, and the dashboard says why and links to billing', async () => {
    const { stack } = b;
    const merchant = await storefrontAMerchant(stack, 'Cod Plan Store', { plan: 'GROWTH' });
    expect((await api(stack, 'PATCH', '/api/merchant/config', { codEnabled: true }, merchant.token)).status).toBe(200);
    const context = await b.newContext();

    const growth = await openCheckout(context, merchant, merchant.shop);
    await growth.page.getByText('Cash on delivery').waitFor();

    await givePaidPlan(stack.database.db, merchant.id, 'STARTER');
    const starter = await openCheckout(context, merchant, merchant.shop);
    await starter.page.getByText('Card or wallet').waitFor();
    expect(await starter.page.getByText('Cash on delivery').count()).toBe(0);
    await screenshot(starter.page, 'zones-4-checkout-starter-no-cod-1280');

    const page = await context.newPage();
    await logIn(page, merchant, '/dashboard/connections');
    const note = page.locator('[data-plan-note="cod"]');
    await note.waitFor();
    expect(await note.textContent()).toContain('On, but shoppers do not see it: your Starter plan does not include cash on delivery');
    // Switched off, it cannot be switched on again on Starter: the box is disabled and says so.
    // The box follows the saved setting (it changes once the API answered).
    await page.getByLabel('Offer cash on delivery').click();
    await expect.poll(() => page.getByLabel('Offer cash on delivery').isChecked()).toBe(false);
    // Disabled for good, not only while the request ran.
    await expect.poll(() => note.textContent()).toContain('Not included in your Starter plan');
    expect(await page.getByLabel('Offer cash on delivery').isDisabled()).toBe(true);
    expect(await note.textContent()).toContain('Not included in your Starter plan: Growth includes cash on delivery');
    await screenshot(page, 'zones-5-dashboard-cod-starter-1280');
    await note.getByRole('link', { name: 'Choose Growth in Billing' }).click();
    await page.waitForURL(`${stack.apiUrl}/dashboard/billing`);
  }, 150_000);
});

describe('the dashboard\'s shipping page', () => {
  it('given a connected store / the merchant picks countries per rate by searching, an empty choice gets the API\'s field error in place, and the checkout follows', async () => {
    const { stack } = b;
    const merchant = await storefrontAMerchant(stack, 'Zones Dashboard', { shipsTo: ['DE', 'AT'] });
    for (const mobile of [false, true]) {
      const page = await (await b.newContext({ mobile })).newPage();
      await logIn(page, merchant, '/dashboard/shipping');
      await page.locator('[data-store-countries="read"]').waitFor();
      expect(await page.locator('[data-store-countries]').textContent()).toContain('Your store ships to 2 countries');
      await screenshot(page, `zones-6-shipping-settings-${mobile ? 390 : 1280}`);
      if (mobile) break;

      const rate = page.getByRole('group', { name: 'Shipping rate 1' });
      await rate.getByLabel('Only these countries').check();
      await page.getByRole('button', { name: 'Save rates' }).click();
      const picker = rate.locator('[data-field="shippingRates.0.countries"]');
      await expect.poll(() => picker.locator('.field-error').textContent()).toContain('choose at least one country, or every country the store ships to');
      await screenshot(page, 'zones-7-shipping-field-error-1280');

      await rate.getByLabel('Search countries').fill('swi');
      await rate.getByLabel('Switzerland').check();
      await rate.getByLabel('Search countries').fill('austr');
      await rate.getByLabel('Austria').check();
      await page.getByRole('button', { name: 'Save rates' }).click();
      await page.getByText('2 shipping rates saved.').waitFor();
      await screenshot(page, 'zones-8-shipping-saved-1280');
    }
    const me = await api(stack, 'GET', '/api/merchant/me', undefined, merchant.token);
    expect((me.body.shippingRates as Json[]).map((r) => [r.name, r.countries])).toEqual([['Express', ['AT', 'CH']], ['Standard', 'store']]);

    const { page } = await openCheckout(await b.newContext({ locale: 'de-CH' }), merchant, merchant.shop);
    expect(await page.locator('#f-address-country').inputValue()).toBe('CH');
    expect(await rateNames(page)).toEqual(['Express']);
  }, 150_000);
});
