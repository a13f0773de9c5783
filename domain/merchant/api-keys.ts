// Merchant API keys: their format, their scopes, and what a merchant route declares a key needs. Pure module, shared
// by the API (auth plugin, OpenAPI document) and the dashboard (the scopes a key can be given, what a role may call).
//
// A scope is a resource and an access: `orders:read`, `orders:write`. Write implies read. Each merchant route declares
// where it is defined the scope a key needs (`config: { apiKeyScope: 'orders:read' }`, its access the method's: GET and
// HEAD read, every other method writes) or that it is for dashboard sessions only (`config: { sessionOnly: [roles] }`).
// A route that uses merchant authentication without a right declaration refuses to register (api/plugins/auth.ts), so
// a new route can never silently accept or refuse keys. The API enforces and documents each route's own declaration;
// the dashboard reads the same declarations from ./route-auth.ts, generated from the routes (scripts/route-auth.ts),
// through ./route-rights.ts.


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

export const accessOf = (method: string): ApiKeyAccess => (method === 'GET' || method === 'HEAD' ? 'read' : 'write');

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
