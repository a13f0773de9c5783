// Who may call the simulated Storefront API, and what Shopify refuses there (docs/storefront-a.md, "Cart"):
// - public tokens (X-Shopify-Storefront-Access-Token) are for browsers: "with public access, capacity scales with the
//   number of buyers based on customer IP" (shopify.dev/docs/api/usage/authentication). A server reading every
//   shopper's cart with one is one "buyer" making all the requests: past a small budget per client IP its requests
//   are refused with 430 Shopify Security Rejection (shopify.dev/docs/api/usage/response-codes; bot protection,
//   shopify.dev/changelog/bots-and-agents-should-identify-themselves-via-web-bot-auth), without Retry-After.
// - private tokens (Shopify-Storefront-Private-Token: a delegate access token, or the app's own offline token with
//   unauthenticated_* scopes) are for servers, "throttled at the shop level and optionally by a forwarded IP"
//   (Shopify-Storefront-Buyer-IP): not refused by this budget.
// - faults set through the control API make the next requests of a shop answer 430, 429 (no body, optional
//   Retry-After in seconds) or a 200 whose error is THROTTLED, the shapes Shopify's throttles take.
// Also delegateAccessTokenCreate (GraphQL Admin): a token with a subset of the parent's scopes
// (shopify.dev/docs/apps/build/authentication-authorization/access-tokens/use-delegate-tokens).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PlatformError, randomHex } from '../storefront-common/web.js';
import type { SimShop, State, TokenGrant } from './state.js';

/** Requests a public token may make from one client IP before bot protection refuses it, and how fast that budget returns. */
export const PUBLIC_IP_BUDGET = { burst: 10, perSecond: 1 / 6 };

/** The caller of one Storefront API request: the app whose token it carries, and its Storefront scopes. */
export interface StorefrontCaller {
  clientId: string;
  scopes: string[];
  kind: 'public' | 'private';
}

const header = (request: FastifyRequest, name: string) => {
  const v = request.headers[name];
  return typeof v === 'string' ? v : undefined;
};

/**
 * Authenticates a Storefront API request and applies the refusals above; throws the platform's answer. A THROTTLED
 * fault is answered by the caller as a GraphQL error (answers `'throttled'`).
 */
export function admitStorefrontRequest(state: State, shop: SimShop, request: FastifyRequest, reply: FastifyReply): StorefrontCaller | 'throttled' {
  const privateToken = header(request, 'shopify-storefront-private-token');
  const publicToken = header(request, 'x-shopify-storefront-access-token');
  let caller: StorefrontCaller | undefined;
  if (privateToken !== undefined) {
    const grant = state.tokens.get(privateToken);
    const live = grant !== undefined && (grant.expiresAt === undefined || grant.expiresAt > Date.now());
    if (live && grant.shop === shop.host && shop.installs.has(grant.clientId)) caller = { clientId: grant.clientId, scopes: grant.scopes, kind: 'private' };
  } else if (publicToken !== undefined) {
    const token = state.storefrontTokens.get(publicToken);
    if (token && token.shop === shop.host && shop.installs.has(token.clientId)) caller = { clientId: token.clientId, scopes: token.scopes, kind: 'public' };
  }
  if (!caller) throw new PlatformError(401, { errors: [{ message: '', extensions: { code: 'UNAUTHORIZED' } }] });
  const seen = state.storefrontRequests.get(shop.host) ?? [];
  seen.push({ kind: caller.kind, buyerIp: header(request, 'shopify-storefront-buyer-ip') ?? null, clientIp: request.ip, at: new Date().toISOString() });
  state.storefrontRequests.set(shop.host, seen.slice(-100));

  const fault = state.storefrontFaults.get(shop.host);
  if (fault && fault.count > 0) {
    fault.count -= 1;
    if (fault.count === 0) state.storefrontFaults.delete(shop.host);
    if (fault.status === 'THROTTLED') return 'throttled';
    if (fault.status === 429) {
      if (fault.retryAfterSeconds !== undefined) reply.header('retry-after', String(fault.retryAfterSeconds));
      throw new PlatformError(429, '', 'text/plain; charset=utf-8');
    }
    throw rejection();
  }
  if (caller.kind === 'public' && !spend(state, `${shop.host}|${request.ip}`)) throw rejection();
  return caller;
}

const rejection = () => new PlatformError(430, { errors: 'Shopify Security Rejection' });

/** One request from this key's budget (a leaky bucket); false when it is spent. */
function spend(state: State, key: string): boolean {
  const now = Date.now();
  const b = state.publicIpBudgets.get(key) ?? { available: PUBLIC_IP_BUDGET.burst, updatedAt: now };
  b.available = Math.min(PUBLIC_IP_BUDGET.burst, b.available + ((now - b.updatedAt) / 1000) * PUBLIC_IP_BUDGET.perSecond);
  b.updatedAt = now;
  state.publicIpBudgets.set(key, b);
  if (b.available < 1) return false;
  b.available -= 1;
  return true;
}

/** delegateAccessTokenCreate: a non-expiring parent's subset of scopes under a new token, usable on both APIs. */
export function createDelegateToken(state: State, parent: TokenGrant, input: { delegateAccessScope: string[]; expiresIn?: number | null }) {
  const error = (code: string, message: string) => ({ delegateAccessToken: null, userErrors: [{ field: ['input'], code, message }] });
  if (parent.delegate) return error('DELEGATE_ACCESS_TOKEN', "The parent access token can't be a delegate token.");
  if (parent.expiresAt !== undefined) return error('REFRESH_TOKEN', "The parent access token can't have a refresh token.");
  if (input.delegateAccessScope.length === 0) return error('EMPTY_ACCESS_SCOPE', "The access scope can't be empty.");
  if (input.expiresIn != null && input.expiresIn <= 0) return error('NEGATIVE_EXPIRES_IN', 'The expires_in value must be greater than 0.');
  const unknown = input.delegateAccessScope.filter((s) => !parent.scopes.includes(s));
  if (unknown.length) return error('UNKNOWN_SCOPES', `Unknown scopes: ${unknown.join(', ')}`);
  const accessToken = `shpat_${randomHex(16)}`;
  state.tokens.set(accessToken, { shop: parent.shop, clientId: parent.clientId, scopes: [...input.delegateAccessScope], delegate: true });
  return { delegateAccessToken: { accessToken, accessScopes: [...input.delegateAccessScope], createdAt: new Date().toISOString(), expiresIn: input.expiresIn ?? null }, userErrors: [] };
}
