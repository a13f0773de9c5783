// A billing address apart from the shipping address, and country-aware address entry (issue 30 item 3), in a real
// browser against the whole service: a shopper whose browser asks for German (Accept-Language de-DE) unticks "Billing
// address same as shipping", enters a US billing address (the ZIP code field and the list of states come with the
// country; a ZIP code in the wrong format is refused on the page, in German, next to its field, before anything is
// sent), pays by card inside the page (the processor's embedded
// checkout), and the shop's order has the billing address and the shipping address apart. A returning shopper sees the billing address again.
// Screenshots at 1280 and 390 px of the form with both addresses go to test-artifacts/browser/.
import { describe, expect, it } from 'vitest';
import { screenshot, useBrowserStack } from './harness.js';
import { api, sessionStatus, storefrontACheckout, storefrontAMerchant, storefrontAOrdersOf, waitFor } from '../e2e/checkout-helpers.js';
import { CHECKOUT_LANGUAGES, fillMessage } from '../../domain/checkout/checkout-messages/index.js';
import { embedFrame, payInEmbed } from './embed.js';

const b = useBrowserStack();
const de = CHECKOUT_LANGUAGES.de;


describe('a billing address apart from the shipping address, on a German page', () => {
  it('given a German browser / the shopper enters a US billing address (ZIP code, state from the list; a wrong ZIP refused on the page in German), pays by card, and the shop\'s order has both addresses apart', async () => {
    const { stack } = b;
    const merchant = await storefrontAMerchant(stack, 'Rechnung Store');
    const token = await storefrontACheckout(stack, merchant.shop);
    const { checkoutOrigin } = (await api(stack, 'GET', '/api/merchant/me', undefined, merchant.token)).body as { checkoutOrigin: string };

    const context = await b.newContext({ locale: 'de-DE' });
    const page = await context.newPage();
    const sent: string[] = [];
    page.on('request', (r) => {
      if (/\/(init-payment|complete-cod)$/.test(r.url())) sent.push(r.postData() ?? '');
    });
    await page.goto(`${checkoutOrigin}/checkout/${token}`);
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    await page.getByRole('heading', { name: de.headline, level: 1 }).waitFor();

    const shipping = page.getByRole('group', { name: de.shippingHeading });
    await page.getByLabel(de.email, { exact: true }).fill('jana@kundin.test');
    // A German browser starts on Germany.
    expect(await shipping.getByLabel(de.country, { exact: true }).inputValue()).toBe('DE');
    await shipping.getByLabel(de.fullName).fill('Jana Schmidt');
    await shipping.getByLabel(de.street).fill('Hauptstr. 1');
    await shipping.getByLabel(de.postalCode).fill('10115');
    await shipping.getByLabel(de.city).fill('Berlin');

    // Billed to the shipping address unless the shopper says otherwise.
    const same = page.getByRole('checkbox', { name: de.billingSameAsShipping });
    expect(await same.isChecked()).toBe(true);
    expect(await page.getByRole('group', { name: de.billingHeading }).count()).toBe(0);
    await same.uncheck();
    const billing = page.getByRole('group', { name: de.billingHeading });
    await billing.waitFor();
    // The browser fills it from the shopper's billing address book entries, not the shipping ones.
    expect(await billing.getByLabel(de.fullName).getAttribute('autocomplete')).toBe('billing name');
    expect(await shipping.getByLabel(de.fullName).getAttribute('autocomplete')).toBe('shipping name');

    // As a shopper reaches it (focus builds the country list: every country for a billing address).
    const billingCountry = billing.getByLabel(de.country, { exact: true });
    await billingCountry.focus();
    await expect.poll(() => billingCountry.locator('option[value="US"]').count()).toBe(1);
    await billingCountry.selectOption('US');
    await billing.getByLabel(de.fullName).fill('Jana Schmidt Inc');
    await billing.getByLabel(de.street).fill('350 5th Ave');
    await billing.getByLabel(de.city).fill('New York');
    // The US: a ZIP code, and a state from the list (required: no "optional" mark).
    const zip = billing.getByLabel(de.zipCode);
    await zip.waitFor();
    const state = billing.getByLabel(de.state, { exact: true });
    expect(await state.evaluate((el) => el.tagName)).toBe('SELECT');
    expect(await state.locator('option[value="NY"]').textContent()).toBe('New York');
    await zip.fill('1011');
    await state.selectOption('NY');

    const pay = page.getByRole('button', { name: new RegExp(`^${de.pay.replace('{total}', '.+')}$`) });
    await pay.click();
    // Refused on the page, next to the billing ZIP code, in German, naming the format; nothing sent.
    await expect.poll(() => zip.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator(`#${await zip.getAttribute('aria-describedby')}`).textContent()).toBe(fillMessage(de.postalCodeFormat, { example: '95014, 22162-1010' }));
    expect(await page.getByRole('alert').textContent()).toBe(de.checkField);
    await expect.poll(() => zip.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    expect(sent).toEqual([]);
    expect(await sessionStatus(stack, token)).toBe('OPEN');
    await screenshot(page, 'billing-0-zip-refused-de-1280');

    await zip.fill('10118');
    expect(await zip.getAttribute('aria-invalid')).toBeNull();
    await page.setViewportSize({ width: 1280, height: 900 });
    await screenshot(page, 'billing-1-form-de-1280');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'billing-2-form-de-390');
    await page.setViewportSize({ width: 1280, height: 900 });

    await pay.click();
    // The card form comes inside our page (the processor's embedded checkout).
    const frame = await embedFrame(page);
    expect(new URL(page.url()).pathname).toBe(`/checkout/${token}`);
    await screenshot(page, 'billing-2b-payment-step-de-1280');
    expect(JSON.parse(sent[0]!)).toMatchObject({
      address: { name: 'Jana Schmidt', line1: 'Hauptstr. 1', postalCode: '10115', city: 'Berlin', country: 'DE' },
      billingAddress: { name: 'Jana Schmidt Inc', line1: '350 5th Ave', postalCode: '10118', city: 'New York', country: 'US', region: 'NY' },
      locale: 'de-DE',
    });
    await payInEmbed(frame, '4242 4242 4242 4242');
    await page.getByRole('heading', { name: de.successMessage }).waitFor({ timeout: 30_000 });
    // The confirmation names both addresses.
    await expect.poll(() => page.locator('.ship-to').allInnerTexts()).toEqual([
      expect.stringMatching(new RegExp(`^${de.shippingTo}\\s+Jana Schmidt\\s+Hauptstr\\. 1\\s+10115 Berlin\\s+Deutschland`)),
      expect.stringMatching(new RegExp(`^${de.billingHeading}\\s+Jana Schmidt Inc\\s+350 5th Ave\\s+10118 New York, NY\\s+Vereinigte Staaten`)),
    ]);
    await screenshot(page, 'billing-3-confirmation-de-1280');

    // The shop's order (Shopify's draft order completed): billed to New York, shipped to Berlin.
    const [order] = await waitFor('the store order', async () => (storefrontAOrdersOf(merchant.shop, token).length ? storefrontAOrdersOf(merchant.shop, token) : undefined));
    expect(order!.financialStatus).toBe('PAID');
    expect(order!.billingAddress).toMatchObject({ firstName: 'Jana Schmidt', lastName: 'Inc', address1: '350 5th Ave', city: 'New York', zip: '10118', provinceCode: 'NY', countryCode: 'US' });
    expect(order!.shippingAddress).toMatchObject({ firstName: 'Jana', lastName: 'Schmidt', address1: 'Hauptstr. 1', city: 'Berlin', zip: '10115', countryCode: 'DE' });
    const row = await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } });
    expect(row).toMatchObject({ status: 'COMPLETED', shopperLocale: 'de-DE', billingAddress: { country: 'US', region: 'NY', postalCode: '10118' } });
  }, 120_000);

  it('given a shopper who entered a billing address and comes back before paying / the box is unticked and the billing address is there', async () => {
    const { stack } = b;
    const merchant = await storefrontAMerchant(stack, 'Rückkehr Store');
    const token = await storefrontACheckout(stack, merchant.shop);
    const rate = ((await api(stack, 'GET', `/api/checkout/session-bundle/${token}`)).body.shipping as Array<{ id: string }>)[0]!.id;
    const started = await api(stack, 'POST', `/api/checkout/${token}/init-payment`, {
      email: 'jana@kundin.test', shippingRateId: rate,
      address: { name: 'Jana Schmidt', line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
      billingAddress: { name: 'Jana Schmidt', line1: 'Stephansplatz 1', city: 'Wien', postalCode: '1010', country: 'AT' },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const { checkoutOrigin } = (await api(stack, 'GET', '/api/merchant/me', undefined, merchant.token)).body as { checkoutOrigin: string };
    const page = await (await b.newContext({ locale: 'de-DE', mobile: true })).newPage();
    await page.goto(`${checkoutOrigin}/checkout/${token}`);
    // A payment is pending: the shopper chooses to change the details.
    await page.getByRole('button', { name: de.changeDetails }).click();
    expect(await page.getByRole('checkbox', { name: de.billingSameAsShipping }).isChecked()).toBe(false);
    const billing = page.getByRole('group', { name: de.billingHeading });
    expect(await billing.getByLabel(de.city).inputValue()).toBe('Wien');
    expect(await billing.getByLabel(de.postalCode).inputValue()).toBe('1010');
    expect(await billing.getByLabel(de.country, { exact: true }).inputValue()).toBe('AT');
  }, 60_000);
});
