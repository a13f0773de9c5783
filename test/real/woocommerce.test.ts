// The real-platform tier: our API, our client and our plugin against a real WordPress 6.8.8 + WooCommerce 10.0.2
// (PHP 8.2 and MariaDB from Debian, php -S, HPOS on, block Cart and Checkout, Twenty Twenty-Five), set up by
// test/harness/wordpress.ts from the pinned releases in ../shared/real-platforms. Everything the merchant and the
// shopper do goes over HTTP as their browsers would (test/harness/real-woocommerce.ts); the store is read back with
// WooCommerce's official REST client. What this tier proves, and what still rests on documentation alone:
// docs/storefront-b.md "Verified against a running WooCommerce".
//
// The tests of this file share one store and run in order: the plugin is installed first, then the store connected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WP_MANAGER, type RestKey } from '../harness/wordpress.js';
import { readRealOrderRefunds, realOrderOf, savePluginSettings, Shopper, startRealWooCommerce, tokenOf, uploadAndActivatePlugin, wpAdminLogin, type RealWooCommerce } from '../harness/real-woocommerce.js';
import { api, control, merchantWithProcessor, payOnHostedPage, returnFromPaymentPage, sessionStatus, SHOPPER, waitFor, type Json, type Merchant } from '../e2e/checkout-helpers.js';
import { formValue } from '../harness/cookie-browser.js';
import { checkoutOrigin } from '../../api/routes/merchant/view.js';
import { createStorefrontBClient, StoresWithoutRoute } from '../../integrations/storefront-b/client.js';
import { WooCommerceRestApi } from '../harness/woocommerce-official.js';
import type { StoreOrderInput } from '../../integrations/storefront-common/order.js';
import { PLUGIN_SLUG } from '../../api/storefront-b-plugin.js';

let world: RealWooCommerce;
/** The card checkout's session, refunded by the test after it. */
let paidToken: string | undefined;
let merchant: Merchant;
/** The Read/Write key the store is connected with; the plugin signs with it too. */
let connected: RestKey;
beforeAll(async () => {
  world = await startRealWooCommerce();
  merchant = await merchantWithProcessor(world.stack, 'Real WooCommerce Store');
}, 180_000);
afterAll(async () => {
  await world?.close();
});

/**
 * What the site logged (WP_DEBUG_LOG) since `before`, without WordPress core's own complaints that this machine
 * reaches no wordpress.org (update checks and the plugin-dependency lookup on admin pages): anything else, a notice
 * of our plugin above all, is a finding.
 */
const newLogLines = (before: string) =>
  world.wp.debugLog().slice(before.length).split('\n').filter((l) => l.trim() && !/could not establish a secure connection to WordPress\.org/.test(l));

/** Orders in the store, counted by WooCommerce itself (X-WP-Total over every status). */
const orderCount = async () => Number((await world.wp.rest(world.adminKey).get('orders', { per_page: 1, status: 'any' })).headers['x-wp-total']);

describe('installing our plugin from the zip the API serves', () => {
  it('given the zip downloaded from the dashboard / WordPress installs and activates it with WP_DEBUG on, and nothing is logged', async () => {
    const zip = await world.stack.app.inject({ method: 'GET', url: '/api/merchant/storefront-b/plugin.zip', headers: { authorization: `Bearer ${merchant.token}` } });
    expect(zip.statusCode).toBe(200);
    const logBefore = world.wp.debugLog();

    const admin = await wpAdminLogin(world.wp);
    const { activated } = await uploadAndActivatePlugin(admin, zip.rawPayload, `${PLUGIN_SLUG}.zip`);

    expect(activated.text).toContain('Plugin activated.');
    const plugins = await admin.request('/wp-admin/plugins.php');
    const row = new RegExp(`<tr[^>]*data-plugin="${PLUGIN_SLUG}/${PLUGIN_SLUG}\\.php"[^>]*>`).exec(plugins.text)?.[0];
    expect(row).toMatch(/class="active/);
    expect(newLogLines(logBefore)).toEqual([]);
  });
});

describe('connecting the real store (it lives at its domain root, over loopback http)', () => {
  it('given a Read key (the Add-key form\'s preselection) / connect refuses it, naming the WooCommerce screen and the permission, and the store is unchanged', async () => {
    const key = await world.wp.createKey('read');
    const before = await orderCount();

    const res = await api(world.stack, 'POST', '/api/merchant/storefront-b/connect', { storeUrl: world.wp.url, consumerKey: key.consumerKey, consumerSecret: key.consumerSecret }, merchant.token);

    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'INVALID_STORE_CREDENTIALS', error: expect.stringContaining('WooCommerce → Settings → Advanced → REST API') });
    expect(res.body.error).toContain('"Read/Write"');
    expect(await world.stack.database.db.storefrontBConnection.findUnique({ where: { merchantId: merchant.id } })).toBeNull();
    expect(await orderCount()).toBe(before);
  });

  it('given a Read/Write key / connect succeeds and reports the store: EUR, our plugin active', async () => {
    const key = (connected = await world.wp.createKey('read_write'));
    const before = await orderCount();

    const res = await api(world.stack, 'POST', '/api/merchant/storefront-b/connect', { storeUrl: `${world.wp.url}/`, consumerKey: key.consumerKey, consumerSecret: key.consumerSecret }, merchant.token);

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ connected: true, storeUrl: world.wp.url, currency: 'EUR', pluginActive: true });
    // The write probe left no trace.
    expect(await orderCount()).toBe(before);
  });

  it('given another loopback address than the configured local store / connect refuses it as an unsafe URL', async () => {
    const res = await api(world.stack, 'POST', '/api/merchant/storefront-b/connect', { storeUrl: 'http://127.0.0.1:9/', consumerKey: 'ck_x', consumerSecret: 'cs_x' }, merchant.token);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_INPUT');
  });
});

