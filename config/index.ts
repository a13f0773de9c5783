// One configuration module for the API, the worker and the scripts: every variable is parsed here with
// zod at start-up, has a default for local runs, and is listed in the README. Production refuses to start
// on the local defaults of secrets.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const port = z.coerce.number().int().min(0).max(65535);

export const SANDBOX_PORTS = {
  processor: 4010,
  storefrontA: 4020,
  storefrontB: 4030,
  email: 4040,
  dnsControl: 4050,
  dnsUdp: 5354,
  ecb: 4060,
  webhookReceiver: 4070,
} as const;

/** Production default of CHECKOUT_CACHE_SECONDS (tests run with 0 unless they say otherwise). */
export const CHECKOUT_CACHE_SECONDS_DEFAULT = 15;

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().default('.data'),

  API_HOST: z.string().default('127.0.0.1'),
  API_PORT: port.default(3000),
  /** The port this process listens on when it differs from the public API_PORT (a replica behind a proxy). */
  API_LISTEN_PORT: port.optional(),
  /** Domain under which merchant checkout subdomains live: {slug}.{SERVICE_DOMAIN}. */
  SERVICE_DOMAIN: z.string().default('localhost'),
  /** The service's main web origin (dashboard); first entry of the CORS allowlist. */
  APP_ORIGIN: z.string().url().optional(),
  /**
   * Trust X-Forwarded-* (client IP, https) only from the proxy in front: `false`, `true` (any peer: only where nothing
   * else can reach the API), or the edge's addresses/CIDRs, comma-separated (e.g. `127.0.0.1` or `172.28.0.10`).
   */
  TRUST_PROXY: z.string().default('false').transform((v, ctx) => {
    const t = v.trim().toLowerCase();
    if (['true', '1', 'yes'].includes(t)) return true as const;
    if (['false', '0', 'no', ''].includes(t)) return false as const;
    const list = t.split(',').map((a) => a.trim()).filter(Boolean);
    if (!list.every((a) => /^[0-9a-f.:]+(\/\d{1,3})?$/.test(a))) {
      ctx.addIssue({ code: 'custom', message: 'true, false, or comma-separated IP addresses/CIDRs of the proxy' });
      return z.NEVER;
    }
    return list.join(',');
  }),
  /**
   * The public origins are https (a TLS edge in front: Caddy, docs/deployment.md): checkout origins and the processor's
   * return URLs use https, session cookies are Secure, the dashboard origin sends HSTS. Default: true in production
   * (which refuses false), false elsewhere (`npm start` serves plain http on API_PORT).
   */
  PUBLIC_HTTPS: bool.optional(),
  BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1024 * 1024),

  /** Unset: `npm start` runs an embedded PostgreSQL server under DATA_DIR and points this at it. */
  DATABASE_URL: z.string().optional(),
  EMBEDDED_POSTGRES_PORT: port.default(54329),

  /** Unset: `npm start` runs a Temporal dev server (state under DATA_DIR) and points this at it. */
  TEMPORAL_ADDRESS: z.string().optional(),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('checkout'),
  TEMPORAL_BACKGROUND_SLOTS: z.coerce.number().int().min(1).max(1000).default(8),
  TEMPORAL_DEV_PORT: port.default(7233),
  TEMPORAL_UI_PORT: port.default(8233),
  /** Web UI address printed for operators; defaults to the embedded dev server's UI. */
  TEMPORAL_UI_URL: z.string().url().optional(),
  TEMPORAL_CLI_PATH: z.string().optional(),
  TEMPORAL_TEST_SERVER_PATH: z.string().optional(),

  /** HS256 secret for merchant JWTs. Local runs generate one under DATA_DIR. */
  JWT_SECRET: z.string().min(32).optional(),
  /** 32-byte key (base64) for AES-256-GCM encryption of secrets at rest. Local runs generate one. */
  SECRETS_KEY: z.string().optional(),

  /** ECB euro reference rates (daily XML). Defaults to the local sandbox when it runs. */
  FX_RATES_URL: z.string().url().optional(),
  /** Cron (UTC) of the daily FX refresh; the ECB publishes around 16:00 CET. */
  FX_REFRESH_CRON: z.string().default('0 16 * * *'),

  /** Public base URL of this API as the outside world reaches it (OAuth redirects, webhook endpoints, links in emails). */
  PUBLIC_API_URL: z.string().url().optional(),
  /** Registration: open to anyone, or only with an invite token from INVITE_TOKENS. */
  PUBLIC_SIGNUP: bool.default(true),
  /** Comma-separated invite tokens accepted while PUBLIC_SIGNUP=false. */
  INVITE_TOKENS: z.string().default(''),

  /** Payment processor API base URL. Defaults to the local sandbox when it runs. */
  PROCESSOR_API_URL: z.string().url().optional(),
  /**
   * Where Whop's embedded checkout (the iframe of @whop/checkout) is served from: an origin, no path. Default: follows
   * PROCESSOR_API_URL (api.whop.com → https://whop.com, sandbox-api.whop.com → https://sandbox.whop.com, any other, such
   * as the local sandbox, → that URL's own origin). Only this origin may be framed by the checkout page (its CSP).
   */
  PROCESSOR_EMBED_ORIGIN: z.string().url().optional(),
  /**
   * Where shoppers pay by card unless their merchant chose otherwise: `embedded` (Whop's embedded checkout inside our
   * page, the hosted page as the fallback) or `hosted` (Whop's hosted page, as before the embed).
   */
  CHECKOUT_PAYMENT_PAGE: z.enum(['embedded', 'hosted']).default('embedded'),
  /**
   * A file with Apple's domain-association file for Whop (Whop's "Enable Apple Pay", self-hosted verification: the file
   * Whop's dashboard gives). Set, every checkout host serves it at /.well-known/apple-developer-merchantid-domain-association,
   * where Apple fetches it when Whop registers the host; unset, that path answers 404.
   */
  APPLE_PAY_DOMAIN_ASSOCIATION_FILE: z.string().min(1).optional(),
  /** The platform's OWN processor account (platform billing charges merchants' plans on it). Sandbox: its platform account. */
  PLATFORM_PROCESSOR_API_KEY: z.string().min(1).optional(),
  /** Secret of a billing webhook endpoint registered by hand on that account; unset: the service registers its own. */
  PLATFORM_PROCESSOR_WEBHOOK_SECRET: z.string().min(16).optional(),
  /** Storefront A API URL template; {shop} is the shop host. Defaults to the sandbox when it runs. */
  STOREFRONT_A_API_TEMPLATE: z.string().optional(),
  /** Postmark-compatible API. Defaults to the sandbox mailbox when it runs. */
  POSTMARK_API_URL: z.string().url().optional(),
  POSTMARK_SERVER_TOKEN: z.string().optional(),
  /** Sender of every email the service sends. */
  EMAIL_FROM: z.string().default('Checkout <no-reply@checkout.localhost>'),
  /** Nameserver(s) (host:port, comma-separated) used for custom domain verification. */
  DNS_SERVERS: z.string().optional(),

  /**
   * Every this many minutes the processor sweep lists each connected merchant's refunds and disputes, so that one whose
   * webhook was lost still reaches the session and the merchant (docs/processor.md, "The processor sweep").
   */
  PROCESSOR_SWEEP_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(15),
  /** A checkout session with no progress for this long becomes ABANDONED (its workflow, or the idle sweep, does it). */
  CHECKOUT_ABANDON_AFTER_HOURS: z.coerce.number().positive().max(24 * 90).default(24),
  /**
   * How long checkout create reuses what it read for the next carts: a store's connection and plan, the FX rates,
   * storefront B prices (0: every create reads everything; a storefront A cart is always read).
   */
  CHECKOUT_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(CHECKOUT_CACHE_SECONDS_DEFAULT),

  /** Rate limits: max requests per window per client IP, as "<max>/<window in seconds>". */
  RATE_LIMIT_LOGIN: z.string().regex(/^\d+\/\d+$/).default('10/900'),
  RATE_LIMIT_REGISTER: z.string().regex(/^\d+\/\d+$/).default('5/900'),
  RATE_LIMIT_PASSWORD_RESET: z.string().regex(/^\d+\/\d+$/).default('5/900'),
  RATE_LIMIT_CHECKOUT_CREATE: z.string().regex(/^\d+\/\d+$/).default('30/60'),
  RATE_LIMIT_INIT_PAYMENT: z.string().regex(/^\d+\/\d+$/).default('10/60'),
  RATE_LIMIT_DISCOUNT: z.string().regex(/^\d+\/\d+$/).default('10/60'),
  RATE_LIMIT_CHECKOUT_PROGRESS: z.string().regex(/^\d+\/\d+$/).default('30/60'),
  RATE_LIMIT_CHECKOUT_QUOTE: z.string().regex(/^\d+\/\d+$/).default('30/60'),
  /** Per API key rather than per IP: every merchant route a key calls counts against its key's one counter. */
  RATE_LIMIT_API_KEY: z.string().regex(/^\d+\/\d+$/).default('100/10'),
  /** Per IP: presented credentials (session token, API key) that do not authenticate, then 429 before any lookup. */
  RATE_LIMIT_AUTH_FAILURES: z.string().regex(/^\d+\/\d+$/).default('100/60'),
  /** Per IP: webhook deliveries whose signature does not verify (each is stored), then 429 before the body is read. */
  RATE_LIMIT_WEBHOOK_FAILURES: z.string().regex(/^\d+\/\d+$/).default('30/60'),

  /** Host suffix of storefront A shops (`<shop><suffix>`): validated on install and allowed by CORS. */
  STOREFRONT_A_SHOP_SUFFIX: z.string().default('.myshopify.com'),

  /**
   * Shared store of the rate-limit counters (redis://host:port): every API replica counts against the same
   * limits. Unset: each process counts in its own memory (right for `npm start`'s single process only).
   */
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'a redis:// or rediss:// URL').optional(),

  /**
   * Development and tests only: origins of stores running on this machine (a local WordPress, e.g.
   * http://127.0.0.1:8080) that a merchant may connect although they are loopback http. Production refuses to start
   * with it set: there a store URL is https and public, always.
   */
  LOCAL_STORE_ORIGINS: z.string().default(''),

  /** Run the local simulators of external systems (processor, stores, email, DNS, ECB). */
  SANDBOX_ENABLED: bool.optional(),
  SANDBOX_HOST: z.string().default('127.0.0.1'),
  /** Added to every fixed simulator port (4010…4070, 5354): a second sandbox (a cluster drill) beside `npm start`'s. */
  SANDBOX_PORT_OFFSET: z.coerce.number().int().min(0).max(50_000).default(0),
});

