// A method a path does not support answers 405 METHOD_NOT_ALLOWED with an Allow header listing the ones it
// does (RFC 9110 §15.5.6), not the 404 of an unknown path: TRACE /api/merchant/me, QUERY on a session,
// DELETE on a list. Every route is indexed as it registers; a request that found no route (Fastify's 404
// route, or the dashboard's catch-all GET /*, which is not a resource of its own) is checked against that
// index in onRequest, before its body would be read.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.js';

/** The dashboard's history-routing fallback (routes/pages): any GET nothing else answers. */
const CATCH_ALL = '/*';

interface IndexedRoute {
  path: RegExp;
  methods: Set<string>;
}

/** A route url (`/api/checkout/:token/pay`, `/webhooks/storefront-a/*`) as a regex over request paths. */
function pathPattern(url: string): RegExp {
  const source = url
    .split(/(:[A-Za-z0-9_]+|\*)/)
    .map((part) => (part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

export const methodNotAllowedPlugin = fp(async (app: FastifyInstance) => {
  const routes = new Map<string, IndexedRoute>();

  app.addHook('onRoute', (route) => {
    if (route.url === CATCH_ALL) return;
    const indexed = routes.get(route.url) ?? { path: pathPattern(route.url), methods: new Set<string>() };
    for (const method of [route.method].flat()) indexed.methods.add(method.toUpperCase());
    routes.set(route.url, indexed);
  });

  // Synchronous (done callback): it runs on every request and awaits nothing, so no promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    if (!request.is404 && request.routeOptions.url !== CATCH_ALL) return done();
    const path = request.url.split('?')[0]!;
    const allowed = new Set<string>();
    for (const route of routes.values()) if (route.path.test(path)) for (const m of route.methods) allowed.add(m);
    if (allowed.size === 0 || allowed.has(request.method)) return done();
    const allow = [...allowed].sort().join(', ');
    reply.header('allow', allow);
    done(new AppError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}: use ${allow}`));
  });
}, { name: 'method-not-allowed' });
