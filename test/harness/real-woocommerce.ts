// The real WooCommerce tier's world: a real WordPress + WooCommerce (wordpress.ts) beside the whole service
// (stack.ts) configured to accept that store's loopback URL (LOCAL_STORE_ORIGINS), and the people who use them,
// over HTTP as their browsers would: the merchant in wp-admin (log in, upload our plugin's zip as the API serves
// it, activate it, fill in its settings) and the shopper on the shop (block cart through the Store API, classic
// add-to-cart, the checkout page the plugin takes over).
import { expect } from 'vitest';
import { startTestStack, type TestStack } from './stack.js';
import { startWordPress, WP_ADMIN, type RestKey, type WordPressSite } from './wordpress.js';
import { CookieBrowser, formValue, type Page } from './cookie-browser.js';

export interface RealWooCommerce {
  wp: WordPressSite;
  stack: TestStack;
  /** An administrator's key (read) for looking at the store through WooCommerce's official client. */
  adminKey: RestKey;
  close(): Promise<void>;
}

export async function startRealWooCommerce(): Promise<RealWooCommerce> {
  const wp = await startWordPress({ log: (line) => console.log(line) });
  let stack: TestStack;
  try {
    stack = await startTestStack({ LOCAL_STORE_ORIGINS: wp.url });
  } catch (err) {
    await wp.stop();
    throw err;
  }
  const adminKey = await wp.createKey('read');
  return {
    wp,
    stack,
    adminKey,
    async close() {
      await stack.close();
      await wp.stop();
    },
  };
}

/** A person logged in to wp-admin (the administrator by default). */
export async function wpAdminLogin(wp: WordPressSite, user: { user: string; password: string } = WP_ADMIN): Promise<CookieBrowser> {
  const browser = new CookieBrowser(wp.url);
  await browser.request('/wp-login.php');
  const login = await browser.request('/wp-login.php', { form: { log: user.user, pwd: user.password, 'wp-submit': 'Log In', redirect_to: `${wp.url}/wp-admin/`, testcookie: '1' } });
  expect(login.status, `login as ${user.user}: ${login.text.slice(0, 500)}`).toBe(302);
  expect([...browser.cookies().keys()].some((k) => k.startsWith('wordpress_logged_in_'))).toBe(true);
  return browser;
}

/**
 * Plugins → Add New → Upload Plugin with the zip, then "Activate Plugin" on the result page: what the
 * installation guide tells the merchant to do. Answers the result pages.
 */
export async function uploadAndActivatePlugin(admin: CookieBrowser, zip: Buffer, fileName: string): Promise<{ installed: Page; activated: Page }> {
  const form = await admin.request('/wp-admin/plugin-install.php?tab=upload');
  expect(form.status, `${form.url} → ${form.location}`).toBe(200);
  const nonce = formValue(form.text, '_wpnonce');
  expect(nonce, 'the upload form has a nonce').toBeTruthy();
  const multipart = new FormData();
  multipart.set('_wpnonce', nonce!);
  multipart.set('_wp_http_referer', '/wp-admin/plugin-install.php?tab=upload');
  multipart.set('pluginzip', new Blob([zip], { type: 'application/zip' }), fileName);
  multipart.set('install-plugin-submit', 'Install Now');
  const installed = await admin.request('/wp-admin/update.php?action=upload-plugin', { multipart });
  expect(installed.status, installed.text.slice(0, 2000)).toBe(200);
  expect(installed.text).toContain('Plugin installed successfully.');
  const activate = /href="([^"]*plugins\.php\?action=activate[^"]*)"/.exec(installed.text)?.[1]?.replace(/&amp;/g, '&');
  expect(activate, 'the result page offers "Activate Plugin"').toBeTruthy();
  const activated = await admin.request(new URL(activate!, installed.url).href, { follow: true });
  expect(activated.status, `${activated.url} → ${activated.location}: ${activated.text.slice(0, 300)}`).toBe(200);
  return { installed, activated };
}

