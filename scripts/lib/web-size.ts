// The checkout page's JavaScript budget: every JS file /checkout/{token} can load (its entry, the chunks it
// imports, and the ones it may import later), gzip-compressed as the API sends them, against 50 KB. Read
// from the build's manifest, so the size test (test/browser/checkout-size.test.ts) needs no server;
// `npm run bench -- web` also measures the same files over HTTP.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { WEB_DIST } from '../web-build.js';

export const CHECKOUT_JS_BUDGET_BYTES = 50 * 1024;

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
  js: AssetSize[];
  css: AssetSize[];
  jsGzipBytes: number;
  cssGzipBytes: number;
}

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
  const entry = Object.entries(manifest).find(([, c]) => c.isEntry);
  if (!entry) throw new Error(`no entry in ${part}'s manifest`);
  const js = new Set<string>();
  const css = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (!chunk || js.has(chunk.file)) return;
    js.add(chunk.file);
    chunk.css?.forEach((c) => css.add(c));
    [...(chunk.imports ?? []), ...(chunk.dynamicImports ?? [])].forEach(visit);
  };
  visit(entry[0]);
  const jsSizes = [...js].map((f) => sizeOf(dir, f));
  const cssSizes = [...css].map((f) => sizeOf(dir, f));
  return {
    js: jsSizes,
    css: cssSizes,
    jsGzipBytes: jsSizes.reduce((n, s) => n + s.gzipBytes, 0),
    cssGzipBytes: cssSizes.reduce((n, s) => n + s.gzipBytes, 0),
  };
}

export const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
