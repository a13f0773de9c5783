// The web pages the API serves (built by scripts/web-build.ts into web/dist):
//   - GET /checkout/:token on a merchant's checkout host ({slug}.{service domain}, or its verified
//     checkout.<domain>): the shopper's checkout page, with the session's first state embedded (the same
//     answers GET /api/checkout/session-bundle/:token, /order-bumps and /upsells give, asked in-process) so the page
//     renders without another round trip. A token of another merchant answers the same 404 as an unknown one.
//     On any other host, a known session is redirected to its merchant's checkout origin.
//   - GET /script-tag.js: the storefront A script tag (the src our install puts into the shop).
//   - GET /assets/<part>/<file>: the pages' hashed assets, precompressed, cached for a year.
//   - Any other GET a browser navigates to (Accept: text/html) outside /api, /webhooks and /docs, on the app
//     origin: the merchant dashboard's index.html (history routing). Everything else keeps the API's JSON 404.
// These are pages, not API: hidden from the OpenAPI document.
import { gzipSync } from 'node:zlib';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { type RouteDeps } from '../../route-deps.js';
import { checkoutUrlOf, merchantForCheckoutHost } from '../../checkout-host.js';
import { isSessionToken } from '../../../domain/tokens.js';
import { checkoutTheme } from '../../../domain/merchant/brand-colors.js';
import { CHECKOUT_LANGUAGES, checkoutLanguageOf } from '../../../domain/checkout/checkout-messages/index.js';
import { acceptedLanguages } from '../../schemas/shopper-language.js';
import { createWebDist, pickEncoding, sendFile, type WebDist, type WebPart } from './web-dist.js';
import { addVary } from '../../vary.js';

export interface PagesOptions extends RouteDeps {
  /** Where the built web app is (default web/dist); tests point it elsewhere. */
  webDist?: WebDist;
}

const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Shops load the script tag on every page: cached briefly, so a fix reaches every shop within minutes. */
const SCRIPT_TAG_CACHE = 'public, max-age=300';
const API_PATH = /^\/(api|webhooks|docs)(\/|$)/;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** JSON inside <script type="application/json">: nothing in it may close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

function wantsHtml(request: FastifyRequest): boolean {
  return String(request.headers.accept ?? '').includes('text/html');
}

function securityHeaders(reply: FastifyReply, opts: { production: boolean; thirdPartyScripts: boolean; frameOrigin?: string | null }): void {
  const img = opts.production ? "'self' https: data:" : "'self' https: http: data:";
  const script = opts.thirdPartyScripts ? "'self' https:" : "'self'";
  const connect = opts.thirdPartyScripts ? "'self' https:" : "'self'";
  // The processor's embedded checkout is the only page this one frames (its script is one of our own chunks: script-src stays).
  const frame = opts.frameOrigin ? `frame-src ${opts.frameOrigin}; ` : '';
  reply
    .header(
      'content-security-policy',
      `default-src 'self'; script-src ${script}; style-src 'self' 'unsafe-inline'; img-src ${img}; connect-src ${connect}; ${frame}` +
        "frame-ancestors 'none'; base-uri 'none'; object-src 'none'; form-action 'self'",
    )
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'strict-origin-when-cross-origin');
}

/** Sends per-request HTML, gzipped when the client takes it (small pages: gzip is fast enough per request). */
function sendHtml(request: FastifyRequest, reply: FastifyReply, html: string, status = 200): FastifyReply {
  const raw = Buffer.from(html, 'utf8');
  reply.code(status).header('content-type', 'text/html; charset=utf-8');
  addVary(reply, 'accept-encoding');
  if (raw.length > 1024 && pickEncoding(request, { gz: raw })) return reply.header('content-encoding', 'gzip').send(gzipSync(raw, { level: 6 }));
  return reply.send(raw);
}

function notBuilt(reply: FastifyReply, part: WebPart): FastifyReply {
  return reply
    .code(503)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(`<!doctype html><meta charset="utf-8"><title>Not built</title><p>The ${part} page is not built: run <code>npm run web:build</code>.</p>`);
}

