// The web build (Vite 8, Preact): three outputs with different budgets, each a build of its own in web/dist/:
// the shopper's checkout page (lean), the merchant dashboard, and the storefront A script tag (a tiny IIFE at
// a fixed name). The API serves them (api/routes/pages). `npm run web:build` (scripts/web-build.ts) runs the
// builds whose sources changed; `npm start` and the browser tests call it. `npm run web:dev` serves this
// config's default (both pages, hot reload, /api sent to a running `npm start`).
import { fileURLToPath } from 'node:url';
import { defineConfig, type InlineConfig, type Plugin, type UserConfig } from 'vite';

export const WEB_ROOT = fileURLToPath(new URL('.', import.meta.url));
export const DIST_DIR = fileURLToPath(new URL('./dist', import.meta.url));

/** Preact's automatic JSX runtime (Vite 8 transforms TS/JSX with Oxc). */
const oxc = { jsx: { runtime: 'automatic', importSource: 'preact' } } as const;
/**
 * Builds always get production JSX. Without saying so, Vite takes development JSX (each element with its file, line
 * and column) whenever NODE_ENV is not "production" — as under vitest, whose tests build the pages — and that build
 * is what `npm run bench -- web` then measured: 21.2 KB of JavaScript instead of 19.5 KB.
 */
const buildOxc = { jsx: { ...oxc.jsx, development: false } } as const;

/**
 * Dev server only: the production routes of api/routes/pages as a rewrite onto one of the two HTML entries, or
 * null to leave the request to Vite (modules, files, /api). A checkout token path is the checkout page; any
 * other browser navigation without a file extension is the dashboard, deep links under /dashboard/… included
 * (its history router reads the path and query from the address bar). The query is dropped from the rewrite:
 * Vite reads some (?raw, ?url, ?import) as transform instructions.
 */
export function devRewrite(url: string, accept: string | undefined): string | null {
  const path = url.split('?')[0] ?? '/';
  if (/^\/checkout\/[A-Za-z0-9_-]+\/?$/.test(path)) return '/checkout/index.html';
  if (!accept?.includes('text/html') || /\.\w+$/.test(path)) return null;
  if (/^\/(api|webhooks|docs|checkout)(\/|$)/.test(path) || /^\/(@|node_modules)/.test(path)) return null;
  return '/dashboard/index.html';
}

/**
 * The entries' `./main.tsx` made absolute (`/dashboard/main.tsx`) for the dev server: a rewritten page's relative
 * URLs resolve against the address bar, so /dashboard/orders/… asked for /dashboard/orders/main.tsx (404). The
 * builds keep the relative form (each has its own root and base).
 */
