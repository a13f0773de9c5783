// The store's policy pages at the foot of the checkout (issue 30 item 4), in a real browser against the whole service:
// a storefront A shop whose merchant wrote a refund and a privacy policy is installed (the install reads them through
// Shop.shopPolicies), and its checkout shows both links in the shop's titles, opening in a new tab, at 1280 and 390 px,
// on the form and on the success page; the merchant's Shipping page lists what was read. Screenshots go to
// test-artifacts/browser/.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot, useBrowserStack } from './harness.js';
import { api, sessionStatus, storefrontACheckout, storefrontAMerchant, waitFor } from '../e2e/checkout-helpers.js';
import { CHECKOUT_LANGUAGES } from '../../domain/checkout/checkout-messages/index.js';

const b = useBrowserStack({ targets: ['checkout', 'checkout-takeover', 'dashboard'] });
const PASSWORD = 'correct horse battery 9';
const en = CHECKOUT_LANGUAGES.en;

/** The footer's policy links as the shopper can reach them: the navigation landmark's links. */
async function policyLinks(page: Page) {
  const nav = page.getByRole('contentinfo').getByRole('navigation', { name: en.storePolicies });
  await nav.waitFor();
  return nav.getByRole('link').evaluateAll((links) =>
    links.map((a) => {
      const r = a.getBoundingClientRect();
      return { text: a.textContent, href: a.getAttribute('href'), target: a.getAttribute('target'), rel: a.getAttribute('rel'), visible: r.width > 0 && r.height >= 24 && r.right <= a.ownerDocument.documentElement.clientWidth };
    }),
  );
}

describe('the store\'s policy links at the foot of the checkout', () => {
  it('given a shop with a refund and a privacy policy / both links show in its titles at 1280 and 390 px, on the form and on the success page', async () => {
    const { stack } = b;
    const merchant = await storefrontAMerchant(stack, 'Policy Outfitters', {
      primaryDomain: 'www.policy-outfitters.example',
      policies: [{ type: 'PRIVACY_POLICY', title: 'Privacy notice', body: '<p>We keep what the order needs.</p>' }, { type: 'REFUND_POLICY', body: '<p>30 days to change your mind.</p>' }],
    });
    const setup = await api(stack, 'PATCH', '/api/merchant/config', { codEnabled: true, checkoutTexts: { footerNote: 'Questions? hello@policy-outfitters.example' } }, merchant.token);
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    const { checkoutOrigin } = (await api(stack, 'GET', '/api/merchant/me', undefined, merchant.token)).body as { checkoutOrigin: string };
    const expected = [
      { text: 'Refund policy', href: 'https://www.policy-outfitters.example/policies/refund-policy', target: '_blank', rel: 'noopener', visible: true },
      { text: 'Privacy notice', href: 'https://www.policy-outfitters.example/policies/privacy-policy', target: '_blank', rel: 'noopener', visible: true },
    ];

    for (const mobile of [false, true]) {
      const width = mobile ? 390 : 1280;
      const token = await storefrontACheckout(stack, merchant.shop);
      const page = await (await b.newContext({ mobile })).newPage();
      await page.goto(`${checkoutOrigin}/checkout/${token}`);
      await page.getByRole('heading', { name: en.headline, level: 1 }).waitFor();

      expect(await policyLinks(page)).toEqual(expected);
      // The merchant's own footer note stays, above the links.
      expect(await page.locator('footer .foot-note').textContent()).toBe('Questions? hello@policy-outfitters.example');
      await page.locator('footer').scrollIntoViewIfNeeded();
      await screenshot(page, `policies-1-checkout-${width}`);

      // The success page keeps them: a cash-on-delivery order, as the shopper places it.
      // The country first: the address fields follow it (an en-US browser starts on the US, its "ZIP code").
      await page.getByLabel(en.country, { exact: true }).selectOption('DE');
      await page.getByLabel(en.email, { exact: true }).fill('jane@customer.test');
      await page.getByLabel(en.fullName).fill('Jane Doe');
      await page.getByLabel(en.street).fill('Hauptstr. 1');
      await page.getByLabel(en.postalCode).fill('10115');
      await page.getByLabel(en.city).fill('Berlin');
      await page.getByRole('radio', { name: en.cashOnDelivery }).check();
      await page.getByRole('button', { name: new RegExp(`^${en.placeOrder.split(' ·')[0]}`) }).click();
      await page.getByRole('heading', { name: en.successMessage }).waitFor({ timeout: 30_000 });
      expect(await policyLinks(page)).toEqual(expected);
      await page.locator('footer').scrollIntoViewIfNeeded();
      await screenshot(page, `policies-2-success-${width}`);
      await waitFor('COD_CONFIRMED', async () => ((await sessionStatus(stack, token)) === 'COD_CONFIRMED' ? true : undefined));
    }

    // The merchant's Shipping page shows what was read from the shop.
    await stack.database.db.merchant.update({ where: { id: merchant.id }, data: { emailVerifiedAt: new Date(), onboardingCompletedAt: new Date() } });
    const page = await (await b.newContext()).newPage();
    await page.goto(`${stack.apiUrl}/login?next=/dashboard/shipping`);
    await page.getByLabel('Email').fill(merchant.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${stack.apiUrl}/dashboard/shipping`);
    const card = page.locator('[data-store-policies="read"]');
    await card.waitFor();
    expect(await card.getByRole('link').evaluateAll((links) => links.map((a) => [a.textContent, a.getAttribute('href')]))).toEqual(expected.map((e) => [e.text, e.href]));
    await card.scrollIntoViewIfNeeded();
    await screenshot(page, 'policies-3-dashboard-shipping-1280');
  }, 180_000);
});
