// Contract: Whop's embedded checkout. The REAL official package (@whop/checkout 0.5.0: its loader.js and the index.js
// it loads, served untouched from node_modules by a merchant page on another origin) runs in Chromium against the
// local Whop (sandbox/processor/embedded-page.ts), pointed at it with data-whop-checkout-origin as a merchant would
// point it at https://sandbox.whop.com. What the package does with the simulator's messages is the proof that the
// simulator speaks its protocol: it mounts the iframe at the URL it builds, sets its height from `resize`, answers
// wco.getEmail/setEmail/getAddress from the iframe, submits it with wco.submit, and calls the page's on-complete with
// the payment's id (a real, paid payment the SDK reads back) and on-payment-error with a decline's reason. Without
// on-complete the package leaves the redirect to the iframe, which sends the whole tab to the return URL.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Whop from '@whop/sdk';
import type { Browser, Frame, Page } from 'playwright-core';
import { launchChromium, screenshot } from '../browser/chromium.js';
import { startProcessor, type RunningProcessor } from '../harness/processor.js';

const PACKAGE_DIR = path.dirname(createRequire(import.meta.url).resolve('@whop/checkout/loader'));

let processor: RunningProcessor;
let browser: Browser;
let merchant: Server;
let merchantOrigin = '';
/** The merchant page's body for the next GET / (one test at a time). */
let pageBody = '';

const sdk = () => new Whop({ apiKey: processor.sim.defaultApiKey, baseURL: `${processor.baseUrl}/api/v1`, maxRetries: 0, webhookKey: null });

beforeAll(async () => {
  [processor, browser] = await Promise.all([startProcessor(), launchChromium()]);
  merchant = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const file = /^\/whop\/(loader|index)\.js$/.exec(url.pathname);
    if (file) {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(path.join(PACKAGE_DIR, `${file[1]}.js`)));
      return;
    }
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pageBody);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<h1>Back at the shop</h1>');
  });
  merchant.listen(0, '127.0.0.1');
  await once(merchant, 'listening');
  merchantOrigin = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  merchant?.close();
  await processor?.close();
});

/** A checkout configuration as our service makes one (inline one-time plan, metadata, redirect_url). */
async function checkout(): Promise<{ id: string; planId: string }> {
  const product = await sdk().products.create({ title: 'Embed contract', account_id: processor.sim.defaultBusinessId });
  const ch = await sdk().checkoutConfigurations.create({
    plan: { product_id: product.id, plan_type: 'one_time', initial_price: 42.5, currency: 'eur', visibility: 'hidden' },
    metadata: { checkout_session_token: 'embed-contract' },
    redirect_url: `${merchantOrigin}/configured-return`,
  });
  return { id: ch.id, planId: ch.plan!.id };
}

/** The merchant's page: the package's documented embed (loader.js + a div with data-whop-checkout-* attributes). */
function embedPage(ch: { id: string; planId: string }, attrs: Record<string, string>): string {
  const all: Record<string, string> = { 'plan-id': ch.planId, session: ch.id, origin: `${processor.baseUrl}/`, ...attrs };
  const data = Object.entries(all).map(([k, v]) => ` data-whop-checkout-${k}="${v}"`).join('');
  return `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title></head><body>
<h1>Shop</h1>
<script>
  window.calls = { complete: [], paymentError: [], state: [] };
  window.onWhopComplete = (...args) => window.calls.complete.push(args);
  window.onWhopPaymentError = (error) => window.calls.paymentError.push(error);
  window.onWhopState = (state) => window.calls.state.push(state);
</script>
<div id="whop-embed"${data}></div>
<script src="/whop/loader.js"></script>
</body></html>`;
}

/** What the package's loader puts on window (its util.d.ts declares it as Window.wco); called inside the page. */
interface Wco {
  getEmail(id: string): Promise<string>;
  setEmail(id: string, email: string): Promise<void>;
  getAddress(id: string): Promise<unknown>;
  submit(id: string): Promise<void>;
}
type PageGlobals = { wco: Wco };
const iframeHeight = (el: unknown) => (el as { style: { height: string } }).style.height;

