// Per-IP rate limits for the routes that need them (login, register, password reset and the checkout's
// dedicated limiters). The client IP is the socket's, or X-Forwarded-For's only when TRUST_PROXY says a
// known proxy sits in front (Fastify's request.ip), so a caller cannot spoof its way past a limit.
// Over a limit: 429 RATE_LIMITED with Retry-After (seconds).
import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Config, RateLimitName } from '../../config/index.js';
import { AppError } from '../../domain/errors.js';

export const rateLimitsPlugin = fp(async (app: FastifyInstance) => {
  await app.register(rateLimit, {
    global: false,
    keyGenerator: (request) => request.ip,
    errorResponseBuilder: (_request, context) =>
      Object.assign(new AppError('RATE_LIMITED', `Too many requests: try again in ${context.after}`), { statusCode: 429 }),
  });
}, { name: 'rate-limits' });

/** Route option: `config: limit(config, 'login')`. Each route keeps its own counter per IP. */
export function limit(config: Config, name: RateLimitName) {
  const { max, windowSeconds } = config.rateLimits[name];
  return { rateLimit: { max, timeWindow: windowSeconds * 1000 } };
}
