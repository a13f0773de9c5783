// The pages the API serves, over HTTP (inject): the checkout page by Host with the session embedded, the
// script tag, precompressed assets, the dashboard for browser navigations, and the API's JSON 404 kept for
// everything else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { ensureWebBuild } from '../../../scripts/web-build.js';
import { api, storefrontACheckout, storefrontAMerchant } from '../../../test/e2e/checkout-helpers.js';
import { CHECKOUT_LANGUAGES, type CheckoutLanguage } from '../../../domain/checkout/checkout-messages/index.js';

let stack: TestStack;
let token: string;
let slug: string;
let otherSlug: string;

beforeAll(async () => {
  await ensureWebBuild({ targets: ['checkout', 'checkout-takeover', 'dashboard'] });
  stack = await startTestStack();
  const merchant = await storefrontAMerchant(stack, 'Page Shop');
  await api(stack, 'PATCH', '/api/merchant/config', { branding: { primaryColor: '#ffee58' } }, merchant.token);
  token = await storefrontACheckout(stack, merchant.shop);
  slug = (await stack.database.db.merchant.findUniqueOrThrow({ where: { id: merchant.id } })).slug;
  otherSlug = (await stack.database.db.merchant.create({ data: { email: `other-${Date.now()}@shop.test`, passwordHash: 'x', shopName: 'Other', phone: '+49 30 1', slug: `other-${Date.now()}` } })).slug;
}, 180_000);
afterAll(async () => {
  await stack?.close();
});

const port = () => new URL(stack.apiUrl).port;
const page = (host: string, url: string, headers: Record<string, string> = {}) => stack.app.inject({ method: 'GET', url, headers: { host, accept: 'text/html', ...headers } });
const embedded = (html: string) =>
  JSON.parse(/<script id="checkout-data" type="application\/json">(.*?)<\/script>/s.exec(html)![1]!) as {
    bundle: { token: string; shopName: string } | null; cardEnabled: boolean; language?: string; messages?: Record<string, string>; embed?: { origin: string; script: string }; pixelsScript?: string;
  };

