// The merchant's dashboard in a real browser, against the whole service and its sandboxes: a new merchant
// registers, verifies the email from the sandbox mailbox, and goes through the six-step wizard (storefront A
// OAuth in the sandbox, brand, a rate, the processor key, the preview, a plan paid on the processor's page,
// a real cart click in the sandbox shop) to a verified setup and the dashboard; and a merchant finds a paid
// order in the orders list and refunds it. Screenshots of the key pages go to test-artifacts/browser/.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot, useBrowserStack } from './harness.js';
import { api, control, merchantWithProcessor, sessionStatus, shopperPays, storefrontACheckout, storefrontAMerchant, unique, waitFor } from '../e2e/checkout-helpers.js';
import { DEMO_APP } from '../../sandbox/storefront-a/simulator.js';
import { givePaidPlan } from '../../scripts/lib/stack/billing.js';

const b = useBrowserStack({ targets: ['checkout', 'checkout-takeover', 'dashboard'] });

const PASSWORD = 'correct horse battery 9';

/** The link of the newest email to `to` whose text contains `path`, as the merchant would click it. */
async function emailedLink(to: string, path: string): Promise<string> {
  return waitFor(`the ${path} email to ${to}`, () => {
    for (const m of b.stack.sims.email.messages({ to })) {
      const link = new RegExp(`https?://[^\\s"'<>]+${path}\\?token=[A-Za-z0-9_-]+`).exec(`${m.TextBody ?? ''} ${m.HtmlBody ?? ''}`);
      if (link) return link[0];
    }
    return undefined;
  });
}

/** The text of a form field's error (the element its aria-describedby names), once it shows. */
async function fieldError(page: Page, label: string): Promise<string> {
  const input = page.getByLabel(label, { exact: true }).and(page.locator('input, select'));
  await expect.poll(() => input.getAttribute('aria-invalid'), { timeout: 15_000 }).toBe('true');
  const ids = (await input.getAttribute('aria-describedby'))!.split(' ');
  return (await page.locator(`[id="${ids[ids.length - 1]}"]`).textContent()) ?? '';
}

/** The shopper's click: two of the first product into the shop's cart, then the cart page's checkout button. */
async function cartClick(page: Page, shopUrl: string): Promise<string> {
  await page.goto(shopUrl);
  const first = page.locator('.card').first();
  await first.locator('input[name=quantity]').fill('2');
  await first.locator('[data-add-to-cart]').click();
  await page.waitForURL(/\/cart$/);
  await page.locator('[data-storefront-checkout]').click();
  await page.waitForURL(/\/checkout\/cs_[A-Za-z0-9_-]+$/, { timeout: 20_000 });
  return new URL(page.url()).pathname.split('/').pop()!;
}

const step = (page: Page, n: number) => page.locator(`.stepper [data-step="${n}"]`);

