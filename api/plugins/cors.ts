// The spec's CORS allowlist; any other Origin gets 403 ORIGIN_NOT_ALLOWED (requests without an Origin
// header — server-to-server calls, webhooks, curl — are not cross-origin and pass):
//   1. the service's main web origin;
//   2. any subdomain of the service domain (merchant checkouts);
//   3. https://checkout.<domain> and https://<domain> of a verified custom domain (asked of `customOrigin`);
//   4. https://<shop><storefront A shop suffix>, and the https domains of connected storefront A shops (primary
//      and others, stored at install and on shop/domain webhooks), for the app embed's call to create.
// Outside production, http is accepted for 2 and 3 (local checkouts keep http and the API port), and the
// sandbox's own pages are allowed.
//
// Only the main web origin (the dashboard) gets credentialed CORS (Access-Control-Allow-Credentials): the
// others call the public checkout routes, which need no cookie, and a shop page or a checkout subdomain must
// never act with a logged-in merchant's cookie. The auth plugin also refuses the cookie on any request whose
// Origin is not the dashboard's, since a "simple" cross-site POST is sent without asking CORS first.
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.js';

export interface OriginPolicy {
  appOrigin: string;
  serviceDomain: string;
  storefrontAShopSuffix: string;
  /** http:// origins are accepted for the service domain (local development and tests). */
  allowHttp: boolean;
  /** Exact extra origins (the sandbox pages in local runs). */
  extraOrigins: string[];
  /** Whether this host is a verified custom checkout domain (or its apex). */
  isCustomDomainHost?: (host: string) => Promise<boolean>;
  /** Whether this https origin is a domain of a connected storefront A shop. */
  isShopOrigin?: (origin: string) => Promise<boolean>;
}

function parseOrigin(origin: string): URL | undefined {
  try {
    const url = new URL(origin);
    return url.origin === origin ? url : undefined;
  } catch {
    return undefined;
  }
}

export async function isAllowedOrigin(origin: string, policy: OriginPolicy): Promise<boolean> {
  if (origin === policy.appOrigin || policy.extraOrigins.includes(origin)) return true;
  const url = parseOrigin(origin);
  if (!url) return false;
  const host = url.hostname.toLowerCase();
  const secure = url.protocol === 'https:';
  const schemeOk = secure || (policy.allowHttp && url.protocol === 'http:');
  const domain = policy.serviceDomain.toLowerCase();
  if (schemeOk && (host === domain || host.endsWith(`.${domain}`))) return true;
  if (secure && host.endsWith(policy.storefrontAShopSuffix) && host.length > policy.storefrontAShopSuffix.length) return true;
  if (secure && policy.isShopOrigin && (await policy.isShopOrigin(url.origin))) return true;
  if (schemeOk && policy.isCustomDomainHost) return policy.isCustomDomainHost(host);
  return false;
}

export const corsPlugin = fp(async (app: FastifyInstance, policy: OriginPolicy) => {
  // Synchronous (done callback) for the requests without an Origin (same-origin page loads and reads, servers): no
  // promise per request; only a cross-origin request waits for the origin check.
  app.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    if (!origin) return done();
    // A preflight is answered here (204): the request goes no further, so done is not called for it.
    answerCors(request, reply, origin).then(() => reply.sent || done(), done);
  });

  async function answerCors(request: FastifyRequest, reply: FastifyReply, origin: string): Promise<void> {
    if (!(await isAllowedOrigin(origin, policy))) {
      throw new AppError('ORIGIN_NOT_ALLOWED', `Origin ${origin} is not allowed`);
    }
    reply.header('access-control-allow-origin', origin);
    if (origin === policy.appOrigin) reply.header('access-control-allow-credentials', 'true');
    reply.header('vary', 'Origin');
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) {
      reply
        .header('access-control-allow-methods', 'GET,POST,PATCH,PUT,DELETE,OPTIONS')
        .header('access-control-allow-headers', request.headers['access-control-request-headers'] ?? 'content-type,authorization')
        .header('access-control-max-age', '600')
        .code(204)
        .send();
    }
  }
}, { name: 'cors' });
