// The merchant's order tools in a real browser (issue 31, item 4): the customers page (one line per email, search,
// a customer's orders linking to the order page), the orders page's "Export CSV" button (the download lands and holds
// the filtered orders), and the notification settings card (bad address refused next to the field, saved settings
// stored). At 1280 and 390 px; screenshots of the customers page, a customer and the settings card go to
// test-artifacts/browser/.
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { join } from 'node:path';
import { ARTIFACTS, screenshot, useBrowserStack } from './harness.js';
import { unique } from '../e2e/checkout-helpers.js';
import { hashPassword } from '../../security/passwords.js';
import { givePaidPlan } from '../../scripts/lib/stack/billing.js';

const b = useBrowserStack({ targets: ['dashboard'] });
const PASSWORD = 'correct horse battery 9';
const DAY = 24 * 3600_000;

const db = () => b.stack.database.db;

async function merchant(shopName: string) {
  const i = unique();
  const row = await db().merchant.create({
    data: { email: `tools-${i}@shop.test`, passwordHash: await hashPassword(PASSWORD), shopName, phone: '+49 30 1234', slug: `tools-${i}`, emailVerifiedAt: new Date(), onboardingCompletedAt: new Date() },
  });
  await givePaidPlan(db(), row.id);
  return row;
}