/** The page frame before the app starts: the same header the app renders, so nothing moves when it does. */
function skeleton(shopName: string, logoUrl: string | null, secureCheckout: string): string {
  const brand = logoUrl ? `<img class="logo" src="${escapeHtml(logoUrl)}" alt="${escapeHtml(shopName)}" height="40">` : `<span class="shop">${escapeHtml(shopName)}</span>`;
  return `<header class="top"><div class="top-in">${brand}<span class="secure">${escapeHtml(secureCheckout)}</span></div></header><main class="page"></main>`;
}

interface BundleLike {
  shopName: string;
  branding: { logoUrl: string | null; primaryColor: string | null; accentColor: string | null };
  pixels: unknown[];
}

export const pagesRoutes: FastifyPluginAsync<PagesOptions> = async (app, opts) => {
  const { config, db } = opts;
  const web = opts.webDist ?? createWebDist();
  const production = config.env === 'production';

  /** One of our own read routes, asked in-process (the same answer the browser would get). */
  /** One of the checkout API's reads, as the page would make it in `language` (the merchant's texts for it). */
  async function read(url: string, language: string): Promise<{ status: number; body: unknown }> {
    const res = await app.inject({ method: 'GET', url, headers: { accept: 'application/json', 'accept-language': language } });
    let body: unknown = null;
    try {
      body = res.json();
    } catch {
      body = null;
    }
    return { status: res.statusCode, body };
  }

  // Apple fetches this from a checkout host when Whop registers it for Apple Pay (docs/processor.md): the file the
  // operator configured, on checkout hosts only.
  app.get('/.well-known/apple-developer-merchantid-domain-association', { schema: { hide: true } }, async (request, reply) => {
    const file = config.processor.applePayAssociation;
    if (!file || !(await merchantForCheckoutHost(db, config, request.headers.host ?? ''))) return reply.callNotFound();
    return reply.header('content-type', 'text/plain; charset=utf-8').header('cache-control', 'public, max-age=3600').header('x-content-type-options', 'nosniff').send(file);
  });

  app.get('/script-tag.js', { schema: { hide: true } }, async (request, reply) => {
    const file = web.part('checkout-takeover')?.files.get('script-tag.js');
    if (!file) return reply.code(503).header('content-type', 'text/javascript; charset=utf-8').send('/* checkout script tag not built: npm run web:build */');
    return sendFile(request, reply, file, SCRIPT_TAG_CACHE);
  });

  app.get<{ Params: { part: string; '*': string } }>('/assets/:part/*', { schema: { hide: true } }, async (request, reply) => {
    const { part } = request.params;
    if (part !== 'checkout' && part !== 'dashboard') return reply.callNotFound();
    const file = web.part(part)?.files.get(request.params['*']);
    if (!file) return reply.callNotFound();
    return sendFile(request, reply, file, IMMUTABLE);
  });

  app.get<{ Params: { token: string }; Querystring: Record<string, string> }>('/checkout/:token', { schema: { hide: true } }, async (request, reply) => {
    const { token } = request.params;
    const host = await merchantForCheckoutHost(db, config, request.headers.host ?? '');
    const session = isSessionToken(token) ? await db.checkoutSession.findUnique({ where: { token }, select: { merchantId: true, storeLocale: true, merchant: { select: { id: true, slug: true } } } }) : null;

    if (!host) {
      // The app origin (or any other host): send a known session to where its checkout lives.
      if (session) {
        const search = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
        return reply.redirect(`${await checkoutUrlOf(db, config, session.merchant, token)}${search}`, 302);
      }
      if (!wantsHtml(request)) return reply.callNotFound();
    }

    const template = web.part('checkout')?.html;
    if (!template) return notBuilt(reply, 'checkout');
    reply.header('cache-control', 'no-store');
    addVary(reply, 'Accept-Language');
    // The page speaks the store's language for this cart when it speaks it (the shopper chose to shop in it), else the
    // first of the browser's ranked Accept-Language it speaks, else English.
    const storeLocale = session && host && session.merchantId === host.merchantId ? session.storeLocale : null;
    const language = checkoutLanguageOf([...(storeLocale ? [storeLocale] : []), ...acceptedLanguages(request.headers['accept-language'])]);
    const messages = CHECKOUT_LANGUAGES[language];

    const mine = !!host && !!session && session.merchantId === host.merchantId;
    const [bundle, bumps, upsells, merchant] = mine
      ? await Promise.all([
          read(`/api/checkout/session-bundle/${token}`, language),
          read(`/api/checkout/${token}/order-bumps`, language),
          read(`/api/checkout/${token}/upsells`, language),
          db.merchant.findUnique({ where: { id: host.merchantId }, select: { paymentPage: true, processorConnection: { select: { status: true, productId: true } } } }),
        ])
      : [null, null, null, null];
    const processor = merchant?.processorConnection;
    const found = bundle?.status === 200 ? (bundle.body as BundleLike) : null;
    // The same readiness the payment activity requires before it creates a processor payment.
    const cardEnabled = processor?.status === 'CONNECTED' && !!processor.productId;
    // Card payments inside this page (Whop's embedded checkout) unless the deployment or the merchant says hosted: its
    // origin is the configured one, never anything a merchant or shopper sends; script: the build's module that mounts it.
    const embedScript = web.part('checkout')?.entries.get('embed.ts');
    const pixelsScript = web.part('checkout')?.entries.get('pixels.ts');
    const embeds = config.processor.paymentPage === 'embedded' && merchant?.paymentPage === 'EMBEDDED';
    const embed = found && cardEnabled && embedScript && embeds ? { origin: config.processor.embedOrigin, script: `/assets/checkout/${embedScript}` } : null;
    const embedded = {
      token,
      bundle: found,
      orderBumps: bumps?.status === 200 ? bumps.body : null,
      upsells: upsells?.status === 200 ? upsells.body : null,
      cardEnabled,
      ...(embed ? { embed } : {}),
      // The tracking pixels' code only for a merchant with a pixel (the page imports it by this URL).
      ...(pixelsScript && Array.isArray(found?.pixels) && found.pixels.length > 0 ? { pixelsScript: `/assets/checkout/${pixelsScript}` } : {}),
      // The page's script carries no words: the language's dictionary comes with the page (English too).
      language,
      messages,
    };

    let head = `<script id="checkout-data" type="application/json">${scriptJson(embedded)}</script>`;
    let body = '';
    let html = template.replace('<html lang="en">', `<html lang="${language}">`).replace('<title>Checkout</title>', `<title>${escapeHtml(messages.headline)}</title>`);
    if (found) {
      const t = checkoutTheme(found.branding.primaryColor, found.branding.accentColor);
      // html:root outranks the stylesheet's own :root defaults, which the build links after this point.
      head = `<style>html:root{--primary:${t.primary};--on-primary:${t.onPrimary};--accent:${t.accent};--on-accent:${t.onAccent};--link:${t.link}}</style>${head}`;
      body = skeleton(found.shopName, found.branding.logoUrl, messages.secureCheckout);
      html = html.replace(`<title>${escapeHtml(messages.headline)}</title>`, `<title>${escapeHtml(messages.headline)} · ${escapeHtml(found.shopName)}</title>`);
    }
    html = html.replace('<!--checkout:head-->', head).replace('<!--checkout:body-->', body);
    securityHeaders(reply, { production, thirdPartyScripts: Array.isArray(found?.pixels) && found.pixels.length > 0, frameOrigin: embed?.origin });
    return sendHtml(request, reply, html, found ? 200 : 404);
  });

  // The dashboard for browser navigations on the app origin; API clients keep the JSON 404.
  app.get('/*', { schema: { hide: true } }, async (request, reply) => {
    const path = request.url.split('?')[0]!;
    if (!wantsHtml(request) || API_PATH.test(path)) return reply.callNotFound();
    if (await merchantForCheckoutHost(db, config, request.headers.host ?? '')) return reply.callNotFound();
    const html = web.part('dashboard')?.html;
    if (!html) return notBuilt(reply, 'dashboard');
    reply.header('cache-control', 'no-cache').header('x-frame-options', 'DENY').header('x-content-type-options', 'nosniff').header('referrer-policy', 'strict-origin-when-cross-origin');
    return sendHtml(request, reply, html);
  });
};
