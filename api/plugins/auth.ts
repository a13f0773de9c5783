// Merchant authentication. A session JWT (HS256 only, claims merchantId + shopDomain + sid, 30 days) is
// accepted as `Authorization: Bearer <jwt>` or in the session cookie. Its `sid` names a merchant_sessions row:
// logout revokes it, "log out everywhere" revokes all of the merchant's, so a token stops working the moment
// its session ends, not when it expires. Missing, malformed, expired, `alg: none`, tampered, purpose-scoped
// (handoff) tokens, tokens without a live session, tokens of deleted merchants and tokens issued before the
// last password change all answer 401 UNAUTHORIZED. The cookie is only accepted from the dashboard's own
// origin (config.appOrigin): a request another origin makes with it (a "simple" cross-site POST needs no
// preflight) answers 403 ORIGIN_NOT_ALLOWED. Routes get the caller as `request.merchant` and take the
// merchant id from it only, never from the URL: that is what scopes every merchant route by construction.
import fp from 'fastify-plugin';
import jwt from '@fastify/jwt';
import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../prisma/client.js';
import { AppError } from '../../domain/errors.js';

export const SESSION_COOKIE = 'checkout_session';
export const SESSION_TTL_SECONDS = 30 * 24 * 60 * 60;

export interface MerchantClaims {
  merchantId: string;
  shopDomain: string;
}

interface TokenPayload extends MerchantClaims {
  /** The session (merchant_sessions.id) a login token belongs to. */
  sid?: string;
  /** Set on short-lived tokens that only open one door (e.g. 'storefront-a-install'); never a session. */
  purpose?: string;
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
  interface FastifyInstance {
    /** onRequest hook (runs before body validation): 401 unless a valid session token is presented; sets request.merchant. */
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    /** Starts a session: its row, its 30-day token, and the session cookie on the reply. */
    startSession: (reply: FastifyReply, claims: MerchantClaims) => Promise<string>;
    /** A session row and its token, without a cookie (API clients, tests). */
    issueSessionToken: (claims: MerchantClaims) => Promise<string>;
    /** Ends the session of the token this request carries, if it carries a valid one; answers whether it did. */
    endSession: (request: FastifyRequest) => Promise<boolean>;
    /** Ends every session of the merchant; answers how many were live. */
    endAllSessions: (merchantId: string) => Promise<number>;
    /** A short-lived token for one purpose (handoffs through a browser redirect). */
    signPurposeToken: (claims: MerchantClaims, purpose: string, ttlSeconds: number) => string;
    /** Verifies a purpose token; throws UNAUTHORIZED when it is not valid for that purpose. */
    verifyPurposeToken: (token: string, purpose: string) => MerchantClaims;
  }
  interface FastifyRequest {
    merchant: MerchantClaims & { sessionId: string };
  }
}

export interface AuthOptions {
  db: Db;
  secret: string;
  secureCookie: boolean;
  /** The dashboard's origin: the only one whose requests may authenticate with the cookie. */
  appOrigin: string;
}

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
}