async function order(merchantId: string, o: { email: string; name: string; daysAgo: number; currency?: string; totalMinor?: number; status?: string; refundedMinor?: number; number?: string; method?: string }) {
  const token = `cs_${randomBytes(16).toString('hex')}`;
  const total = o.totalMinor ?? 2490;
  const at = new Date(Date.now() - o.daysAgo * DAY);
  const paid = o.status !== 'PAYMENT_PENDING';
  await db().checkoutSession.create({
    data: {
      token, merchantId, platform: 'STOREFRONT_A', status: o.status ?? 'COMPLETED', currency: o.currency ?? 'EUR', fxRates: { date: '2026-11-20', rates: {} },
      items: [{ productId: '1', variantId: null, title: 'Canvas tote', variantTitle: null, quantity: 1, unitPrice: total - 490, imageUrl: null }],
      subtotalMinor: total - 490, shippingMinor: 490, totalMinor: total, email: o.email, refundedMinor: o.refundedMinor ?? 0,
      shippingAddress: { name: o.name, line1: 'Hauptstraße 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
      paymentMethod: o.method ?? 'card', paymentStartedAt: at, completedAt: paid ? at : null, createdAt: at,
      storeOrderNumber: paid && o.number ? o.number : null, storeOrderId: paid && o.number ? `gid://shopify/Order/${o.number.slice(1)}` : null,
    },
  });
  return token;
}

async function loggedIn(context: BrowserContext, email: string, path: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${b.stack.apiUrl}/login?next=${encodeURIComponent(path)}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(`${b.stack.apiUrl}${path}`);
  return page;
}

/** No part of the element runs past the right edge of the viewport. */
async function fitsViewport(page: Page, selector: string) {
  const { right, width } = await page.locator(selector).first().evaluate((el) => ({ right: el.getBoundingClientRect().right, width: (globalThis as unknown as { innerWidth: number }).innerWidth }));
  expect(right, `${selector} right edge`).toBeLessThanOrEqual(width + 1);
}

describe('customers, CSV export and notification settings in the dashboard', () => {
  it('given a shop with orders / the merchant finds a customer, opens their orders, exports filtered orders and sets notifications', async () => {
    const m = await merchant('Tools Goods');
    const other = await merchant('Other Goods');
    const grace = [
      await order(m.id, { email: 'grace@example.test', name: 'Grace Hopper', daysAgo: 9, number: '#1001' }),
      await order(m.id, { email: 'Grace@Example.test', name: 'Grace Hopper', daysAgo: 2, number: '#1004', totalMinor: 5990, refundedMinor: 1000 }),
      await order(m.id, { email: 'grace@example.test', name: 'Grace Hopper', daysAgo: 1, status: 'PAYMENT_PENDING' }),
    ];
    await order(m.id, { email: 'ada@example.test', name: 'Ada Lovelace', daysAgo: 5, number: '#1002', currency: 'JPY', totalMinor: 4500 });
    await order(m.id, { email: 'alan@example.test', name: 'Turing, Alan "Prof"', daysAgo: 3, number: '#1003', method: 'cod', status: 'COD_CONFIRMED' });
    await order(m.id, { email: 'evil@example.test', name: '=HYPERLINK("http://evil.test")', daysAgo: 4, number: '#1005' });
    await order(other.id, { email: 'stranger@example.test', name: 'Not Yours', daysAgo: 1, number: '#9001' });

    // Customers at 1280 px: one line per email with a paid order, latest first; the stranger of another shop is not there.
    const desktop = await b.newContext();
    const page = await loggedIn(desktop, m.email, '/dashboard/customers');
    const rows = page.locator('.customers-table tbody tr');
    await expect.poll(() => rows.count()).toBe(4);
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-customer')))).toEqual(['grace@example.test', 'alan@example.test', 'evil@example.test', 'ada@example.test']);
    const graceRow = page.locator('[data-customer="grace@example.test"]');
    expect(await graceRow.locator('[data-orders-count]').textContent()).toBe('2');
    expect(await graceRow.textContent()).toContain('€74.80');
    expect(await graceRow.textContent()).toContain('€10.00 refunded');
    expect(await page.locator('[data-customer="ada@example.test"]').textContent()).toContain('¥4,500');
    expect(await page.locator('[data-consent="not_collected"]').count()).toBe(4);
    await fitsViewport(page, '.customers-table');
    await screenshot(page, 'orders-tools-customers-1280');

    // Search by a part of the name.
    await page.getByRole('textbox', { name: 'Search' }).fill('turing');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/\/dashboard\/customers\?q=turing$/);
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().getAttribute('data-customer')).toBe('alan@example.test');
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => rows.count()).toBe(4);

    // One customer: their orders and the unpaid checkout, each linking to the order page.
    await graceRow.getByRole('link').click();
    await page.waitForURL(`${b.stack.apiUrl}/dashboard/customers/${encodeURIComponent('grace@example.test')}`);
    await page.getByRole('heading', { name: 'Grace Hopper' }).waitFor();
    const orderRows = page.locator('.orders-table tbody tr');
    await expect.poll(() => orderRows.count()).toBe(3);
    expect(await orderRows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-token')))).toEqual([grace[2], grace[1], grace[0]]);
    await screenshot(page, 'orders-tools-customer-1280');
    await page.getByRole('link', { name: '#1004' }).click();
    await page.waitForURL(`${b.stack.apiUrl}/dashboard/orders/${grace[1]}`);
    await page.getByRole('heading', { name: 'Order #1004' }).waitFor();
    // …and back: the order's email (typed in capitals there) opens the same customer.
    await page.getByRole('link', { name: 'Grace@Example.test' }).click();
    await page.waitForURL(`${b.stack.apiUrl}/dashboard/customers/${encodeURIComponent('Grace@Example.test')}`);
    await expect.poll(() => page.locator('.orders-table tbody tr').count()).toBe(3);

    // Orders filtered to cash on delivery, then Export CSV: the file holds that order only.
    await page.goto(`${b.stack.apiUrl}/dashboard/orders?paymentMethod=cod`);
    await expect.poll(() => page.locator('.orders-table tbody tr').count()).toBe(1);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^orders-${m.slug}-\\d{4}-\\d{2}-\\d{2}\\.csv$`));
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv.startsWith('\uFEFForder,created_at,status,payment_method,customer_name,email,')).toBe(true);
    const lines = csv.slice(1).split('\r\n').filter(Boolean);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('#1003,');
    expect(lines[1]).toContain(',COD_CONFIRMED,cod,"Turing, Alan ""Prof""",alan@example.test,DE,EUR,');

    // Unfiltered: every order of this shop (the pending checkout included), none of the other shop's, the formula guarded.
    await page.goto(`${b.stack.apiUrl}/dashboard/orders`);
    await page.locator('.orders-table tbody tr').first().waitFor();
    const [all] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
    const allCsv = readFileSync((await all.path())!, 'utf8');
    // The orders tab (paid orders): 5; the unpaid checkout is under "Unpaid checkouts".
    expect(allCsv.slice(1).split('\r\n').filter(Boolean)).toHaveLength(1 + 5);
    expect(allCsv).not.toContain('stranger@example.test');
    expect(allCsv).toContain('"\'=HYPERLINK(""http://evil.test"")"');

    // Notification settings: a bad address is refused next to its field; then saved and stored.
    await page.goto(`${b.stack.apiUrl}/dashboard/settings`);
    const card = page.locator('#notifications');
    await card.getByLabel('Refund').check();
    await card.getByLabel('New order').uncheck();
    await card.getByLabel('Address 1').fill('not-an-address');
    await card.getByRole('button', { name: 'Save notifications' }).click();
    await expect.poll(() => card.getByLabel('Address 1').getAttribute('aria-invalid')).toBe('true');
    expect((await db().merchant.findUniqueOrThrow({ where: { id: m.id } })).notifyRefund).toBe(false);
    await card.getByLabel('Address 1').fill('Ops@Tools.test');
    await card.getByRole('button', { name: 'Add an address' }).click();
    await card.getByLabel('Address 2').fill('owner@tools.test');
    await card.getByRole('button', { name: 'Save notifications' }).click();
    await card.getByText('Notification settings saved.').waitFor();
    expect(await db().merchant.findUniqueOrThrow({ where: { id: m.id } })).toMatchObject({ notifyRefund: true, notifyNewOrder: false, notifyStoreOrderFailed: true, notifyEndpointDisabled: true, notificationEmails: ['ops@tools.test', 'owner@tools.test'] });
    await card.scrollIntoViewIfNeeded();
    await screenshot(page, 'orders-tools-settings-1280');
    await card.screenshot({ path: join(ARTIFACTS, 'orders-tools-notifications-1280.png') });

    // At 390 px: the customers' key columns (who, how many orders, spent) inside the screen; the detail and the settings too.
    const phone = await loggedIn(await b.newContext({ mobile: true }), m.email, '/dashboard/customers');
    await expect.poll(() => phone.locator('.customers-table tbody tr').count()).toBe(4);
    for (const cell of ['.customer-link', '[data-orders-count]', '.spent']) await fitsViewport(phone, `[data-customer="grace@example.test"] ${cell}`);
    expect(await phone.locator('[data-customer="grace@example.test"] .customer-link').isVisible()).toBe(true);
    await screenshot(phone, 'orders-tools-customers-390');
    await phone.goto(`${b.stack.apiUrl}/dashboard/customers/${encodeURIComponent('grace@example.test')}`);
    await expect.poll(() => phone.locator('.orders-table tbody tr').count()).toBe(3);
    await fitsViewport(phone, '.orders-table tbody tr');
    await screenshot(phone, 'orders-tools-customer-390');
    await phone.goto(`${b.stack.apiUrl}/dashboard/settings#notifications`);
    await phone.locator('#notifications').getByLabel('Address 2').waitFor();
    expect(await phone.locator('#notifications').getByLabel('Address 1').inputValue()).toBe('ops@tools.test');
    await fitsViewport(phone, '#notifications button[type=submit]');
    await screenshot(phone, 'orders-tools-settings-390');
    await phone.locator('#notifications').screenshot({ path: join(ARTIFACTS, 'orders-tools-notifications-390.png') });
  }, 240_000);
});