export type Env = z.input<typeof envSchema>;

export type RateLimitName = 'login' | 'register' | 'passwordReset' | 'checkoutCreate' | 'initPayment' | 'discount' | 'checkoutProgress' | 'checkoutQuote' | 'apiKey' | 'authFailures' | 'webhookFailures';

function parseLimit(value: string): { max: number; windowSeconds: number } {
  const [max, window] = value.split('/').map(Number);
  return { max: max!, windowSeconds: window! };
}

export interface Config {
  env: 'development' | 'test' | 'production';
  logLevel: string;
  dataDir: string;
  /** port: the public one (checkout origins, links); listenPort: this process's socket. */
  api: { host: string; port: number; listenPort: number; bodyLimit: number; trustProxy: boolean | string; publicUrl: string };
  /** Public origins on https (PUBLIC_HTTPS): checkout origins, Secure cookies, HSTS on the dashboard origin. */
  publicHttps: boolean;
  serviceDomain: string;
  appOrigin: string;
  databaseUrl: string | undefined;
  /** Port of the embedded PostgreSQL server `npm start` runs when DATABASE_URL is unset. */
  embeddedPostgresPort: number;
  temporal: {
    address: string | undefined;
    namespace: string;
    taskQueue: string;
    /** Activities the worker runs at once from the background queue (`<taskQueue>-background`: emails, merchant events, …). */
    backgroundSlots: number;
    devPort: number;
    uiPort: number;
    uiUrl: string;
    cliPath: string | undefined;
    testServerPath: string | undefined;
  };
  jwtSecret: string | undefined;
  secretsKey: string | undefined;
  fx: { url: string; refreshCron: string };
  storefrontA: { shopSuffix: string; apiTemplate: string };
  publicApiUrl: string;
  signup: { public: boolean; inviteTokens: string[] };
  /** sweepMinutes: how often refunds and disputes are listed from the processor (workflows/processor/processor-sweep.ts). */
  /**
   * embedOrigin: where Whop's embedded checkout iframe comes from (the checkout page frames this origin only);
   * paymentPage: where shoppers pay by card unless their merchant chose (docs/web.md, "The payment step").
   */
  processor: { apiUrl: string; sweepMinutes: number; embedOrigin: string; paymentPage: 'embedded' | 'hosted'; applePayAssociation: string | null };
  /** Platform billing: the platform's own processor account (undefined key: subscribing answers NOT_READY). */
  platformBilling: { apiKey: string | undefined; webhookSecret: string | undefined };
  email: { apiUrl: string; serverToken: string | undefined; from: string };
  dns: { servers: string[] };
  checkout: {
    /** No progress for this long → ABANDONED. */
    abandonAfterMs: number;
    /** What create reads (store connection and plan, FX rates, storefront B prices) is reused this long (0: never). */
    cacheMs: number;
  };
  rateLimits: Record<RateLimitName, { max: number; windowSeconds: number }>;
  /**
   * The API keys this deployment issues and accepts: `test` (ck_test_…) with the sandbox on (local, staging),
   * `live` (ck_live_…) with it off (production). Each refuses the other's keys.
   */
  apiKeyMode: 'live' | 'test';
  /** Where rate-limit counters live: a shared Redis (replicas), or undefined for process memory. */
  redisUrl: string | undefined;
  sandbox: { enabled: boolean; host: string; ports: Record<keyof typeof SANDBOX_PORTS, number>; urls: Record<keyof typeof SANDBOX_PORTS, string> };
  /** LOCAL_STORE_ORIGINS: loopback stores merchants may connect over http (never in production: empty there). */
  localStoreOrigins: string[];
}

