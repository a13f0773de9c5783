// The OAuth app install (authorization code grant, shopify.dev/docs/apps/build/authentication-authorization/
// access-tokens/authorization-code-grant): the merchant's consent page, the signed redirect back to the app
// with a one-time code, and the exchange of that code (plus the app's secret) for an offline access token.
import { createHmac } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { html, page } from '../storefront-common/html.js';
import { PlatformError, randomHex } from '../storefront-common/web.js';
import { KNOWN_SCOPES, requireShop, type SimApp, type SimShop, type State } from './state.js';

type Params = Record<string, string | undefined>;

/**
 * The query signature Shopify puts on redirects to the app: hex HMAC-SHA256 with the client secret over every
 * parameter except hmac/signature, sorted by key, each pair application/x-www-form-urlencoded, spaces as %20.
 */
export function signQuery(params: URLSearchParams, secret: string): string {
  const message = new URLSearchParams();
  for (const key of [...new Set(params.keys())].filter((k) => k !== 'hmac' && k !== 'signature').sort((a, b) => a.localeCompare(b))) {
    message.append(key, params.getAll(key).join(','));
  }
  return createHmac('sha256', secret).update(message.toString().replace(/\+/g, '%20')).digest('hex');
}

const SCOPE_LABELS: Record<string, string> = {
  products: 'Products',
  orders: 'Orders',
  customers: 'Customers',
  checkouts: 'Checkouts',
  draft_orders: 'Draft orders',
  script_tags: 'Storefront scripts',
  unauthenticated_read_checkouts: 'Carts and checkouts (storefront)',
  unauthenticated_write_checkouts: 'Carts and checkouts (storefront)',
  unauthenticated_read_product_listings: 'Products (storefront)',
  themes: 'Themes',
  shipping: 'Shipping',
  locales: 'Languages',
};

function errorPage(title: string, message: string): PlatformError {
  return new PlatformError(400, page({ title, body: html`<div class="error" data-oauth-error><h1>${title}</h1><p>${message}</p></div>` }), 'text/html; charset=utf-8');
}

interface AuthorizeRequest {
  shop: SimShop;
  app: SimApp;
  scopes: string[];
  redirectUri: string;
  state: string;
}

