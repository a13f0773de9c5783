// Merchant authentication. A session JWT (HS256 only, claims merchantId + shopDomain + sid, 30 days) is
// accepted as `Authorization: Bearer <jwt>` or in the session cookie. Its `sid` names a merchant_sessions row:
// logout revokes it, "log out everywhere" revokes all of the merchant's, so a token stops working the moment
// its session ends, not when it expires. Missing, malformed, expired, `alg: none`, tampered, purpose-scoped
// (handoff) tokens, tokens without a live session, tokens of deleted merchants and tokens issued before the
// last password change all answer 401 UNAUTHORIZED. The cookie is only accepted from the dashboard's own
// origin (config.appOrigin): a request another origin makes with it (a "simple" cross-site POST needs no
// preflight) answers 403 ORIGIN_NOT_ALLOWED. Routes get the caller as `request.merchant` and take the
// merchant id from it only, never from the URL: that is what scopes every merchant route by construction.
//
// Merchant API keys (domain/merchant/api-keys.ts, api/api-keys.ts) are accepted in `Authorization: Bearer ck_…` only, never
// in the cookie. A key sets `request.merchant` exactly as a session does (the merchant id from the key's row) plus
// `request.apiKey`; it is counted against its own rate limit, then held to the scope the route declares
// (`config: { apiKeyScope }`, domain/merchant/api-keys.ts): a session-only route (`config: { sessionOnly }`) answers 403. An unknown, malformed, revoked or expired key, a
// rolled key past its overlap, or a key of the other environment (live/test) answers 401 UNAUTHORIZED.
//
// Team members (domain/merchant/roles.ts): a session row names its member (null: the account holder, an owner); the member's
// role is read with the session on every request, so a role change applies on the next one and a removed member's
// sessions (deleted with it) answer 401 at once. A session is held to its role by the same declaration and the same
// `grants` as a key: a scoped route needs the scope in the role's scopes, a session-only route names the roles that
// may call it; otherwise 403 FORBIDDEN with details { role, requiredScope | allowedRoles }. One check for every
// authenticated route, never a per-route `if`. A route that authenticates without a right declaration (exactly one
// of the two, a scope whose access is its method's) refuses to register.
//
// Each 401 to a request that presented a credential counts against its IP (app.failures, api/plugins/rate-limits.ts):
// past RATE_LIMIT_AUTH_FAILURES in the window (failures and requests still being checked) the address gets 429 before
// its token is verified or looked up. A request with no credential at all costs nothing to refuse and is not counted.
import fp from 'fastify-plugin';
import jwt from '@fastify/jwt';
import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../prisma/client.js';
import { AppError } from '../../domain/errors.js';
import { apiKeyModeOf, apiKeyPrefix, grants, looksLikeApiKey, type ApiKeyMode, type ApiKeyScope } from '../../domain/merchant/api-keys.js';
import { roleDecision, routeAuthProblem, type RouteAuth } from '../../domain/merchant/route-rights.js';
import { roleFromDb, type MemberRole } from '../../domain/merchant/roles.js';
import { hashApiKey } from '../api-keys.js';
import { merchantScope, type MerchantScope } from '../../model/merchant/merchant-scope.js';

export const SESSION_COOKIE = 'checkout_session';
export const SESSION_TTL_SECONDS = 30 * 24 * 60 * 60;

export interface MerchantClaims {
  merchantId: string;
  shopDomain: string;
  /** The team member a session or a two-factor challenge is for; null or absent: the account holder. */
  memberId?: string | null;
}

interface TokenPayload extends MerchantClaims {
  /** The session (merchant_sessions.id) a login token belongs to. */
  sid?: string;
  /** Set on short-lived tokens that only open one door (e.g. 'storefront-a-install'); never a session. */
  purpose?: string;
  /** On purpose tokens only: the member they are for (a two-factor challenge). Sessions keep the member on their row. */
  mid?: string;
  iat?: number;
  exp?: number;
}

