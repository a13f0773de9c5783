// The storefront A app embed's script (store-extensions/storefront-a-theme-extension) never blocks a sale: when the hosted checkout is not for this shop (Demo plan:
// passthrough), when the service answers an error, or when it does not answer within 4 seconds, the shop's
// checkout button still leads to the shop's own checkout. (The happy path, button → hosted checkout page, is
// in checkout.test.ts.) The same script (web/checkout-takeover/, one build) runs as a legacy script tag too: last test.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot, useBrowserStack } from './harness.js';
import { control, storefrontAMerchant } from '../e2e/checkout-helpers.js';
import { STOREFRONT_A_API_VERSION } from '../../integrations/storefront-a/client.js';
import type { SimShop } from '../../sandbox/storefront-a/state.js';
import { DEMO_APP } from '../../sandbox/storefront-a/simulator.js';

const b = useBrowserStack();

async function fillCart(page: Page, shop: SimShop, storeUrl: string): Promise<void> {
  await page.goto(`${storeUrl}/shops/${shop.host}/`);
  await page.locator('.card').first().locator('[data-add-to-cart]').click();
  await page.waitForURL(/\/cart$/);
}

/** Clicks the cart's checkout button; answers where the browser ended up. */
async function clickCheckout(page: Page): Promise<{ url: URL }> {
  await page.locator('[data-storefront-checkout]').click();
  await page.locator('[data-native-checkout], #app').first().waitFor({ timeout: 15_000 });
  return { url: new URL(page.url()) };
}

const nativeCheckout = (shop: SimShop) => `/shops/${shop.host}/checkout`;

describe('the app embed falls back to the shop\'s own checkout', () => {
  it('given a merchant on the Demo plan / the click passes through to the shop\'s native checkout', async () => {
    const { stack } = b;
    const { shop, id } = await storefrontAMerchant(stack, 'Demo Plan Shop', { plan: 'demo' });
    const page = await (await b.newContext()).newPage();
    await fillCart(page, shop, stack.urls.storefrontA);
    const { url } = await clickCheckout(page);
    expect(url.pathname).toBe(nativeCheckout(shop));
    // The theme's cart form was re-submitted with its `checkout` field (without it the shop answers /cart).
    await screenshot(page, 'script-tag-passthrough-native-checkout');
    expect(await stack.database.db.checkoutSession.count({ where: { merchantId: id } })).toBe(0);
  }, 60_000);

  it('given the store failing while the service reads the cart / the click ends on the native checkout', async () => {
    const { stack } = b;
    const { shop } = await storefrontAMerchant(stack, 'Flaky Cart Shop');
    const page = await (await b.newContext()).newPage();
    await fillCart(page, shop, stack.urls.storefrontA);
    const fault = await control(stack.urls.storefrontA, 'POST', 'faults', { mode: 'error', status: 500, count: 5, match: `/shops/${shop.host}/api/${STOREFRONT_A_API_VERSION}/graphql.json` });
    expect(fault.status).toBe(201);
    const { url } = await clickCheckout(page);
    expect(url.pathname).toBe(nativeCheckout(shop));
    await control(stack.urls.storefrontA, 'DELETE', 'faults');
  }, 60_000);

  it('given the service not answering within 4 seconds / the click ends on the native checkout after 4 seconds of the page\'s clock', async () => {
    const { stack } = b;
    const { shop } = await storefrontAMerchant(stack, 'Slow Cart Shop');
    const page = await (await b.newContext()).newPage();
    // The page's own clock, moved by the test: "after 4 seconds" holds exactly, however slow the machine.
    await page.clock.install();
    await fillCart(page, shop, stack.urls.storefrontA);
    // The service takes the request and never answers (as a hung server or a dead network path would).
    let asked!: () => void;
    const createAsked = new Promise<void>((resolve) => (asked = resolve));
    await page.route('**/api/checkout/create', () => asked());
    await page.clock.pauseAt(Date.now() + 1_000);
    await page.locator('[data-storefront-checkout]').click();
    await createAsked;
    const navigations: string[] = [];
    page.on('request', (r) => void (r.isNavigationRequest() && navigations.push(r.url())));
    await page.clock.runFor(3_999);
    // Not before its 4 seconds: the page has not set off for the shop's checkout (given half a second to show it;
    // a slow machine could only hide a premature fallback, never fail this).
    await page.waitForTimeout(500);
    expect(navigations).toEqual([]);
    await page.clock.runFor(1);
    await page.locator('[data-native-checkout]').waitFor({ timeout: 30_000 });
    expect(new URL(page.url()).pathname).toBe(nativeCheckout(shop));
  }, 90_000);
});

describe('the same script as a legacy script tag', () => {
  it('given a shop with our script tag from before app embeds and no embed / the click goes to the hosted checkout, through the API the tag was loaded from', async () => {
    const { stack } = b;
    const { shop, id } = await storefrontAMerchant(stack, 'Legacy Tag Shop', { embed: false });
    expect((await control(stack.urls.storefrontA, 'POST', `shops/${shop.host}/script-tags`, { clientId: DEMO_APP.clientId, src: `${stack.apiUrl}/script-tag.js` })).status).toBe(201);
    const page = await (await b.newContext()).newPage();
    await fillCart(page, shop, stack.urls.storefrontA);
    expect(await page.locator('script#hosted-checkout-config').count()).toBe(0);
    await page.locator('[data-storefront-checkout]').click();
    await page.waitForURL(/^http:\/\/[a-z0-9-]+\.localhost:\d+\/checkout\/cs_[A-Za-z0-9_-]{32}$/, { timeout: 15_000 });
    const token = new URL(page.url()).pathname.split('/').pop()!;
    // A script tag has no block to read the storefront's language from: the session has none.
    expect(await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token }, select: { merchantId: true, storeLocale: true } })).toEqual({ merchantId: id, storeLocale: null });
  }, 60_000);
});
