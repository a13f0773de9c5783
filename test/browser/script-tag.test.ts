// The storefront A app embed's script (plugins/storefront-a-theme-extension) never blocks a sale: when the hosted checkout is not for this shop (Demo plan:
// passthrough), when the service answers an error, or when it does not answer within 4 seconds, the shop's
// checkout button still leads to the shop's own checkout. (The happy path, button → hosted checkout page, is
// in checkout.test.ts.)
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot, useBrowserStack } from './harness.js';
import { control, storefrontAMerchant } from '../e2e/checkout-helpers.js';
import { STOREFRONT_A_API_VERSION } from '../../integrations/storefront-a/client.js';
import type { SimShop } from '../../sandbox/storefront-a/state.js';

const b = useBrowserStack();

async function fillCart(page: Page, shop: SimShop, storeUrl: string): Promise<void> {
  await page.goto(`${storeUrl}/shops/${shop.host}/`);
  await page.locator('.card').first().locator('[data-add-to-cart]').click();
  await page.waitForURL(/\/cart$/);
}

/** Clicks the cart's checkout button; answers where the browser ended up and how long it took. */
async function clickCheckout(page: Page): Promise<{ url: URL; ms: number }> {
  const t0 = Date.now();
  await page.locator('[data-storefront-checkout]').click();
  await page.locator('[data-native-checkout], #app').first().waitFor({ timeout: 15_000 });
  return { url: new URL(page.url()), ms: Date.now() - t0 };
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

  it('given the service not answering within 4 seconds / the click ends on the native checkout after about 4 seconds', async () => {
    const { stack } = b;
    const { shop } = await storefrontAMerchant(stack, 'Slow Cart Shop');
    const page = await (await b.newContext()).newPage();
    await fillCart(page, shop, stack.urls.storefrontA);
    // The service takes the request and never answers (as a hung server or a dead network path would).
    await page.route('**/api/checkout/create', () => undefined);
    const { url, ms } = await clickCheckout(page);
    expect(url.pathname).toBe(nativeCheckout(shop));
    expect(ms).toBeGreaterThanOrEqual(4_000);
    expect(ms).toBeLessThan(8_000);
  }, 60_000);
});