declare module '@fastify/jwt' {
  interface FastifyJWT {
    payload: TokenPayload;
    user: TokenPayload;
  }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope an API key needs to call this merchant route (its access is the method's: GET reads, others write). */
    apiKeyScope?: ApiKeyScope;
    /** Instead of a scope: this merchant route is for dashboard sessions of these member roles only (keys get 403). */
    sessionOnly?: readonly MemberRole[];
  }
  interface FastifyInstance {
    /**
     * onRequest hook (runs before body validation): 401 unless a valid session token or API key is presented (a key
     * also needs the route's scope: 403); sets request.merchant (and request.apiKey for a key).
     */
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    /** Every route registered with `onRequest: app.authenticate`, with what it declares (HEAD twins of GETs included). */
    authenticatedRoutes: ReadonlyArray<{ method: string; url: string; auth: RouteAuth }>;
    /** Starts a session: its row, its 30-day token, and the session cookie on the reply. */
    startSession: (reply: FastifyReply, claims: MerchantClaims) => Promise<string>;
    /** A session row and its token, without a cookie (API clients, tests). */
    issueSessionToken: (claims: MerchantClaims) => Promise<string>;
    /** Ends the session of the token this request carries, if it carries a valid one; answers whether it did. */
    endSession: (request: FastifyRequest) => Promise<boolean>;
    /** Ends every session of one person (the account holder when memberId is null); answers how many were live. */
    endAllSessions: (merchantId: string, memberId: string | null) => Promise<number>;
    /** A short-lived token for one purpose (handoffs through a browser redirect). */
    signPurposeToken: (claims: MerchantClaims, purpose: string, ttlSeconds: number) => string;
    /** Verifies a purpose token; throws UNAUTHORIZED when it is not valid for that purpose. */
    verifyPurposeToken: (token: string, purpose: string) => MerchantClaims;
  }
  interface FastifyRequest {
    /**
     * sessionId: the dashboard session's id; null when the caller is an API key. memberId: the team member signed in
     * (null: the account holder, or a key); role: the session's role (the account holder is an owner; a key: owner,
     * held to its own scopes instead).
     */
    merchant: { merchantId: string; shopDomain: string; sessionId: string | null; memberId: string | null; role: MemberRole };
    /** The API key the request authenticated with; null for a session. */
    apiKey: AuthenticatedApiKey | null;
    /**
     * The caller's data (model/merchant/merchant-scope.ts): every table of the merchant with `merchantId` built in, taken from
     * `request.merchant` and nowhere else. Only on routes that authenticate: elsewhere reading it throws.
     */
    readonly merchantData: MerchantScope;
  }
}

export interface AuthenticatedApiKey {
  id: string;
  scopes: string[];
  mode: ApiKeyMode;
}

export interface AuthOptions {
  db: Db;
  /** The keys this deployment accepts (config.apiKeyMode): the other mode's are refused. */
  apiKeyMode: ApiKeyMode;
  secret: string;
  secureCookie: boolean;
  /** The dashboard's origin: the only one whose requests may authenticate with the cookie. */
  appOrigin: string;
}

/** last_used_at is written at most this often per key, so a busy key does not write on every request. */
const LAST_USED_EVERY_MS = 60_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function verify(app: FastifyInstance, token: string): TokenPayload {
  try {
    return app.jwt.verify<TokenPayload>(token);
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new AppError('UNAUTHORIZED', code === 'FAST_JWT_EXPIRED' ? 'Session expired: log in again' : 'Invalid session token');
  }
}

interface SessionRow {
  id: string;
  shop_domain: string | null;
  password_changed_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  member_id: string | null;
  member_role: 'OWNER' | 'ADMIN' | 'STAFF' | null;
  member_password_changed_at: Date | null;
}