describe('the store\'s policy pages (the checkout footer\'s links, plugin 1.3.0)', () => {
  const policiesOf = async () => (await api(world.stack, 'GET', '/api/merchant/me', undefined, merchant.token)).body.storePolicies as Json;

  it('given a new shop (WordPress\'s privacy page and WooCommerce\'s refund page are drafts, no terms page) / connect read them: none to link', async () => {
    expect(await world.wp.ops('policy-pages', {})).toEqual({ privacy: { id: expect.any(Number), status: 'draft' }, refund: { id: expect.any(Number), status: 'draft' } });
    expect(await policiesOf()).toEqual({ policies: [], readAt: expect.any(String), error: null });
  });

  it('given WooCommerce\'s REST settings / v3 answers the terms page only as an id (a select of page titles), and neither the privacy nor the refund page: why the plugin answers them', async () => {
    // WC_REST_Setting_Options_Controller (v3) turns page selects into a `select` of the published pages' titles; v2 leaves
    // them out. Either way no permalink, and WordPress's privacy page and WooCommerce's refund page are not settings there.
    const advanced = (await world.wp.rest(world.adminKey).get('settings/advanced')).data as Json[];
    const terms = advanced.find((o) => o.id === 'woocommerce_terms_page_id');
    expect(terms).toMatchObject({ type: 'select', value: '' });
    expect(advanced.map((o) => o.id)).not.toContain('woocommerce_refund_returns_page_id');
    const v2 = (await world.wp.rest(world.adminKey, 'wc/v2').get('settings/advanced')).data as Json[];
    expect(v2.map((o) => o.id)).not.toContain('woocommerce_terms_page_id');
    const groups = ((await world.wp.rest(world.adminKey).get('settings')).data as Json[]).map((g) => g.id);
    const everywhere = (await Promise.all(groups.map((g) => world.wp.rest(world.adminKey).get(`settings/${g}`).then((r) => r.data as Json[], () => [])))).flat().map((o) => o.id);
    expect(everywhere).not.toContain('wp_page_for_privacy_policy');
    expect(everywhere).not.toContain('woocommerce_refund_returns_page_id');
  });

  it('given the merchant publishes the privacy and refund pages and chooses a "Terms & Conditions" page / a refresh reads all three with the site\'s titles and permalinks, which open', async () => {
    const pages = await world.wp.ops<Record<string, { id: number; status: string }>>('policy-pages', { publish: ['privacy', 'refund'], terms: 'Terms & Conditions' });
    expect(Object.values(pages).map((p) => p.status)).toEqual(['publish', 'publish', 'publish']);

    const res = await api(world.stack, 'POST', '/api/merchant/store-countries/refresh', undefined, merchant.token);

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.policies).toEqual({
      policies: [
        { kind: 'refund', title: 'Refund and Returns Policy', url: `${world.wp.url}/refund_returns/` },
        { kind: 'privacy', title: 'Privacy Policy', url: `${world.wp.url}/privacy-policy/` },
        { kind: 'terms', title: 'Terms & Conditions', url: `${world.wp.url}/terms/` },
      ],
      readAt: expect.any(String),
      error: null,
    });
    // The plugin's own answer, through WooCommerce's official client with the connected key (OAuth 1.0a over http).
    expect((await world.wp.rest(connected, 'wc-hosted-checkout/v1').get('policies')).data.policies).toEqual([
      { type: 'terms', page_id: pages.terms!.id, title: 'Terms & Conditions', url: `${world.wp.url}/terms/` },
      { type: 'privacy', page_id: pages.privacy!.id, title: 'Privacy Policy', url: `${world.wp.url}/privacy-policy/` },
      { type: 'refund', page_id: pages.refund!.id, title: 'Refund and Returns Policy', url: `${world.wp.url}/refund_returns/` },
    ]);
    // Each link is a page a shopper can open.
    for (const { url, title } of res.body.policies.policies as Array<{ url: string; title: string }>) {
      const page = await fetch(url);
      expect(page.status, url).toBe(200);
      expect(await page.text(), url).toContain(title.replace('&', '&#038;'));
    }
  });
});