export function devAbsoluteUrls(html: string, htmlPath: string): string {
  const dir = htmlPath.slice(0, htmlPath.lastIndexOf('/') + 1);
  return html.replace(/\b(src|href)="\.\//g, `$1="${dir}`);
}

function devRoutes(): Plugin {
  return {
    name: 'checkout-dev-routes',
    configureServer(server) {
      server.middlewares.use((req, _res, next) => {
        const to = devRewrite(req.url ?? '/', req.headers.accept);
        if (to) req.url = to;
        next();
      });
    },
    transformIndexHtml: { order: 'pre', handler: (html, ctx) => devAbsoluteUrls(html, ctx.path) },
  };
}

/** One HTML page as its own build: its assets under `/assets/<name>/` (the page route serves them on any host). */
function pageConfig(name: 'checkout' | 'dashboard', outDir: string): InlineConfig {
  return {
    configFile: false,
    root: `${WEB_ROOT}${name}`,
    base: `/assets/${name}/`,
    publicDir: false,
    oxc: buildOxc,
    build: {
      outDir,
      emptyOutDir: true,
      assetsDir: '.',
      manifest: true,
      // Modern browsers only: no modulepreload polyfill in the checkout's budget.
      modulePreload: { polyfill: false },
      reportCompressedSize: false,
    },
    logLevel: 'warn',
  };
}

/**
 * The checkout page, a build of its own: the shopper's route loads nothing of the dashboard (they are served on
 * different origins, so a shared chunk would never be shared anyway), and a broken dashboard never blocks it.
 */
export const checkoutConfig = (outDir = `${DIST_DIR}/checkout`): InlineConfig => {
  const base = pageConfig('checkout', outDir);
  return {
    ...base,
    build: {
      ...base.build,
      rolldownOptions: {
        // The payment step's embed and the tracking pixels' code are entries of their own, which the page imports by
        // the URL the page route gives it (from the manifest) when it needs them: a bundled import() would put Vite's
        // preload helper (about 0.7 KB gzip) into the page's entry.
        input: { index: `${WEB_ROOT}checkout/index.html`, [EMBED_ENTRY]: `${WEB_ROOT}checkout/embed.ts`, [PIXELS_ENTRY]: `${WEB_ROOT}checkout/pixels.ts` },
        preserveEntrySignatures: 'exports-only',
        output: {
          // The processor's embed package in a chunk of its own (loaded on the payment step only, counted apart from
          // the page's own JavaScript: scripts/lib/web-size.ts).
          codeSplitting: { groups: [{ name: PROCESSOR_EMBED_CHUNK, test: /[\\/]node_modules[\\/]@whop[\\/]checkout[\\/]/ }] },
        },
      },
    },
  };
};
/** The name of the chunk of @whop/checkout in the checkout page's build (`<name>-<hash>.js`). */
export const PROCESSOR_EMBED_CHUNK = 'whop-checkout';
/** The checkout build's second entry (its source `embed.ts` in the manifest): the payment step's embed. */
export const EMBED_ENTRY = 'embed';
/** The checkout build's third entry (`pixels.ts`): the tracking pixels' code, for a merchant with a pixel only. */
export const PIXELS_ENTRY = 'pixels';
export const dashboardConfig = (outDir = `${DIST_DIR}/dashboard`) => pageConfig('dashboard', outDir);

/**
 * `npm run web:dev`: both pages from one dev server with hot reload, /api proxied to a running `npm start`. The
 * browser sees the dashboard and /api on one origin (the dev server's), so the API must too: a request from the
 * page itself carries the dev server's Origin, which the proxy turns into the API's own (its APP_ORIGIN), since
 * the API accepts the session cookie only from the dashboard's origin. Other origins pass unchanged.
 */
export function devConfig(): UserConfig {
  const target = process.env.API_URL ?? 'http://localhost:3000';
  return {
    root: WEB_ROOT,
    base: '/',
    publicDir: false,
    oxc,
    plugins: [devRoutes()],
    server: {
      port: 5173,
      host: 'localhost',
      // Any {slug}.localhost works in dev as in `npm start`.
      allowedHosts: ['.localhost'],
      proxy: {
        '/api': {
          target,
          configure: (proxy) => {
            proxy.on('proxyReq', (proxyReq, req) => {
              const origin = req.headers.origin;
              if (origin && URL.canParse(origin) && new URL(origin).host === req.headers.host) proxyReq.setHeader('origin', new URL(target).origin);
            });
          },
        },
      },
    },
  };
}

/**
 * The storefront A checkout takeover (the app embed's script and legacy script tags): one self-contained IIFE at a stable URL (`/script-tag.js`, the src a legacy script
 * tag loads), no framework, written into the pages build's output directory. The same bytes are the app embed's
 * script in our theme app extension (scripts/web-build.ts copies them there), so the file says where it comes from.
 */
export function checkoutTakeoverConfig(outDir = `${DIST_DIR}/checkout-takeover`): InlineConfig {
  return {
    configFile: false,
    root: WEB_ROOT,
    publicDir: false,
    oxc: buildOxc,
    build: {
      outDir,
      emptyOutDir: true,
      reportCompressedSize: false,
      lib: { entry: `${WEB_ROOT}checkout-takeover/index.ts`, formats: ['iife'], name: 'CheckoutScriptTag', fileName: () => 'script-tag.js' },
      rolldownOptions: { output: { postBanner: '/*! Built from web/checkout-takeover/index.ts by `npm run web:build -- checkout-takeover`: edit that file, not this one. */' } },
    },
    logLevel: 'warn',
  };
}

export default defineConfig(devConfig());