/**
 * The origins the URL guard (security/ssrf.ts) lets through without its https and public-address rules: the
 * sandbox's simulators while it runs, and the local stores of LOCAL_STORE_ORIGINS. Empty in production.
 */
export function unguardedOrigins(config: Pick<Config, 'sandbox' | 'localStoreOrigins'>): string[] {
  return [...(config.sandbox.enabled ? Object.values(config.sandbox.urls) : []), ...config.localStoreOrigins];
}

const LOOPBACK_HOST = /^(?:127(?:\.\d{1,3}){3}|localhost|\[::1\])$/;

/** LOCAL_STORE_ORIGINS parsed: each an http(s) origin on a loopback host, nothing more (no path). */
function localStoreOrigins(value: string, env: string): string[] {
  const origins = value.split(',').map((o) => o.trim().replace(/\/+$/, '')).filter(Boolean);
  if (origins.length === 0) return [];
  if (env === 'production') {
    throw new ConfigError('LOCAL_STORE_ORIGINS is for development and tests: in production a store URL is https on a public address');
  }
  return origins.map((origin) => {
    const url = URL.canParse(origin) ? new URL(origin) : undefined;
    if (!url || !['http:', 'https:'].includes(url.protocol) || !LOOPBACK_HOST.test(url.hostname) || url.origin !== origin) {
      throw new ConfigError(`LOCAL_STORE_ORIGINS: ${origin} is not the origin of a store on this machine (e.g. http://127.0.0.1:8080)`);
    }
    return url.origin;
  });
}