describe('the checkout page', () => {
  it('given the merchant\'s checkout host / it answers the page with the session embedded, the contrast-corrected colors and a strict CSP', async () => {
    const res = await page(`${slug}.localhost:${port()}`, `/checkout/${token}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['content-security-policy']).toContain("script-src 'self';");
    const data = embedded(res.body);
    expect(data.bundle?.token).toBe(token);
    expect(data.bundle?.shopName).toBe('Page Shop');
    expect(data.cardEnabled).toBe(true);
    expect(res.body).toContain('<title>Checkout · Page Shop</title>');
    // #ffee58 is too light for a button on white: the page gets a darker primary and black labels.
    const primary = /--primary:(#[0-9a-f]{6})/.exec(res.body)![1];
    expect(primary).not.toBe('#ffee58');
    expect(res.body).toContain('--on-primary:#000000');
  });

  it('given a merchant whose processor is connected / card payments happen in the processor\'s embed: its origin from the configuration, the mounting script from the build, and the CSP frames that origin alone', async () => {
    const res = await page(`${slug}.localhost:${port()}`, `/checkout/${token}`);
    const data = embedded(res.body);
    expect(data.embed?.origin).toBe(stack.urls.processor);
    expect(data.embed?.script).toMatch(/^\/assets\/checkout\/embed-[\w-]+\.js$/);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain(`frame-src ${stack.urls.processor};`);
    expect(csp).toContain("script-src 'self';");
    const script = await stack.app.inject({ method: 'GET', url: data.embed!.script, headers: { host: `${slug}.localhost:${port()}` } });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toContain('text/javascript');
  });

  it('given a merchant without a tracking pixel, then with one / the pixels\' code is offered to the page only with a pixel', async () => {
    const host = `${slug}.localhost:${port()}`;
    expect(embedded((await page(host, `/checkout/${token}`)).body).pixelsScript).toBeUndefined();
    const merchantId = (await stack.database.db.merchant.findUniqueOrThrow({ where: { slug } })).id;
    const pixel = await stack.database.db.trackingPixel.create({ data: { merchantId, platform: 'meta', trackingId: '123456789012345', events: ['page_view'] } });
    try {
      const data = embedded((await page(host, `/checkout/${token}`)).body);
      expect(data.pixelsScript).toMatch(/^\/assets\/checkout\/pixels-[\w-]+\.js$/);
      const script = await stack.app.inject({ method: 'GET', url: data.pixelsScript!, headers: { host } });
      expect(script.statusCode).toBe(200);
      expect(script.body).toContain('createPixels');
    } finally {
      await stack.database.db.trackingPixel.delete({ where: { id: pixel.id } });
    }
  });

  it('given the operator\'s Apple Pay association file / every checkout host serves it where Apple looks; the app origin and an unset file answer 404', async () => {
    const path = '/.well-known/apple-developer-merchantid-domain-association';
    const processor = stack.config.processor;
    const get = (host: string) => stack.app.inject({ method: 'GET', url: path, headers: { host } });
    expect((await get(`${slug}.localhost:${port()}`)).statusCode).toBe(404);
    processor.applePayAssociation = '7B2270737049...association';
    try {
      const res = await get(`${slug}.localhost:${port()}`);
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('7B2270737049...association');
      expect(res.headers['content-type']).toContain('text/plain');
      expect((await get(`unknown-shop.localhost:${port()}`)).statusCode).toBe(404);
      expect((await get(new URL(stack.apiUrl).host)).statusCode).toBe(404);
    } finally {
      processor.applePayAssociation = null;
    }
  });

  it('given the deployment set to the hosted page / no embed and nothing framed', async () => {
    const processor = stack.config.processor;
    const before = processor.paymentPage;
    processor.paymentPage = 'hosted';
    try {
      const res = await page(`${slug}.localhost:${port()}`, `/checkout/${token}`);
      expect(embedded(res.body).embed).toBeUndefined();
      expect(embedded(res.body).cardEnabled).toBe(true);
      expect(String(res.headers['content-security-policy'])).not.toContain('frame-src');
    } finally {
      processor.paymentPage = before;
    }
  });

  it('given the merchant choosing the hosted page (PATCH paymentPage) / no embed and nothing framed; choosing the page again embeds', async () => {
    const merchantId = (await stack.database.db.merchant.findUniqueOrThrow({ where: { slug } })).id;
    const set = (paymentPage: string) => stack.database.db.merchant.update({ where: { id: merchantId }, data: { paymentPage: paymentPage === 'hosted' ? 'HOSTED' : 'EMBEDDED' } });
    await set('hosted');
    try {
      const res = await page(`${slug}.localhost:${port()}`, `/checkout/${token}`);
      expect(embedded(res.body).embed).toBeUndefined();
      expect(String(res.headers['content-security-policy'])).not.toContain('frame-src');
    } finally {
      await set('embedded');
    }
    expect(embedded((await page(`${slug}.localhost:${port()}`, `/checkout/${token}`)).body).embed?.origin).toBe(stack.urls.processor);
  });

  it.each([
    ['de-DE,de;q=0.9,en;q=0.8', 'de'],
    ['pt-BR, fr-CA;q=0.8, en;q=0.5', 'fr'],
    ['en;q=0.2, nl-BE', 'nl'],
    ['ja', 'en'],
    [undefined, 'en'],
    ['de-DE;q=oops, *', 'en'],
  ])('given Accept-Language %s / the page speaks %s: its dictionary embedded (English too: the script carries none), lang, title and header in it', async (acceptLanguage, language) => {
    const res = await page(`${slug}.localhost:${port()}`, `/checkout/${token}`, acceptLanguage ? { 'accept-language': acceptLanguage } : {});
    expect(res.statusCode).toBe(200);
    expect(String(res.headers.vary)).toContain('Accept-Language');
    const data = embedded(res.body);
    expect(data.language).toBe(language);
    const words = CHECKOUT_LANGUAGES[language as CheckoutLanguage];
    expect(data.messages).toEqual(words);
    expect(res.body).toContain(`<html lang="${language}">`);
    expect(res.body).toContain(`<title>${words.headline} · Page Shop</title>`);
    expect(res.body).toContain(`<span class="secure">${words.secureCheckout}</span>`);
  });

  it('given a cart the store sent in German (its locale recorded) and an English browser / the page speaks German; a language the page does not speak falls back to the browser\'s', async () => {
    const db = stack.database.db;
    try {
      await db.checkoutSession.update({ where: { token }, data: { storeLocale: 'de-DE' } });
      const german = await page(`${slug}.localhost:${port()}`, `/checkout/${token}`, { 'accept-language': 'en-US,en;q=0.9' });
      expect(embedded(german.body).language).toBe('de');
      expect(german.body).toContain('<html lang="de">');
      await db.checkoutSession.update({ where: { token }, data: { storeLocale: 'pt-BR' } });
      const browser = await page(`${slug}.localhost:${port()}`, `/checkout/${token}`, { 'accept-language': 'nl-NL' });
      expect(embedded(browser.body).language).toBe('nl');
    } finally {
      await db.checkoutSession.update({ where: { token }, data: { storeLocale: null } });
    }
  });

  it('given gzip accepted / the page is sent compressed', async () => {
    const res = await stack.app.inject({ method: 'GET', url: `/checkout/${token}`, headers: { host: `${slug}.localhost`, 'accept-encoding': 'gzip, deflate' } });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(res.rawPayload).toString()).toContain(token);
  });

  it('given another merchant\'s checkout host / the token answers the same 404 page as an unknown one, without the session', async () => {
    const res = await page(`${otherSlug}.localhost`, `/checkout/${token}`);
    expect(res.statusCode).toBe(404);
    expect(embedded(res.body).bundle).toBeNull();
    expect(res.body).not.toContain('Page Shop');
    const unknown = await page(`${slug}.localhost`, '/checkout/cs_00000000000000000000000000000000');
    expect(unknown.statusCode).toBe(404);
    expect(embedded(unknown.body).bundle).toBeNull();
  });

  it('given the app origin / a known session is redirected to its merchant\'s checkout host, query kept', async () => {
    const res = await page(`localhost:${port()}`, `/checkout/${token}?payment_id=pay_1`);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`http://${slug}.localhost:${port()}/checkout/${token}?payment_id=pay_1`);
  });
});

describe('the script tag and assets', () => {
  it('given the script tag URL the install uses / it answers the script, cached briefly', async () => {
    const status = await stack.app.inject({ method: 'GET', url: '/script-tag.js' });
    expect(status.statusCode).toBe(200);
    expect(status.headers['content-type']).toContain('text/javascript');
    expect(status.headers['cache-control']).toBe('public, max-age=300');
    expect(status.body).toContain('/api/checkout/create');
  });

  it('given a hashed asset and brotli accepted / it answers the precompressed bytes, cached for a year', async () => {
    const html = (await page(`${slug}.localhost`, `/checkout/${token}`)).body;
    const src = /<script type="module" crossorigin src="([^"]+)"/.exec(html)![1]!;
    const res = await stack.app.inject({ method: 'GET', url: src, headers: { 'accept-encoding': 'gzip, br' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['cache-control']).toContain('immutable');
    const missing = await stack.app.inject({ method: 'GET', url: '/assets/checkout/nope.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('everything else', () => {
  it('given a browser navigation on the app origin / it answers the dashboard page', async () => {
    const res = await page(`localhost:${port()}`, '/orders/abc');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<div id="app">');
    expect(res.body).toContain('/assets/dashboard/');
  });

  it('given an API client, an API path, or a checkout host / unknown routes keep the JSON 404', async () => {
    for (const res of [
      await stack.app.inject({ method: 'GET', url: '/nope' }),
      await page(`localhost:${port()}`, '/api/nope'),
      await page(`localhost:${port()}`, '/webhooks/nope'),
      await page(`${slug}.localhost`, '/somewhere'),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'NOT_FOUND' });
    }
  });
});
