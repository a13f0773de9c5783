// A shopper's checkout on the merchant's verified custom domain, in a real browser: the merchant claims
// checkout.<domain>, the CNAME appears in the DNS sandbox and the real verification path proves it; a store
// cart then links to http://checkout.<domain>:<port>/checkout/<token>, which Chromium resolves to this
// machine through --host-resolver-rules (the DNS answer a shopper's resolver would give). The shopper sees
// the branded cart there, pays with a test card on the processor's page and comes back to the success page
// on the custom domain, every API call from that origin passing CORS. Screenshots:
// test-artifacts/browser/custom-domain-*.png.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { Page, Request } from 'playwright-core';
import { screenshot, useBrowserStack } from './harness.js';
import { api, sessionStatus, storefrontAMerchant, storefrontAOrdersOf, waitFor } from '../e2e/checkout-helpers.js';
import { createDnsSimulator } from '../../sandbox/dns/index.js';

// The merchant's DNS provider: started before the stack so the service's resolver can point at it.
const dns = createDnsSimulator();
const { port: dnsPort } = await dns.udp.start();
const dnsControlUrl = await dns.app.listen({ port: 0, host: '127.0.0.1' });
afterAll(async () => {
  await dns.app.close(); // stops the DNS server too
});

// `.example` is reserved for documentation (RFC 2606): no real resolver answers it, so only the rule below does.
const apex = `shop-${randomBytes(4).toString('hex')}.example`;
const domain = `checkout.${apex}`;

const b = useBrowserStack({
  // Paid on the processor's hosted page and back to the custom domain (the embed: checkout-embed.test.ts).
  env: { DNS_SERVERS: `127.0.0.1:${dnsPort}`, CHECKOUT_PAYMENT_PAGE: 'hosted' },
  chromiumArgs: [`--host-resolver-rules=MAP ${domain} 127.0.0.1`],
});

/**
 * What went wrong in the browser: console errors, uncaught exceptions, failed requests, error answers. The
 * browser's own /favicon.ico probe is left out: neither the checkout page nor the processor's page has one.
 */
function watchForTrouble(page: Page): string[] {
  const trouble: string[] = [];
  page.on('console', (msg) => {
    const where = msg.location().url;
    if (msg.type() === 'error' && !where.endsWith('/favicon.ico')) trouble.push(`console: ${msg.text()} (${where})`);
  });
  page.on('pageerror', (err) => trouble.push(`page error: ${err.message}`));
  // A request the browser cancelled itself is not a failure: clicking Pay navigates to the processor's page, which
  // aborts a price quote still in flight from the last field typed (seen once init-payment answered in one workflow task).
  const cancelledByNavigation = (req: Request) => req.failure()?.errorText === 'net::ERR_ABORTED' && req.url().endsWith('/quote') && req.method() === 'POST';
  page.on('requestfailed', (req) => {
    if (!cancelledByNavigation(req)) trouble.push(`failed: ${req.method()} ${req.url()} ${req.failure()?.errorText ?? ''}`);
  });
  page.on('response', (res) => {
    if (res.status() >= 400) trouble.push(`answer ${res.status()}: ${res.request().method()} ${res.url()}`);
  });
  return trouble;
}

/** Every /api call the page made from `origin`, with the Origin it sent and the CORS answer it got. */
function watchApiCalls(page: Page, origin: string): Array<{ call: string; status: number; origin?: string; allowOrigin?: string }> {
  const calls: Array<{ call: string; status: number; origin?: string; allowOrigin?: string }> = [];
  page.on('response', (res) => {
    const url = new URL(res.url());
    if (url.origin !== origin || !url.pathname.startsWith('/api/')) return;
    void res.request().allHeaders().then((sent) => {
      calls.push({ call: `${res.request().method()} ${url.pathname}`, status: res.status(), origin: sent.origin, allowOrigin: res.headers()['access-control-allow-origin'] });
    });
  });
  return calls;
}