describe('the merchant dashboard in a browser', () => {
  it('given a new merchant / registers, verifies the email and onboards through the wizard against the sandbox to a verified setup and the dashboard', async () => {
    const { stack } = b;
    const app = stack.apiUrl;
    const email = `wizard-${unique()}@shop.test`;
    const shopHost = `wizard-${unique()}.myshopify.com`;
    expect((await control(stack.urls.storefrontA, 'POST', 'shops', { shop: shopHost, name: 'Wizard Goods' })).status).toBe(201);
    const account = await control(stack.urls.processor, 'POST', 'accounts', { businessName: 'Wizard Goods' });
    expect(account.status).toBe(201);

    const page = await (await b.newContext()).newPage();

    // Register: the API's field message (password policy) shows next to the password field.
    await page.goto(`${app}/register`);
    await page.getByLabel('Shop name').fill('Wizard Goods');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Phone').fill('+49 30 1234567');
    await page.getByLabel('Password').fill('password');
    await page.getByRole('button', { name: 'Create account' }).click();
    expect(await fieldError(page, 'Password')).toMatch(/\w/);
    await screenshot(page, 'dashboard-0-register-error');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();

    // The verification screen, then the link from the sandbox mailbox.
    await page.waitForURL(`${app}/verify-email`);
    await page.getByRole('heading', { name: 'Verify your email' }).waitFor();
    await screenshot(page, 'dashboard-1-verify-email');
    await page.goto(await emailedLink(email, '/verify-email'));
    await page.getByRole('heading', { name: 'Email address verified' }).waitFor();
    await page.getByRole('button', { name: 'Continue to setup' }).click();

    // Step 1: storefront A, installed through the sandbox platform's OAuth consent page.
    await page.waitForURL(`${app}/onboarding`);
    await page.getByRole('heading', { name: 'Platform', level: 1 }).waitFor();
    await page.getByRole('radio', { name: /Shopify/ }).check();
    await page.getByLabel('Shop address').fill(shopHost);
    await page.getByLabel('App client ID').fill(DEMO_APP.clientId);
    await page.getByLabel('App client secret').fill(DEMO_APP.clientSecret);
    await screenshot(page, 'dashboard-2-wizard-platform');
    await page.getByRole('button', { name: 'Save and install the app' }).click();
    await page.waitForURL(new RegExp(`^${stack.urls.storefrontA}/shops/${shopHost}/admin/oauth/authorize`));
    await page.click('#install-app');
    await page.waitForURL(`${app}/onboarding?storefrontA=connected`);
    await page.getByText('Shopify app installed').waitFor();
    await expect.poll(() => step(page, 1).locator('.step-number').textContent()).toBe('✓');
    // Installed, the app embed is still off (only the merchant can turn it on): step 1 says so, read live from
    // the shop, with the theme editor link; there the merchant saves it on, and "Check again" sees it.
    await page.locator('[data-check="app-embed"][data-ok="false"]').waitFor({ timeout: 20_000 });
    await screenshot(page, 'dashboard-3-wizard-connected');
    const [editor] = await Promise.all([page.context().waitForEvent('page'), page.locator('[data-activation-link]').first().click()]);
    await editor.waitForLoadState();
    expect(editor.url()).toContain(`/shops/${shopHost}/admin/themes/current/editor?context=apps&activateAppId=${DEMO_APP.clientId}/checkout-embed`);
    expect(await editor.locator(`[data-app-embed="${DEMO_APP.clientId}/checkout-embed"]`).isChecked()).toBe(true);
    await editor.click('#theme-editor-save');
    await editor.waitForLoadState();
    await editor.close();
    await page.getByRole('button', { name: 'Check again' }).click();
    await page.locator('[data-check="app-embed"][data-ok="true"]').waitFor({ timeout: 20_000 });
    await screenshot(page, 'dashboard-3b-wizard-embed-on');

    // Step 2: brand. A logo URL the API refuses shows its message at the field; then a real one.
    await page.getByRole('button', { name: 'Continue →' }).click();
    await page.getByRole('heading', { name: 'Brand', level: 1 }).waitFor();
    await page.getByLabel('Logo URL').fill('http://logo.example/logo.png');
    await page.getByLabel('Primary color', { exact: true }).fill('#0e7c66');
    await page.getByLabel('Accent color (hover)', { exact: true }).fill('#095c4b');
    await page.getByRole('button', { name: 'Save and continue' }).click();
    expect(await fieldError(page, 'Logo URL')).toMatch(/https/i);
    await screenshot(page, 'dashboard-4-wizard-brand-error');
    const shop = stack.sims.storefrontA.state.shops.get(shopHost)!;
    await page.getByLabel('Logo URL').fill(`${stack.urls.storefrontA}/shops/${shopHost}/cdn/products/${shop.products[2]!.handle}.svg`);
    await page.getByRole('button', { name: 'Save and continue' }).click();

    // Step 3: one shipping rate.
    await page.getByRole('heading', { name: 'Shipping', level: 1 }).waitFor();
    await page.getByLabel('Rate name').fill('Standard');
    await page.getByLabel('Price (EUR)').fill('4.90');
    await page.getByRole('button', { name: 'Save and continue' }).click();

    // Step 4: a rejected processor key is reported at the key field; the sandbox account's key connects.
    await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
    expect(await page.getByRole('button', { name: 'Continue →' }).isDisabled()).toBe(true);
    await page.getByLabel('Whop API key').fill('sk_sandbox_not_a_key');
    await page.getByRole('button', { name: 'Connect Whop' }).click();
    expect(await fieldError(page, 'Whop API key')).toMatch(/key/i);
    await page.getByLabel('Whop API key').fill(String(account.body.apiKey));
    await page.getByRole('button', { name: 'Connect Whop' }).click();
    await page.getByText('Whop connected.').waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByRole('button', { name: 'Continue →' }).isEnabled()).toBe(true);
    await screenshot(page, 'dashboard-5-wizard-payments');
    await page.getByRole('button', { name: 'Continue →' }).click();

    // Step 5: the final check stays out of reach until the preview was opened (in a new tab).
    await page.getByRole('heading', { name: 'Preview', level: 1 }).waitFor();
    expect(await page.getByRole('button', { name: 'Continue →' }).isDisabled()).toBe(true);
    const [preview] = await Promise.all([page.waitForEvent('popup'), page.getByRole('button', { name: 'Open checkout preview' }).click()]);
    await preview.waitForURL(/\.localhost:\d+\/checkout\/prev_/, { timeout: 15_000 });
    await preview.waitForLoadState('networkidle');
    await screenshot(preview, 'dashboard-6-preview-tab');
    await preview.close();
    await expect.poll(() => page.getByRole('button', { name: 'Continue →' }).isEnabled(), { timeout: 15_000 }).toBe(true);
    await page.getByRole('button', { name: 'Continue →' }).click();

    // Step 6: the final check. Verification blocks on the plan and sends the merchant to billing.
    await page.getByRole('heading', { name: 'Final check', level: 1 }).waitFor();
    expect(await page.locator('[data-check="realCheckout"]').getAttribute('data-ok')).toBe('false');
    await screenshot(page, 'dashboard-7-wizard-final-check');
    await page.getByRole('button', { name: 'Mark setup verified' }).click();
    await page.waitForURL(`${app}/dashboard/billing?from=setup`);
    await page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor();
    await screenshot(page, 'dashboard-8-billing');

    // Subscribe: the first month is paid on the processor's page, which returns to the dashboard.
    await page.locator('[data-plan="STARTER"]').getByRole('button', { name: /Subscribe/ }).click();
    await page.waitForURL(new RegExp(`^${stack.urls.processor}/checkout/plan_`));
    await page.fill('#card_number', '4242 4242 4242 4242');
    await page.fill('#expiry', '12/34');
    await page.fill('#cvc', '123');
    await page.click('button[type=submit]');
    await page.waitForURL(/\/dashboard\/billing\?/);
    await page.getByText('Plan active').waitFor({ timeout: 60_000 });
    await screenshot(page, 'dashboard-9-billing-active');

    // A real click on the shop's checkout button: the app embed the merchant turned on opens our checkout.
    const token = await cartClick(page, `${stack.urls.storefrontA}/shops/${shopHost}/`);
    expect(token).toMatch(/^cs_/);

    // Back in the wizard: every prerequisite met; verification passes and the dashboard opens.
    await page.goto(`${app}/onboarding`);
    await step(page, 6).click();
    await expect.poll(() => page.locator('[data-check="realCheckout"]').getAttribute('data-ok'), { timeout: 15_000 }).toBe('true');
    await screenshot(page, 'dashboard-10-wizard-ready');
    await page.getByRole('button', { name: 'Mark setup verified' }).click();
    await page.waitForURL(`${app}/dashboard?welcome=1`, { timeout: 30_000 });
    await page.getByText('Setup verified').waitFor();
    await screenshot(page, 'dashboard-11-overview');
    const merchant = await stack.database.db.merchant.findUniqueOrThrow({ where: { email } });
    expect(merchant.onboardingCompletedAt).not.toBeNull();

    // A later login goes straight to the dashboard.
    const again = await (await b.newContext()).newPage();
    await again.goto(`${app}/login`);
    await again.getByLabel('Email').fill(email);
    await again.getByLabel('Password').fill(PASSWORD);
    await again.getByRole('button', { name: 'Log in' }).click();
    await again.waitForURL(`${app}/dashboard`);
  }, 240_000);

  it('given a paid order / the merchant finds it in the orders list and refunds it: REFUNDED once the refund webhook arrives', async () => {
    const { stack } = b;
    const merchant = await storefrontAMerchant(stack, 'Refund Store');
    const token = await storefrontACheckout(stack, merchant.shop);
    await shopperPays(stack, token);
    await waitFor('COMPLETED', async () => ((await sessionStatus(stack, token)) === 'COMPLETED' ? true : undefined));
    // A merchant past setup: verified email and a verified setup, so login opens the dashboard.
    await stack.database.db.merchant.update({ where: { id: merchant.id }, data: { emailVerifiedAt: new Date(), onboardingCompletedAt: new Date() } });

    const page = await (await b.newContext()).newPage();
    await page.goto(`${stack.apiUrl}/login`);
    await page.getByLabel('Email').fill(merchant.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${stack.apiUrl}/dashboard`);

    await page.getByRole('link', { name: 'Orders', exact: true }).click();
    const row = page.locator(`tr[data-token="${token}"]`);
    await row.waitFor();
    expect(await row.getAttribute('data-status')).toBe('COMPLETED');
    await screenshot(page, 'dashboard-12-orders');

    await row.getByRole('link').click();
    await page.waitForURL(`${stack.apiUrl}/dashboard/orders/${token}`);
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    expect(await page.locator('[data-order-status]').getAttribute('data-order-status')).toBe('COMPLETED');
    expect(await page.locator('.timeline li').count()).toBeGreaterThan(2);
    await screenshot(page, 'dashboard-13-order-detail');

    // The Refund dialog's default: everything left (order-refunds.test.ts covers parts, lines and refusals).
    await page.getByRole('button', { name: 'Refund…' }).click();
    await page.getByRole('dialog', { name: /^Refund / }).getByRole('button', { name: /^Refund €/ }).click();
    // The page follows the refund: REFUNDED once the processor's refund webhook went through the workflow.
    await expect.poll(() => page.locator('[data-order-status]').getAttribute('data-order-status'), { timeout: 30_000 }).toBe('REFUNDED');
    await page.getByText('the processor sent the money back').waitFor();
    await screenshot(page, 'dashboard-14-order-refunded');
    expect(await sessionStatus(stack, token)).toBe('REFUNDED');
    // Whop refunded the payment once: one refund.updated (succeeded) whose payment carries this session's token.
    const events = (await control(stack.urls.processor, 'GET', 'webhooks/events')).body.events as Array<{ event: string; payload: { data: { status?: string; payment?: { metadata?: Record<string, string> } } } }>;
    expect(events.filter((e) => e.event === 'refund.updated' && e.payload.data.status === 'succeeded' && e.payload.data.payment?.metadata?.checkout_session_token === token)).toHaveLength(1);
    expect(await page.getByRole('button', { name: 'Refund…' }).count()).toBe(0);
  }, 150_000);

  it('given a live merchant with orders / statistics, extras, domain and settings show their data, and the API\'s field errors show in place', async () => {
    const { stack } = b;
    const merchant = await storefrontAMerchant(stack, 'Stats Store');
    const tokens = [await storefrontACheckout(stack, merchant.shop), await storefrontACheckout(stack, merchant.shop), await storefrontACheckout(stack, merchant.shop)];
    await shopperPays(stack, tokens[0]!);
    await shopperPays(stack, tokens[1]!);
    await waitFor('two COMPLETED', async () => ((await sessionStatus(stack, tokens[1]!)) === 'COMPLETED' && (await sessionStatus(stack, tokens[0]!)) === 'COMPLETED' ? true : undefined));
    await stack.database.db.merchant.update({ where: { id: merchant.id }, data: { emailVerifiedAt: new Date(), onboardingCompletedAt: new Date() } });

    const page = await (await b.newContext()).newPage();
    const app = stack.apiUrl;
    await page.goto(`${app}/login?next=/dashboard/stats`);
    await page.getByLabel('Email').fill(merchant.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();

    // Statistics: three checkouts from store carts, two paid; charts drawn from the API's numbers.
    await page.waitForURL(`${app}/dashboard/stats`);
    await expect.poll(() => page.locator('[data-kpi="sessions"]').textContent(), { timeout: 20_000 }).toBe('3');
    expect(await page.locator('[data-kpi="orders"]').textContent()).toBe('2');
    await page.locator('.funnel svg').waitFor();
    expect(await page.locator('.chart svg rect').count()).toBeGreaterThan(0);
    await screenshot(page, 'dashboard-15-stats');

    // Discount codes: the API's message for a malformed code sits at the Code field; a good one is listed.
    await page.getByRole('link', { name: 'Discount codes' }).click();
    await page.getByRole('button', { name: 'New discount code' }).click();
    await page.getByLabel('Code', { exact: true }).fill('x');
    await page.getByLabel('Percent off').fill('10');
    await page.getByRole('button', { name: 'Create discount code' }).click();
    expect(await fieldError(page, 'Code')).toMatch(/3-40/);
    await screenshot(page, 'dashboard-16-discount-error');
    await page.getByLabel('Code', { exact: true }).fill('summer10');
    await page.getByRole('button', { name: 'Create discount code' }).click();
    await page.getByRole('cell', { name: 'SUMMER10' }).waitFor();
    await screenshot(page, 'dashboard-17-discounts');
    expect(await stack.database.db.discountCode.count({ where: { merchantId: merchant.id, code: 'SUMMER10' } })).toBe(1);

    // An order bump and a pixel.
    await page.getByRole('link', { name: 'Order bumps' }).click();
    await page.getByRole('button', { name: 'New order bump' }).click();
    await page.getByLabel('Store product id').fill(String(merchant.shop.products[5]!.id));
    await page.getByLabel('Title', { exact: true }).fill('Espresso beans');
    await page.getByLabel('Price (EUR)', { exact: true }).fill('9.90');
    await page.getByRole('button', { name: 'Create order bump' }).click();
    await page.getByRole('cell', { name: /Espresso beans/ }).waitFor();
    await screenshot(page, 'dashboard-18-order-bumps');
    await page.getByRole('link', { name: 'Pixels' }).click();
    await page.getByRole('button', { name: 'New pixel' }).click();
    await page.getByLabel('Tracking id').fill('123456789012345');
    await page.getByRole('button', { name: 'Create pixel' }).click();
    await page.getByRole('cell', { name: '123456789012345' }).waitFor();
    await page.getByRole('link', { name: 'Upsells' }).click();
    await page.getByRole('button', { name: 'New upsell' }).click();
    await page.getByLabel('Headline').fill('Complete your look');
    await page.getByLabel('Store product id').fill(String(merchant.shop.products[2]!.id));
    await page.getByLabel('Title', { exact: true }).fill('Merino beanie');
    await page.getByLabel('Price (EUR)', { exact: true }).fill('34.00');
    await page.getByLabel('Discount (%)').fill('20');
    await page.getByRole('button', { name: 'Create upsell' }).click();
    await page.getByRole('cell', { name: /Complete your look/ }).waitFor();
    await screenshot(page, 'dashboard-18b-upsells');

    // A custom domain: the DNS records to create, and its status.
    await page.getByRole('link', { name: 'Custom domain' }).click();
    await page.getByLabel('Checkout domain').fill('checkout.stats-store.example');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByRole('heading', { name: 'DNS records to create' }).waitFor({ timeout: 20_000 });
    expect(await page.locator('[data-domain-status]').getAttribute('data-domain-status')).toBe('pending');
    await screenshot(page, 'dashboard-19-domain');

    // Branding with its live preview, the store and processor connections, settings.
    await page.getByRole('link', { name: 'Branding' }).click();
    await page.getByLabel('Primary color', { exact: true }).fill('#ffe14d');
    await page.locator('.corrections li').first().waitFor();
    await screenshot(page, 'dashboard-20-branding');
    // Texts for German pages, over the texts as written.
    await page.getByLabel('Texts for').selectOption('de');
    await page.getByLabel('Headline', { exact: true }).fill('Fast geschafft');
    await page.getByRole('button', { name: 'Save branding' }).click();
    await page.getByText('Branding saved.').waitFor();
    await screenshot(page, 'dashboard-20b-texts-german');
    expect((await stack.database.db.merchant.findUniqueOrThrow({ where: { id: merchant.id } })).checkoutTextTranslations).toEqual({ de: { headline: 'Fast geschafft' } });
    await page.getByRole('link', { name: 'Store & payments' }).click();
    await page.locator('[data-check="app-embed"][data-ok="true"]').waitFor({ timeout: 20_000 });
    await screenshot(page, 'dashboard-21-connections');
    // Wallets on the embedded payment page (the default): Apple Pay once Whop has registered the checkout host with
    // Apple. Register it; Apple cannot fetch the association file, and the card shows what Whop asks (its message and
    // DNS records); once Apple can, Check again: ready.
    await page.locator('[data-check="wallets"][data-ok="false"]').waitFor();
    const applePay = page.locator('[data-wallets="embedded"] [data-apple-pay-status]');
    expect(await applePay.getAttribute('data-apple-pay-status')).toBe('not_registered');
    await page.locator('[data-wallets="embedded"]').getByText(/choose "On Whop's payment page" under Payment page/).waitFor();
    const processorCard = page.getByRole('region', { name: 'Payments with Whop' });
    await processorCard.getByRole('button', { name: 'Register for Apple Pay' }).click();
    await page.locator('[data-apple-pay-status="pending"]').waitFor({ timeout: 20_000 });
    await processorCard.getByRole('button', { name: 'Check again' }).click();
    const issue = page.locator('[data-apple-pay-status="action_required"] [data-issue="apple_pay_unverified"]');
    await issue.getByRole('table', { name: 'DNS records Whop asks for' }).waitFor({ timeout: 20_000 });
    const { businessId } = await stack.database.db.processorConnection.findUniqueOrThrow({ where: { merchantId: merchant.id } });
    const added = [...stack.sims.processor.domains.domains.values()].filter((d) => d.accountId === businessId);
    expect(added).toHaveLength(1);
    await issue.getByText(`_apple-pay.${added[0]!.hostname}`).waitFor();
    await screenshot(page, 'dashboard-21a-apple-pay-action-required');
    await page.setViewportSize({ width: 390, height: 844 });
    await processorCard.scrollIntoViewIfNeeded();
    await screenshot(page, 'dashboard-21a-apple-pay-action-required-mobile');
    await page.setViewportSize({ width: 1280, height: 900 });
    await control(stack.urls.processor, 'POST', 'domains/association', { hostname: added[0]!.hostname, served: true });
    await processorCard.getByRole('button', { name: 'Check again' }).click();
    await page.locator('[data-apple-pay-status="ready"]').waitFor({ timeout: 20_000 });
    await page.locator('[data-check="wallets"][data-ok="true"]').waitFor();
    expect(await page.locator('[data-apple-pay-status="ready"] [data-issue]').count()).toBe(0);
    expect(await page.locator('button[name^="wallet-"]').count()).toBe(0);
    await screenshot(page, 'dashboard-21b-wallets-apple-pay-ready');
    // On Whop's payment page they are offered with nothing to set up, so on Growth they are ready, and nothing asks anything.
    await page.getByLabel('Where shoppers pay by card').selectOption('hosted');
    await page.getByText("Shoppers pay on Whop's payment page.").waitFor();
    expect((await stack.database.db.merchant.findUniqueOrThrow({ where: { id: merchant.id } })).paymentPage).toBe('HOSTED');
    await page.reload();
    await page.locator('[data-check="wallets"][data-ok="true"]').waitFor({ timeout: 20_000 });
    await page.locator('[data-wallets="hosted"]').getByText("Apple Pay and Google Pay are offered on Whop's checkout page, where shoppers pay: Whop needs no domain set-up for it.").waitFor();
    expect(await page.locator('[data-apple-pay-status]').count()).toBe(0);
    await screenshot(page, 'dashboard-21c-wallets-hosted');
    // On Starter they are not offered: Whop's page is told so, and the card names the plan that has them.
    await givePaidPlan(stack.database.db, merchant.id, 'STARTER');
    await page.reload();
    await page.locator('[data-check="wallets"][data-ok="false"]').waitFor({ timeout: 20_000 });
    await page.locator('[data-wallets="not_on_plan"] [data-plan-note="wallets"]').getByRole('link', { name: 'Choose Growth in Billing' }).waitFor();
    await screenshot(page, 'dashboard-21d-wallets-not-on-plan');
    await givePaidPlan(stack.database.db, merchant.id, 'GROWTH');
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Subdomain', { exact: true }).fill('not a slug!');
    await page.getByRole('button', { name: 'Save subdomain' }).click();
    expect(await fieldError(page, 'Subdomain')).toMatch(/\w/);
    await screenshot(page, 'dashboard-22-settings');
    // On a phone the navigation folds behind the Menu button above the page.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: /^Menu/ }).click();
    await page.getByRole('link', { name: 'Orders', exact: true }).click();
    await page.locator(`tr[data-token="${tokens[0]}"]`).waitFor();
    await screenshot(page, 'dashboard-24-orders-mobile');
  }, 150_000);

  it('given a live merchant / adds a webhook endpoint, sees its secret once, sends a test event and reads its delivery and attempt', async () => {
    const { stack } = b;
    const merchant = await merchantWithProcessor(stack, 'Hooked Shop');
    await stack.database.db.merchant.update({ where: { id: merchant.id }, data: { emailVerifiedAt: new Date(), onboardingCompletedAt: new Date() } });
    const receiver = await control(stack.urls.webhookReceiver, 'POST', 'endpoints', {});
    const page = await (await b.newContext()).newPage();
    await page.goto(`${stack.apiUrl}/login?next=/dashboard/webhooks`);
    await page.getByLabel('Email').fill(merchant.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${stack.apiUrl}/dashboard/webhooks`);

    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel('Endpoint URL').fill(receiver.body.url as string);
    await page.getByLabel('session.completed').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await page.locator('[data-secret-once] code').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    await screenshot(page, 'dashboard-25-webhook-secret-once');
    await fetch(`${stack.urls.webhookReceiver}/_control/endpoints/${receiver.body.id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ secrets: [secret] }) });
    await page.getByRole('button', { name: 'I stored it' }).click();
    // Never again: not after a reload, not in the page.
    await page.reload();
    await page.locator('[data-endpoint]').waitFor();
    expect(await page.locator('[data-secret-once]').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    await page.locator('button[name="send-test"]').click();
    await page.getByText('Test event sent').waitFor();
    const row = page.locator('tr[data-delivery]').first();
    await expect.poll(async () => { await page.getByRole('button', { name: 'Refresh' }).click(); return row.getAttribute('data-status'); }, { timeout: 20_000 }).toBe('succeeded');
    await row.getByRole('button', { name: 'Attempts' }).click();
    await page.locator('[data-attempt="1"]').waitFor();
    expect(await page.locator('[data-attempt="1"]').textContent()).toContain('200');
    await screenshot(page, 'dashboard-26-webhook-deliveries');
    const [got] = stack.sims.webhookReceiver.deliveries(receiver.body.id as string);
    expect(got).toMatchObject({ verified: true, webhookId: await row.getAttribute('data-delivery') });
  }, 120_000);

  it('given a merchant who forgot the password / the emailed link sets a new one and logs in; the old one stops working', async () => {
    const { stack } = b;
    const email = `forgot-${unique()}@shop.test`;
    const reg = await api(stack, 'POST', '/api/auth/register', { email, password: PASSWORD, shopName: 'Forgetful Shop', phone: '+49 30 1234567' });
    expect(reg.status).toBe(201);

    const page = await (await b.newContext()).newPage();
    await page.goto(`${stack.apiUrl}/login`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByText('Check your inbox').waitFor();

    await page.goto(await emailedLink(email, '/reset-password'));
    await page.getByLabel('New password', { exact: true }).fill('a brand new passphrase 7');
    await page.getByLabel('Repeat the new password').fill('something else entirely');
    await page.getByRole('button', { name: 'Set password and log in' }).click();
    expect(await fieldError(page, 'Repeat the new password')).toMatch(/differ/);
    await screenshot(page, 'dashboard-23-reset-password');
    await page.getByLabel('Repeat the new password').fill('a brand new passphrase 7');
    await page.getByRole('button', { name: 'Set password and log in' }).click();
    // Logged in again; the email is still to be verified, so the verification screen comes first.
    await page.waitForURL(`${stack.apiUrl}/verify-email`);
    expect((await api(stack, 'POST', '/api/auth/login', { email, password: PASSWORD })).body.code).toBe('INVALID_CREDENTIALS');
    expect((await api(stack, 'POST', '/api/auth/login', { email, password: 'a brand new passphrase 7' })).status).toBe(200);
  }, 60_000);
  it('given a live merchant / creates an API key whose secret shows once, uses it, rolls it and revokes it', async () => {
    const { stack } = b;
    const merchant = await merchantWithProcessor(stack, 'Keys Shop');
    await stack.database.db.merchant.update({ where: { id: merchant.id }, data: { emailVerifiedAt: new Date(), onboardingCompletedAt: new Date() } });
    const page = await (await b.newContext()).newPage();
    await page.goto(`${stack.apiUrl}/login?next=/dashboard/api-keys`);
    await page.getByLabel('Email').fill(merchant.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${stack.apiUrl}/dashboard/api-keys`);
    await page.getByText('No API keys yet.').waitFor();

    // No access chosen: the form says so at the access fields, and nothing is made.
    await page.getByRole('button', { name: 'New API key' }).click();
    await page.getByLabel('Name').fill('ERP sync');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('give the key access to at least one resource').waitFor();
    await screenshot(page, 'dashboard-25a-api-key-form');
    await page.getByLabel('Orders', { exact: true }).selectOption('write');
    await page.getByLabel('Statistics', { exact: true }).selectOption('read');
    await page.getByLabel('Expires').selectOption('90');
    await page.getByRole('button', { name: 'Create key' }).click();

    const shown = page.locator('[data-secret]');
    await shown.waitFor();
    const secret = (await shown.getAttribute('data-secret'))!;
    expect(secret).toMatch(/^ck_test_[0-9A-Za-z]{43}$/);
    expect(await page.getByText('It is shown this once').count()).toBe(1);
    await screenshot(page, 'dashboard-25-api-key-created');
    const row = page.locator('tr[data-api-key]');
    expect(await row.count()).toBe(1);
    expect(await row.textContent()).toContain(`${secret.slice(0, 14)}…`);
    expect(await row.locator('.scopes').textContent()).toBe('orders:write, stats:read');

    // The key works on the API, within its scopes.
    const asKey = (url: string) => stack.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${secret}` } });
    expect((await asKey('/api/checkout/merchant/orders')).statusCode).toBe(200);
    expect((await asKey('/api/merchant/discounts')).statusCode).toBe(403);

    // Shown once: dismissed, and after a reload, the page lists the key without its secret.
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.reload();
    await row.waitFor();
    expect(await page.content()).not.toContain(secret.slice(14));
    await expect.poll(async () => row.locator('td').nth(4).textContent()).not.toBe('Never');

    // Roll with the old key stopping now: a new secret once; the old one answers 401.
    await row.getByRole('button', { name: 'Roll' }).click();
    await row.getByLabel('Old key').selectOption('0');
    await row.getByRole('button', { name: 'Roll key' }).click();
    await row.getByRole('button', { name: 'Yes, continue' }).click();
    await page.getByText('rolled', { exact: false }).first().waitFor();
    const rolled = (await page.locator('[data-secret]').getAttribute('data-secret'))!;
    expect(rolled).not.toBe(secret);
    expect((await asKey('/api/checkout/merchant/orders')).statusCode).toBe(401);
    await screenshot(page, 'dashboard-26-api-key-rolled');

    // Revoke the new key, after a confirmation.
    const current = page.locator('tr[data-api-key]').first();
    await current.getByRole('button', { name: 'Revoke' }).click();
    await current.getByRole('button', { name: 'Yes, continue' }).click();
    await expect.poll(() => current.locator('[data-status]').textContent()).toBe('revoked');
    const again = await stack.app.inject({ method: 'GET', url: '/api/checkout/merchant/orders', headers: { authorization: `Bearer ${rolled}` } });
    expect(again.statusCode).toBe(401);
    await screenshot(page, 'dashboard-27-api-keys');
  }, 60_000);
  it('given a storefront B merchant / Store & payments offers the plugin zip with install steps, and the link downloads the zip WordPress installs', async () => {
    const { stack } = b;
    const merchant = await merchantWithProcessor(stack, 'Plugin Shop');
    await stack.database.db.merchant.update({ where: { id: merchant.id }, data: { emailVerifiedAt: new Date(), onboardingCompletedAt: new Date() } });
    const page = await (await b.newContext()).newPage();
    await page.goto(`${stack.apiUrl}/login?next=/dashboard/connections`);
    await page.getByLabel('Email').fill(merchant.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${stack.apiUrl}/dashboard/connections`);
    await page.getByRole('radio', { name: /WooCommerce/ }).check();

    const install = page.locator('[data-plugin-install]');
    await expect.poll(() => install.textContent()).toMatch(/Upload Plugin.*Activate.*REST API.*Hosted Checkout/);
    expect(await install.textContent()).toContain(stack.apiUrl);
    await screenshot(page, 'dashboard-24-plugin-download');
    const [download] = await Promise.all([page.waitForEvent('download'), install.getByRole('link', { name: 'Download the plugin (zip)' }).click()]);
    expect(download.suggestedFilename()).toBe('hosted-checkout-connector-1.4.0.zip');
    const dir = mkdtempSync(join(tmpdir(), 'plugin-download-'));
    try {
      const zip = join(dir, 'plugin.zip');
      await download.saveAs(zip);
      const names = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).trim().split('\n');
      expect(names).toContain('hosted-checkout-connector/hosted-checkout-connector.php');
      expect(names.every((n) => n.startsWith('hosted-checkout-connector/'))).toBe(true);
      expect(execFileSync('unzip', ['-p', zip, 'hosted-checkout-connector/hosted-checkout-connector.php'], { encoding: 'utf8' })).toMatch(/Plugin Name:\s+Hosted Checkout Connector/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
