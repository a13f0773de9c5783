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
// Failures before a credential is known are limited per IP too (`app.failures`): requests presenting a credential
// that does not authenticate (an unknown API key costs a database lookup) and webhook deliveries that do not verify
// (each is stored for audit). Each such request is counted when it starts, atomically, and released when it succeeds,
// so what counts is failures plus requests still in flight: a burst of 300 bad keys at once gets as far as the limit,
// not 300 lookups. Over RATE_LIMIT_AUTH_FAILURES (default 100 a minute, above what one API key may send: its own limit
// is 100 per 10 s) an address's authenticated requests answer 429 RATE_LIMITED before any verification or lookup.
// Webhook deliveries are counted per address AND per what they claim to be about (the session, company or shop they
// name, read from the JSON): over RATE_LIMIT_WEBHOOK_FAILURES, the next deliveries from that address claiming the same
// answer 429 before any lookup, verification or write — and a processor's few shared sender addresses failing for one
// merchant (a stale endpoint, a secret out of step) never hold back another merchant's deliveries. Answers carry
// Retry-After and RateLimit-Limit / -Remaining / -Reset with the 429.
//
// Counters live in Redis when REDIS_URL is set, so every API replica counts against the same limit (two
// replicas with memory counters would each allow the full limit); without it, in process memory, which is
// right for `npm start`'s one process only. A Redis that does not answer fails open: the request is served
// unlimited (and logged) rather than a checkout refused because a counter store is down.
import { createHash } from 'node:crypto';
import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import { Redis } from 'ioredis';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config, RateLimitName } from '../../config/index.js';
import { AppError } from '../../domain/errors.js';

export interface Limit {
  max: number;
  windowSeconds: number;
}

/** What failures are counted per IP: presented credentials that do not authenticate; webhook deliveries that do not verify. */
export type FailureKind = 'auth' | 'webhook';

export interface RateLimitsOptions {
  /** redis://… shared by every replica; undefined: counters in this process's memory. */
  redisUrl?: string;
  /** Requests per window allowed to one API key. */
  apiKey: Limit;
  /** Failures per window allowed to one IP, by kind (config RATE_LIMIT_AUTH_FAILURES, RATE_LIMIT_WEBHOOK_FAILURES). */
  failures?: Partial<Record<FailureKind, Limit>>;
}

/** Defaults when the options name none (the config's own defaults are the same). */
export const DEFAULT_FAILURE_LIMITS: Record<FailureKind, Limit> = { auth: { max: 100, windowSeconds: 60 }, webhook: { max: 30, windowSeconds: 60 } };

/** A fixed-window counter per key: count one (atomically, the window opening with the first), or give one back. */
interface Counter {
  add(key: string, windowMs: number): Promise<{ count: number; resetMs: number }>;
  remove(key: string): Promise<void>;
}

function memoryCounter(): Counter {
  const windows = new Map<string, { count: number; endsAt: number }>();
  const live = (key: string) => {
    const w = windows.get(key);
    if (w && w.endsAt <= Date.now()) windows.delete(key);
    return windows.get(key);
  };
  return {
    async add(key, windowMs) {
      // Bounded memory under a flood from many addresses: ended windows are dropped first.
      if (windows.size > 100_000) for (const [k, w] of windows) if (w.endsAt <= Date.now()) windows.delete(k);
      const w = live(key) ?? { count: 0, endsAt: Date.now() + windowMs };
      w.count += 1;
      windows.set(key, w);
      return { count: w.count, resetMs: w.endsAt - Date.now() };
    },
    async remove(key) {
      const w = live(key);
      if (w && w.count > 0) w.count -= 1;
    },
  };
}

/** Gives one back without going below zero or reviving an ended window. */
const REDIS_RELEASE = "local v = tonumber(redis.call('GET', KEYS[1]) or '0') if v > 0 then return redis.call('DECR', KEYS[1]) end return 0";

