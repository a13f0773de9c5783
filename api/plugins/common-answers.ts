// The answers a route gives through the app's plugins rather than its own handler, added to every route's
// declared responses as it registers, so the OpenAPI document lists each status a route can answer (and
// each such body is serialized against the Error schema like the route's own errors):
//   400 INVALID_INPUT       the route validates input (params, query, headers or body), or takes a body
//                           that may be malformed JSON
//   401 UNAUTHORIZED        the route declares bearer security (api/plugins/auth.ts)
//   403 ORIGIN_NOT_ALLOWED  an Origin outside the CORS allowlist, on any route (api/plugins/cors.ts); on bearer routes
//                           also FORBIDDEN: an API key without the route's scope, or on a session-only route
//   409 CONFLICT            a bearer POST whose Idempotency-Key is still running (api/plugins/idempotency.ts)
//   422 IDEMPOTENCY_KEY_REUSED  a bearer POST whose Idempotency-Key was used for another request
//   413 PAYLOAD_TOO_LARGE   a body over BODY_LIMIT_BYTES, on any route (api/plugins/request-limits.ts)
//   414 URI_TOO_LONG        a path parameter longer than the router takes (Fastify's maxParamLength)
//   415 UNSUPPORTED_MEDIA_TYPE  a body that is not JSON, on a route that takes one
//   429 RATE_LIMITED        the route has a rate limit, or declares bearer security (an API key's own limit, or the
//                           address's failed authentications)
//                           (api/plugins/rate-limits.ts), with Retry-After
// Register it before the routes and after @fastify/swagger (which reads the routes' schemas when the document
// is generated). Routes hidden from the document are left alone.
import fp from 'fastify-plugin';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { errorResponse } from '../schemas/common.js';
import { isIdempotentRoute } from './idempotency.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The statuses the app's plugins may answer on this route. */
export function commonStatuses(route: Pick<RouteOptions, 'method' | 'url' | 'schema' | 'config'>): number[] {
  const schema = route.schema ?? {};
  const takesBody = [route.method].flat().some((m) => BODY_METHODS.has(m.toUpperCase()));
  const statuses = [403, 413];
  if (takesBody || schema.body || schema.querystring || schema.params || schema.headers) statuses.push(400);
  const bearer = Array.isArray(schema.security) && schema.security.length > 0;
  if (bearer) statuses.push(401);
  if (isIdempotentRoute(route)) statuses.push(409, 422);
  if (/[:*]/.test(route.url)) statuses.push(414);
  if (takesBody) statuses.push(415);
  if (bearer || (route.config as { rateLimit?: unknown } | undefined)?.rateLimit) statuses.push(429);
  return statuses.sort((a, b) => a - b);
}

export const commonAnswersPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onRoute', (route) => {
    if (!route.schema || route.schema.hide) return;
    const response = { ...(route.schema.response as Record<string, unknown> | undefined) };
    for (const status of commonStatuses(route)) response[status] ??= errorResponse;
    route.schema = { ...route.schema, response };
  });
}, { name: 'common-answers' });