/** The association file's contents, read once at start-up: a path that cannot be read stops the start, not Apple's fetch later. */
function applePayAssociation(file: string | undefined): string | null {
  if (!file) return null;
  let contents: string;
  try {
    contents = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`APPLE_PAY_DOMAIN_ASSOCIATION_FILE: ${file} cannot be read (${(err as Error).message})`);
  }
  if (!contents.trim()) throw new ConfigError(`APPLE_PAY_DOMAIN_ASSOCIATION_FILE: ${file} is empty`);
  return contents;
}

/**
 * The origin of Whop's embedded checkout: PROCESSOR_EMBED_ORIGIN, else the one that goes with the API in use (the package's
 * own defaults, @whop/checkout 0.5.0: https://whop.com/ for production, https://sandbox.whop.com/ for its sandbox), else
 * the API URL's own origin (a local Whop serves its pages beside its API).
 */
export function processorEmbedOrigin(configured: string | undefined, apiUrl: string, env: string): string {
  if (configured !== undefined) {
    const url = new URL(configured);
    if (url.origin !== configured.replace(/\/+$/, '') || (env === 'production' && url.protocol !== 'https:')) {
      throw new ConfigError(`PROCESSOR_EMBED_ORIGIN: ${configured} is not an origin${env === 'production' ? ' on https' : ''} (e.g. https://whop.com)`);
    }
    return url.origin;
  }
  const api = new URL(apiUrl);
  if (api.hostname === 'api.whop.com') return 'https://whop.com';
  if (api.hostname === 'sandbox-api.whop.com') return 'https://sandbox.whop.com';
  return api.origin;
}

