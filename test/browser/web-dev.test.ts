// `npm run web:dev` (Vite's dev server with web/vite.config.ts) serves the pages as the API does in
// production: deep links into the dashboard and checkout token paths answer their page, and the module each
// page loads resolves from that address (a relative ./main.tsx would not, below /dashboard/orders/…).
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer, type ViteDevServer } from 'vite';
import { devConfig } from '../../web/vite.config.js';

let server: ViteDevServer;
let origin: string;
/** Stands in for the API behind the dev server's /api proxy: answers the Origin it was sent. */
let api: Server;
let apiOrigin: string;

beforeAll(async () => {
  api = createHttpServer((req, res) => res.end(JSON.stringify({ origin: req.headers.origin ?? null })));
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  apiOrigin = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  process.env.API_URL = apiOrigin;
  const config = devConfig();
  delete process.env.API_URL;
  // Port 0: any free port, so a developer's own `npm run web:dev` on 5173 is not in the way.
  server = await createServer({ ...config, configFile: false, logLevel: 'silent', server: { ...config.server, port: 0, strictPort: false, hmr: false, watch: null } });
  await server.listen();
  origin = `http://localhost:${(server.httpServer!.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await new Promise((resolve) => api?.close(resolve));
});

/** A browser navigation: the page's HTML, then the module script it names, fetched as the browser resolves it. */
async function navigate(path: string): Promise<{ status: number; title: string | undefined; script: { url: string; status: number; type: string | null } }> {
  const res = await fetch(`${origin}${path}`, { headers: { accept: 'text/html,application/xhtml+xml' } });
  const html = await res.text();
  const src = /<script type="module" src="([^"]+main\.tsx)"/.exec(html)?.[1];
  expect(src, html.slice(0, 400)).toBeDefined();
  const url = new URL(src!, `${origin}${path}`);
  const script = await fetch(url, { headers: { accept: '*/*' } });
  await script.arrayBuffer();
  return { status: res.status, title: /<title>([^<]*)<\/title>/.exec(html)?.[1], script: { url: url.pathname, status: script.status, type: script.headers.get('content-type') } };
}

describe('the web dev server', () => {
  it('given a deep link under /dashboard/ / it answers the dashboard page, whose script loads from that address', async () => {
    for (const path of ['/dashboard/orders/cs_abcdefghijklmnopqrstuvwxyz012345', '/dashboard/stats', '/dashboard', '/reset-password?token=x', '/']) {
      const page = await navigate(path);
      expect(page, path).toMatchObject({ status: 200, title: 'Dashboard · Checkout', script: { url: '/dashboard/main.tsx', status: 200 } });
      expect(page.script.type, path).toMatch(/javascript/);
    }
  });

  it('given a checkout token path / it answers the checkout page, whose script loads', async () => {
    const page = await navigate('/checkout/cs_abcdefghijklmnopqrstuvwxyz012345');
    expect(page).toMatchObject({ status: 200, title: 'Checkout', script: { url: '/checkout/main.tsx', status: 200 } });
  });

  it('given an /api call from the dashboard it serves / the API sees its own origin (the cookie is accepted only from there); other origins pass as sent', async () => {
    const own = await fetch(`${origin}/api/merchant/me`, { method: 'POST', headers: { origin } });
    expect(await own.json()).toEqual({ origin: apiOrigin });
    const foreign = await fetch(`${origin}/api/merchant/me`, { method: 'POST', headers: { origin: 'https://evil.example' } });
    expect(await foreign.json()).toEqual({ origin: 'https://evil.example' });
  });

  it('given a module request under /dashboard/ / it gets the module, not the page', async () => {
    const res = await fetch(`${origin}/dashboard/router.ts`, { headers: { accept: '*/*' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('export function navigate');
  });
});