/** The checks the platform makes before showing the consent page, and again when Install is pressed. */
function checkAuthorizeRequest(state: State, host: string, p: Params): AuthorizeRequest {
  const shop = requireShop(state, host, 'html');
  const app = state.apps.get(p.client_id ?? '');
  if (!app) throw errorPage('Oauth error invalid_request', 'The client_id is invalid: the application cannot be found.');
  const scopes = (p.scope ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = scopes.filter((s) => !KNOWN_SCOPES.includes(s));
  if (unknown.length) throw errorPage('Oauth error invalid_scope', `The access scope is invalid: ${unknown.join(', ')}`);
  let redirect: URL | undefined;
  try {
    redirect = new URL(p.redirect_uri ?? '');
  } catch {
    redirect = undefined;
  }
  if (!redirect || !['http:', 'https:'].includes(redirect.protocol)) throw errorPage('Oauth error invalid_request', 'The redirect_uri is missing or not an absolute URL.');
  if (app.redirectUrls.length && !app.redirectUrls.some((allowed) => allowed === `${redirect.origin}${redirect.pathname}`)) {
    throw errorPage('Oauth error invalid_request', 'The redirect_uri is not whitelisted for this application.');
  }
  return { shop, app, scopes, redirectUri: redirect.toString(), state: p.state ?? '' };
}

function consentPage(r: AuthorizeRequest): string {
  const areas = [...new Set(r.scopes.map((s) => (s.startsWith('unauthenticated_') ? s : s.replace(/^(read|write)_/, ''))))];
  const access = (area: string) => (r.scopes.includes(`write_${area}`) ? 'View and edit' : 'View');
  const hidden = { client_id: r.app.clientId, scope: r.scopes.join(','), redirect_uri: r.redirectUri, state: r.state };
  return page({
    title: `Install ${r.app.name}`,
    body: html`<div class="card" style="max-width:520px;margin:40px auto">
      <p class="muted">${r.shop.name} · ${r.shop.host}</p>
      <h1>Install ${r.app.name}</h1>
      <p>This app will be able to:</p>
      <ul>${areas.map((a) => html`<li>${access(a)} <strong>${SCOPE_LABELS[a] ?? a}</strong></li>`)}</ul>
      <form method="post" action="/shops/${r.shop.host}/admin/oauth/authorize" style="display:flex;gap:10px">
        ${Object.entries(hidden).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}
        <button type="submit" name="decision" value="install" id="install-app">Install app</button>
        <button type="submit" name="decision" value="cancel" class="secondary" id="cancel-install">Cancel</button>
      </form></div>`,
  });
}

export function registerOAuth(app: FastifyInstance, state: State, opts: { authCodeTtlMs: number }): void {
  type ShopRequest = FastifyRequest<{ Params: { shop: string }; Querystring: Params; Body: Params }>;

  app.get('/shops/:shop/admin/oauth/authorize', async (request: ShopRequest, reply) => {
    return reply.type('text/html; charset=utf-8').send(consentPage(checkAuthorizeRequest(state, request.params.shop, request.query)));
  });

  app.post('/shops/:shop/admin/oauth/authorize', async (request: ShopRequest, reply) => {
    const body = request.body ?? {};
    const r = checkAuthorizeRequest(state, request.params.shop, body);
    if (body.decision !== 'install') return reply.redirect(`/shops/${r.shop.host}/admin?install_cancelled=${encodeURIComponent(r.app.name)}`, 303);

    r.shop.installs.set(r.app.clientId, { scopes: r.scopes, installedAt: new Date().toISOString(), installationId: r.shop.installs.get(r.app.clientId)?.installationId ?? state.nextId() });
    r.shop.everInstalled.add(r.app.clientId);
    const code = randomHex(16);
    state.codes.set(code, { shop: r.shop.host, clientId: r.app.clientId, scopes: r.scopes, expiresAt: Date.now() + opts.authCodeTtlMs });

    const target = new URL(r.redirectUri);
    target.searchParams.set('code', code);
    // host: base64 of admin.shopify.com/store/<handle> (padding included, so values carry '=').
    target.searchParams.set('host', Buffer.from(`admin.shopify.com/store/${r.shop.host.split('.')[0]}`).toString('base64'));
    target.searchParams.set('shop', r.shop.host);
    target.searchParams.set('state', r.state);
    target.searchParams.set('timestamp', String(Math.floor(Date.now() / 1000)));
    target.searchParams.set('hmac', signQuery(target.searchParams, r.app.clientSecret));
    return reply.redirect(target.toString(), 302);
  });

  app.post('/shops/:shop/admin/oauth/access_token', async (request: ShopRequest) => {
    const shop = requireShop(state, request.params.shop, 'json');
    const { client_id, client_secret, code, expiring } = request.body ?? {};
    const client = state.apps.get(client_id ?? '');
    if (!client || client.clientSecret !== client_secret) {
      throw new PlatformError(401, { error: 'invalid_client', error_description: 'Client authentication failed: unknown client_id or wrong client_secret.' });
    }
    const grant = state.codes.get(code ?? '');
    // A code works once, for the shop and app it was issued to, until it expires.
    if (grant) state.codes.delete(code ?? '');
    if (!grant || grant.shop !== shop.host || grant.clientId !== client.clientId || grant.expiresAt < Date.now()) {
      throw new PlatformError(400, { error: 'invalid_request', error_description: 'The authorization code was not found or was already used.' });
    }
    const accessToken = `shpat_${randomHex(16)}`;
    // expiring: "1" asks for an expiring offline token (60 minutes, with a refresh token); "0" or none: non-expiring
    // (shopify.dev/docs/apps/build/authentication-authorization/access-tokens/offline-access-tokens).
    if (String(expiring) === '1') {
      state.tokens.set(accessToken, { shop: shop.host, clientId: client.clientId, scopes: grant.scopes, expiresAt: Date.now() + 3600_000 });
      return { access_token: accessToken, scope: grant.scopes.join(','), expires_in: 3600, refresh_token: `shprt_${randomHex(16)}`, refresh_token_expires_in: 7_776_000 };
    }
    state.tokens.set(accessToken, { shop: shop.host, clientId: client.clientId, scopes: grant.scopes });
    return { access_token: accessToken, scope: grant.scopes.join(',') };
  });
}
