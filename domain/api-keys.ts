// Merchant API keys: their format, their scopes, and which scope each merchant route needs. Pure module, shared by
// the API (auth plugin, OpenAPI document) and the dashboard (the scopes a key can be given), so the one table below
// is what the API enforces, what the document states and what the merchant chooses from.
//
// A scope is a resource and an access: `orders:read`, `orders:write`. Write implies read. A route's access follows
// its method (GET and HEAD read, every other method writes); its resource is named in ROUTE_RESOURCES. A route
// that uses merchant authentication but is in neither ROUTE_RESOURCES nor SESSION_ONLY_ROUTES refuses to register
// (api/plugins/auth.ts), so a new route can never silently accept or refuse keys.

import type { MemberRole } from './roles.js';

export const API_KEY_MODES = ['live', 'test'] as const;
export type ApiKeyMode = (typeof API_KEY_MODES)[number];

/** `ck_live_` / `ck_test_`: what a key is and where it works, readable in a log or a paste. */
export const apiKeyPrefix = (mode: ApiKeyMode) => `ck_${mode}_`;

/** Characters of the secret after the prefix: 43 base62 characters carry 256 bits. */
export const API_KEY_SECRET_LENGTH = 43;
/** Secret characters kept after the prefix to tell keys apart (`ck_test_AbCdEf`); the other 37 still carry 220 bits. */
export const API_KEY_DISPLAY_CHARS = 6;

/** A whole key as issued. */
export const API_KEY_PATTERN = new RegExp(`^ck_(live|test)_[0-9A-Za-z]{${API_KEY_SECRET_LENGTH}}$`);

/** Anything that presents itself as one of our keys (to answer "malformed key" rather than "bad session token"). */
export const looksLikeApiKey = (token: string) => token.startsWith('ck_');

/** The mode a key was issued for, or undefined when it is not a well-formed key. */
export function apiKeyModeOf(key: string): ApiKeyMode | undefined {
  const match = API_KEY_PATTERN.exec(key);
  return match ? (match[1] as ApiKeyMode) : undefined;
}

export const API_KEY_RESOURCES = ['account', 'settings', 'domains', 'connections', 'onboarding', 'commerce', 'orders', 'stats', 'billing', 'webhooks'] as const;
export type ApiKeyResource = (typeof API_KEY_RESOURCES)[number];
export type ApiKeyAccess = 'read' | 'write';
export type ApiKeyScope = `${ApiKeyResource}:${ApiKeyAccess}`;

/** What each resource covers, as the dashboard and docs/api.md say it. */
export const API_KEY_RESOURCE_LABELS: Record<ApiKeyResource, { label: string; covers: string }> = {
  account: { label: 'Account', covers: 'the merchant profile (GET /api/merchant/me)' },
  settings: { label: 'Settings', covers: 'configuration, branding, checkout texts, shipping rates, cash on delivery, abandoned-checkout recovery, shop name, slug and subdomain, notification emails' },
  domains: { label: 'Custom domain', covers: 'the custom checkout domain: add, status, verify, remove' },
  connections: { label: 'Connections', covers: 'processor, storefront A and B, the app embed / script tag, the countries the store ships to' },
  onboarding: { label: 'Onboarding', covers: 'the wizard state, checkout activation, setup verification and checkout previews' },
  commerce: { label: 'Commerce', covers: 'discount codes, order bumps, upsells and tracking pixels' },
  orders: { label: 'Orders', covers: 'order list, CSV export and detail, customers, refunds and status syncs' },
  stats: { label: 'Statistics', covers: 'statistics and the funnel' },
  billing: { label: 'Billing', covers: 'the platform plan: current subscription, subscribe, cancel' },
  webhooks: { label: 'Webhooks', covers: 'outgoing webhook endpoints and their deliveries (/api/merchant/webhooks)' },
};

/**
 * Every merchant route a key may call, by resource: "METHOD /fastify/url/:pattern" (the route as registered), or
 * "* /prefix/**" for every method on the prefix and every path under it.
 */
