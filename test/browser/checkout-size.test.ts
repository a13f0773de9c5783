// The checkout page's JavaScript budget (issue 8): at most 50 KB gzip for everything /checkout/{token} can
// load. Fails the build the day a dependency or a feature pushes it over.
import { describe, expect, it } from 'vitest';
import { ensureWebBuild } from '../../scripts/web-build.js';
import { CHECKOUT_JS_BUDGET_BYTES, CHECKOUT_SCREEN_BUDGET_BYTES, kb, pageWeight } from '../../scripts/lib/web-size.js';

describe('the checkout page stays small', () => {
  it('given the production build / all JS the checkout route can load is within 50 KB gzip', async () => {
    await ensureWebBuild({ targets: ['checkout'] });
    const weight = pageWeight('checkout');
    const detail = weight.js.map((f) => `${f.file} ${kb(f.gzipBytes)}`).join(', ');
    expect(weight.js.length).toBeGreaterThan(0);
    expect(weight.jsGzipBytes, `checkout JS ${kb(weight.jsGzipBytes)} gzip (${detail}) over the ${kb(CHECKOUT_JS_BUDGET_BYTES)} budget`).toBeLessThanOrEqual(CHECKOUT_JS_BUDGET_BYTES);
    // The processor's embed package stays in a chunk of its own, loaded on the payment step only (not by the page's entry).
    expect(weight.processorJs.map((f) => f.file)).toEqual([expect.stringMatching(/^whop-checkout-/)]);
    expect(weight.entryJsGzipBytes).toBeLessThan(weight.jsGzipBytes);
  }, 120_000);

  it('given the production build / our own code on each screen (the way in, then the payment step) is within 20 KB gzip; the pixels\' code is on demand', async () => {
    await ensureWebBuild({ targets: ['checkout'] });
    const weight = pageWeight('checkout');
    const paymentStep = weight.entryJsGzipBytes + weight.paymentStepJsGzipBytes;
    expect(weight.paymentStepJsGzipBytes).toBeGreaterThan(0);
    expect(paymentStep, `the way in ${kb(weight.entryJsGzipBytes)} + the payment step ${kb(weight.paymentStepJsGzipBytes)} over ${kb(CHECKOUT_SCREEN_BUDGET_BYTES)}`).toBeLessThanOrEqual(CHECKOUT_SCREEN_BUDGET_BYTES);
    // Tracking pixels: fetched only for a merchant who configured one (web/checkout/pixels-lazy.ts), never on the way in.
    expect(weight.onDemandJs.map((f) => f.file)).toContainEqual(expect.stringMatching(/^pixels-/));
  }, 120_000);
});