/** WooCommerce → Hosted Checkout as `who` sees it, and the answer to saving the form with these values. */
export async function savePluginSettings(who: CookieBrowser, values: { serviceUrl: string; connectionKey: string }): Promise<{ saved: Page; page: Page }> {
  const page = await who.request('/wp-admin/admin.php?page=hosted-checkout');
  expect(page.status, page.text.slice(0, 500)).toBe(200);
  const fields: Record<string, string> = {
    option_page: formValue(page.text, 'option_page') ?? '',
    action: 'update',
    _wpnonce: formValue(page.text, '_wpnonce') ?? '',
    _wp_http_referer: formValue(page.text, '_wp_http_referer') ?? '',
    hosted_checkout_service_url: values.serviceUrl,
    hosted_checkout_connection_key: values.connectionKey,
  };
  const saved = await who.request('/wp-admin/options.php', { form: fields });
  return { saved, page: saved.location ? await who.request(saved.location) : saved };
}

/** A shopper's visit to the shop: the cart lives in WooCommerce's session cookie. */
export class Shopper {
  readonly browser: CookieBrowser;
  private nonce = '';

  constructor(readonly wp: WordPressSite) {
    this.browser = new CookieBrowser(wp.url);
  }

  /** The block cart's way: the Store API (its Nonce header, as the page's script sends it). */
  async addWithStoreApi(id: number, quantity: number): Promise<void> {
    if (!this.nonce) this.nonce = (await this.browser.request('/wp-json/wc/store/v1/cart')).headers.get('nonce') ?? '';
    const added = await this.browser.request('/wp-json/wc/store/v1/cart/add-item', { json: { id, quantity }, headers: { nonce: this.nonce } });
    expect(added.status, added.text.slice(0, 500)).toBe(201);
    this.nonce = added.headers.get('nonce') ?? this.nonce;
  }

  /** The classic way: the product form's add-to-cart (?add-to-cart=<id>), a variation with its attribute. */
  async addClassic(productId: number, quantity: number, variation?: { id: number; attributes: Record<string, string> }): Promise<void> {
    const query = new URLSearchParams({ 'add-to-cart': String(productId), quantity: String(quantity) });
    if (variation) {
      query.set('variation_id', String(variation.id));
      for (const [k, v] of Object.entries(variation.attributes)) query.set(`attribute_${k}`, v);
    }
    const added = await this.browser.request(`/?${query.toString()}`, { follow: true });
    expect(added.status).toBe(200);
  }

  /** What the Store API says is in the cart (items and their quantities). */
  async cart(): Promise<{ items: Array<{ id: number; quantity: number }>; items_count: number }> {
    const res = await this.browser.request('/wp-json/wc/store/v1/cart');
    expect(res.status).toBe(200);
    return JSON.parse(res.text) as { items: Array<{ id: number; quantity: number }>; items_count: number };
  }

  /** The "Proceed to checkout" click: GET /checkout/. Answers the page (a 303 to our checkout, or the native one). */
  goToCheckout(): Promise<Page> {
    return this.browser.request('/checkout/');
  }
}

/** The session token of a checkout URL the plugin redirected to. */
export function tokenOf(location: string | null): string {
  expect(location, 'a redirect to the hosted checkout').toBeTruthy();
  const token = new URL(location!).pathname.split('/').pop()!;
  expect(token).toMatch(/^cs_[A-Za-z0-9_-]+$/);
  return token;
}

/** The store's order carrying this session, through the plugin's lookup route, read with WooCommerce's official client. */
export async function realOrderOf(world: RealWooCommerce, token: string): Promise<Record<string, any>> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const lookup = await world.wp.rest(world.adminKey, 'wc-hosted-checkout/v1').get(`orders/by-session/${token}`).catch((e: { response?: { status: number; data: unknown } }) => e.response ?? Promise.reject(e));
  expect(lookup.status, JSON.stringify(lookup.data)).toBe(200);
  const order = await world.wp.rest(world.adminKey).get(`orders/${(lookup.data as { order_id: number }).order_id}`);
  return order.data;
}

/**
 * The refunds of a real WooCommerce order (GET /wc/v3/orders/<id>/refunds, WooCommerce's official client): for the
 * refund tests that come with the refund work (a merchant's refund must be visible on the store's order).
 */
export async function readRealOrderRefunds(world: RealWooCommerce, orderId: number): Promise<Array<{ id: number; amount: string; reason: string; refunded_payment: boolean }>> {
  const res = await world.wp.rest(world.adminKey).get(`orders/${orderId}/refunds`);
  return res.data;
}
