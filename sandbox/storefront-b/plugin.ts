// The official plugin, as it runs inside the store: it takes over the cart's checkout button server-side,
// asks the checkout service for a hosted checkout and sends the shopper there. Whatever goes wrong (plugin
// not configured, service down, slow, answering passthrough or nonsense) the shopper continues to the
// store's native checkout: a broken plugin must never block a sale.
import { randomUUID } from 'node:crypto';
import type { CartLine } from '../storefront-common/cart.js';
import { describeFetchError } from '../storefront-common/web.js';
import type { Store } from './state.js';

export interface PluginCheckoutRequest {
  platform: 'storefront-b';
  storeUrl: string;
  /** Ids as the platform's numbers; no prices: the service reads them over REST. */
  cart: { items: Array<{ productId: number; variationId?: number; quantity: number }>; currency: string };
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
  error?: string;
  durationMs: number;
}

export const PLUGIN_USER_AGENT = 'HostedCheckout-Plugin/1.0.0 (storefront-b sandbox)';

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
  };
  const done = (rest: Pick<Interception, 'outcome' | 'status' | 'checkoutUrl' | 'error'>): Interception => ({
    id: randomUUID(), storeId: store.id, storeUrl, at: new Date(started).toISOString(), request, durationMs: Date.now() - started, ...rest,
  });
  const serviceUrl = store.plugin.serviceUrl ?? opts.serviceUrl;
  if (!serviceUrl) return done({ outcome: 'error', status: null, error: 'the plugin has no checkout service URL configured' });
  try {
    const res = await fetch(`${serviceUrl.replace(/\/+$/, '')}/api/checkout/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'user-agent': PLUGIN_USER_AGENT },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
    const body: unknown = await res.json().catch(() => undefined);
    if (!res.ok) return done({ outcome: 'error', status: res.status, error: `the service answered ${res.status}` });
    if (body && typeof body === 'object' && 'passthrough' in body && body.passthrough === true) return done({ outcome: 'passthrough', status: res.status });
    const checkoutUrl = checkoutUrlOf(body);
    return checkoutUrl
      ? done({ outcome: 'redirected', status: res.status, checkoutUrl })
      : done({ outcome: 'error', status: res.status, error: 'the answer has neither a checkoutUrl nor passthrough' });
  } catch (err) {
    return done({ outcome: 'error', status: null, error: describeFetchError(err, opts.timeoutMs) });
  }
}
