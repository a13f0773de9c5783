// Checkout hosts: which merchant a request's Host belongs to ({slug}.{service domain}, or a verified
// checkout.<domain>), where a merchant's checkouts are linked (the custom domain once verified, else the
// subdomain), and whether an Origin is a verified custom domain (CORS). Every answer is one indexed read.
import type { Config } from '../config/index.js';
import type { Db } from '../prisma/client.js';
import { checkoutOrigin } from '../domain/checkout/checkout-origin.js';
import { CUSTOM_DOMAIN_PREFIX, normalizeHostname } from '../domain/hostnames.js';

export interface CheckoutHostMerchant {
  merchantId: string;
  slug: string;
}

/** "Shop.Example.com.:443" → "shop.example.com"; "[::1]:3000" → "::1". */
export function hostnameOf(host: string): string {
  const h = host.trim();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined).toLowerCase();
  const colon = h.indexOf(':');
  return normalizeHostname(colon >= 0 && colon === h.lastIndexOf(':') ? h.slice(0, colon) : h);
}

/**
 * The merchant whose checkout a Host header (port allowed) names: `{slug}.{serviceDomain}` by slug, or a
 * custom `checkout.<domain>` once it is VERIFIED (a pending or expired claim serves nothing). Null otherwise.
 */
export async function merchantForCheckoutHost(db: Db, config: Pick<Config, 'serviceDomain'>, host: string): Promise<CheckoutHostMerchant | null> {
  const name = hostnameOf(host);
  const suffix = `.${normalizeHostname(config.serviceDomain)}`;
  if (name.endsWith(suffix)) {
    const slug = name.slice(0, -suffix.length);
    if (!slug || slug.includes('.')) return null;
    const merchant = await db.merchant.findUnique({ where: { slug }, select: { id: true, slug: true } });
    return merchant ? { merchantId: merchant.id, slug: merchant.slug } : null;
  }
  if (!name.startsWith(CUSTOM_DOMAIN_PREFIX)) return null;
  const domain = await db.customDomain.findUnique({ where: { hostname: name }, select: { status: true, merchant: { select: { id: true, slug: true } } } });
  return domain?.status === 'VERIFIED' ? { merchantId: domain.merchant.id, slug: domain.merchant.slug } : null;
}

/** The merchant's verified custom hostname, or null. */
export async function verifiedCustomHostname(db: Db, merchantId: string): Promise<string | null> {
  const domain = await db.customDomain.findUnique({ where: { merchantId }, select: { hostname: true, status: true } });
  return domain?.status === 'VERIFIED' ? domain.hostname : null;
}

type OriginConfig = Pick<Config, 'env' | 'serviceDomain' | 'publicHttps'> & { api: Pick<Config['api'], 'port'> };

/** The origin checkouts are served at, from what is already loaded (no read). */
export function checkoutOriginWith(config: OriginConfig, slug: string, customHostname: string | null): string {
  return checkoutOrigin(slug, { production: config.env === 'production', https: config.publicHttps, serviceDomain: config.serviceDomain, port: config.api.port }, customHostname);
}

/** The origin checkouts of this merchant are served at now: https://checkout.<domain> once verified, else its subdomain. */
export async function checkoutOriginOf(db: Db, config: OriginConfig, merchant: { id: string; slug: string }): Promise<string> {
  return checkoutOriginWith(config, merchant.slug, await verifiedCustomHostname(db, merchant.id));
}

/** The URL of one checkout session (or preview) of this merchant: `<origin>/checkout/<token>`. */
export async function checkoutUrlOf(db: Db, config: OriginConfig, merchant: { id: string; slug: string }, token: string): Promise<string> {
  return `${await checkoutOriginOf(db, config, merchant)}/checkout/${token}`;
}

export interface CustomDomainHostCheck {
  (host: string): Promise<boolean>;
  /** Forgets what is cached (tests; a route that just changed a domain in this process). */
  clear(): void;
}

/**
 * CORS rule 3 as a cached lookup: is `host` a verified checkout.<domain>, or the <domain> of one? Answers are
 * kept `ttlMs` (yes) or `negativeTtlMs` (no), so a burst of cross-origin requests costs one read per host, and
 * a newly verified domain is allowed within `negativeTtlMs`. The cache is bounded: unknown Origins cannot grow it.
 */
export function createCustomDomainHostCheck(db: Db, opts: { ttlMs?: number; negativeTtlMs?: number; maxEntries?: number } = {}): CustomDomainHostCheck {
  const ttlMs = opts.ttlMs ?? 60_000;
  const negativeTtlMs = opts.negativeTtlMs ?? 10_000;
  const maxEntries = opts.maxEntries ?? 10_000;
  const cache = new Map<string, { allowed: boolean; until: number }>();

  const check = async (host: string): Promise<boolean> => {
    const name = normalizeHostname(host);
    const now = Date.now();
    const hit = cache.get(name);
    if (hit && hit.until > now) return hit.allowed;
    const found = await db.customDomain.findFirst({ where: { status: 'VERIFIED', OR: [{ hostname: name }, { apex: name }] }, select: { id: true } });
    const allowed = found !== null;
    if (cache.size >= maxEntries) cache.clear();
    cache.set(name, { allowed, until: now + (allowed ? ttlMs : negativeTtlMs) });
    return allowed;
  };
  return Object.assign(check, { clear: () => cache.clear() });
}

/** Whether an https origin is a domain of a connected storefront A shop (cached reads of storefront_a_connections). */
export function createShopOriginCheck(db: Db, opts: { ttlMs?: number; negativeTtlMs?: number; maxEntries?: number } = {}): (origin: string) => Promise<boolean> {
  const ttlMs = opts.ttlMs ?? 30_000;
  const negativeTtlMs = opts.negativeTtlMs ?? 5_000;
  const maxEntries = opts.maxEntries ?? 10_000;
  const cache = new Map<string, { allowed: boolean; until: number }>();
  return async (origin: string) => {
    const now = Date.now();
    const hit = cache.get(origin);
    if (hit && hit.until > now) return hit.allowed;
    const found = await db.storefrontAConnection.findFirst({ where: { connected: true, shopOrigins: { has: origin } }, select: { merchantId: true } });
    const allowed = found !== null;
    if (cache.size >= maxEntries) cache.clear();
    cache.set(origin, { allowed, until: now + (allowed ? ttlMs : negativeTtlMs) });
    return allowed;
  };
}
