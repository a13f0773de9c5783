// What each merchant route requires and who may call it: a route's declaration (an API key scope, or the member roles
// of a dashboard-only route) as the API checks it when the route registers and as the dashboard reads it from the
// generated ./route-auth.ts, what a key needs to call a route, and what each member role may call. Built on the key
// vocabulary (./api-keys.ts) and the roles (./roles.ts), which import nothing of this.
import { accessOf, ALL_API_KEY_SCOPES, API_KEY_RESOURCES, grants, isApiKeyScope, type ApiKeyResource, type ApiKeyScope } from './api-keys.js';
import type { MemberRole } from './roles.js';
import { ROUTE_AUTH } from './route-auth.js';

/**
 * What a merchant route declares where it is defined (its Fastify route config, checked by api/plugins/auth.ts): the
 * scope an API key needs to call it (its access follows the method: GET and HEAD read, every other method writes), or
 * that it is for dashboard sessions only, naming the member roles (domain/merchant/roles.ts) whose sessions may call it. A
 * session-only route has no scope, so its roles are its rule for members: managing keys (a key must not mint or revoke
 * keys), the account's credentials, the sessions themselves, the team and one's own two-factor sign-in.
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

/** The route's declaration as the dashboard reads it: its API scope, or the roles of a session-only route. */
export function routeAuthOf(method: string, url: string): RouteAuth | undefined {
  const m = method.toUpperCase();
  // Fastify gives every GET a HEAD twin with the same declaration.
  const declared = ROUTE_AUTH[`${m === 'HEAD' ? 'GET' : m} ${url}`];
  if (declared === undefined) return undefined;
  return typeof declared === 'string' ? { apiKeyScope: declared } : { sessionOnly: declared };
}

/** The roles whose sessions may call a session-only route; undefined when the route is not session-only. */
export function sessionRouteRoles(method: string, url: string): readonly MemberRole[] | undefined {
  return routeAuthOf(method, url)?.sessionOnly;
}

export type RouteKeyPolicy = { kind: 'scope'; scope: ApiKeyScope } | { kind: 'session-only' } | { kind: 'unmapped' };

/** What a key needs to call a declaration's route. */
export const keyPolicyOf = (auth: RouteAuth | undefined): RouteKeyPolicy =>
  auth?.apiKeyScope ? { kind: 'scope', scope: auth.apiKeyScope } : auth?.sessionOnly ? { kind: 'session-only' } : { kind: 'unmapped' };

/** What a key needs to call this route (method + the route's URL pattern as registered). */
export function routeKeyPolicy(method: string, url: string): RouteKeyPolicy {
  return keyPolicyOf(routeAuthOf(method, url));
}

/** Every merchant route a key may call, by resource ("METHOD /url/:pattern"): what each scope opens, read from the routes. */
export const ROUTE_RESOURCES: Readonly<Record<ApiKeyResource, readonly string[]>> = Object.fromEntries(
  API_KEY_RESOURCES.map((resource) => [resource, Object.keys(ROUTE_AUTH).filter((route) => String(ROUTE_AUTH[route]).startsWith(`${resource}:`))]),
) as unknown as Record<ApiKeyResource, readonly string[]>;

export const ROLE_SCOPES: Readonly<Record<MemberRole, readonly ApiKeyScope[]>> = {
  owner: ALL_API_KEY_SCOPES,
  admin: ALL_API_KEY_SCOPES.filter((s) => s !== 'billing:write'),
  staff: ['account:read', 'settings:read', 'domains:read', 'connections:read', 'onboarding:read', 'commerce:write', 'orders:read', 'stats:read'],
};

export type RoleDecision = { allowed: true } | { allowed: false; requiredScope?: ApiKeyScope; allowedRoles?: readonly MemberRole[] };

/** May a session of this role call a route that declares `auth` (domain/merchant/api-keys.ts RouteAuth)? Undeclared: no. */
export function roleDecision(role: MemberRole, auth: RouteAuth | undefined): RoleDecision {
  if (auth?.apiKeyScope) return grants(ROLE_SCOPES[role], auth.apiKeyScope) ? { allowed: true } : { allowed: false, requiredScope: auth.apiKeyScope };
  const roles = auth?.sessionOnly;
  if (roles === undefined) return { allowed: false };
  return roles.includes(role) ? { allowed: true } : { allowed: false, allowedRoles: roles };
}

/** May a session of this role call the route (method + URL pattern as registered)? Undeclared routes: no. */
export const roleAllows = (role: MemberRole, method: string, url: string): RoleDecision => roleDecision(role, routeAuthOf(method, url));