describe('the cart-prices route (plugin 1.4.0: a handed-over cart priced in one request)', () => {
  it('given a simple product, two variations of the variable one and unknown ids / one answer holding what the three wc/v3 reads answer, and the client prices the cart alike through it and through those reads', async () => {
    const { mug, notebook, shirt } = world.wp.facts.products;
    const v3 = world.wp.rest(connected);
    const res = await world.wp.rest(connected, 'wc-hosted-checkout/v1').get('cart-prices', { products: `${mug},${shirt.id},999999`, variations: `${shirt.id}:${shirt.variations.L},${shirt.id}:${shirt.variations.S},999999:5` });

    expect(res.status).toBe(200);
    const pick = (o: Json, keys: string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));
    const products = (await v3.get('products', { include: `${mug},${shirt.id}`, per_page: 100 })).data as Json[];
    const variations = (await v3.get(`products/${shirt.id}/variations`, { include: `${shirt.variations.S},${shirt.variations.L}`, per_page: 100 })).data as Json[];
    expect(res.data).toEqual({
      currency: 'EUR',
      products: products.map((p) => ({ ...pick(p, ['id', 'name', 'type', 'price', 'stock_status', 'variations']), images: (p.images as unknown[]).slice(0, 1) })),
      variations: variations.map((v) => ({ product_id: shirt.id, ...pick(v, ['id', 'price', 'stock_status', 'image', 'attributes']) })),
    });

    const cart = [[String(mug), String(notebook), String(shirt.id), '999999'], [[String(shirt.id), [String(shirt.variations.M), '999999']], ['999999', ['5']]]] as const;
    const client = (withoutCartPricesRoute: StoresWithoutRoute) => createStorefrontBClient({ storeUrl: world.wp.url, consumerKey: connected.consumerKey, consumerSecret: connected.consumerSecret, withoutCartPricesRoute });
    const overRest = new StoresWithoutRoute();
    overRest.add(world.wp.url);
    const [viaRoute, viaRest] = [await client(new StoresWithoutRoute()).getCartPrices(...cart), await client(overRest).getCartPrices(...cart)];
    expect([...viaRoute.products.keys()]).toEqual(expect.arrayContaining([String(mug), String(notebook), String(shirt.id)]));
    expect(viaRoute.variations.get(String(shirt.id))?.get(String(shirt.variations.M))).toMatchObject({ priceMinor: expect.any(Number), currency: 'EUR' });
    expect(viaRoute).toEqual(viaRest);
  });

  it('given a Read key of the administrator / the route answers (it only reads); given a wrong secret / 401', async () => {
    const read = await world.wp.createKey('read');
    expect((await world.wp.rest(read, 'wc-hosted-checkout/v1').get('cart-prices', { products: String(world.wp.facts.products.mug) })).status).toBe(200);
    const wrong = { ...read, consumerSecret: 'cs_0000000000000000000000000000000000000000' };
    expect(await world.wp.rest(wrong, 'wc-hosted-checkout/v1').get('cart-prices', { products: '1' }).then(() => 200, (e: { response?: { status: number } }) => e.response?.status)).toBe(401);
  });
});

