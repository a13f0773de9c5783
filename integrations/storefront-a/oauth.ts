// Shopify's OAuth install (authorization code grant), our side: the authorize URL we send the merchant to, and
// the check of the HMAC Shopify puts on the redirect back to us — done by the official library
// (@shopify/shopify-api utils.validateHmac: params sorted, form-URL-encoded, ±90 s timestamp), so our check is
// byte-for-byte Shopify's own (docs/storefront-a.md).
import { IntegrationError } from '../errors.js';
import { SHOP_NAME } from '../../domain/shop-host.js';
import { AuthScopes } from '@shopify/shopify-api';
import { shopifyFor } from './library.js';
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
  // Offline (per-shop) access: the key is sent empty, as the library does.
  url.searchParams.set('grant_options[]', '');
  return url.toString();
}

export type CallbackQuery = URLSearchParams | Readonly<Record<string, unknown>>;

/**
 * True only when the query's hmac was made with this app secret over exactly these parameters, and its
 * timestamp is within the library's ±90 s (Shopify's own check, constant-time compare).
 */
export async function verifyCallbackHmac(query: CallbackQuery, app: { clientId: string; clientSecret: string }): Promise<boolean> {
  if (!app.clientSecret) return false;
  const params = query instanceof URLSearchParams ? query : new URLSearchParams(Object.entries(query).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x): [string, string] => [k, String(x)]) : v === undefined ? [] : [[k, String(v)] as [string, string]])));
  try {
    return await shopifyFor(app).utils.validateHmac(params);
  } catch {
    // The library throws on a missing hmac or a stale/absent timestamp: not a valid callback either way.
    return false;
  }
}

/**
 * The scopes we ask for that a grant lacks (the library's AuthScopes: `write_x` implies `read_x`). A shop installed
 * before we asked for more keeps its old grant until the merchant reinstalls: the dashboard says which are missing.
 */
export function missingScopes(granted: readonly string[], wanted: readonly string[]): string[] {
  const have = new AuthScopes([...granted]);
  return wanted.filter((scope) => !have.has(scope));
}
