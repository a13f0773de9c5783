// The checkout page's JavaScript budget: every JS file /checkout/{token} can load (its entry, the chunks it
// imports, and the ones it may import later, the payment step's embed entry included), gzip-compressed as the API
// sends them, against 50 KB. The processor's own package (@whop/checkout, in its chunk on the payment step only) is
// counted apart: it is Whop's code, loaded when the shopper pays, not the page's. Read from the build's manifest, so
// the size test (test/browser/checkout-size.test.ts) needs no server; `npm run bench -- web` also measures the
// files the page loads over HTTP.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { WEB_DIST } from '../web-build.js';

export const CHECKOUT_JS_BUDGET_BYTES = 50 * 1024;
/**
 * The shopper-page issue's budget for our own code on each screen: what the page loads on the way in, plus what the
 * payment step adds (our embed entry; Whop's package is counted apart), at most 20 KB gzip.
 */
export const CHECKOUT_SCREEN_BUDGET_BYTES = 20 * 1024;

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}

export interface AssetSize {
  file: string;
  rawBytes: number;
  gzipBytes: number;
}

export interface PageWeight {
  /** Our own JavaScript: the page's entry and what it imports, and the other entries of the build (the payment step's embed). */
  js: AssetSize[];
  css: AssetSize[];
  jsGzipBytes: number;
  cssGzipBytes: number;
  /** Of `js`, what the page loads on the way in (its entry and its static imports). */
  entryJsGzipBytes: number;
  /** Of `js`, what the payment step adds to the way in (our embed entry). */
  paymentStepJsGzipBytes: number;
  /** Of `js`, what is fetched only when a session needs it (the pixels' entry for a merchant with a pixel, dynamic imports). */
  onDemandJs: AssetSize[];
  /** The processor's package (@whop/checkout), loaded on the payment step only: not ours, not in `js`. */
  processorJs: AssetSize[];
  processorJsGzipBytes: number;
}

/** The checkout build's entry for the payment step (web/vite.config.ts EMBED_ENTRY's source). */
const PAYMENT_STEP_ENTRY = 'embed.ts';

/** The chunk name web/vite.config.ts gives the processor's embed package. */
const PROCESSOR_CHUNK = /^whop-checkout-[\w-]+\.js$/;

function sizeOf(dir: string, file: string): AssetSize {
  const full = path.join(dir, file);
  const raw = readFileSync(full);
  const gz = existsSync(`${full}.gz`) ? readFileSync(`${full}.gz`) : gzipSync(raw, { level: 9 });
  return { file, rawBytes: raw.length, gzipBytes: gz.length };
}

/** What a built page (web/dist/<part>) loads, from its manifest: JS reachable from the HTML entry, and its CSS. */
export function pageWeight(part: 'checkout' | 'dashboard', distDir = WEB_DIST): PageWeight {
  const dir = path.join(distDir, part);
  const manifest = JSON.parse(readFileSync(path.join(dir, '.vite', 'manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
  // The page (the HTML entry) first, then the build's other entries (the checkout's payment-step embed).
  const entries = Object.entries(manifest).filter(([, c]) => c.isEntry).sort(([a], [b]) => Number(!a.endsWith('.html')) - Number(!b.endsWith('.html')));
  if (!entries.length) throw new Error(`no entry in ${part}'s manifest`);
  const js = new Set<string>();
  const css = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (!chunk || js.has(chunk.file)) return;
    js.add(chunk.file);
    chunk.css?.forEach((c) => css.add(c));
    (chunk.imports ?? []).forEach(visit);
  };
  // The way in: the page and its static imports; then the payment step's entry (our embed); then everything else
  // the page may fetch on demand (other entries, such as the pixels' code, and dynamic imports).
  visit(entries[0]![0]);
  const onEntry = new Set(js);
  if (manifest[PAYMENT_STEP_ENTRY]) visit(PAYMENT_STEP_ENTRY);
  const onPaymentStep = new Set([...js].filter((f) => !onEntry.has(f)));
  const fixed = new Set(js);
  for (const [key, chunk] of Object.entries(manifest)) if (chunk.isEntry || chunk.dynamicImports?.length) [key, ...(chunk.dynamicImports ?? [])].forEach(visit);
  const all = [...js].map((f) => sizeOf(dir, f));
  const jsSizes = all.filter((f) => !PROCESSOR_CHUNK.test(f.file));
  const processorJs = all.filter((f) => PROCESSOR_CHUNK.test(f.file));
  const cssSizes = [...css].map((f) => sizeOf(dir, f));
  const sum = (files: AssetSize[]) => files.reduce((n, s) => n + s.gzipBytes, 0);
  return {
    js: jsSizes,
    css: cssSizes,
    jsGzipBytes: sum(jsSizes),
    cssGzipBytes: sum(cssSizes),
    entryJsGzipBytes: sum(jsSizes.filter((f) => onEntry.has(f.file))),
    paymentStepJsGzipBytes: sum(jsSizes.filter((f) => onPaymentStep.has(f.file))),
    onDemandJs: jsSizes.filter((f) => !fixed.has(f.file)),
    processorJs,
    processorJsGzipBytes: sum(processorJs),
  };
}

export const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
