// The merchant's refunds and held payments in the dashboard (issue 25, item 2), in a real browser against the whole
// service: a paid order refunded in part through the Refund dialog (one returned item, restocked, with a reason), then
// the rest; the detail follows each refund from "Refund requested" (a card network that takes its time) until the
// processor confirmed it and the store booked it, and the store order's own word stands beside ours; a bad amount shows at its field and changes nothing;
// a refund the store refuses is shown in full with what to do; a payment refunded in part at the processor before
// its webhook is an order on hold, with its banner, listed as "On hold", and refunded from there. The list says how much
// came back of a partially refunded order and why a payment is held; the statistics count the money kept, the refunds
// and the held payment (with its link to the held orders).
// Screenshots (1280 and 390 px) of the dialog, the detail with refunds, the list, the statistics and the held order go
// to test-artifacts/browser/.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { ARTIFACTS, screenshot, useBrowserStack } from './harness.js';
import {
  api, control, payOnHostedPage, sessionStatus, shopperPays, startPayment, storefrontACheckout, storefrontAMerchant, storefrontAOrdersOf, storefrontAOrdersPath, waitFor, type Json,
} from '../e2e/checkout-helpers.js';

const b = useBrowserStack({ targets: ['checkout', 'checkout-takeover', 'dashboard'] });

const PASSWORD = 'correct horse battery 9';
/** en-US, as the browser contexts are: 1250 → "€12.50". */
const euros = (minor: number) => `€${(minor / 100).toFixed(2)}`;

const sessionRow = (token: string) => b.stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } });
const refundRows = (token: string) => b.stack.database.db.refund.findMany({ where: { token }, orderBy: { createdAt: 'asc' } });

/** A storefront A merchant past setup whose shopper paid (COMPLETED, with its store order). */
async function paidOrder(shopName: string) {
  const { stack } = b;
  const merchant = await storefrontAMerchant(stack, shopName);
  const token = await storefrontACheckout(stack, merchant.shop);
  await shopperPays(stack, token);
  const row = await waitFor('the store order', async () => {
    const s = await sessionRow(token);
    return s.status === 'COMPLETED' && s.storeOrderId ? s : undefined;
  });
  await stack.database.db.merchant.update({ where: { id: merchant.id }, data: { emailVerifiedAt: new Date(), onboardingCompletedAt: new Date() } });
  return { merchant, token, row };
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

async function openDetail(page: Page, token: string): Promise<void> {
  await page.goto(`${b.stack.apiUrl}/dashboard/orders/${token}`);
  await page.getByRole('heading', { name: 'Timeline' }).waitFor();
}

/** What the screen shows (a modal dialog is over the page: a full-page shot would show the page under it). */
async function screenShot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}

const dialogOf = (page: Page) => page.getByRole('dialog', { name: /^Refund / });
const refundEntries = (page: Page) => page.locator('.refund-list > li');
const statusPill = (page: Page) => page.locator('[data-order-status] .pill').first();

/** Processor refunds of a payment, from the sandbox's own list (the merchant's processor key). */
async function processorRefunds(key: string, paymentId: string): Promise<Json[]> {
  const res = await fetch(`${b.stack.urls.processor}/api/v1/refunds?payment_id=${paymentId}`, { headers: { authorization: `Bearer ${key}` } });
  return ((await res.json()) as { data: Json[] }).data;
}

/** The processor's payment id (pay_…) of a session's checkout, from the sandbox's events. */
async function paymentIdOf(token: string): Promise<string> {
  return waitFor('the payment', async () => {
    const { body } = await control(b.stack.urls.processor, 'GET', 'webhooks/events');
    const outbox = (await control(b.stack.urls.processor, 'GET', 'webhooks/outbox')).body.events as Json[];
    const events = [...(body.events as Json[]), ...outbox];
    return events.find((e) => e.payload?.data?.metadata?.checkout_session_token === token && String(e.payload?.data?.id).startsWith('pay_'))?.payload.data.id as string | undefined;
  });
}

