// Per-IP rate limits for the routes that need them (login, register, password reset and the checkout's
// dedicated limiters). The client IP is the socket's, or X-Forwarded-For's only when TRUST_PROXY says a
// known proxy sits in front (Fastify's request.ip), so a caller cannot spoof its way past a limit.
// Over a limit: 429 RATE_LIMITED with Retry-After (seconds).
//
// Counters live in Redis when REDIS_URL is set, so every API replica counts against the same limit (two
// replicas with memory counters would each allow the full limit); without it, in process memory, which is
// right for `npm start`'s one process only. A Redis that does not answer fails open: the request is served
// unlimited (and logged) rather than a checkout refused because a counter store is down.
import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import { Redis } from 'ioredis';
import type { FastifyInstance } from 'fastify';
import type { Config, RateLimitName } from '../../config/index.js';
import { AppError } from '../../domain/errors.js';

export interface RateLimitsOptions {
  /** redis://… shared by every replica; undefined: counters in this process's memory. */
  redisUrl?: string;
}

/** Keys of this service's counters in a Redis that may be shared with other uses. */
export const RATE_LIMIT_KEY_PREFIX = 'checkout:rate-limit:';

export const rateLimitsPlugin = fp(async (app: FastifyInstance, opts: RateLimitsOptions) => {
  let redis: Redis | undefined;
  if (opts.redisUrl) {
    // No offline queue and one attempt per command: while Redis is away a request fails open at once
    // instead of waiting for a reconnect.
    redis = new Redis(opts.redisUrl, { lazyConnect: false, enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000, commandTimeout: 1_000 });
    let reported = false;
    redis.on('error', (err: Error) => {
      if (!reported) app.log.warn({ err: err.message }, 'rate limits: Redis unavailable, limits are not enforced until it answers');
      reported = true;
    });
    redis.on('ready', () => (reported = false));
    app.addHook('onClose', async () => {
      redis?.disconnect();
    });
    // The first requests count too: give Redis a moment to connect before the app serves (a Redis that
    // is down does not stop the API from starting; it fails open until it answers).
    const connected = redis;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2_000);
      connected.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  await app.register(rateLimit, {
    global: false,
    keyGenerator: (request) => request.ip,
    ...(redis ? { redis, nameSpace: RATE_LIMIT_KEY_PREFIX, skipOnError: true } : {}),
    errorResponseBuilder: (_request, context) =>
      Object.assign(new AppError('RATE_LIMITED', `Too many requests: try again in ${context.after}`), { statusCode: 429 }),
  });
}, { name: 'rate-limits' });

/** Route option: `config: limit(config, 'login')`. Each route keeps its own counter per IP. */
export function limit(config: Config, name: RateLimitName) {
  const { max, windowSeconds } = config.rateLimits[name];
  return { rateLimit: { max, timeWindow: windowSeconds * 1000 } };
}