describe('the plugin\'s settings (WooCommerce → Hosted Checkout)', () => {
  it('given the shop manager the readme says may configure it / they save the service URL and the key: "Settings saved.", not autoloaded', async () => {
    const manager = await wpAdminLogin(world.wp, WP_MANAGER);

    const { saved, page } = await savePluginSettings(manager, { serviceUrl: world.stack.apiUrl, connectionKey: connected.consumerKey });

    expect(saved.status, saved.text.slice(0, 300)).toBe(302);
    expect(page.text).toContain('Settings saved.');
    // "Test connection": the key is a REST key of this store and our API answers.
    const tested = await manager.request('/wp-admin/admin-post.php', { form: { action: 'hosted_checkout_test_connection', hosted_checkout_test_nonce: formValue(page.text, 'hosted_checkout_test_nonce') ?? '' }, follow: true });
    expect(tested.text).toContain('Connected. The first checkout through this store completes the setup verification in your dashboard.');
    const options = await world.wp.ops<Record<string, { value: string; autoload: string } | null>>('options', { names: ['hosted_checkout_service_url', 'hosted_checkout_connection_key'] });
    expect(options).toEqual({
      hosted_checkout_service_url: { value: world.stack.apiUrl, autoload: expect.stringMatching(/^(off|no)$/) },
      hosted_checkout_connection_key: { value: connected.consumerKey, autoload: expect.stringMatching(/^(off|no)$/) },
    });
  });

  it('given values that cannot work (a host without https://, a malformed key) / each is refused with a notice and the working values stay', async () => {
    const admin = await wpAdminLogin(world.wp);

    const { page } = await savePluginSettings(admin, { serviceUrl: 'checkout.example.com', connectionKey: 'ck_not a key' });

    expect(page.text).not.toContain('Settings saved.');
    expect(page.text).toContain('The service URL "checkout.example.com" was not saved');
    expect(page.text).toContain('The connection key was not saved');
    expect(formValue(page.text, 'hosted_checkout_service_url')).toBe(world.stack.apiUrl);
    expect(formValue(page.text, 'hosted_checkout_connection_key')).toBe(connected.consumerKey);
    // The page's own markup: every id once (two forms on one page).
    const ours = /<div class="wrap hc-settings">[\s\S]*?<\/form><\/div>/.exec(page.text)?.[0] ?? '';
    const ids = [...ours.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]);
    expect(ids.length).toBeGreaterThan(3);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

/** The checkout page's part, as a shopper fills it: details, the cheapest rate (Standard, 4.90), a code if given, pay by card. */
async function payByCard(token: string, discountCode?: string): Promise<Json> {
  const { stack } = world;
  const bundle = await api(stack, 'GET', `/api/checkout/session-bundle/${token}`);
  expect(bundle.status).toBe(200);
  const init = await api(stack, 'POST', `/api/checkout/${token}/init-payment`, { ...SHOPPER, shippingRateId: bundle.body.shipping[0].id, ...(discountCode ? { discountCode } : {}) });
  expect(init.status, JSON.stringify(init.body)).toBe(200);
  await payOnHostedPage(token, init.body.paymentUrl as string);
  await returnFromPaymentPage(stack, token);
  await waitFor('COMPLETED', async () => ((await sessionStatus(stack, token)) === 'COMPLETED' ? true : undefined));
  return init.body;
}

/** The store order's id once the workflow has created it. */
const storeOrderIdOf = (token: string) =>
  waitFor('the store order', async () => (await world.stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } })).storeOrderId ?? undefined, 60_000);