interface Calls { complete: [string, string, Record<string, unknown>][]; paymentError: { message: string; code?: string }[]; state: string[] }
const calls = (page: Page) => page.evaluate(() => (globalThis as unknown as { calls: Calls }).calls);

async function open(ch: { id: string; planId: string }, attrs: Record<string, string>): Promise<{ page: Page; frame: Frame }> {
  pageBody = embedPage(ch, attrs);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  // The package also asks Whop's pixel host for a script (t.whop.tw): no internet here, so it is refused at once.
  await page.route('https://t.whop.tw/**', (route) => route.abort());
  await page.goto(`${merchantOrigin}/`);
  const iframe = page.locator('#whop-embed iframe');
  await iframe.waitFor();
  const frame = (await iframe.elementHandle())!.contentFrame();
  await frame.then((f) => f!.locator('body').waitFor());
  return { page, frame: (await frame)! };
}

async function fillCard(frame: Frame, card: string): Promise<void> {
  await frame.fill('#card_number', card);
  await frame.fill('#expiry', '12/34');
  await frame.fill('#cvc', '123');
}

describe('@whop/checkout 0.5.0 against the local Whop', () => {
  it('given a checkout configuration embedded with the package / it mounts the iframe, is resized, prefills and reads the email, reports a decline, and reports completion with the paid payment\'s id', async () => {
    const ch = await checkout();
    const { page, frame } = await open(ch, {
      'prefill-email': 'jane@customer.test',
      'prefill-name': 'Jane Doe',
      'prefill-address-line1': 'Hauptstr. 1',
      'prefill-address-city': 'Berlin',
      'prefill-address-postal-code': '10115',
      'prefill-address-country': 'DE',
      'return-url': `${merchantOrigin}/back`,
      'on-complete': 'onWhopComplete',
      'on-payment-error': 'onWhopPaymentError',
      'on-state-change': 'onWhopState',
    });

    // Mounted where the package builds the URL, with its sandbox and permissions.
    const iframe = page.locator('#whop-embed iframe');
    const src = new URL((await iframe.getAttribute('src'))!);
    expect(src.origin).toBe(processor.baseUrl);
    // The configuration's id in the path when there is one (not the plan's).
    expect(src.pathname).toBe(`/embedded/checkout/${ch.id}/`);
    expect(Object.fromEntries(src.searchParams)).toMatchObject({
      session: ch.id, h: merchantOrigin, v: '3', email: 'jane@customer.test', name: 'Jane Doe', 'address.country': 'DE',
      skip_redirect: 'true', payment_redirect_url: `${merchantOrigin}/back`,
    });
    expect((await iframe.getAttribute('sandbox'))!.split(' ')).toEqual(expect.arrayContaining(['allow-scripts', 'allow-same-origin', 'allow-forms', 'allow-top-navigation']));
    expect(await iframe.getAttribute('allow')).toContain('payment');

    // Resized: the package sets the height the iframe reports (it mounts at 480px).
    await expect.poll(() => iframe.evaluate(iframeHeight), { timeout: 10_000 }).not.toBe('480px');
    const content = await frame.evaluate<number>('Math.ceil(document.documentElement.getBoundingClientRect().height)');
    expect(await iframe.evaluate(iframeHeight)).toBe(`${content}px`);
    await expect.poll(async () => (await calls(page)).state).toContain('ready');

    // Prefilled, and the package's RPC both ways.
    expect(await frame.inputValue('#email')).toBe('jane@customer.test');
    expect(await frame.inputValue('[name="address.city"]')).toBe('Berlin');
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).wco.getEmail('whop-embed'))).toBe('jane@customer.test');
    await page.evaluate(() => (globalThis as unknown as PageGlobals).wco.setEmail('whop-embed', 'jane.doe@customer.test'));
    expect(await frame.inputValue('#email')).toBe('jane.doe@customer.test');
    await expect(page.evaluate(() => (globalThis as unknown as PageGlobals).wco.setEmail('whop-embed', 'not an email'))).rejects.toThrow(/Invalid email address/);
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).wco.getAddress('whop-embed'))).toEqual({
      address: { name: 'Jane Doe', line1: 'Hauptstr. 1', line2: '', city: 'Berlin', state: '', postalCode: '10115', country: 'DE' },
      isComplete: true,
    });
    await screenshot(page, 'contract-embed-1-mounted');

    // A declined card: the page's on-payment-error hears the reason; nothing completes.
    await fillCard(frame, '4000 0000 0000 0002');
    await Promise.all([frame.waitForNavigation(), frame.click('button[type=submit]')]);
    await expect.poll(async () => (await calls(page)).paymentError).toEqual([{ message: 'Your card was declined.', code: 'card_declined' }]);

    // A good card, submitted by the host page (wco.submit → the iframe's form).
    const reloaded = (await (await iframe.elementHandle())!.contentFrame())!;
    await fillCard(reloaded, '4242 4242 4242 4242');
    await page.evaluate(() => (globalThis as unknown as PageGlobals).wco.submit('whop-embed'));
    await expect.poll(async () => (await calls(page)).complete.length, { timeout: 15_000 }).toBe(1);
    const [planId, receiptId, result] = (await calls(page)).complete[0]!;
    expect(planId).toBe(ch.planId);
    expect(receiptId).toMatch(/^pay_/);
    expect(result).toEqual({ plan_id: ch.planId, receipt_id: receiptId });
    const payment = await sdk().payments.retrieve(receiptId);
    expect(payment).toMatchObject({ status: 'paid', substatus: 'succeeded', total: 42.5, currency: 'eur', checkout_configuration_id: ch.id, metadata: { checkout_session_token: 'embed-contract' } });
    expect(payment.user?.email).toBe('jane.doe@customer.test');
    // The host handles completion (on-complete → skip_redirect): the tab stays on the merchant's page.
    expect(page.url()).toBe(`${merchantOrigin}/`);
    await screenshot(page, 'contract-embed-2-paid');
    await page.context().close();
  });

  it('given no on-complete and a card that needs 3-D Secure / the bank step runs inside the iframe and the paid checkout sends the whole tab to the return URL with the payment id', async () => {
    const ch = await checkout();
    const { page, frame } = await open(ch, { 'prefill-email': 'sam@customer.test', 'return-url': `${merchantOrigin}/back` });
    const src = new URL((await page.locator('#whop-embed iframe').getAttribute('src'))!);
    expect(src.searchParams.has('skip_redirect')).toBe(false);
    await fillCard(frame, '4000 0025 0000 3155');
    await Promise.all([frame.waitForNavigation(), frame.click('button[type=submit]')]);
    await frame.getByText('Your bank asks you to confirm').waitFor();
    await Promise.all([page.waitForURL(/\/back\?/, { timeout: 15_000 }), frame.getByRole('button', { name: 'Complete' }).click()]);
    const back = new URL(page.url());
    expect(back.searchParams.get('status')).toBe('success');
    const payment = await sdk().payments.retrieve(back.searchParams.get('payment_id')!);
    expect(payment).toMatchObject({ status: 'paid', checkout_configuration_id: ch.id });
    await page.context().close();
  });

  it('given an iframe URL without the embedding origin or with another plan / the local Whop refuses it', async () => {
    const ch = await checkout();
    const noHost = await fetch(`${processor.baseUrl}/embedded/checkout/${ch.planId}/?session=${ch.id}`);
    expect(noHost.status).toBe(400);
    const wrongPlan = await fetch(`${processor.baseUrl}/embedded/checkout/plan_other/?session=${ch.id}&h=${encodeURIComponent(merchantOrigin)}`);
    expect(wrongPlan.status).toBe(404);
    const byPlan = await fetch(`${processor.baseUrl}/embedded/checkout/${ch.planId}/?session=${ch.id}&h=${encodeURIComponent(merchantOrigin)}`);
    expect(byPlan.status).toBe(200);
  });
});
