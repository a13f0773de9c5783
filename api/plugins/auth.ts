// Merchant authentication. A JWT (HS256 only, claims merchantId + shopDomain, 30 days) is accepted as
// `Authorization: Bearer <jwt>` or in the session cookie. Missing, malformed, expired, `alg: none`,
// tampered, purpose-scoped (handoff) tokens, tokens of deleted merchants and tokens issued before the last
// password change all answer 401 UNAUTHORIZED. Routes get the caller as `request.merchant` and take the
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
    /** Signs a 30-day session token and sets the session cookie on the reply. */
    startSession: (reply: FastifyReply, claims: MerchantClaims) => string;
    /** A short-lived token for one purpose (handoffs through a browser redirect). */
    signPurposeToken: (claims: MerchantClaims, purpose: string, ttlSeconds: number) => string;
    /** Verifies a purpose token; throws UNAUTHORIZED when it is not valid for that purpose. */
    verifyPurposeToken: (token: string, purpose: string) => MerchantClaims;
  }
  interface FastifyRequest {
    merchant: MerchantClaims;
  }
}

export interface AuthOptions {
  db: Db;
  secret: string;
  secureCookie: boolean;
}

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) throw new AppError('UNAUTHORIZED', 'Authorization header must be "Bearer <token>"');
    return match[1];
  }
  return request.cookies[SESSION_COOKIE] || undefined;
}

function verify(app: FastifyInstance, token: string): TokenPayload {
  try {
    return app.jwt.verify<TokenPayload>(token);
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new AppError('UNAUTHORIZED', code === 'FAST_JWT_EXPIRED' ? 'Session expired: log in again' : 'Invalid session token');
  }
}

export const authPlugin = fp(async (app: FastifyInstance, opts: AuthOptions) => {
  await app.register(cookie);
  await app.register(jwt, {
    secret: opts.secret,
    sign: { algorithm: 'HS256', expiresIn: SESSION_TTL_SECONDS },
    verify: { algorithms: ['HS256'], maxAge: SESSION_TTL_SECONDS * 1000 },
  });
  app.decorateRequest('merchant', null as unknown as MerchantClaims);

  app.decorate('authenticate', async (request: FastifyRequest) => {
    const token = bearer(request);
    if (!token) throw new AppError('UNAUTHORIZED', 'Log in first: no session token');
    const payload = verify(app, token);
    if (payload.purpose || typeof payload.merchantId !== 'string') throw new AppError('UNAUTHORIZED', 'Invalid session token');
    const merchant = await opts.db.merchant.findUnique({ where: { id: payload.merchantId }, select: { id: true, shopDomain: true, passwordChangedAt: true } }).catch(() => null);
    if (!merchant) throw new AppError('UNAUTHORIZED', 'Invalid session token');
    // JWT iat has one-second precision: a token issued in the same second as the change stays valid.
    if (payload.iat !== undefined && payload.iat < Math.floor(merchant.passwordChangedAt.getTime() / 1000)) {
      throw new AppError('UNAUTHORIZED', 'Session ended by a password change: log in again');
    }
    request.merchant = { merchantId: merchant.id, shopDomain: merchant.shopDomain ?? '' };
  });

  app.decorate('startSession', (reply: FastifyReply, claims: MerchantClaims) => {
    const token = app.jwt.sign({ merchantId: claims.merchantId, shopDomain: claims.shopDomain });
    reply.setCookie(SESSION_COOKIE, token, {
      httpOnly: true,
      secure: opts.secureCookie,
      sameSite: 'lax',
      path: '/',
      maxAge: SESSION_TTL_SECONDS,
    });
    return token;
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