describe('a shopper\'s checkout through the real plugin', () => {
  it('given a block cart (Store API) / the plugin redirects to our page, the paid order lands in WooCommerce with its lines, discount, shipping and our meta, once, and the next shop page shows an empty cart', async () => {
    const { wp, stack } = world;
    const { mug, shirt } = wp.facts.products;
    expect((await api(stack, 'POST', '/api/merchant/discounts', { code: 'REAL10', type: 'percentage', percentOff: 10 }, merchant.token)).status).toBe(201);
    const shopper = new Shopper(wp);
    await shopper.addWithStoreApi(mug, 2);
    await shopper.addWithStoreApi(shirt.variations.M, 1);

    const checkout = await shopper.goToCheckout();

    expect(checkout.status).toBe(303);
    const token = tokenOf(checkout.location);
    const { slug } = await stack.database.db.merchant.findUniqueOrThrow({ where: { id: merchant.id }, select: { slug: true } });
    expect(new URL(checkout.location!).origin).toBe(checkoutOrigin(slug, stack.config));
    const session = await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } });
    // Prices as the store has them (12.50 × 2, 19.00), read over REST by the service, never from the browser.
    expect(session).toMatchObject({ merchantId: merchant.id, platform: 'STOREFRONT_B', currency: 'EUR' });
    expect((session.items as Array<{ productId: string; quantity: number; unitPrice: number }>).map((i) => [i.quantity, i.unitPrice])).toEqual([[2, 1250], [1, 1900]]);
    expect((await stack.database.db.storefrontBConnection.findUniqueOrThrow({ where: { merchantId: merchant.id } })).pluginInterceptedAt).toBeInstanceOf(Date);

    const payment = await payByCard(token, 'REAL10');
    const orderId = await storeOrderIdOf(token);
    paidToken = token;

    const order = await realOrderOf(world, token);
    expect(String(order.id)).toBe(orderId);
    // 25.00 + 19.00 = 44.00, 10 % off = 4.40, Standard shipping 4.90: 44.50 charged and on the order.
    expect(payment.totalMinor).toBe(4450);
    expect(order).toMatchObject({
      status: 'processing',
      currency: 'EUR',
      total: '44.50',
      discount_total: '4.40',
      shipping_total: '4.90',
      payment_method: 'hosted_checkout',
      date_paid_gmt: expect.any(String),
      billing: { email: SHOPPER.email, country: 'DE', city: 'Berlin' },
    });
    expect(order.transaction_id).toMatch(/\S/);
    expect(order.line_items.map((l: Json) => [l.product_id, l.variation_id, l.quantity, l.subtotal, l.total])).toEqual([
      [mug, 0, 2, '25.00', '22.50'],
      [shirt.id, shirt.variations.M, 1, '19.00', '17.10'],
    ]);
    expect(order.shipping_lines.map((l: Json) => [l.method_title, l.total])).toEqual([['Standard', '4.90']]);
    const meta = Object.fromEntries(order.meta_data.map((m: Json) => [m.key, m.value]));
    expect(meta).toMatchObject({ _hosted_checkout_session: token, _hosted_checkout_discount_code: 'REAL10', _hosted_checkout_discount_amount: '4.40' });
    expect(await readRealOrderRefunds(world, order.id as number)).toEqual([]);

    // The processor repeats every event of the payment: still one order on the store.
    const before = await orderCount();
    const events = (await stack.database.db.processorWebhookDelivery.findMany({ where: { sessionToken: token, signatureValid: true, rejection: null } })).map((d) => d.eventId!).filter(Boolean);
    expect(events.length).toBeGreaterThan(0);
    for (const eventId of events) expect((await control(stack.urls.processor, 'POST', 'webhooks/redeliver', { eventId, times: 2 })).status).toBeLessThan(300);
    await stack.sims.processor.webhooks.idle();
    expect(await stack.database.db.processorWebhookDelivery.count({ where: { sessionToken: token, rejection: 'duplicate' } })).toBeGreaterThanOrEqual(2 * events.length);
    expect(await orderCount()).toBe(before);
    expect((await realOrderOf(world, token)).id).toBe(order.id);

    // Back in the shop: the cart was still the shopper's until a page asked whether the checkout was paid.
    expect((await shopper.cart()).items_count).toBe(3);
    const cartPage = await shopper.browser.request('/cart/');
    expect(cartPage.status).toBe(200);
    expect((await shopper.cart()).items_count).toBe(0);
  }, 120_000);

  it('given that paid order / the merchant refunds one mug (restocked), then 5.00 in wp-admin (through our gateway: refunded at the processor, once), then the rest: our refunds on the real WooCommerce order with api_refund off, the order refunded there and here', async () => {
    const { stack } = world;
    const token = paidToken!;
    const order = await realOrderOf(world, token);
    const refund = (body: unknown) => api(stack, 'POST', `/api/checkout/merchant/orders/${token}/refund`, body, merchant.token);
    const first = await refund({ lines: [{ line: 0, quantity: 1 }], restock: true, reason: 'One mug arrived chipped' });
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    // One mug: 12.50, less its share of the 10 % discount = 11.25.
    expect(first.body.refund).toMatchObject({ amountMinor: 1125 });
    const booked = async (n: number) => {
      for (let i = 0; i < 200; i++) {
        const rows = await stack.database.db.refund.findMany({ where: { token } });
        if (rows.length === n && rows.every((r) => r.storeState !== 'pending')) return rows;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('the refunds were not booked on the store');
    };
    expect((await booked(1))[0]).toMatchObject({ state: 'succeeded', storeState: 'created' });
    const partial = await readRealOrderRefunds(world, order.id as number);
    expect(partial).toEqual([expect.objectContaining({ amount: '11.25', reason: 'One mug arrived chipped', refunded_payment: false })]);
    expect((await realOrderOf(world, token)).status).toBe('processing');

    // The merchant refunds 5.00 in wp-admin with the "Refund via" button: WooCommerce's admin AJAX
    // (woocommerce_refund_line_items, api_refund true) → wc_create_refund(refund_payment) → our gateway's
    // process_refund → POST /webhooks/storefront-b/refunds → the processor refunds it.
    const admin = await wpAdminLogin(world.wp);
    const edit = await admin.request(`/wp-admin/admin.php?page=wc-orders&action=edit&id=${order.id as number}`);
    expect(edit.status).toBe(200);
    expect(edit.text, 'the "Refund via" button of a gateway that supports refunds').toMatch(/class="button button-primary do-api-refund"/);
    const nonce = /"order_item_nonce":"([0-9a-f]+)"/.exec(edit.text)?.[1];
    expect(nonce).toBeDefined();
    const adminRefund = (amount: string, refunded: string) => admin.request('/wp-admin/admin-ajax.php', {
      form: {
        action: 'woocommerce_refund_line_items', security: nonce!, order_id: String(order.id), refund_amount: amount, refunded_amount: refunded, refund_reason: 'Goodwill (wp-admin)',
        line_item_qtys: '{}', line_item_totals: '{}', line_item_tax_totals: '{}', api_refund: 'true', restock_refunded_items: 'false',
      },
    });
    const viaAdmin = await adminRefund('5.00', '11.25');
    expect(viaAdmin.status, viaAdmin.text).toBe(200);
    expect(JSON.parse(viaAdmin.text), viaAdmin.text).toMatchObject({ success: true });
    const afterAdmin = await readRealOrderRefunds(world, order.id as number);
    const wooRefund = afterAdmin.find((r) => r.amount === '5.00')!;
    expect(wooRefund).toMatchObject({ reason: 'Goodwill (wp-admin)', refunded_payment: true });
    const storeRow = await waitFor('the wp-admin refund at the processor', async () => {
      const r = await stack.database.db.refund.findFirst({ where: { token, origin: 'store' } });
      return r?.state === 'succeeded' ? r : undefined;
    });
    expect(storeRow).toMatchObject({ amountMinor: 500, storeRefundId: String(wooRefund.id), storeState: 'created', reason: 'Goodwill (wp-admin)' });
    expect(await readRealOrderRefunds(world, order.id as number)).toHaveLength(2);

    const rest = await refund({});
    expect(rest.status, JSON.stringify(rest.body)).toBe(202);
    const rows = await booked(3);
    expect(rows.every((r) => r.storeState === 'created')).toBe(true);
    // The refunds we booked ourselves (api_refund false) never came back through the gateway: one store-origin row.
    expect(rows.filter((r) => r.origin === 'store')).toHaveLength(1);
    const all = await readRealOrderRefunds(world, order.id as number);
    expect(all.map((r) => r.amount).sort()).toEqual(['11.25', '28.25', '5.00']);
    expect(all.filter((r) => r.refunded_payment).map((r) => r.amount)).toEqual(['5.00']);
    expect((await realOrderOf(world, token)).status).toBe('refunded');
    expect(await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } })).toMatchObject({ status: 'REFUNDED', refundedMinor: 4450, storeOrderStatus: 'refunded' });
  }, 60_000);

  it('given a classic add-to-cart (a variation and a simple product) and cash on delivery / the order is on-hold in WooCommerce, unpaid, and the cart is emptied', async () => {
    const { wp, stack } = world;
    const { notebook, shirt } = wp.facts.products;
    expect((await api(stack, 'PATCH', '/api/merchant/config', { codEnabled: true }, merchant.token)).status).toBe(200);
    const shopper = new Shopper(wp);
    await shopper.addClassic(shirt.id, 1, { id: shirt.variations.L, attributes: { size: 'L' } });
    await shopper.addClassic(notebook, 3);
    expect((await shopper.cart()).items_count).toBe(4);

    const checkout = await shopper.goToCheckout();
    const token = tokenOf(checkout.location);
    const bundle = await api(stack, 'GET', `/api/checkout/session-bundle/${token}`);
    const cod = await api(stack, 'POST', `/api/checkout/${token}/complete-cod`, { ...SHOPPER, shippingRateId: bundle.body.shipping[0].id });
    expect(cod.status, JSON.stringify(cod.body)).toBe(200);
    expect(cod.body).toMatchObject({ status: 'COD_CONFIRMED', totalMinor: 2100 + 3 * 890 + 490 });
    await storeOrderIdOf(token);

    const order = await realOrderOf(world, token);
    expect(order).toMatchObject({ status: 'on-hold', payment_method: 'cod', date_paid_gmt: null, total: '52.60' });
    expect(order.line_items.map((l: Json) => [l.product_id, l.variation_id, l.quantity])).toEqual([[shirt.id, shirt.variations.L, 1], [notebook, 0, 3]]);

    await shopper.browser.request('/');
    expect((await shopper.cart()).items_count).toBe(0);
  }, 120_000);
});