export const authPlugin = fp(async (app: FastifyInstance, opts: AuthOptions) => {
  await app.register(cookie);
  await app.register(jwt, {
    secret: opts.secret,
    sign: { algorithm: 'HS256', expiresIn: SESSION_TTL_SECONDS },
    verify: { algorithms: ['HS256'], maxAge: SESSION_TTL_SECONDS * 1000 },
  });
  app.decorateRequest('merchant', null as unknown as FastifyRequest['merchant']);

  /** The token a request presents: the bearer header, else the cookie — the latter only from the dashboard's origin. */
  function presentedToken(request: FastifyRequest): string | undefined {
    const header = request.headers.authorization;
    if (header !== undefined) {
      const match = /^Bearer\s+(\S+)$/i.exec(header);
      if (!match) throw new AppError('UNAUTHORIZED', 'Authorization header must be "Bearer <token>"');
      return match[1];
    }
    const fromCookie = request.cookies[SESSION_COOKIE] || undefined;
    const origin = request.headers.origin;
    if (fromCookie && origin !== undefined && origin !== opts.appOrigin) {
      throw new AppError('ORIGIN_NOT_ALLOWED', 'The session cookie is only accepted from the dashboard: another origin must send a bearer token');
    }
    return fromCookie;
  }

  /** The merchant and the session of a login token, in one query; 401 unless both are alive. */
  async function sessionOf(payload: TokenPayload): Promise<MerchantClaims & { sessionId: string }> {
    const { merchantId, sid } = payload;
    if (payload.purpose || typeof merchantId !== 'string' || !UUID.test(merchantId)) throw new AppError('UNAUTHORIZED', 'Invalid session token');
    // Tokens from before sessions had ids cannot be ended by a logout: they are not accepted any more.
    if (typeof sid !== 'string' || !UUID.test(sid)) throw new AppError('UNAUTHORIZED', 'This session has ended: log in again');
    const [row] = await opts.db.$queryRaw<SessionRow[]>`
      SELECT m.id, m.shop_domain, m.password_changed_at, s.expires_at, s.revoked_at
      FROM merchant_sessions s JOIN merchants m ON m.id = s.merchant_id
      WHERE s.id = ${sid}::uuid AND m.id = ${merchantId}::uuid`.catch(() => []);
    if (!row) throw new AppError('UNAUTHORIZED', 'Invalid session token');
    if (row.revoked_at || row.expires_at.getTime() <= Date.now()) throw new AppError('UNAUTHORIZED', 'This session has ended: log in again');
    // JWT iat has one-second precision: a token issued in the same second as the change stays valid.
    if (payload.iat !== undefined && payload.iat < Math.floor(row.password_changed_at.getTime() / 1000)) {
      throw new AppError('UNAUTHORIZED', 'Session ended by a password change: log in again');
    }
    return { merchantId: row.id, shopDomain: row.shop_domain ?? '', sessionId: sid };
  }

  app.decorate('authenticate', async (request: FastifyRequest) => {
    const token = presentedToken(request);
    if (!token) throw new AppError('UNAUTHORIZED', 'Log in first: no session token');
    request.merchant = await sessionOf(verify(app, token));
  });

  async function issueSessionToken(claims: MerchantClaims): Promise<string> {
    const now = Date.now();
    const session = await opts.db.merchantSession.create({ data: { merchantId: claims.merchantId, expiresAt: new Date(now + SESSION_TTL_SECONDS * 1000) } });
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
      const token = presentedToken(request);
      if (!token) return false;
      payload = verify(app, token);
    } catch {
      // Nothing valid to end (a cookie from another origin is not used either).
      return false;
    }
    if (payload.purpose || typeof payload.sid !== 'string' || !UUID.test(payload.sid) || typeof payload.merchantId !== 'string' || !UUID.test(payload.merchantId)) return false;
    const { count } = await opts.db.merchantSession.updateMany({ where: { id: payload.sid, merchantId: payload.merchantId, revokedAt: null }, data: { revokedAt: new Date() } });
    return count > 0;
  });

  app.decorate('endAllSessions', async (merchantId: string) => {
    const { count } = await opts.db.merchantSession.updateMany({ where: { merchantId, revokedAt: null, expiresAt: { gt: new Date() } }, data: { revokedAt: new Date() } });
    return count;
  });

  app.decorate('signPurposeToken', (claims: MerchantClaims, purpose: string, ttlSeconds: number) =>
    app.jwt.sign({ merchantId: claims.merchantId, shopDomain: claims.shopDomain, purpose }, { expiresIn: ttlSeconds }),
  );

  app.decorate('verifyPurposeToken', (token: string, purpose: string) => {
    const payload = verify(app, token);
    if (payload.purpose !== purpose) throw new AppError('UNAUTHORIZED', 'This link is not valid here');
    return { merchantId: payload.merchantId, shopDomain: payload.shopDomain };
  });
}, { name: 'auth' });
