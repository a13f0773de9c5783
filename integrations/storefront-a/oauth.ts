// Storefront A's OAuth app install, merchant side of the protocol: the authorize URL we send the merchant
// to, and the HMAC the platform puts on the redirect back to us. The sandbox signs its redirects with
// signCallbackParams, so both sides share one implementation of the scheme:
//   hmac = hex HMAC-SHA256(app secret, every other query parameter sorted by key, joined as k=v&k=v)
// with '%' and '&' percent-encoded in keys and values and '=' in keys, and array values rendered as
// ["a", "b"] (the real platform's rules).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { IntegrationError } from '../errors.js';
import { SHOP_NAME } from '../../domain/shop-host.js';

export const SHOP_HOST_SUFFIX = '.myshopify.com';
/** Production: shops answer on their own host. The sandbox serves them under a path prefix instead. */
export const DEFAULT_API_URL_TEMPLATE = 'https://{shop}';

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');


/** A shop host the platform could have issued: one lowercase DNS label then the platform's suffix. */
export function isValidShopHost(host: string, suffix = SHOP_HOST_SUFFIX): boolean {
  return new RegExp(`^${SHOP_NAME}${escapeRegExp(suffix)}$`).test(host);
}

/**
 * The shop's base URL from the template ("https://{shop}" or "http://127.0.0.1:4020/shops/{shop}").
 * The shop host is validated first: it comes from a merchant or a redirect, and must never point our
 * requests (with an access token or client secret) at an arbitrary host.
 */
export function shopBaseUrl(apiUrlTemplate: string, shop: string, shopSuffix = SHOP_HOST_SUFFIX): string {
  if (!apiUrlTemplate.includes('{shop}')) throw new IntegrationError('storefront-a', 'rejected', `apiUrlTemplate must contain {shop}: ${apiUrlTemplate}`);
  if (!isValidShopHost(shop, shopSuffix)) throw new IntegrationError('storefront-a', 'rejected', `not a valid shop host: ${JSON.stringify(shop)}`);
  return apiUrlTemplate.replace('{shop}', shop).replace(/\/+$/, '');
}

export interface AuthorizeUrlInput {
  shop: string;
  clientId: string;
  scopes: readonly string[];
  redirectUri: string;
  /** Our nonce, checked again on the callback. */
  state: string;
  apiUrlTemplate?: string;
  /** Host suffix shops must have (default .myshopify.com; config STOREFRONT_A_SHOP_SUFFIX). */
  shopSuffix?: string;
}

export function buildAuthorizeUrl(input: AuthorizeUrlInput): string {
  const url = new URL(`${shopBaseUrl(input.apiUrlTemplate ?? DEFAULT_API_URL_TEMPLATE, input.shop, input.shopSuffix)}/admin/oauth/authorize`);
  url.searchParams.set('client_id', input.clientId);
  url.searchParams.set('scope', input.scopes.join(','));
  url.searchParams.set('redirect_uri', input.redirectUri);
  url.searchParams.set('state', input.state);
  return url.toString();
}

type QueryValue = string | readonly string[] | undefined;
export type CallbackQuery = URLSearchParams | Readonly<Record<string, unknown>>;

function entriesOf(query: CallbackQuery): Array<[string, QueryValue]> {
  if (query instanceof URLSearchParams) {
    return [...new Set(query.keys())].map((k) => {
      const all = query.getAll(k);
      return [k, all.length === 1 ? all[0] : all];
    });
  }
  return Object.entries(query).map(([k, v]) => [k, typeof v === 'string' || Array.isArray(v) ? (v as QueryValue) : v === undefined ? undefined : String(v)]);
}

const escapeValue = (s: string) => s.replace(/%/g, '%25').replace(/&/g, '%26');
const escapeKey = (s: string) => escapeValue(s).replace(/=/g, '%3D');

/** The exact string the platform signs: every parameter but hmac/signature, sorted by key. */
export function callbackMessage(query: CallbackQuery): string {
  return entriesOf(query)
    .filter(([k, v]) => k !== 'hmac' && k !== 'signature' && v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${escapeKey(k)}=${escapeValue(typeof v === 'string' ? v : `[${(v ?? []).map((x) => `"${x}"`).join(', ')}]`)}`)
    .join('&');
}

export function signCallbackParams(query: CallbackQuery, secret: string): string {
  return createHmac('sha256', secret).update(callbackMessage(query)).digest('hex');
}

/**
 * True only when the query's hmac was made with this app secret over exactly these parameters (compared
 * in constant time) and, when maxAgeSeconds is given, its timestamp is that recent.
 */
export function verifyCallbackHmac(query: CallbackQuery, secret: string, opts: { maxAgeSeconds?: number; now?: Date } = {}): boolean {
  const given = entriesOf(query).find(([k]) => k === 'hmac')?.[1];
  if (!secret || typeof given !== 'string' || !/^[0-9a-f]{64}$/i.test(given)) return false;
  const expected = Buffer.from(signCallbackParams(query, secret), 'hex');
  if (!timingSafeEqual(Buffer.from(given, 'hex'), expected)) return false;
  if (opts.maxAgeSeconds === undefined) return true;
  const timestamp = Number(entriesOf(query).find(([k]) => k === 'timestamp')?.[1]);
  const age = (opts.now ?? new Date()).getTime() / 1000 - timestamp;
  return Number.isFinite(timestamp) && age <= opts.maxAgeSeconds && age >= -60;
}
