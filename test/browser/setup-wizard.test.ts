// A new merchant walks the setup alone, at a laptop's 1280 px and a phone's 390 px: the wizard names Shopify and
// WooCommerce (never the spec's neutral names), every credential field carries help with a link to the platform's
// own docs, Continue without a platform is refused (the button and, asked directly, the API), and a wrong Shopify
// client secret ends, after Shopify's consent page in the sandbox, on the connection-problem page that says what to
// fix and links back to step 1. Screenshots of each step and the problem page go to test-artifacts/browser/.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot, useBrowserStack } from './harness.js';
import { api, control, unique } from '../e2e/checkout-helpers.js';
import { DEMO_APP } from '../../sandbox/storefront-a/simulator.js';

const b = useBrowserStack({ targets: ['dashboard'] });
const PASSWORD = 'correct horse battery 9';

/** A registered merchant with a verified email, logged in: the wizard's step 1 with nothing chosen. */
async function newMerchant(mobile: boolean): Promise<{ page: Page; token: string }> {
  const { stack } = b;
  const email = `setup-${unique()}@shop.test`;
  const reg = await api(stack, 'POST', '/api/auth/register', { email, password: PASSWORD, shopName: 'Alone Goods', phone: '+49 30 1234567' });
  expect(reg.status, JSON.stringify(reg.body)).toBe(201);
  await stack.database.db.merchant.update({ where: { email }, data: { emailVerifiedAt: new Date() } });
  const page = await (await b.newContext({ mobile })).newPage();
  await page.goto(`${stack.apiUrl}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(`${stack.apiUrl}/onboarding`);
  await page.getByRole('heading', { name: 'Platform', level: 1 }).waitFor();
  return { page, token: String(reg.body.token) };
}

const noNeutralNames = async (page: Page) => expect(await page.locator('body').innerText()).not.toMatch(/storefront [ab]\b/i);
/**
 * No wider than the viewport, naming what sticks out when not. On a phone (isMobile) a wider page also widens the layout
 * viewport, the visual viewport pans inside it, and a tap lands on whatever is above the button (the 390 px run once
 * timed out so on "Save and install the app": the shop's address in a button had widened step 1 to 578 px).
 */
async function widthFits(page: Page) {
  const width = page.viewportSize()!.width;
  const wide = await page.locator('html').evaluate((html, w) => {
    const out = [...html.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > w + 1);
    return { scrollWidth: html.scrollWidth, sticksOut: out.slice(-3).map((e) => `<${e.tagName.toLowerCase()} class="${e.getAttribute('class') ?? ''}"> ${(e.textContent ?? '').trim().slice(0, 60)}`) };
  }, width);
  expect(wide.scrollWidth, `page ${wide.scrollWidth} px wide at ${width} px; sticking out: ${wide.sticksOut.join(' | ')}`).toBeLessThanOrEqual(width);
}

/** A help text beside a field, with its link to the platform's docs. */
async function expectHelp(page: Page, key: string, link: RegExp | null) {
  const help = page.locator(`[data-help="${key}"]`);
  await help.waitFor();
  expect((await help.innerText()).length).toBeGreaterThan(30);
  if (link) expect(await help.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''))).toEqual(expect.arrayContaining([expect.stringMatching(link)]));
}

for (const [label, mobile] of [['1280 px', false], ['390 px', true]] as const) {
  describe(`a new merchant sets up alone at ${label}`, () => {
    it('given nothing chosen / names Shopify and WooCommerce, refuses Continue, helps beside every credential, and a wrong Shopify secret ends on the fix page with a way back', async () => {
      const { stack } = b;
      const tag = mobile ? '390' : '1280';
      const { page, token } = await newMerchant(mobile);

      // Step 1 without a platform: the choices are Shopify and WooCommerce; Continue is disabled, and the API refuses it too.
      await expect.poll(() => page.getByRole('radio').evaluateAll((rs) => rs.map((r) => r.closest('label')!.querySelector('.choice-title')!.textContent))).toEqual(['Shopify', 'WooCommerce']);
      await noNeutralNames(page);
      expect(await page.getByRole('button', { name: 'Continue →' }).isDisabled()).toBe(true);
      expect(await page.locator('[data-step-reason]').innerText()).toMatch(/Shopify or WooCommerce/);
      const refused = await api(stack, 'PATCH', '/api/merchant/onboarding', { currentStep: 2, continueFrom: 1 }, token);
      expect(refused).toMatchObject({ status: 409, body: { code: 'STEP_INCOMPLETE' } });
      await widthFits(page);
      await screenshot(page, `setup-${tag}-1-no-platform`);

      // WooCommerce: help beside the store URL and both REST keys, with WooCommerce's docs.
      await page.getByRole('radio', { name: /WooCommerce/ }).check();
      await expectHelp(page, 'storeUrl', null);
      await expectHelp(page, 'consumerKey', /^https:\/\/developer\.woocommerce\.com\//);
      await expectHelp(page, 'consumerSecret', null);
      await expect.poll(() => page.getByRole('button', { name: 'Continue →' }).isEnabled()).toBe(true);
      await noNeutralNames(page);
      await screenshot(page, `setup-${tag}-1-woocommerce`);

      // Shopify: help beside the shop address, client ID and client secret, with Shopify's docs.
      await page.getByRole('radio', { name: /Shopify/ }).check();
      await expectHelp(page, 'shop', null);
      await expectHelp(page, 'clientId', /^https:\/\/(dev\.)?shopify\.(dev|com)\//);
      await expectHelp(page, 'clientSecret', null);
      await noNeutralNames(page);
      await widthFits(page);
      await screenshot(page, `setup-${tag}-1-shopify`);

      // A wrong client secret: Shopify's consent page, then our callback cannot verify Shopify's signature.
      const shopHost = `alone-${unique()}.myshopify.com`;
      expect((await control(stack.urls.storefrontA, 'POST', 'shops', { shop: shopHost, name: 'Alone Goods' })).status).toBe(201);
      await page.getByLabel('Shop address').fill(shopHost);
      await page.getByLabel('App client ID').fill(DEMO_APP.clientId);
      await page.getByLabel('App client secret').fill('shpss_not_the_apps_secret_0000');
      await page.getByRole('button', { name: 'Save and install the app' }).click();
      await page.waitForURL(new RegExp(`^${stack.urls.storefrontA}/shops/${shopHost}/admin/oauth/authorize`));
      await page.click('#install-app');
      await page.waitForURL(/\/dashboard\/connection-problem\?/);
      const problem = page.locator('[data-connection-problem="wrong-secret"]');
      await problem.waitFor();
      // What to fix in plain words (the error code stays below it, small, for support).
      const text = await problem.locator('.alert').innerText();
      expect(text).toMatch(/client secret/i);
      expect(text).toMatch(/Dev Dashboard/);
      expect(text).not.toMatch(/signature|\{"/i);
      await noNeutralNames(page);
      await widthFits(page);
      await screenshot(page, `setup-${tag}-problem-wrong-secret`);

      // Back to step 1, where the right secret installs the app.
      await page.locator('[data-back-to-step] a').click();
      await page.waitForURL(`${stack.apiUrl}/onboarding?step=1`);
      await page.getByRole('heading', { name: 'Platform', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Change shop or app' }).or(page.getByLabel('App client secret')).first().waitFor();
      if (await page.getByRole('button', { name: 'Change shop or app' }).isVisible()) await page.getByRole('button', { name: 'Change shop or app' }).click();
      await page.getByLabel('Shop address').fill(shopHost);
      await page.getByLabel('App client ID').fill(DEMO_APP.clientId);
      await page.getByLabel('App client secret').fill(DEMO_APP.clientSecret);
      // Step 1 now also shows the unfinished install, with the shop's address in its button: still no wider than the phone.
      await widthFits(page);
      await screenshot(page, `setup-${tag}-1-back-after-problem`);
      await page.getByRole('button', { name: 'Save and install the app' }).click();
      await page.waitForURL(new RegExp(`^${stack.urls.storefrontA}/shops/${shopHost}/admin/oauth/authorize`));
      await page.click('#install-app');
      await page.waitForURL(`${stack.apiUrl}/onboarding?storefrontA=connected`);
      // The banner follows the live app-embed status (off after an install), as the checklist below it does.
      await page.locator('[data-install-banner="off"]').waitFor({ timeout: 20_000 });
      await page.locator('[data-check="app-embed"][data-ok="false"]').waitFor();
      expect(await page.locator('body').innerText()).not.toMatch(/script tag is in place/i);
      await widthFits(page);
      await screenshot(page, `setup-${tag}-1-installed-embed-off`);

      // Steps 2 to 5, as a merchant reads them: real names, and step 4's help on Whop's values.
      await page.getByRole('button', { name: 'Continue →' }).click();
      await page.getByRole('heading', { name: 'Brand', level: 1 }).waitFor();
      expect(await page.getByRole('button', { name: 'Continue →' }).isDisabled()).toBe(true);
      await widthFits(page);
      await screenshot(page, `setup-${tag}-2-brand`);
      await page.locator('.stepper [data-step="3"]').click();
      await page.getByRole('heading', { name: 'Shipping', level: 1 }).waitFor();
      await widthFits(page);
      await screenshot(page, `setup-${tag}-3-shipping`);
      await page.locator('.stepper [data-step="4"]').click();
      await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
      await expectHelp(page, 'apiKey', /^https:\/\/docs\.whop\.com\//);
      const values = page.locator('[data-help="whop-values"]');
      await values.locator('summary').click();
      expect(await values.innerText()).toMatch(/biz_[\s\S]*prod_[\s\S]*[Ww]ebhook secret/);
      await noNeutralNames(page);
      await widthFits(page);
      await screenshot(page, `setup-${tag}-4-payments`);
      await page.locator('.stepper [data-step="5"]').click();
      await page.getByRole('heading', { name: 'Preview', level: 1 }).waitFor();
      await widthFits(page);
      await screenshot(page, `setup-${tag}-5-preview`);
      await page.locator('.stepper [data-step="6"]').click();
      await page.getByRole('heading', { name: 'Final check', level: 1 }).waitFor();
      await page.locator('.spinner').first().waitFor({ state: 'detached' });
      await noNeutralNames(page);
      await widthFits(page);
      await screenshot(page, `setup-${tag}-6-final-check`);
    });
  });
}