function redisCounter(redis: Redis): Counter {
  return {
    async add(key, windowMs) {
      const [, [, count], [, ttl]] = (await redis.multi().set(key, 0, 'PX', windowMs, 'NX').incr(key).pttl(key).exec()) as [unknown, [unknown, number], [unknown, number]];
      return { count, resetMs: Math.max(0, ttl) };
    },
    async remove(key) {
      await redis.eval(REDIS_RELEASE, 1, key);
    },
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Counts a request against its API key's limit (request.apiKey must be set); 429 RATE_LIMITED over it. */
    limitApiKey: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    /** Per-IP failure limits (see the top). */
    failures: {
      /**
       * Counts the request as a failure until it succeeds; 429 RATE_LIMITED when the address (and `scope`: what a
       * webhook claims to be about, counted apart) is over the limit.
       */
      attempt: (kind: FailureKind, request: FastifyRequest, reply: FastifyReply, scope?: string) => Promise<void>;
      /** The request succeeded: it no longer counts (a no-op for a request not counted). */
      succeeded: (request: FastifyRequest) => Promise<void>;
    };
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

  // Failures per IP (see the top). A counter store that does not answer fails open, as the limits above do.
  const counter = redis ? redisCounter(redis) : memoryCounter();
  const limits = { ...DEFAULT_FAILURE_LIMITS, ...opts.failures };
  const counted = new WeakMap<FastifyRequest, string>();
  const keyOf = (kind: FailureKind, request: FastifyRequest, scope?: string) =>
    `${RATE_LIMIT_KEY_PREFIX}failures:${kind}:${request.ip}${scope === undefined ? '' : `:${createHash('sha256').update(scope).digest('base64url').slice(0, 16)}`}`;
  const what: Record<FailureKind, string> = { auth: 'failed authentications', webhook: 'webhook deliveries that did not verify' };
  app.decorate('failures', {
    async attempt(kind: FailureKind, request: FastifyRequest, reply: FastifyReply, scope?: string) {
      const { max, windowSeconds } = limits[kind];
      const key = keyOf(kind, request, scope);
      let seen: { count: number; resetMs: number };
      try {
        seen = await counter.add(key, windowSeconds * 1000);
      } catch (err) {
        request.log.warn({ err: (err as Error).message }, 'rate limits: failure counter unavailable, not enforced');
        return;
      }
      if (seen.count <= max) {
        counted.set(request, key);
        return;
      }
      // Headers on the refusal only: an authenticated answer's RateLimit headers are its API key's own limit.
      reply.header('ratelimit-limit', max);
      reply.header('ratelimit-remaining', 0);
      reply.header('ratelimit-reset', Math.ceil(seen.resetMs / 1000));
      // Refused before any work: it gives its count back (else requests in flight when the limit was reached would
      // keep an address locked out after they succeed).
      await counter.remove(key).catch(() => undefined);
      const after = Math.max(1, Math.ceil(seen.resetMs / 1000));
      reply.header('retry-after', after);
      throw new AppError('RATE_LIMITED', `Too many ${what[kind]} from this address (${max} per ${windowSeconds} s): try again in ${after} s`);
    },
    async succeeded(request: FastifyRequest) {
      const key = counted.get(request);
      if (key === undefined) return;
      counted.delete(request);
      try {
        await counter.remove(key);
      } catch (err) {
        request.log.warn({ err: (err as Error).message }, 'rate limits: failure counter unavailable');
      }
    },
  });
}, { name: 'rate-limits' });

/** Route option: `config: limit(config, 'login')`. Each route keeps its own counter per IP. */
export function limit(config: Config, name: RateLimitName) {
  const { max, windowSeconds } = config.rateLimits[name];
  return { rateLimit: { max, timeWindow: windowSeconds * 1000 } };
}

/**
 * For a plugin whose routes call `app.failures.attempt`: a request answered with a status outside `failures` (the
 * answers that mean "did not verify") is released once answered.
 */
export function releaseUnlessFailed(app: FastifyInstance, failures: readonly number[]): void {
  app.addHook('onResponse', async (request, reply) => {
    if (!failures.includes(reply.statusCode)) await app.failures.succeeded(request);
  });
}

/** The answers of a webhook route that leave a delivery counted: not JSON or not an event, a signature that does not verify, too large. */
export const UNVERIFIED_DELIVERY = [400, 401, 413] as const;
