// Our plugin (store-extensions/woocommerce/hosted-checkout-connector) as it runs inside a simulated store, doing
// what its PHP does on template_redirect of the checkout page: hand the cart to the checkout service
// server-to-server, signed with the REST key the merchant configured, and send the shopper to the answered
// checkout URL. Whatever goes wrong (not configured, service down, slow, passthrough, nonsense) the
// shopper continues to the store's native checkout: a broken plugin must never block a sale.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { CartLine } from '../storefront-common/cart.js';
import { describeFetchError } from '../storefront-common/web.js';
import { wcApiHash } from './oauth.js';
import type { Store } from './state.js';

/** The plugin's handoff body (class-hosted-checkout-handoff.php, payload()). */
export interface PluginCheckoutRequest {
  platform: 'storefront-b';
  /** home_url(): the store URL the merchant connected. */
  storeUrl: string;
  /** Ids as the store's numbers; no prices: the service reads them over REST. */
  cart: { items: Array<{ productId: number; variationId?: number; quantity: number }>; currency: string };
  locale: string;
  /** Random per handoff (bin2hex(random_bytes(16))), signed with the body. */
  handoffId: string;
}

export interface Interception {
  id: string;
  storeId: string;
  storeUrl: string;
  at: string;
  request: PluginCheckoutRequest;
  /** redirected: sent to the hosted checkout; passthrough: the service declined; error: it failed. */
  outcome: 'redirected' | 'passthrough' | 'error';
  status: number | null;
  checkoutUrl?: string;
  /** The session token the service answered with the checkout URL (remembered for emptying the paid cart). */
  sessionToken?: string;
  error?: string;
  durationMs: number;
}

/** The User-Agent the plugin's wp_remote_* calls send (WordPress's, with the plugin's version). */
export const pluginUserAgent = (store: Store) => `WordPress/6.8.8; hosted-checkout-connector/${store.plugin.version} (storefront-b sandbox)`;
/** The plugin's header names (Hosted_Checkout_Signature in the PHP). */
export const HANDOFF_HEADERS = { key: 'x-hosted-checkout-key', timestamp: 'x-hosted-checkout-timestamp', signature: 'x-hosted-checkout-signature' } as const;

/** v1=hex(HMAC-SHA256(consumer secret, "<timestamp>.<body>")), as Hosted_Checkout_Signature::sign does it. */
export function signHandoff(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

function checkoutUrlOf(body: unknown): string | undefined {
  const value = body && typeof body === 'object' && 'checkoutUrl' in body ? body.checkoutUrl : undefined;
  if (typeof value !== 'string') return undefined;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol) ? value : undefined;
  } catch {
    return undefined;
  }
}

