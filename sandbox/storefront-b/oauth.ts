// WooCommerce's REST authentication, as class-wc-rest-authentication.php does it (docs/storefront-b.md,
// "Authentication"): Basic (or consumer_key/consumer_secret in the query) only when the server believes
// the request is HTTPS (is_ssl()), then OAuth 1.0a "one-legged" verified against the site's home URL.
// Written from WooCommerce's source, independently of our client.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** PHP's $_GET: `a=1&a=2` keeps the last value, `a[]=x` gets numeric indexes, `.`/space in names become `_`. */
export function phpQuery(rawQuery: string): Map<string, string> {
  const params = new Map<string, string>();
  const counters = new Map<string, number>();
  for (const part of rawQuery.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const decode = (s: string) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, ' '));
      } catch {
        return s;
      }
    };
    let key = decode(eq < 0 ? part : part.slice(0, eq));
    const value = decode(eq < 0 ? '' : part.slice(eq + 1));
    const bracket = key.indexOf('[');
    const base = (bracket < 0 ? key : key.slice(0, bracket)).replace(/[. ]/g, '_');
    if (!base) continue;
    key = base + (bracket < 0 ? '' : key.slice(bracket));
    if (key.endsWith('[]')) {
      const n = counters.get(base) ?? 0;
      counters.set(base, n + 1);
      key = `${key.slice(0, -2)}[${n}]`;
    }
    params.set(key, value);
  }
  return params;
}

/** wc_rest_urlencode_rfc3986: rawurlencode, i.e. everything but A-Z a-z 0-9 - . _ ~ as %XX. */
export const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The Authorization: OAuth header's oauth_* parameters (parse_header), values urldecoded, realm dropped. */
export function oauthHeaderParams(header: string | undefined): Map<string, string> {
  const params = new Map<string, string>();
  if (!header?.startsWith('OAuth ')) return params;
  for (const m of header.matchAll(/(oauth_[a-z_-]*)=(?:"([^"]*)"|([^,]*))/g)) {
    params.set(m[1]!, decodeURIComponent((m[2] ?? m[3] ?? '').replace(/\+/g, ' ')));
  }
  return params;
}

/** The string WooCommerce signs: METHOD & rawurlencode(base URI) & the sorted, twice-encoded parameters. */
export function stringToSign(method: string, baseUri: string, params: Map<string, string>): string {
  const pairs = [...params.entries()]
    .filter(([k]) => k !== 'oauth_signature')
    // uksort($params, 'strcmp'): byte order of the raw keys.
    .sort(([a], [b]) => (Buffer.compare(Buffer.from(a), Buffer.from(b))))
    .map(([k, v]) => rfc3986(`${rfc3986(k)}=${rfc3986(v)}`));
  return `${method.toUpperCase()}&${rfc3986(baseUri)}&${pairs.join('%26')}`;
}

export function oauthSignature(algorithm: 'sha1' | 'sha256', text: string, consumerSecret: string): string {
  return createHmac(algorithm, `${consumerSecret}&`).update(text).digest('base64');
}

/** hash_equals: constant time on equal lengths. */
export function hashEquals(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** wc_api_hash(): keys are stored as HMAC-SHA256(key, 'wc-api'); lookups hash the presented key. */
export const wcApiHash = (consumerKey: string) => createHmac('sha256', 'wc-api').update(consumerKey).digest('hex');

export const OAUTH_REQUIRED = ['oauth_consumer_key', 'oauth_timestamp', 'oauth_nonce', 'oauth_signature', 'oauth_signature_method'] as const;
export const TIMESTAMP_WINDOW_S = 15 * 60;