export const ROUTE_RESOURCES: Record<ApiKeyResource, readonly string[]> = {
  account: ['GET /api/merchant/me'],
  settings: [
    'PATCH /api/merchant/config', 'PATCH /api/merchant/shop', 'PATCH /api/merchant/slug', 'POST /api/merchant/slug/regenerate', 'GET /api/merchant/subdomain',
    'GET /api/merchant/notifications', 'PUT /api/merchant/notifications',
    'GET /api/merchant/recovery', 'PATCH /api/merchant/recovery',
  ],
  domains: ['POST /api/merchant/domain', 'GET /api/merchant/domain/status', 'POST /api/merchant/domain/verify', 'DELETE /api/merchant/domain'],
  connections: [
    'GET /api/merchant/processor', 'POST /api/merchant/processor/connect', 'DELETE /api/merchant/processor', 'POST /api/merchant/processor/apple-pay-domain',
    'GET /api/merchant/storefront-a', 'GET /api/merchant/storefront-a/app.zip', 'PUT /api/merchant/storefront-a', 'DELETE /api/merchant/storefront-a',
    'GET /api/merchant/storefront-b', 'GET /api/merchant/storefront-b/plugin.zip', 'POST /api/merchant/storefront-b/connect', 'DELETE /api/merchant/storefront-b',
    'GET /api/merchant/script-tag/status', 'POST /api/merchant/script-tag/install', 'POST /api/merchant/store-countries/refresh',
  ],
  onboarding: [
    'GET /api/merchant/onboarding', 'PATCH /api/merchant/onboarding', 'GET /api/merchant/checkout-activation', 'POST /api/merchant/setup-verification',
    'POST /api/merchant/preview',
  ],
  commerce: ['discounts', 'order-bumps', 'upsells', 'pixels'].flatMap((r) => [
    `GET /api/merchant/${r}`, `POST /api/merchant/${r}`, `GET /api/merchant/${r}/:id`, `PATCH /api/merchant/${r}/:id`, `DELETE /api/merchant/${r}/:id`,
  ]),
  orders: [
    'GET /api/checkout/merchant/orders', 'GET /api/checkout/merchant/orders/export.csv', 'GET /api/checkout/merchant/orders/:token',
    'GET /api/checkout/merchant/customers', 'GET /api/checkout/merchant/customers/:email',
    'POST /api/checkout/merchant/orders/:token/refund', 'POST /api/checkout/merchant/orders/:token/backfill-status',
  ],
  stats: ['GET /api/merchant/stats', 'GET /api/merchant/stats/funnel'],
  billing: ['GET /api/platform-billing/current', 'POST /api/platform-billing/subscribe', 'POST /api/platform-billing/cancel'],
  // Every route of the outgoing webhooks, present and future.
  webhooks: ['* /api/merchant/webhooks/**'],
};

/**
 * Merchant routes only a dashboard session (JWT or cookie) may call; a key gets 403. Managing keys (a key must not
 * mint or revoke keys), the account's credentials, the sessions themselves, the team and one's own two-factor
 * sign-in. Each names the member roles (domain/roles.ts) whose sessions may call it: these routes have no scope, so
 * this is their rule for members, checked by the same hook as scopes (api/plugins/auth.ts).
 */
export const SESSION_ONLY_ROUTE_ROLES: Readonly<Record<string, readonly MemberRole[]>> = {
  '* /api/merchant/api-keys/**': ['owner', 'admin'],
  // The account holder's email and password: the account itself.
  'PATCH /api/merchant/account': ['owner'],
  'POST /api/auth/email/verify-request': ['owner'],
  // Ends the caller's own sessions only.
  'POST /api/auth/logout-all': ['owner', 'admin', 'staff'],
  // Admins manage admins and staff; only owners touch owners (api/routes/merchant/members.ts).
  '* /api/merchant/members/**': ['owner', 'admin'],
  // Everyone's own two-factor sign-in.
  '* /api/merchant/security/**': ['owner', 'admin', 'staff'],
};

export const SESSION_ONLY_ROUTES: readonly string[] = Object.keys(SESSION_ONLY_ROUTE_ROLES);

/** Does a table entry name this route? GET entries cover HEAD, which Fastify adds for every GET. */
function entryMatches(entry: string, method: string, url: string): boolean {
  const [entryMethod, entryUrl] = entry.split(' ') as [string, string];
  if (entryMethod !== '*' && entryMethod !== method && !(entryMethod === 'GET' && method === 'HEAD')) return false;
  if (entryUrl.endsWith('/**')) {
    const prefix = entryUrl.slice(0, -3);
    return url === prefix || url.startsWith(`${prefix}/`);
  }
  return entryUrl === url;
}

/** The roles whose sessions may call a session-only route; undefined when the route is not session-only. */
export function sessionRouteRoles(method: string, url: string): readonly MemberRole[] | undefined {
  const m = method.toUpperCase();
  const entry = SESSION_ONLY_ROUTES.find((e) => entryMatches(e, m, url));
  return entry === undefined ? undefined : SESSION_ONLY_ROUTE_ROLES[entry];
}

export const accessOf = (method: string): ApiKeyAccess => (method === 'GET' || method === 'HEAD' ? 'read' : 'write');