describe('a checkout on the merchant\'s verified custom domain', () => {
  it('given a merchant whose checkout.<domain> CNAME is verified / a store cart opens at http://checkout.<domain>:<port> with the branded cart, the shopper pays with a test card and lands on the success page on that domain; one paid order in the shop', async () => {
    const { stack } = b;
    const merchant = await storefrontAMerchant(stack, 'Harbour Goods');
    const { shop } = merchant;
    const logoUrl = `${stack.urls.storefrontA}/shops/${shop.host}/cdn/products/${shop.products[2]!.handle}.svg`;
    const branded = await api(stack, 'PATCH', '/api/merchant/config', {
      branding: { primaryColor: '#0b6e4f', accentColor: '#08543c', logoUrl },
      checkoutTexts: { headline: 'Checkout at Harbour Goods', successMessage: 'Thanks! Your order is on its way.' },
    }, merchant.token);
    expect(branded.status, JSON.stringify(branded.body)).toBe(200);
    const slug = ((await api(stack, 'GET', '/api/merchant/me', undefined, merchant.token)).body.slug as string);

    // The claim: pending until DNS proves it.
    const claimed = await api(stack, 'POST', '/api/merchant/domain', { domain }, merchant.token);
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(201);
    expect(claimed.body).toMatchObject({ domain, status: 'pending' });
    const cname = (claimed.body.records as Array<{ type: string; name: string; value: string }>).find((r) => r.type === 'CNAME')!;
    expect(cname).toMatchObject({ name: domain, value: `${slug}.localhost` });

    // The merchant adds the CNAME at their DNS provider, then clicks "verify" (the workflow looks at once).
    const published = await fetch(`${dnsControlUrl}/_control/records`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: cname.name, type: 'CNAME', value: cname.value }),
    });
    expect(published.status).toBe(201);
    const verified = await api(stack, 'POST', '/api/merchant/domain/verify', undefined, merchant.token);
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    const origin = `http://${domain}:${stack.config.api.port}`;
    expect(verified.body).toMatchObject({ status: 'verified', verifiedBy: 'cname', checkoutOrigin: origin });

    // The shopper's click in the shop: the checkout URL is on the custom domain.
    const items = [{ variantId: shop.products[0]!.variants[0]!.id, quantity: 2 }, { variantId: shop.products[3]!.variants[1]!.id, quantity: 1 }];
    const cartToken = stack.sims.storefrontA.createCart(shop.host, items);
    const created = await api(stack, 'POST', '/api/checkout/create', { platform: 'storefront-a', shop: shop.host, cartToken });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const token = created.body.token as string;
    expect(created.body.checkoutUrl).toBe(`${origin}/checkout/${token}`);

    const page = await (await b.newContext()).newPage();
    const trouble = watchForTrouble(page);
    const apiCalls = watchApiCalls(page, origin);
    await page.goto(created.body.checkoutUrl as string);
    // Served there, not sent elsewhere (e.g. to the subdomain).
    expect(page.url()).toBe(`${origin}/checkout/${token}`);

    // The merchant's branding and the store's cart.
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Checkout at Harbour Goods');
    expect(await page.locator('header img.logo').getAttribute('src')).toBe(logoUrl);
    await expect.poll(() => page.locator('header img.logo').evaluate((img) => {
      const loaded = img as unknown as { complete: boolean; naturalWidth: number };
      return loaded.complete && loaded.naturalWidth > 0;
    })).toBe(true);
    const pay = page.getByRole('button', { name: /^Pay / });
    const style = (el: unknown) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(el).backgroundColor;
    expect(await pay.evaluate(style)).toBe('rgb(11, 110, 79)');
    const first = shop.products[0]!;
    const fourth = shop.products[3]!;
    const names = await page.locator('.summary .item .item-name').allTextContents();
    expect(names).toHaveLength(2);
    expect(names[0]).toContain(first.title);
    expect(names[0]).toContain('quantity 2');
    expect(names[1]).toContain(fourth.title);
    expect(names[1]).toContain('quantity 1');
    // Cheapest rate preselected: Standard (€4.90).
    const expectedTotal = 2 * first.variants[0]!.price + fourth.variants[1]!.price + 490;
    await expect.poll(() => pay.textContent()).toBe(`Pay €${(expectedTotal / 100).toFixed(2)}`);
    await screenshot(page, 'custom-domain-1-checkout-page');

    await page.getByLabel('Email').fill('jane@customer.test');
    // The country first: the fields after it follow it (an en-US browser starts on the US, whose postal code is a ZIP code).
    await page.getByLabel('Country').selectOption('DE');
    await page.getByLabel('Full name').fill('Jane Doe');
    await page.getByLabel('Street and number').fill('Hauptstr. 1');
    await page.getByLabel('Postal code').fill('10115');
    await page.getByLabel('City').fill('Berlin');
    await pay.click();

    // The processor's hosted page, with a test card.
    await page.waitForURL(new RegExp(`^${stack.urls.processor}/checkout/plan_`), { timeout: 15_000 });
    await screenshot(page, 'custom-domain-2-processor-page');
    await page.fill('#card_number', '4242 4242 4242 4242');
    await page.fill('#expiry', '12/34');
    await page.fill('#cvc', '123');
    await page.click('button[type=submit]');

    // Back ON the custom domain (the payment's return URL), confirmed: the success page.
    await page.waitForURL((url) => url.pathname === `/checkout/${token}`, { timeout: 15_000 });
    expect(new URL(page.url()).host).toBe(`${domain}:${stack.config.api.port}`);
    await page.getByRole('heading', { name: 'Thanks! Your order is on its way.' }).waitFor({ timeout: 30_000 });
    expect(new URL(page.url()).host).toBe(`${domain}:${stack.config.api.port}`);
    expect(await page.locator('.summary .grand dd').textContent()).toContain(`€${(expectedTotal / 100).toFixed(2)}`);
    await page.waitForLoadState('networkidle');
    await screenshot(page, 'custom-domain-3-success');

    await waitFor('COMPLETED', async () => ((await sessionStatus(stack, token)) === 'COMPLETED' ? true : undefined));
    const orders = await waitFor('the store order', () => (storefrontAOrdersOf(shop, token).length ? storefrontAOrdersOf(shop, token) : undefined));
    expect(orders).toHaveLength(1);
    expect(orders[0]!.total).toBe(expectedTotal);

    // The page's API calls from the custom origin, none refused; starting and confirming the payment (POSTs
    // carry an Origin even same-origin) were checked against the CORS allowlist and allowed.
    const posts = apiCalls.filter((c) => c.call.startsWith('POST '));
    expect(posts.map((c) => c.call)).toEqual(expect.arrayContaining([`POST /api/checkout/${token}/init-payment`, `POST /api/checkout/${token}/pay`]));
    for (const c of posts) expect(c, c.call).toEqual({ call: c.call, status: 200, origin, allowOrigin: origin });
    expect(apiCalls.every((c) => c.status < 400), JSON.stringify(apiCalls)).toBe(true);
    expect(trouble).toEqual([]);
  }, 150_000);
});
