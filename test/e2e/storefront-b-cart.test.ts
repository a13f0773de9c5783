// The store cart after a paid checkout, storefront B, fast tier: the simulated WooCommerce store runs our plugin's
// emulation (sandbox/storefront-b/plugin.ts), which does what the PHP plugin does (class-hosted-checkout-cart.php):
// the handoff remembers the checkout in the shopper's session, and a later shop page empties the cart once the
// service says it is paid. The same flow against a real WooCommerce: test/real/woocommerce.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack.js';
import { connectStorefrontBDemo, merchantWithProcessor, sessionStatus, shopperPays, waitFor } from './checkout-helpers.js';
import type { Store } from '../../sandbox/storefront-b/state.js';

let stack: TestStack;
let store: Store;
beforeAll(async () => {
  stack = await startTestStack();
  store = await connectStorefrontBDemo(stack, await merchantWithProcessor(stack, 'Cart Store'));
});
afterAll(async () => {
  await stack?.close();
});

const shop = () => `${stack.urls.storefrontB}/stores/demo`;
const page = async (path: string, cookie: string) => (await fetch(`${shop()}${path}`, { headers: { cookie } })).text();

describe('the storefront B cart after our checkout', () => {
  it('given a shopper who checked out through the plugin and paid / the next shop page shows an empty cart; before paying it kept the cart', async () => {
    const tote = store.products.find((p) => p.variations.length === 0)!;
    const added = await fetch(`${shop()}/cart/add`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `add-to-cart=${tote.id}&quantity=2` });
    const cookie = added.headers.get('set-cookie')!.split(';')[0]!;
    const click = await fetch(`${shop()}/checkout`, { method: 'POST', redirect: 'manual', headers: { cookie } });
    expect(click.status).toBe(303);
    const token = new URL(click.headers.get('location')!).pathname.split('/').pop()!;
    expect(token).toMatch(/^cs_/);

    // Back in the shop before paying: the checkout is open, the cart is the shopper's still.
    expect(await page('/cart', cookie)).toContain('data-cart-total');

    await shopperPays(stack, token);
    await waitFor('COMPLETED', async () => ((await sessionStatus(stack, token)) === 'COMPLETED' ? true : undefined));
    // The plugin asks at most once every few seconds per shopper: the next question comes 5 s after the last.
    store.handedOver.get(cookie.split('=')[1]!)!.checkedAt -= 5_000;
    expect(await page('/cart', cookie)).toContain('Your cart is currently empty.');
  }, 60_000);
});