/** A paid card order for a session, as the fulfilment activity hands it to our client. */
const lookupInput = (sessionToken: string): StoreOrderInput => ({
  sessionToken,
  currency: 'EUR',
  email: 'lookup@customer.test',
  shippingAddress: { firstName: 'Lou', lastName: 'Kup', line1: 'Weg 2', city: 'Berlin', postalCode: '10115', countryCode: 'DE' },
  lines: [{ title: 'Ceramic Mug', quantity: 1, unitPriceMinor: 1250, productId: String(world.wp.facts.products.mug) }],
  shipping: { title: 'Standard', priceMinor: 490, code: 'flat_rate' },
  totals: { subtotalMinor: 1250, shippingMinor: 490, discountMinor: 0, totalMinor: 1740 },
  payment: { method: 'card', reference: 'pay_lookup' },
});

describe('the plugin\'s order lookup (what exactly-once relies on)', () => {
  const input = lookupInput;

  it('given a create that failed after WooCommerce saved the row (an unknown coupon leaves a checkout-draft) / the lookup does not take the draft for the order, and createOrder makes the real one', async () => {
    const token = `cs_draft${Date.now().toString(36)}aaaaaaaa`;
    const writer = world.wp.rest(connected);
    const failed = await writer.post('orders', { set_paid: true, line_items: [{ product_id: world.wp.facts.products.mug, quantity: 1 }], coupon_lines: [{ code: 'NO-SUCH-COUPON' }], meta_data: [{ key: '_hosted_checkout_session', value: token }] })
      .then(() => null, (e: { response: { status: number; data: Json } }) => e.response);
    expect(failed).toMatchObject({ status: 400, data: { code: 'woocommerce_rest_invalid_coupon', data: { new_draft_order_id: expect.any(Number) } } });
    const draftId = failed!.data.data.new_draft_order_id as number;
    expect((await world.wp.rest(world.adminKey).get(`orders/${draftId}`)).data).toMatchObject({ status: 'checkout-draft' });

    const client = createStorefrontBClient({ storeUrl: world.wp.url, consumerKey: connected.consumerKey, consumerSecret: connected.consumerSecret });
    expect(await client.findOrderBySessionToken(token)).toBeNull();
    const created = await client.createOrder(input(token));
    expect(created.id).not.toBe(String(draftId));
    expect(created).toMatchObject({ status: 'processing', paid: true, sessionToken: token, totalMinor: 1740 });
    expect(await client.findOrderBySessionToken(token)).toMatchObject({ id: created.id });
  });

  it('given an order the merchant moved to the trash / the lookup no longer answers it', async () => {
    const token = `cs_trash${Date.now().toString(36)}aaaaaaaa`;
    const client = createStorefrontBClient({ storeUrl: world.wp.url, consumerKey: connected.consumerKey, consumerSecret: connected.consumerSecret });
    const created = await client.createOrder(input(token));
    // Without force, DELETE moves the order to the trash (its answer is the order as it was).
    expect((await world.wp.rest(connected).delete(`orders/${created.id}`)).status).toBe(200);
    expect((await world.wp.rest(world.adminKey).get(`orders/${created.id}`)).data).toMatchObject({ status: 'trash' });
    expect(await client.findOrderBySessionToken(token)).toBeNull();
  });
});