export const ECB_DAILY_URL = 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const sandboxEnabled = e.SANDBOX_ENABLED ?? e.NODE_ENV !== 'production';
  if (e.NODE_ENV === 'production') {
    const missing = ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'JWT_SECRET', 'SECRETS_KEY', 'APP_ORIGIN', 'PUBLIC_API_URL', 'PROCESSOR_API_URL', 'POSTMARK_SERVER_TOKEN'].filter(
      (k) => !source[k],
    );
    if (missing.length) throw new ConfigError(`Production needs ${missing.join(', ')} to be set`);
    if (e.PUBLIC_HTTPS === false) throw new ConfigError('PUBLIC_HTTPS=false: production serves every public origin on https');
  }
  const publicHttps = e.PUBLIC_HTTPS ?? e.NODE_ENV === 'production';
  const sandboxPorts = Object.fromEntries(Object.entries(SANDBOX_PORTS).map(([k, p]) => [k, p + e.SANDBOX_PORT_OFFSET])) as Record<keyof typeof SANDBOX_PORTS, number>;
  const sandboxUrls = Object.fromEntries(
    Object.entries(sandboxPorts).map(([k, p]) => [k, `http://${e.SANDBOX_HOST}:${p}`]),
  ) as Record<keyof typeof SANDBOX_PORTS, string>;
  const publicUrl = publicHttps ? `https://${e.SERVICE_DOMAIN}${e.API_PORT === 443 ? '' : `:${e.API_PORT}`}` : `http://${e.SERVICE_DOMAIN}:${e.API_PORT}`;
  const processorApiUrl = e.PROCESSOR_API_URL ?? (sandboxEnabled ? `${sandboxUrls.processor}/api/v1` : 'https://api.processor.invalid');
  return {
    env: e.NODE_ENV,
    logLevel: e.LOG_LEVEL,
    dataDir: path.resolve(e.DATA_DIR),
    api: { host: e.API_HOST, port: e.API_PORT, listenPort: e.API_LISTEN_PORT ?? e.API_PORT, bodyLimit: e.BODY_LIMIT_BYTES, trustProxy: e.TRUST_PROXY, publicUrl },
    publicHttps,
    serviceDomain: e.SERVICE_DOMAIN,
    appOrigin: e.APP_ORIGIN ?? publicUrl,
    databaseUrl: e.DATABASE_URL,
    embeddedPostgresPort: e.EMBEDDED_POSTGRES_PORT,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      backgroundSlots: e.TEMPORAL_BACKGROUND_SLOTS,
      devPort: e.TEMPORAL_DEV_PORT,
      uiPort: e.TEMPORAL_UI_PORT,
      uiUrl: e.TEMPORAL_UI_URL ?? `http://localhost:${e.TEMPORAL_UI_PORT}`,
      cliPath: e.TEMPORAL_CLI_PATH,
      testServerPath: e.TEMPORAL_TEST_SERVER_PATH,
    },
    jwtSecret: e.JWT_SECRET,
    secretsKey: e.SECRETS_KEY,
    fx: {
      url: e.FX_RATES_URL ?? (sandboxEnabled ? `${sandboxUrls.ecb}/stats/eurofxref/eurofxref-daily.xml` : ECB_DAILY_URL),
      refreshCron: e.FX_REFRESH_CRON,
    },
    storefrontA: {
      shopSuffix: e.STOREFRONT_A_SHOP_SUFFIX,
      apiTemplate: e.STOREFRONT_A_API_TEMPLATE ?? (sandboxEnabled ? `${sandboxUrls.storefrontA}/shops/{shop}` : 'https://{shop}'),
    },
    publicApiUrl: (e.PUBLIC_API_URL ?? publicUrl).replace(/\/+$/, ''),
    signup: { public: e.PUBLIC_SIGNUP, inviteTokens: e.INVITE_TOKENS.split(',').map((t) => t.trim()).filter(Boolean) },
    // Whop's API v1 base (production: https://api.whop.com/api/v1); the sandbox serves it under the same path.
    processor: {
      apiUrl: processorApiUrl,
      sweepMinutes: e.PROCESSOR_SWEEP_MINUTES,
      embedOrigin: processorEmbedOrigin(e.PROCESSOR_EMBED_ORIGIN, processorApiUrl, e.NODE_ENV),
      paymentPage: e.CHECKOUT_PAYMENT_PAGE,
      applePayAssociation: applePayAssociation(e.APPLE_PAY_DOMAIN_ASSOCIATION_FILE),
    },
    platformBilling: {
      apiKey: e.PLATFORM_PROCESSOR_API_KEY ?? (sandboxEnabled ? 'apik_sandbox_platform' : undefined),
      webhookSecret: e.PLATFORM_PROCESSOR_WEBHOOK_SECRET,
    },
    email: {
      apiUrl: e.POSTMARK_API_URL ?? (sandboxEnabled ? sandboxUrls.email : 'https://api.postmarkapp.com'),
      serverToken: e.POSTMARK_SERVER_TOKEN ?? (sandboxEnabled ? 'sandbox-server-token' : undefined),
      from: e.EMAIL_FROM,
    },
    dns: { servers: (e.DNS_SERVERS ?? (sandboxEnabled ? `${e.SANDBOX_HOST}:${sandboxPorts.dnsUdp}` : '')).split(',').map((s) => s.trim()).filter(Boolean) },
    checkout: { abandonAfterMs: Math.round(e.CHECKOUT_ABANDON_AFTER_HOURS * 3_600_000), cacheMs: e.CHECKOUT_CACHE_SECONDS * 1000 },
    rateLimits: {
      login: parseLimit(e.RATE_LIMIT_LOGIN),
      register: parseLimit(e.RATE_LIMIT_REGISTER),
      passwordReset: parseLimit(e.RATE_LIMIT_PASSWORD_RESET),
      checkoutCreate: parseLimit(e.RATE_LIMIT_CHECKOUT_CREATE),
      initPayment: parseLimit(e.RATE_LIMIT_INIT_PAYMENT),
      discount: parseLimit(e.RATE_LIMIT_DISCOUNT),
      checkoutProgress: parseLimit(e.RATE_LIMIT_CHECKOUT_PROGRESS),
      checkoutQuote: parseLimit(e.RATE_LIMIT_CHECKOUT_QUOTE),
      authFailures: parseLimit(e.RATE_LIMIT_AUTH_FAILURES),
      webhookFailures: parseLimit(e.RATE_LIMIT_WEBHOOK_FAILURES),
      apiKey: parseLimit(e.RATE_LIMIT_API_KEY),
    },
    apiKeyMode: sandboxEnabled ? 'test' : 'live',
    redisUrl: e.REDIS_URL,
    sandbox: { enabled: sandboxEnabled, host: e.SANDBOX_HOST, ports: sandboxPorts, urls: sandboxUrls },
    localStoreOrigins: localStoreOrigins(e.LOCAL_STORE_ORIGINS, e.NODE_ENV),
  };
}
