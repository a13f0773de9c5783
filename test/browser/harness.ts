// Browser tests: Debian's Chromium driven by playwright-core against the whole service as `npm start` runs
// it (test/harness/stack.ts: the API on a real port serving the built pages, the worker, every simulator),
// with web/dist built first when its sources changed (scripts/web-build.ts). Checkout pages open at
// http://{slug}.localhost:<port> for real: Chromium resolves *.localhost to loopback.
//
// Each test saves screenshots of its key pages under test-artifacts/browser/ (gitignored) to look at.
export { ARTIFACTS, CHROMIUM, launchChromium, screenshot } from './chromium.js';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchChromium } from './chromium.js';
import { startTestStack, type TestStack } from '../harness/stack.js';
import { ensureWebBuild, type WebTarget } from '../../scripts/web-build.js';

export interface BrowserStack {
  stack: TestStack;
  browser: Browser;
  /** A fresh browser context (own cookies and storage), closed after the file. */
  newContext(opts?: { mobile?: boolean; locale?: string }): Promise<BrowserContext>;
}

/**
 * One stack and one Chromium for a test file: web/dist parts built (checkout and script tag by default),
 * the service started (`env` on top of the test configuration), the browser launched (`chromiumArgs` added to
 * its flags); everything closed after the file. The returned object is
 * filled in by beforeAll, so tests use it directly.
 */
export function useBrowserStack(opts: { targets?: WebTarget[]; env?: Record<string, string>; chromiumArgs?: string[] } = {}): BrowserStack {
  const holder = {} as BrowserStack;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    await ensureWebBuild({ targets: opts.targets ?? ['checkout', 'checkout-takeover'] });
    const [stack, browser] = await Promise.all([startTestStack(opts.env), launchChromium(opts.chromiumArgs)]);
    Object.assign(holder, {
      stack,
      browser,
      async newContext(o: { mobile?: boolean; locale?: string } = {}) {
        const context = await browser.newContext({
          locale: o.locale ?? 'en-US',
          viewport: o.mobile ? { width: 390, height: 844 } : { width: 1280, height: 900 },
          deviceScaleFactor: 1,
          isMobile: o.mobile ?? false,
          hasTouch: o.mobile ?? false,
        });
        contexts.push(context);
        return context;
      },
    } satisfies BrowserStack);
  }, 180_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await holder.browser?.close().catch(() => undefined);
    await holder.stack?.close();
  });
  return holder;
}
