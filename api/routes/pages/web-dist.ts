// The built web app (web/dist, made by scripts/web-build.ts) held in memory: each file with the gzip and
// brotli copies the build wrote, so the API serves compressed bytes without compressing per request. A part
// is read on first use and again after a rebuild (its build stamp changed), so a running `npm start` picks up
// `npm run web:build` without a restart.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { addVary } from '../../vary.js';

export const DEFAULT_WEB_DIST = fileURLToPath(new URL('../../../web/dist', import.meta.url));

export type WebPart = 'checkout' | 'dashboard' | 'checkout-takeover';

export interface StaticFile {
  raw: Buffer;
  gz?: Buffer;
  br?: Buffer;
  type: string;
}

export interface LoadedPart {
  /** Files by their path inside the part's directory ("index-abc123.js"). */
  files: Map<string, StaticFile>;
  /** The page's HTML template (checkout, dashboard). */
  html: string | null;
  /** The build's entries other than the page by source (`embed.ts` → `embed-abc123.js`), from its manifest. */
  entries: Map<string, string>;
  stamp: string;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

function readPart(dir: string): LoadedPart | null {
  const stampFile = path.join(dir, '.build-stamp');
  if (!existsSync(stampFile)) return null;
  const files = new Map<string, StaticFile>();
  const walk = (sub: string) => {
    for (const entry of readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = sub ? `${sub}/${entry.name}` : entry.name;
      if (entry.name.startsWith('.')) continue;
      if (entry.isDirectory()) walk(rel);
      else if (!/\.(gz|br)$/.test(entry.name)) {
        const full = path.join(dir, rel);
        files.set(rel, {
          raw: readFileSync(full),
          gz: existsSync(`${full}.gz`) ? readFileSync(`${full}.gz`) : undefined,
          br: existsSync(`${full}.br`) ? readFileSync(`${full}.br`) : undefined,
          type: TYPES[path.extname(entry.name)] ?? 'application/octet-stream',
        });
      }
    }
  };
  walk('');
  const html = files.get('index.html')?.raw.toString('utf8') ?? null;
  files.delete('index.html');
  const entries = new Map<string, string>();
  const manifest = path.join(dir, '.vite', 'manifest.json');
  if (existsSync(manifest)) {
    for (const chunk of Object.values(JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, { file: string; src?: string; isEntry?: boolean }>)) {
      if (chunk.isEntry && chunk.src && !chunk.src.endsWith('.html')) entries.set(chunk.src, chunk.file);
    }
  }
  return { files, html, entries, stamp: readFileSync(stampFile, 'utf8').trim() };
}

export interface WebDist {
  /** The part as built now, or null when it was never built (or its build failed). */
  part(name: WebPart): LoadedPart | null;
}

export function createWebDist(dir = DEFAULT_WEB_DIST): WebDist {
  const cache = new Map<WebPart, { loaded: LoadedPart | null; checkedAt: number; mtimeMs: number }>();
  return {
    part(name) {
      const now = Date.now();
      const hit = cache.get(name);
      // At most one stat per part and second: a rebuild swaps the directory, which changes the stamp's mtime.
      if (hit && now - hit.checkedAt < 1_000) return hit.loaded;
      const stampFile = path.join(dir, name, '.build-stamp');
      let mtimeMs = -1;
      try {
        mtimeMs = statSync(stampFile).mtimeMs;
      } catch {
        mtimeMs = -1;
      }
      if (hit && hit.mtimeMs === mtimeMs) {
        hit.checkedAt = now;
        return hit.loaded;
      }
      const loaded = mtimeMs < 0 ? null : readPart(path.join(dir, name));
      cache.set(name, { loaded, checkedAt: now, mtimeMs });
      return loaded;
    },
  };
}

/** The best encoding the client accepts among those we have: br, then gzip, else none. */
export function pickEncoding(request: FastifyRequest, file: { gz?: Buffer; br?: Buffer }): 'br' | 'gzip' | null {
  const accept = String(request.headers['accept-encoding'] ?? '');
  const allows = (name: string) => new RegExp(`(^|[\\s,])${name}(?!;\\s*q=0(\\.0*)?(\\s*,|\\s*$))`, 'i').test(accept);
  if (file.br && allows('br')) return 'br';
  if (file.gz && allows('gzip')) return 'gzip';
  return null;
}

/** Sends a file from memory, compressed when the client takes it. */
export function sendFile(request: FastifyRequest, reply: FastifyReply, file: StaticFile, cacheControl: string): FastifyReply {
  const encoding = pickEncoding(request, file);
  reply.header('content-type', file.type).header('cache-control', cacheControl).header('x-content-type-options', 'nosniff');
  addVary(reply, 'accept-encoding');
  if (encoding) reply.header('content-encoding', encoding);
  return reply.send(encoding === 'br' ? file.br : encoding === 'gzip' ? file.gz : file.raw);
}