export type RouteKeyPolicy = { kind: 'scope'; scope: ApiKeyScope } | { kind: 'session-only' } | { kind: 'unmapped' };

/**
 * What a merchant route declares where it is defined (its Fastify route config, checked by api/plugins/auth.ts): the
 * scope an API key needs to call it (its access follows the method: GET and HEAD read, every other method writes), or
 * that it is for dashboard sessions only, naming the member roles (domain/roles.ts) whose sessions may call it.
 */
export type RouteAuth = { apiKeyScope: ApiKeyScope; sessionOnly?: undefined } | { sessionOnly: readonly MemberRole[]; apiKeyScope?: undefined };

/**
 * Why a route's declaration is wrong for its method, or undefined when it is right: exactly one of a scope or session
 * roles, and a scope whose access is the method's. A route that authenticates merchants refuses to register with one.
 */
export function routeAuthProblem(method: string, auth: Partial<RouteAuth> | undefined): string | undefined {
  const scope = auth?.apiKeyScope;
  const roles = auth?.sessionOnly;
  if ((scope === undefined) === (roles === undefined)) return 'declares neither an API key scope (config.apiKeyScope) nor that it is for dashboard sessions only (config.sessionOnly), or both';
  if (scope !== undefined) {
    if (!isApiKeyScope(scope)) return `declares ${String(scope)}, which is not an API key scope`;
    const access = accessOf(method.toUpperCase());
    if (!scope.endsWith(`:${access}`)) return `declares ${scope}, but a ${method.toUpperCase()} route ${access === 'read' ? 'reads' : 'writes'}: ${scope.split(':')[0]}:${access}`;
  } else if (roles!.length === 0) return 'is session-only for no role at all';
  return undefined;
}

/** What a key needs to call a declaration's route. */
export const keyPolicyOf = (auth: RouteAuth | undefined): RouteKeyPolicy =>
  auth?.apiKeyScope ? { kind: 'scope', scope: auth.apiKeyScope } : auth?.sessionOnly ? { kind: 'session-only' } : { kind: 'unmapped' };

/** What a key needs to call this route (method + the route's URL pattern as registered). */
export function routeKeyPolicy(method: string, url: string): RouteKeyPolicy {
  const m = method.toUpperCase();
  if (SESSION_ONLY_ROUTES.some((e) => entryMatches(e, m, url))) return { kind: 'session-only' };
  for (const resource of API_KEY_RESOURCES) {
    if (ROUTE_RESOURCES[resource].some((e) => entryMatches(e, m, url))) return { kind: 'scope', scope: `${resource}:${accessOf(m)}` };
  }
  return { kind: 'unmapped' };
}

export const ALL_API_KEY_SCOPES: readonly ApiKeyScope[] = API_KEY_RESOURCES.flatMap((r) => [`${r}:read`, `${r}:write`] as const);

export const isApiKeyScope = (value: string): value is ApiKeyScope => (ALL_API_KEY_SCOPES as readonly string[]).includes(value);

/** Scopes as stored: one per resource (write wins over read), in the table's resource order. */
export function normalizeScopes(scopes: readonly ApiKeyScope[]): ApiKeyScope[] {
  const out: ApiKeyScope[] = [];
  for (const resource of API_KEY_RESOURCES) {
    if (scopes.includes(`${resource}:write`)) out.push(`${resource}:write`);
    else if (scopes.includes(`${resource}:read`)) out.push(`${resource}:read`);
  }
  return out;
}

/** Does a key with these scopes hold `needed`? Write implies read. */
export function grants(scopes: readonly string[], needed: ApiKeyScope): boolean {
  if (scopes.includes(needed)) return true;
  const [resource, access] = needed.split(':') as [ApiKeyResource, ApiKeyAccess];
  return access === 'read' && scopes.includes(`${resource}:write`);
}

/** Longest overlap of a roll: the old key keeps working at most this long after its successor is issued. */
export const MAX_ROLL_OVERLAP_SECONDS = 7 * 24 * 60 * 60;
export const DEFAULT_ROLL_OVERLAP_SECONDS = 24 * 60 * 60;
/** Keys a merchant may hold that are not revoked or expired. */
export const MAX_LIVE_API_KEYS = 50;

export type ApiKeyStatus = 'active' | 'expiring' | 'expired' | 'revoked';

/** revoked; expired (past expiresAt); expiring (rolled, working until its overlap ends); else active. */
export function apiKeyStatus(key: { revokedAt: Date | null; expiresAt: Date | null; rolledToId?: string | null }, now = new Date()): ApiKeyStatus {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) return 'expired';
  return key.rolledToId ? 'expiring' : 'active';
}