describe('refunds in the order detail', () => {
  it('given a paid order / a partial refund of one returned item, restocked, through the dialog, then the rest: each followed from "Refund requested" to booked on the store, the store\'s word beside ours, the list says Refunded; a bad amount shows at its field and changes nothing', async () => {
    const { stack } = b;
    const { merchant, token, row } = await paidOrder('Refund Desk');
    const items = row.items as Json[];
    const unit = items[0]!.unitPrice as number;
    const total = row.totalMinor!;
    const paymentId = await paymentIdOf(token);

    // On a phone: the dialog fits the screen; closing it sends nothing.
    const phone = await loggedIn(await b.newContext({ mobile: true }), merchant.email, `/dashboard/orders/${token}`);
    await phone.getByRole('heading', { name: 'Timeline' }).waitFor();
    await phone.getByRole('button', { name: 'Refund…' }).click();
    await dialogOf(phone).waitFor();
    await phone.getByRole('radio', { name: /Part of it/ }).check();
    await phone.locator('[data-field="line.0"] input').fill('1');
    await screenShot(phone, 'refunds-1-dialog-390');
    await phone.keyboard.press('Escape');
    await dialogOf(phone).waitFor({ state: 'detached' });

    const page = await loggedIn(await b.newContext(), merchant.email, `/dashboard/orders/${token}`);
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    expect(await statusPill(page).textContent()).toBe('Paid');
    expect(await page.locator('.refund-totals [data-total="refundable"]').textContent()).toBe(euros(total));

    await page.getByRole('button', { name: 'Refund…' }).click();
    const dialog = dialogOf(page);
    await dialog.waitFor();
    // Everything left is the default.
    expect(await dialog.getByRole('radio', { name: /Everything left/ }).isChecked()).toBe(true);
    expect(await dialog.getByRole('button', { name: `Refund ${euros(total)}` }).count()).toBe(1);
    // Restock needs returned items: off until one is chosen.
    expect(await dialog.getByRole('checkbox', { name: /Restock the returned items/ }).isDisabled()).toBe(true);
    await dialog.getByRole('radio', { name: /Part of it/ }).check();
    await dialog.locator('[data-field="line.0"] input').fill('1');
    // The amount follows the returned item's value.
    expect(await dialog.locator('[data-field="amount"] input').inputValue()).toBe((unit / 100).toFixed(2));
    await dialog.getByRole('checkbox', { name: /Restock the returned items/ }).check();
    await dialog.getByLabel('Reason (optional)').fill('Arrived scratched');
    await screenShot(page, 'refunds-2-dialog-1280');

    // More than is left: the API refuses, the message is at the amount, nothing is refunded.
    await dialog.locator('[data-field="amount"] input').fill('9999');
    await dialog.getByRole('button', { name: 'Refund €9,999.00' }).click();
    await expect.poll(() => dialog.locator('[data-field="amount"] .field-error').textContent(), { timeout: 15_000 }).toBe(`more than is left: at most ${euros(total)} can still be refunded`);
    expect(await dialog.locator('[data-field="amount"] input').getAttribute('aria-invalid')).toBe('true');
    await screenShot(page, 'refunds-3-dialog-bad-amount-1280');
    expect(await refundRows(token)).toEqual([]);
    expect(await processorRefunds(merchant.processorApiKey!, paymentId)).toEqual([]);

    // The item's value. The card network takes its time: the refund shows as requested, and the page follows it.
    await dialog.locator('[data-field="amount"] input').fill((unit / 100).toFixed(2));
    expect((await control(stack.urls.processor, 'POST', 'refunds/pending', { count: 1 })).status).toBe(200);
    await dialog.getByRole('button', { name: `Refund ${euros(unit)}` }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.locator('[data-refund-notice]').getByText(`Refund of ${euros(unit)} requested`).waitFor();
    const requested = refundEntries(page).first();
    await requested.waitFor();
    expect(await requested.getAttribute('data-refund-state')).toBe('requested');
    expect(await requested.locator('[data-processor-state] .pill').textContent()).toBe('Refund requested');
    expect(await requested.locator('[data-store-refund] .pill').textContent()).toBe('Booked once the money is back');
    expect(await page.locator('.refund-totals [data-total="pending"]').textContent()).toBe(euros(unit));
    await page.locator('.following').waitFor();
    await screenshot(page, 'refunds-4-requested-1280');
    // The network confirms it (no webhook about it); the merchant's Sync status asks the processor.
    const pending = await waitFor('the processor refund id', async () => (await refundRows(token))[0]?.processorRefundId ?? undefined);
    expect((await control(stack.urls.processor, 'POST', `refunds/${pending}/settle`, { status: 'succeeded' })).status).toBe(200);
    await page.getByRole('button', { name: 'Sync status' }).click();
    // Followed without a reload: the processor confirmed it, then the store booked it.
    const first = refundEntries(page).first();
    await expect.poll(() => first.getAttribute('data-store-state'), { timeout: 45_000 }).toBe('created');
    expect(await first.getAttribute('data-refund-state')).toBe('succeeded');
    await page.locator('[data-refund-notice="success"]').getByText(`Refunded ${euros(unit)}: the processor sent the money back and the refund is booked on your store order.`).waitFor();
    expect(await page.locator('.following').count()).toBe(0);
    const text = (await first.textContent())!;
    expect(text).toContain('Arrived scratched');
    expect(text).toContain(`1 × ${items[0]!.title as string}`);
    expect(text).toContain('restocked');
    expect(text).toContain('Made here (dashboard or API)');
    expect(await statusPill(page).textContent()).toBe('Partially refunded');
    const number = (await sessionRow(token)).storeOrderNumber!;
    expect(await page.locator('.store-status').textContent()).toBe(`Store: ${number} · Partially refunded`);
    expect(await page.locator('.refund-totals [data-total="refunded"]').textContent()).toBe(euros(unit));
    expect(await page.locator('.refund-totals [data-total="refundable"]').textContent()).toBe(euros(total - unit));
    // On the store: one refund of the item, restocked, with the merchant's reason.
    const [order] = storefrontAOrdersOf(merchant.shop, token);
    expect(order!.financialStatus).toBe('PARTIALLY_REFUNDED');
    expect(order!.refunds.map((r) => [r.amount, r.lines])).toEqual([[unit, [{ lineIndex: 0, quantity: 1, restockType: 'CANCEL' }]]]);
    expect(order!.refunds[0]!.note).toContain('Arrived scratched');

    // The list says what the detail says, with how much came back; so do the statistics (revenue is the money kept).
    for (const [context, width] of [[page.context(), 1280], [phone.context(), 390]] as const) {
      const list = await context.newPage();
      await list.goto(`${stack.apiUrl}/dashboard/orders`);
      const partial = list.locator(`tr[data-token="${token}"]`);
      await partial.waitFor();
      expect(await partial.locator('.pill').textContent()).toBe('Partially refunded');
      expect(await partial.locator('[data-status-note]').textContent()).toBe(`${euros(unit)} refunded`);
      await screenshot(list, `refunds-4b-list-partially-refunded-${width}`);
      await list.goto(`${stack.apiUrl}/dashboard/stats`);
      await list.locator('[data-kpi="orders"]').waitFor();
      expect(await list.locator('[data-kpi="outcomes"]').textContent()).toBe('1 paid · 0 refunded · 0 COD');
      expect(await list.locator('[data-kpi="partially-refunded"]').textContent()).toBe('1 of the paid partially refunded');
      expect(await list.locator('[data-kpi="revenue-EUR"]').textContent()).toBe(euros(total - unit));
      expect(await list.locator('[data-kpi="revenue-refunded-EUR"]').textContent()).toBe(`${euros(unit)} refunded of ${euros(total)}`);
      expect(await list.locator('[data-refunds] tr[data-currency="EUR"] td').allTextContents()).toEqual(['EUR', euros(unit), '1', `${euros(0)} (0)`]);
      expect(await list.locator('[data-kpi="held"]').count()).toBe(0);
      await screenshot(list, `refunds-4c-stats-partially-refunded-${width}`);
      await list.close();
    }

    // The rest: everything left, the default.
    await page.getByRole('button', { name: 'Refund…' }).click();
    await dialog.waitFor();
    expect(await dialog.locator('.refund-balance').textContent()).toContain(`${euros(total - unit)} left to refund`);
    // The returned item's line says one was given back already.
    expect(await dialog.locator('[data-field="line.0"] .hint').textContent()).toContain('1 given back already');
    await dialog.getByRole('button', { name: `Refund ${euros(total - unit)}` }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => page.locator('[data-order-status]').getAttribute('data-order-status'), { timeout: 45_000 }).toBe('REFUNDED');
    await expect.poll(() => refundEntries(page).evaluateAll((els) => els.map((e) => `${e.getAttribute('data-refund-state')}/${e.getAttribute('data-store-state')}`)), { timeout: 45_000 })
      .toEqual(['succeeded/created', 'succeeded/created']);
    expect(await statusPill(page).textContent()).toBe('Refunded');
    expect(await page.locator('.store-status').textContent()).toBe(`Store: ${number} · Refunded`);
    expect(await page.locator('.refund-totals [data-total="refunded"]').textContent()).toBe(euros(total));
    expect(await page.locator('.refund-totals [data-total="refundable"]').textContent()).toBe(euros(0));
    expect(await page.getByRole('button', { name: 'Refund…' }).count()).toBe(0);
    await screenshot(page, 'refunds-5-detail-refunded-1280');
    expect(storefrontAOrdersOf(merchant.shop, token)[0]!.financialStatus).toBe('REFUNDED');
    expect((await processorRefunds(merchant.processorApiKey!, paymentId)).map((r) => r.amount).sort()).toEqual([(total - unit) / 100, unit / 100].sort());

    // The list says Refunded.
    await page.goto(`${stack.apiUrl}/dashboard/orders`);
    const listed = page.locator(`tr[data-token="${token}"]`);
    await listed.waitFor();
    expect(await listed.locator('.pill').textContent()).toBe('Refunded');

    await openDetail(phone, token);
    await screenshot(phone, 'refunds-6-detail-refunded-390');
  }, 240_000);

  it('given a store that refuses to book a refund / the refund shows the store\'s words in full and what to do', async () => {
    const { stack } = b;
    const { merchant, token } = await paidOrder('Stubborn Store');
    const page = await loggedIn(await b.newContext(), merchant.email, `/dashboard/orders/${token}`);
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    // The shop's Admin API refuses the next call: the one that books the refund.
    const fault = await control(stack.urls.storefrontA, 'POST', 'faults', { mode: 'error', status: 422, count: 1, match: storefrontAOrdersPath(merchant.shop) });
    expect(fault.status, JSON.stringify(fault.body)).toBe(201);
    try {
      await page.getByRole('button', { name: 'Refund…' }).click();
      await dialogOf(page).getByRole('radio', { name: /Part of it/ }).check();
      await dialogOf(page).locator('[data-field="amount"] input').fill('1');
      await dialogOf(page).getByRole('button', { name: 'Refund €1.00' }).click();
      const entry = refundEntries(page).first();
      await expect.poll(() => entry.getAttribute('data-store-state'), { timeout: 45_000 }).toBe('failed');
    } finally {
      await control(stack.urls.storefrontA, 'DELETE', 'faults');
    }
    const [row] = await refundRows(token);
    expect(row!.storeError).toBeTruthy();
    const entry = refundEntries(page).first();
    // The store's own words, whole; the money is back; what to do.
    expect(await entry.locator('.store-error').textContent()).toBe(row!.storeError);
    expect(await entry.getByRole('alert').textContent()).toContain("Record this refund of €1.00 in your store's admin by hand");
    expect(await entry.getAttribute('data-refund-state')).toBe('succeeded');
    await page.locator('[data-refund-notice="warning"]').getByText('the store refused to book it').waitFor();
    await screenshot(page, 'refunds-7-store-refused-1280');
  }, 180_000);
});

describe('a payment on hold', () => {
  it('given a payment refunded in part at the processor before its webhook / the order is On hold in the list, its banner says why and what to do, and the merchant refunds the rest from there', async () => {
    const { stack } = b;
    const merchant = await storefrontAMerchant(stack, 'Held Goods');
    const token = await storefrontACheckout(stack, merchant.shop);
    const payment = await startPayment(stack, token);
    expect((await control(stack.urls.processor, 'POST', 'webhooks/hold')).status).toBe(200);
    try {
      await payOnHostedPage(token, payment.paymentUrl as string);
      // The merchant gives €5.00 back in the processor's dashboard before the success webhook arrives.
      const paid = await paymentIdOf(token);
      const res = await fetch(`${stack.urls.processor}/api/v1/payments/${paid}/refund`, {
        method: 'POST', headers: { authorization: `Bearer ${merchant.processorApiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ partial_amount: 5 }),
      });
      expect(res.status, await res.clone().text()).toBe(200);
    } finally {
      await control(stack.urls.processor, 'POST', 'webhooks/release', {});
    }
    await waitFor('ON_HOLD', async () => ((await sessionStatus(stack, token)) === 'ON_HOLD' ? true : undefined));
    await waitFor('the processor\'s refund recorded', async () => ((await refundRows(token)).some((r) => r.origin === 'processor' && r.state === 'succeeded') ? true : undefined));
    await stack.database.db.merchant.update({ where: { id: merchant.id }, data: { emailVerifiedAt: new Date(), onboardingCompletedAt: new Date() } });
    const row = await sessionRow(token);
    expect(row.storeOrderId).toBeNull();

    for (const [mobile, width] of [[false, 1280], [true, 390]] as const) {
      const page = await loggedIn(await b.newContext({ mobile }), merchant.email, '/dashboard/orders');
      // Among the paid orders, "On hold"; the status filter offers it by that name.
      const listed = page.locator(`tr[data-token="${token}"]`);
      await listed.waitFor();
      expect(await listed.locator('.pill').textContent()).toBe('On hold');
      expect(await listed.locator('[data-status-note]').textContent()).toBe('refunded before the order');
      await screenshot(page, `refunds-8a-list-on-hold-${width}`);
      expect(await page.getByLabel('Status').locator('option', { hasText: 'On hold' }).count()).toBe(1);
      // Paid, but without a store order: named for what it is, never "Unpaid checkout".
      expect(await listed.getByRole('link').first().textContent()).toBe('View payment');
      await listed.getByRole('link').first().click();
      await page.getByRole('heading', { name: 'Payment on hold' }).waitFor();
      await page.getByRole('heading', { name: 'Timeline' }).waitFor();
      const banner = page.locator('[data-hold="payment_refunded"]');
      await banner.waitFor();
      const said = (await banner.textContent())!;
      expect(said).toContain('On hold: the payment was refunded at the processor before the order was made');
      // The processor's amount in money, not minor units.
      expect(said).toContain('€5.00');
      expect(said).not.toContain('minor units');
      expect(said).toContain('create the order in your store by hand');
      expect(await statusPill(page).textContent()).toBe('On hold');
      // The processor's refund, made there, with no store order to book it on.
      const entry = refundEntries(page).first();
      expect(await entry.textContent()).toContain('Made at the processor');
      expect(await entry.getAttribute('data-store-state')).toBe('none');
      await screenshot(page, `refunds-8-on-hold-${width}`);

      // The statistics: one payment on hold, not revenue, and the €5.00 given back of it among the refunds; the link
      // opens the orders list filtered to held payments.
      await page.goto(`${stack.apiUrl}/dashboard/stats`);
      const held = page.locator('[data-kpi="held"]');
      await held.waitFor();
      expect(await held.textContent()).toBe('1 on hold');
      expect(await page.locator('[data-kpi="orders"]').textContent()).toBe('0');
      expect(await page.locator('[data-kpi="revenue-EUR"]').count()).toBe(0);
      expect(await page.locator('[data-held]').textContent()).toContain(`1 on hold: paid, but held before the order`);
      expect(await page.locator('[data-held]').textContent()).toContain(`${euros(row.totalMinor!)} (1)`);
      expect(await page.locator('[data-refunds] tr[data-currency="EUR"] td').allTextContents()).toEqual(['EUR', euros(500), '1', `${euros(0)} (0)`]);
      await screenshot(page, `refunds-8b-stats-on-hold-${width}`);
      await held.getByRole('link').click();
      await page.waitForURL(`${stack.apiUrl}/dashboard/orders?status=ON_HOLD`);
      await page.locator(`tr[data-token="${token}"]`).waitFor();
      expect(await page.locator('tbody tr').count()).toBe(1);
      expect(await page.getByLabel('Status').inputValue()).toBe('ON_HOLD');
    }

    // The merchant refunds the rest from the banner.
    const page = await loggedIn(await b.newContext(), merchant.email, `/dashboard/orders/${token}`);
    await page.locator('[data-hold]').getByRole('button', { name: 'Refund…' }).click();
    const dialog = dialogOf(page);
    await dialog.getByRole('button', { name: `Refund ${euros(row.totalMinor! - 500)}` }).click();
    await expect.poll(() => page.locator('[data-order-status]').getAttribute('data-order-status'), { timeout: 45_000 }).toBe('REFUNDED');
    await page.locator('[data-refund-notice="success"]').getByText('There is no store order to book it on').waitFor();
    expect(await page.locator('[data-hold]').count()).toBe(0);
    expect((await sessionRow(token)).refundedMinor).toBe(row.totalMinor);
    expect(storefrontAOrdersOf(merchant.shop, token)).toHaveLength(0);
    // The API agrees: nothing left to refund.
    expect((await api(stack, 'POST', `/api/checkout/merchant/orders/${token}/refund`, {}, merchant.token)).body.code).toBe('REFUND_ALREADY_REQUESTED');
  }, 240_000);
});