describe('the plugin\'s order lookup on the posts storage (shops from before HPOS)', () => {
  it('given orders kept in the posts table / the lookup finds ours by its meta, and still not a checkout-draft', async () => {
    expect(await world.wp.ops('order-storage', { storage: 'posts' })).toEqual({ hpos: 'no' });
    try {
      const client = createStorefrontBClient({ storeUrl: world.wp.url, consumerKey: connected.consumerKey, consumerSecret: connected.consumerSecret });
      const token = `cs_posts${Date.now().toString(36)}aaaaaaaa`;
      const created = await client.createOrder(lookupInput(token));
      expect(await client.findOrderBySessionToken(token)).toMatchObject({ id: created.id, status: 'processing', paid: true });

      const draft = `cs_pdraft${Date.now().toString(36)}aaaaaaa`;
      const failed = await world.wp.rest(connected).post('orders', { line_items: [{ product_id: world.wp.facts.products.mug, quantity: 1 }], coupon_lines: [{ code: 'NO-SUCH-COUPON' }], meta_data: [{ key: '_hosted_checkout_session', value: draft }] })
        .then(() => null, (e: { response: { status: number; data: Json } }) => e.response);
      expect(failed).toMatchObject({ status: 400, data: { code: 'woocommerce_rest_invalid_coupon' } });
      expect(await client.findOrderBySessionToken(draft)).toBeNull();
    } finally {
      await world.wp.ops('order-storage', { storage: 'hpos' });
    }
  });
});

