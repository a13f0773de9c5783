// Per-IP rate limits for the routes that need them (login, register, password reset and the checkout's
// dedicated limiters). The client IP is the socket's, or X-Forwarded-For's only when TRUST_PROXY says a
// known proxy sits in front (Fastify's request.ip), so a caller cannot spoof its way past a limit.
// Over a limit: 429 RATE_LIMITED with Retry-After (seconds).
//
// API keys have a limit of their own (RATE_LIMIT_API_KEY), counted per key rather than per IP, on every merchant
// route the key calls: the auth plugin runs it (`app.limitApiKey`) as soon as it knows the key. Its answers carry
// the IETF draft's RateLimit-Limit / -Remaining / -Reset headers, so an integration can pace itself before a 429.
// Dashboard sessions (JWT, cookie) keep the per-route limits above and no other.
//
// Counters live in Redis when REDIS_URL is set, so every API replica counts against the same limit (two
// replicas with memory counters would each allow the full limit); without it, in process memory, which is
// right for `npm start`'s one process only. A Redis that does not answer fails open: the request is served
// unlimited (and logged) rather than a checkout refused because a counter store is down.
import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import { Redis } from 'ioredis';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config, RateLimitName } from '../../config/index.js';
import { AppError } from '../../domain/errors.js';

export interface RateLimitsOptions {
  /** redis://… shared by every replica; undefined: counters in this process's memory. */
  redisUrl?: string;
  /** Requests per window allowed to one API key. */
  apiKey: { max: number; windowSeconds: number };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Counts a request against its API key's limit (request.apiKey must be set); 429 RATE_LIMITED over it. */
    limitApiKey: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  }
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

  const { max, windowSeconds } = opts.apiKey;
  const countKey = app.createRateLimit({ max, timeWindow: windowSeconds * 1000, keyGenerator: (request) => `api-key:${request.apiKey!.id}` });
  app.decorate('limitApiKey', async (request: FastifyRequest, reply: FastifyReply) => {
    const counted = await countKey(request);
    if (counted.isAllowed) return;
    reply.header('ratelimit-limit', counted.max);
    reply.header('ratelimit-remaining', counted.remaining);
    reply.header('ratelimit-reset', counted.ttlInSeconds);
    if (counted.isExceeded) {
      reply.header('retry-after', counted.ttlInSeconds);
      throw new AppError('RATE_LIMITED', `Too many requests with this API key (${max} per ${windowSeconds} s): try again in ${counted.ttlInSeconds} s`);
    }
  });
}, { name: 'rate-limits' });

/** Route option: `config: limit(config, 'login')`. Each route keeps its own counter per IP. */
export function limit(config: Config, name: RateLimitName) {
  const { max, windowSeconds } = config.rateLimits[name];
  return { rateLimit: { max, timeWindow: windowSeconds * 1000 } };
}
