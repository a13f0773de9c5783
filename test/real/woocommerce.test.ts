// The real-platform tier: our API, our client and our plugin against a real WordPress 6.8.8 + WooCommerce 10.0.2
// (PHP 8.2 and MariaDB from Debian, php -S, HPOS on, block Cart and Checkout, Twenty Twenty-Five), set up by
// test/harness/wordpress.ts from the pinned releases in ../shared/real-platforms. Everything the merchant and the
// shopper do goes over HTTP as their browsers would (test/harness/real-woocommerce.ts); the store is read back with
// WooCommerce's official REST client. What this tier proves, and what still rests on documentation alone:
// docs/storefront-b.md "Verified against a running WooCommerce".
//
// The tests of this file share one store and run in order: the plugin is installed first, then the store connected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WP_MANAGER } from '../harness/wordpress.js';
import { readRealOrderRefunds, realOrderOf, savePluginSettings, Shopper, startRealWooCommerce, tokenOf, uploadAndActivatePlugin, wpAdminLogin, type RealWooCommerce } from '../harness/real-woocommerce.js';
import { api, merchantWithProcessor, type Merchant } from '../e2e/checkout-helpers.js';
import { PLUGIN_SLUG } from '../../api/storefront-b-plugin.js';

let world: RealWooCommerce;
let merchant: Merchant;
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
    const key = await world.wp.createKey('read_write');
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

void WP_MANAGER;
void Shopper;
void tokenOf;
void realOrderOf;
void readRealOrderRefunds;
void savePluginSettings;
