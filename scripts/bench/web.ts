// The checkout page as a shopper's phone gets it: the JavaScript /checkout/{token} loads (gzip, as the API
// sends it over HTTP, and as the build's manifest counts it) against the 50 KB budget, and Lighthouse's
// mobile performance and accessibility scores (default mobile profile: simulated slow 4G and a 4× slower
// CPU) for a real session page on {slug}.localhost, targets ≥ 95 each. Lighthouse drives Debian's Chromium
// (CHROME_PATH, default /usr/bin/chromium).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { ensureWebBuild } from '../web-build.js';
import { CHECKOUT_JS_BUDGET_BYTES, CHECKOUT_SCREEN_BUDGET_BYTES, pageWeight } from '../lib/web-size.js';
import { CHROMIUM_ARGS } from '../lib/chromium.js';
import { atBenchExit, benchStack, createSession, demoCart } from './stack.js';

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A GET with a Host header of our choosing (Node does not resolve *.localhost): bytes as they travel. */
function get(url: string, host: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { host, 'accept-encoding': 'gzip', accept: 'text/html,*/*', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** Every script the page's HTML names (module entry and modulepreloads). */
function scriptsOf(html: string): string[] {
  const found = new Set<string>();
  for (const m of html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)) found.add(m[1]!);
  for (const m of html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)) found.add(m[1]!);
  return [...found];
}

async function startChromium(): Promise<{ port: number; stop: () => Promise<void> }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lighthouse-chrome-'));
  const child: ChildProcess = spawn(process.env.CHROME_PATH ?? '/usr/bin/chromium', [...CHROMIUM_ARGS, '--remote-debugging-port=0', `--user-data-dir=${dir}`, 'about:blank'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`Chromium did not start: ${err.slice(-500)}`)), 20_000);
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.on('exit', (code) => reject(new Error(`Chromium exited (${code}): ${err.slice(-500)}`)));
  });
  return {
    port,
    // Chromium's helper processes can still be writing the profile for a moment after the browser dies:
    // wait for the exit, then remove the directory with retries. Registered so a run that dies stops it too.
    stop: atBenchExit(async () => {
      const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGKILL');
      await exited;
      rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    }),
  };
}

export async function benchWeb(): Promise<Record<string, number>> {
  await ensureWebBuild({ targets: ['checkout', 'checkout-takeover'], log: (l) => console.log(`  ${l}`) });
  const built = pageWeight('checkout');
  const { service, merchant } = await benchStack();

  const token = await createSession(service, demoCart(service, merchant.storeUrl));
  const { slug } = await service.db.merchant.findUniqueOrThrow({ where: { id: merchant.id }, select: { slug: true } });
  const port = new URL(service.apiUrl).port;
  const host = `${slug}.localhost:${port}`;
  const pageUrl = `http://${host}/checkout/${token}`;

  // Over HTTP, as a browser gets it: the page, then each script it names, gzip.
  const page = await get(`${service.apiUrl}/checkout/${token}`, host);
  if (page.status !== 200) throw new Error(`the checkout page answered ${page.status}`);
  const { gunzipSync } = await import('node:zlib');
  const html = (page.headers['content-encoding'] === 'gzip' ? gunzipSync(page.body) : page.body).toString('utf8');
  let wireJs = 0;
  for (const src of scriptsOf(html)) {
    const res = await get(`${service.apiUrl}${src}`, host);
    if (res.status !== 200) throw new Error(`${src} answered ${res.status}`);
    wireJs += res.body.length;
  }

  const chrome = await startChromium();
  let lhr;
  try {
    const { default: lighthouse } = await import('lighthouse');
    const result = await lighthouse(pageUrl, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance', 'accessibility'] });
    lhr = result?.lhr;
  } finally {
    await chrome.stop();
  }
  if (!lhr) throw new Error('Lighthouse produced no report');
  const score = (id: string) => Math.round((lhr.categories[id]?.score ?? 0) * 100);
  const metric = (id: string) => Math.round(lhr.audits[id]?.numericValue ?? -1);
  const failing = Object.values(lhr.audits).filter((a) => a.score !== null && a.score < 0.9 && a.scoreDisplayMode === 'binary').map((a) => a.id);
  if (failing.length) console.log(`  failing binary audits: ${failing.join(', ')}`);
  console.log(`  page ${pageUrl}`);
  return {
    checkoutJsGzipBytes: built.jsGzipBytes,
    // Of it, what the page loads on the way in; the payment step adds our embed entry (and Whop's package, apart);
    // chunks fetched on demand (the pixels' code, for a merchant with pixels) are the rest.
    checkoutEntryJsGzipBytes: built.entryJsGzipBytes,
    checkoutPaymentStepJsGzipBytes: built.entryJsGzipBytes + built.paymentStepJsGzipBytes,
    screenBudgetBytes: CHECKOUT_SCREEN_BUDGET_BYTES,
    ratioPaymentStepToScreenBudget: (built.entryJsGzipBytes + built.paymentStepJsGzipBytes) / CHECKOUT_SCREEN_BUDGET_BYTES,
    checkoutOnDemandJsGzipBytes: built.onDemandJs.reduce((n, f) => n + f.gzipBytes, 0),
    processorEmbedJsGzipBytes: built.processorJsGzipBytes,
    checkoutJsOverHttpBytes: wireJs,
    checkoutCssGzipBytes: built.cssGzipBytes,
    budgetBytes: CHECKOUT_JS_BUDGET_BYTES,
    ratioToBudget: built.jsGzipBytes / CHECKOUT_JS_BUDGET_BYTES,
    lighthousePerformance: score('performance'),
    lighthouseAccessibility: score('accessibility'),
    firstContentfulPaintMs: metric('first-contentful-paint'),
    largestContentfulPaintMs: metric('largest-contentful-paint'),
    totalBlockingTimeMs: metric('total-blocking-time'),
    cumulativeLayoutShiftX1000: Math.round((lhr.audits['cumulative-layout-shift']?.numericValue ?? 0) * 1000),
  };
}