export async function interceptCheckout(
  store: Store,
  storeUrl: string,
  lines: CartLine[],
  opts: { serviceUrl: string | undefined; timeoutMs: number },
): Promise<Interception> {
  const started = Date.now();
  const request: PluginCheckoutRequest = {
    platform: 'storefront-b',
    storeUrl,
    cart: {
      // A simple product's cart line carries its own id as variant; only a real variation is sent as one.
      items: lines.map((l) => ({ productId: l.productId, ...(l.variantId !== l.productId ? { variationId: l.variantId } : {}), quantity: l.quantity })),
      currency: store.currency,
    },
    locale: 'en_US',
    handoffId: randomBytes(16).toString('hex'),
  };
  const done = (rest: Pick<Interception, 'outcome' | 'status' | 'checkoutUrl' | 'error'>): Interception => ({
    id: randomUUID(), storeId: store.id, storeUrl, at: new Date(started).toISOString(), request, durationMs: Date.now() - started, ...rest,
  });
  const serviceUrl = store.plugin.serviceUrl ?? opts.serviceUrl;
  if (!serviceUrl) return done({ outcome: 'error', status: null, error: 'the plugin has no checkout service URL configured' });
  // The secret of the configured key, from woocommerce_api_keys (looked up by wc_api_hash, like WooCommerce).
  const key = store.plugin.connectionKey;
  const row = key ? store.keys.get(wcApiHash(key)) : undefined;
  if (!key || !row) return done({ outcome: 'error', status: null, error: 'the connection key is not a REST key of this store' });
  const body = JSON.stringify(request);
  const timestamp = Math.floor(Date.now() / 1000);
  try {
    const res = await fetch(`${serviceUrl.replace(/\/+$/, '')}/api/checkout/create`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'user-agent': pluginUserAgent(store),
        [HANDOFF_HEADERS.key]: key,
        [HANDOFF_HEADERS.timestamp]: String(timestamp),
        [HANDOFF_HEADERS.signature]: signHandoff(row.consumerSecret, timestamp, body),
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
    let answer: unknown = await res.json().catch(() => undefined);
    // This very handoff was already received: the service names the checkout it made, and the shopper goes there.
    const replayed = res.status === 409 && answer && typeof answer === 'object' && 'code' in answer && answer.code === 'HANDOFF_REPLAYED' && 'details' in answer ? answer.details : undefined;
    if (replayed) answer = replayed;
    else if (!res.ok) return done({ outcome: 'error', status: res.status, error: `the service answered ${res.status}` });
    if (answer && typeof answer === 'object' && 'passthrough' in answer && answer.passthrough === true) return done({ outcome: 'passthrough', status: res.status });
    const checkoutUrl = checkoutUrlOf(answer);
    const token = answer && typeof answer === 'object' && 'token' in answer && typeof answer.token === 'string' && SESSION_TOKEN.test(answer.token) ? answer.token : undefined;
    return checkoutUrl
      ? done({ outcome: 'redirected', status: res.status, checkoutUrl, ...(token ? { sessionToken: token } : {}) })
      : done({ outcome: 'error', status: res.status, error: 'the answer has neither a checkoutUrl nor passthrough' });
  } catch (err) {
    return done({ outcome: 'error', status: null, error: describeFetchError(err, opts.timeoutMs) });
  }
}

/** A checkout session token as the service issues them (Hosted_Checkout_Cart::is_token). */
const SESSION_TOKEN = /^cs_[A-Za-z0-9_-]{8,128}$/;
/** Session statuses that mean the cart was bought (Hosted_Checkout_Cart::PAID). */
export const PAID_STATUSES: ReadonlySet<string> = new Set(['COMPLETED', 'COD_CONFIRMED', 'REFUNDED', 'ON_HOLD']);
/** At most one question per shopper in this many ms, each bounded by the time-out (HOSTED_CHECKOUT_PAID_CHECK_*). */
export const PAID_CHECK_INTERVAL_MS = 5_000;
export const PAID_CHECK_TIMEOUT_MS = 2_000;

/**
 * The plugin on a later page of the shop (template_redirect, before the checkout interception): while the
 * shopper's session remembers a handed-over checkout, asks the service (GET /api/checkout/session/<token>) whether
 * it was paid — at most once per PAID_CHECK_INTERVAL_MS, failures ignored — and if so empties the cart and forgets
 * the checkout; a checkout the service does not know (404) or that was abandoned is forgotten, the cart kept.
 */
export async function emptyPaidCart(store: Store, cartToken: string | null, serviceUrl: string | undefined, now = Date.now()): Promise<'emptied' | 'kept' | 'not asked'> {
  const remembered = cartToken === null ? undefined : store.handedOver.get(cartToken);
  const service = store.plugin.serviceUrl ?? serviceUrl;
  if (!store.plugin.active || !remembered || !service || now - remembered.checkedAt < PAID_CHECK_INTERVAL_MS) return 'not asked';
  remembered.checkedAt = now;
  try {
    const res = await fetch(`${service.replace(/\/+$/, '')}/api/checkout/session/${encodeURIComponent(remembered.token)}`, {
      headers: { accept: 'application/json', 'user-agent': pluginUserAgent(store) },
      redirect: 'manual',
      signal: AbortSignal.timeout(PAID_CHECK_TIMEOUT_MS),
    });
    if (res.status === 404) {
      store.handedOver.delete(cartToken!);
      return 'kept';
    }
    const answer: unknown = await res.json().catch(() => undefined);
    const status = res.status === 200 && answer && typeof answer === 'object' && 'status' in answer ? answer.status : undefined;
    if (typeof status === 'string' && PAID_STATUSES.has(status)) {
      store.carts.empty(cartToken!);
      store.handedOver.delete(cartToken!);
      return 'emptied';
    }
    if (status === 'ABANDONED') store.handedOver.delete(cartToken!);
  } catch {
    // The shop page must not wait on us: a failure is ignored, the next page asks again.
  }
  return 'kept';
}