export const authPlugin = fp(async (app: FastifyInstance, opts: AuthOptions) => {
  await app.register(cookie);
  await app.register(jwt, {
    secret: opts.secret,
    sign: { algorithm: 'HS256', expiresIn: SESSION_TTL_SECONDS },
    verify: { algorithms: ['HS256'], maxAge: SESSION_TTL_SECONDS * 1000 },
  });
  app.decorateRequest('merchant', null as unknown as FastifyRequest['merchant']);
  app.decorateRequest('apiKey', null);
  // Built on first use, once per request.
  const scopes = new WeakMap<FastifyRequest, MerchantScope>();
  app.decorateRequest('merchantData', {
    getter(this: FastifyRequest) {
      if (!this.merchant) throw new Error('request.merchantData is for routes with onRequest: app.authenticate');
      let scope = scopes.get(this);
      if (!scope) scopes.set(this, (scope = merchantScope(opts.db, this.merchant.merchantId)));
      return scope;
    },
  });

  /** The token a request presents: the bearer header, else the cookie — the latter only from the dashboard's origin. */
  function presentedToken(request: FastifyRequest): { token: string; from: 'header' | 'cookie' } | undefined {
    const header = request.headers.authorization;
    if (header !== undefined) {
      const match = /^Bearer\s+(\S+)$/i.exec(header);
      if (!match) throw new AppError('UNAUTHORIZED', 'Authorization header must be "Bearer <token>"');
      return { token: match[1]!, from: 'header' };
    }
    const fromCookie = request.cookies[SESSION_COOKIE] || undefined;
    const origin = request.headers.origin;
    if (fromCookie && origin !== undefined && origin !== opts.appOrigin) {
      throw new AppError('ORIGIN_NOT_ALLOWED', 'The session cookie is only accepted from the dashboard: another origin must send a bearer token');
    }
    return fromCookie ? { token: fromCookie, from: 'cookie' } : undefined;
  }

  /** The merchant, the session and its member (if any) of a login token, in one query; 401 unless all are alive. */
  async function sessionOf(payload: TokenPayload): Promise<FastifyRequest['merchant']> {
    const { merchantId, sid } = payload;
    if (payload.purpose || typeof merchantId !== 'string' || !UUID.test(merchantId)) throw new AppError('UNAUTHORIZED', 'Invalid session token');
    // Tokens from before sessions had ids cannot be ended by a logout: they are not accepted any more.
    if (typeof sid !== 'string' || !UUID.test(sid)) throw new AppError('UNAUTHORIZED', 'This session has ended: log in again');
    // A removed member's sessions are deleted with it (ON DELETE CASCADE): its token finds no row.
    const [row] = await opts.db.$queryRaw<SessionRow[]>`
      SELECT m.id, m.shop_domain, m.password_changed_at, s.expires_at, s.revoked_at,
             s.member_id, mm.role::text AS member_role, mm.password_changed_at AS member_password_changed_at
      FROM merchant_sessions s JOIN merchants m ON m.id = s.merchant_id
      LEFT JOIN merchant_members mm ON mm.id = s.member_id AND mm.merchant_id = s.merchant_id
      WHERE s.id = ${sid}::uuid AND m.id = ${merchantId}::uuid`.catch(() => []);
    if (!row || (row.member_id !== null && row.member_role === null)) throw new AppError('UNAUTHORIZED', 'Invalid session token');
    if (row.revoked_at || row.expires_at.getTime() <= Date.now()) throw new AppError('UNAUTHORIZED', 'This session has ended: log in again');
    // JWT iat has one-second precision: a token issued in the same second as the change stays valid. Each person's
    // own password change counts: the account holder's does not sign members out, nor the reverse.
    const changedAt = row.member_password_changed_at ?? row.password_changed_at;
    if (payload.iat !== undefined && payload.iat < Math.floor(changedAt.getTime() / 1000)) {
      throw new AppError('UNAUTHORIZED', 'Session ended by a password change: log in again');
    }
    return { merchantId: row.id, shopDomain: row.shop_domain ?? '', sessionId: sid, memberId: row.member_id, role: row.member_role ? roleFromDb(row.member_role) : 'owner' };
  }

  /** What the route declares (checked when it registered). */
  const declaredAuth = (request: FastifyRequest): RouteAuth => request.routeOptions.config as RouteAuth;

  /**
   * A session may call this route: its role holds the route's scope (the same declaration and `grants` as a key),
   * or, for a session-only route, the route names its role (domain/merchant/roles.ts).
   */
  function checkRole(request: FastifyRequest, role: MemberRole) {
    const decision = roleDecision(role, declaredAuth(request));
    if (decision.allowed) return;
    if (decision.requiredScope) {
      throw new AppError('FORBIDDEN', `Your role (${role}) does not have the ${decision.requiredScope} scope this route needs: ask an owner or admin`, { role, requiredScope: decision.requiredScope });
    }
    const roles = decision.allowedRoles ?? [];
    throw new AppError('FORBIDDEN', `Only ${roles.join(' and ')} members may do this; your role is ${role}`, { role, allowedRoles: [...roles] });
  }

  /** The merchant and the key of an API key; 401 unless the key is well-formed, of this environment, known and alive. */
  async function apiKeyOf(key: string): Promise<{ merchant: MerchantClaims; apiKey: AuthenticatedApiKey }> {
    const mode = apiKeyModeOf(key);
    if (!mode) throw new AppError('UNAUTHORIZED', `Malformed API key: a key is ${apiKeyPrefix(opts.apiKeyMode)} followed by 43 letters and digits`);
    // Checked before any lookup: a production key pasted into a development stack (or the reverse) never works.
    if (mode !== opts.apiKeyMode) {
      throw new AppError('UNAUTHORIZED', `This is a ${mode} API key (${apiKeyPrefix(mode)}…): this deployment accepts ${opts.apiKeyMode} keys (${apiKeyPrefix(opts.apiKeyMode)}…) only`);
    }
    // Found by the hash's unique index: equality on a SHA-256 leaks nothing usable about the secret through timing.
    const row = await opts.db.apiKey.findUnique({
      where: { secretHash: hashApiKey(key) },
      select: { id: true, merchantId: true, mode: true, scopes: true, expiresAt: true, revokedAt: true, rolledToId: true, lastUsedAt: true, merchant: { select: { shopDomain: true } } },
    });
    // A row of the other mode can only come from a database copied across environments: refused the same way.
    if (!row || row.mode !== (mode === 'live' ? 'LIVE' : 'TEST')) throw new AppError('UNAUTHORIZED', 'Unknown API key');
    const now = new Date();
    if (row.revokedAt) throw new AppError('UNAUTHORIZED', 'This API key was revoked');
    if (row.expiresAt && row.expiresAt <= now) {
      throw new AppError('UNAUTHORIZED', row.rolledToId
        ? `This API key was rolled and stopped working at ${row.expiresAt.toISOString()}: use its replacement`
        : `This API key expired at ${row.expiresAt.toISOString()}`);
    }
    if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_EVERY_MS) {
      // Conditional, so replicas serving the same key at once still write once a minute.
      await opts.db.apiKey.updateMany({ where: { id: row.id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now.getTime() - LAST_USED_EVERY_MS) } }] }, data: { lastUsedAt: now } });
    }
    return { merchant: { merchantId: row.merchantId, shopDomain: row.merchant.shopDomain ?? '' }, apiKey: { id: row.id, scopes: row.scopes, mode } };
  }

  /** A key may call this route: it declares a scope and the key holds it (write implies read). */
  function checkScope(request: FastifyRequest, apiKey: AuthenticatedApiKey) {
    const scope = declaredAuth(request).apiKeyScope;
    if (!scope) {
      throw new AppError('FORBIDDEN', 'This route needs a dashboard session: API keys cannot call it (API key management, the account\'s credentials and sessions)');
    }
    if (!grants(apiKey.scopes, scope)) {
      throw new AppError('FORBIDDEN', `This API key does not have the ${scope} scope this route needs`, { requiredScope: scope });
    }
  }

  const authenticate = async (request: FastifyRequest, reply: FastifyReply) => {
    const presented = presentedToken(request);
    if (!presented) throw new AppError('UNAUTHORIZED', 'Log in first: no session token');
    // Counted as a failed authentication until it authenticates (api/plugins/rate-limits.ts): an address with too many
    // is refused here, before the token is verified or looked up.
    await app.failures.attempt('auth', request, reply);
    try {
      await authenticateWith(presented, request, reply);
    } catch (err) {
      // Authenticated, then refused for another reason (a key's scope or its own limit): not a failed authentication.
      if (!(err instanceof AppError && err.code === 'UNAUTHORIZED')) await app.failures.succeeded(request);
      throw err;
    }
    await app.failures.succeeded(request);
  };

  async function authenticateWith(presented: { token: string; from: 'header' | 'cookie' }, request: FastifyRequest, reply: FastifyReply) {
    if (looksLikeApiKey(presented.token)) {
      if (presented.from === 'cookie') throw new AppError('UNAUTHORIZED', 'API keys are accepted in the Authorization header only');
      const { merchant, apiKey } = await apiKeyOf(presented.token);
      request.merchant = { merchantId: merchant.merchantId, shopDomain: merchant.shopDomain, sessionId: null, memberId: null, role: 'owner' };
      request.apiKey = apiKey;
      // Every request of a key counts, the ones its scopes refuse too.
      await app.limitApiKey(request, reply);
      checkScope(request, apiKey);
      return;
    }
    request.merchant = await sessionOf(verify(app, presented.token));
    checkRole(request, request.merchant.role);
  }
  app.decorate('authenticate', authenticate);

  // A route that authenticates merchants must say where it is defined what a key needs to call it (domain/merchant/api-keys.ts
  // RouteAuth): registering one without a right declaration fails at start-up, so no route accepts or refuses keys by
  // omission, and no GET asks for a write scope nor a POST for a read one.
  const authenticatedRoutes: Array<{ method: string; url: string; auth: RouteAuth }> = [];
  app.decorate('authenticatedRoutes', authenticatedRoutes);
  app.addHook('onRoute', (route) => {
    if (![route.onRequest].flat().includes(authenticate)) return;
    const declared = { apiKeyScope: route.config?.apiKeyScope, sessionOnly: route.config?.sessionOnly } as Partial<RouteAuth>;
    for (const method of [route.method].flat()) {
      const problem = routeAuthProblem(method, declared);
      if (problem) {
        throw new Error(`${method} ${route.url} authenticates merchants but ${problem}: say in its config which scope an API key needs for it (apiKeyScope), or that it is for dashboard sessions only and for which roles (sessionOnly)`);
      }
      authenticatedRoutes.push({ method, url: route.url, auth: declared as RouteAuth });
    }
  });

  async function issueSessionToken(claims: MerchantClaims): Promise<string> {
    const now = Date.now();
    const session = await opts.db.merchantSession.create({ data: { merchantId: claims.merchantId, memberId: claims.memberId ?? null, expiresAt: new Date(now + SESSION_TTL_SECONDS * 1000) } });
    // Sessions nobody can use any more (expired, or ended over a day ago) are cleared as new ones start.
    await opts.db.merchantSession.deleteMany({ where: { merchantId: claims.merchantId, OR: [{ expiresAt: { lt: new Date(now) } }, { revokedAt: { lt: new Date(now - 24 * 60 * 60 * 1000) } }] } });
    return app.jwt.sign({ merchantId: claims.merchantId, shopDomain: claims.shopDomain, sid: session.id });
  }
  app.decorate('issueSessionToken', issueSessionToken);

  app.decorate('startSession', async (reply: FastifyReply, claims: MerchantClaims) => {
    const token = await issueSessionToken(claims);
    reply.setCookie(SESSION_COOKIE, token, {
      httpOnly: true,
      secure: opts.secureCookie,
      sameSite: 'lax',
      path: '/',
      maxAge: SESSION_TTL_SECONDS,
    });
    return token;
  });

  app.decorate('endSession', async (request: FastifyRequest) => {
    let payload: TokenPayload;
    try {
      const presented = presentedToken(request);
      if (!presented) return false;
      payload = verify(app, presented.token);
    } catch {
      // Nothing valid to end (a cookie from another origin is not used either).
      return false;
    }
    if (payload.purpose || typeof payload.sid !== 'string' || !UUID.test(payload.sid) || typeof payload.merchantId !== 'string' || !UUID.test(payload.merchantId)) return false;
    const { count } = await opts.db.merchantSession.updateMany({ where: { id: payload.sid, merchantId: payload.merchantId, revokedAt: null }, data: { revokedAt: new Date() } });
    return count > 0;
  });

  app.decorate('endAllSessions', async (merchantId: string, memberId: string | null) => {
    const { count } = await opts.db.merchantSession.updateMany({ where: { merchantId, memberId, revokedAt: null, expiresAt: { gt: new Date() } }, data: { revokedAt: new Date() } });
    return count;
  });

  app.decorate('signPurposeToken', (claims: MerchantClaims, purpose: string, ttlSeconds: number) =>
    app.jwt.sign({ merchantId: claims.merchantId, shopDomain: claims.shopDomain, purpose, ...(claims.memberId ? { mid: claims.memberId } : {}) }, { expiresIn: ttlSeconds }),
  );

  app.decorate('verifyPurposeToken', (token: string, purpose: string) => {
    const payload = verify(app, token);
    if (payload.purpose !== purpose) throw new AppError('UNAUTHORIZED', 'This link is not valid here');
    return { merchantId: payload.merchantId, shopDomain: payload.shopDomain, memberId: typeof payload.mid === 'string' && UUID.test(payload.mid) ? payload.mid : null };
  });
}, { name: 'auth', dependencies: ['rate-limits'] });