describe('what docs/storefront-b.md says WooCommerce does, on the real store (the simulator\'s contract tests claim the same)', () => {
  const paid = (token: string, extra: Json = {}) => ({
    set_paid: true,
    currency: 'EUR',
    billing: { first_name: 'Ada', last_name: 'Lovelace', address_1: 'Street 1', city: 'Berlin', postcode: '10115', country: 'DE', email: 'ada@example.com' },
    line_items: [{ product_id: world.wp.facts.products.mug, quantity: 1, subtotal: '12.50', total: '12.50' }],
    shipping_lines: [{ method_id: 'flat_rate', method_title: 'Standard', total: '4.90' }],
    meta_data: [{ key: '_hosted_checkout_session', value: token }],
    ...extra,
  });

  it('given a product id the store does not have / the order is created anyway, with a line that names no product (why the client reads every product back first)', async () => {
    const res = await world.wp.rest(connected).post('orders', paid('cs_docs_unknown_product', { line_items: [{ product_id: 999999, quantity: 1 }] }));
    expect(res.status).toBe(201);
    expect(res.data.line_items).toMatchObject([{ product_id: 0, quantity: 1 }]);
  });

  it('given a session token / search does not see order meta, and meta_key/meta_value are ignored (the latest orders come back)', async () => {
    const token = `cs_docs_meta${Date.now().toString(36)}`;
    await world.wp.rest(connected).post('orders', paid(token));
    expect((await world.wp.rest(world.adminKey).get('orders', { search: token })).data).toEqual([]);
    const filtered = await world.wp.rest(world.adminKey).get('orders', { meta_key: '_hosted_checkout_session', meta_value: token, per_page: 100 });
    expect(filtered.data.length).toBeGreaterThan(1);
  });

  it('given money as a number / 400 rest_invalid_param; as strings / the totals come back as strings', async () => {
    const refused = await world.wp.rest(connected).post('orders', paid('cs_docs_number', { shipping_lines: [{ method_id: 'flat_rate', method_title: 'Standard', total: 4.9 }] }))
      .then(() => null, (e: { response: { status: number; data: Json } }) => e.response);
    expect(refused).toMatchObject({ status: 400, data: { code: 'rest_invalid_param' } });
    const product = (await world.wp.rest(world.adminKey).get(`products/${world.wp.facts.products.mug}`)).data;
    expect(product.price).toBe('12.50');
  });

  it('given the same Idempotency-Key twice / two orders are created (WooCommerce reads no such header)', async () => {
    const c = new WooCommerceRestApi({ url: world.wp.url, consumerKey: connected.consumerKey, consumerSecret: connected.consumerSecret, version: 'wc/v3', axiosConfig: { headers: { 'Idempotency-Key': 'same', 'Content-Type': 'application/json;charset=utf-8' } } });
    const a = (await c.post('orders', paid('cs_docs_twice'))).data;
    const b = (await c.post('orders', paid('cs_docs_twice'))).data;
    expect(b.id).not.toBe(a.id);
  });

  it('given Basic credentials over http / WooCommerce does not read them (401 woocommerce_rest_cannot_view), so the client signs OAuth 1.0a', async () => {
    const res = await fetch(`${world.wp.url}/wp-json/wc/v3/orders`, { headers: { authorization: `Basic ${Buffer.from(`${connected.consumerKey}:${connected.consumerSecret}`).toString('base64')}` } });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'woocommerce_rest_cannot_view' });
  });
});

describe('a store the service no longer knows', () => {
  it('given the merchant disconnected the store / the shopper gets the native checkout and the plugin pauses handoffs instead of asking at every checkout', async () => {
    const { wp, stack } = world;
    expect((await stack.app.inject({ method: 'DELETE', url: '/api/merchant/storefront-b', headers: { authorization: `Bearer ${merchant.token}` } })).statusCode).toBe(200);
    const shopper = new Shopper(wp);
    await shopper.addClassic(wp.facts.products.mug, 1);

    const checkout = await shopper.goToCheckout();

    expect(checkout.status).toBe(200);
    expect(checkout.location).toBeNull();
    const backoff = await wp.ops<Record<string, { value: string } | null>>('options', { names: ['_transient_hosted_checkout_backoff', '_transient_timeout_hosted_checkout_backoff'] });
    expect(backoff._transient_hosted_checkout_backoff?.value).toBe('1');
    const until = Number(backoff._transient_timeout_hosted_checkout_backoff?.value) - Date.now() / 1000;
    expect(until).toBeGreaterThan(240);
    expect(until).toBeLessThanOrEqual(300);
  });

  it('after everything above / the site logged nothing of ours (WP_DEBUG_LOG)', () => {
    expect(newLogLines('')).toEqual([]);
  });
});
