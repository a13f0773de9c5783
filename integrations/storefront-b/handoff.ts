// The signature of our WooCommerce plugin's checkout handoff (store-extensions/woocommerce/hosted-checkout-connector,
// Hosted_Checkout_Signature): the plugin reads the secret of the REST key the merchant connected from the store's own
// woocommerce_api_keys table and signs "<unix seconds>.<raw body>" with HMAC-SHA256. We hold the same secret
// (sealed), so a valid signature proves the handoff comes from this store.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const HANDOFF_HEADERS = { key: 'x-hosted-checkout-key', timestamp: 'x-hosted-checkout-timestamp', signature: 'x-hosted-checkout-signature' } as const;
/** How far the plugin's clock may be from ours. */
export const HANDOFF_TOLERANCE_S = 300;

export interface Handoff {
  key: string;
  timestamp: string;
  signature: string;
  rawBody: Buffer;
}

const equal = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

export function signHandoff(consumerSecret: string, timestamp: number, rawBody: string | Buffer): string {
  return `v1=${createHmac('sha256', consumerSecret).update(`${timestamp}.`).update(rawBody).digest('hex')}`;
}

/**
 * The headers our plugin sends with a handoff body (Hosted_Checkout_Signature::headers in the PHP). For callers that act as
 * the plugin: tests, benches and scripts holding the store's REST key pair.
 */
export function handoffHeaders(consumerKey: string, consumerSecret: string, rawBody: string, nowS = Math.floor(Date.now() / 1000)): Record<string, string> {
  return {
    'content-type': 'application/json',
    [HANDOFF_HEADERS.key]: consumerKey,
    [HANDOFF_HEADERS.timestamp]: String(nowS),
    [HANDOFF_HEADERS.signature]: signHandoff(consumerSecret, nowS, rawBody),
  };
}

/** Why a handoff is not this store's, or null when it is. Constant-time comparisons throughout. */
export function handoffProblem(h: Handoff, store: { consumerKey: string; consumerSecret: string }, nowS = Math.floor(Date.now() / 1000)): string | null {
  if (!equal(h.key, store.consumerKey)) return "the plugin's connection key is not the REST key this store is connected with";
  if (!/^\d{1,12}$/.test(h.timestamp) || Math.abs(nowS - Number(h.timestamp)) > HANDOFF_TOLERANCE_S) return "the plugin's clock is more than 5 minutes off, or the timestamp is malformed";
  return equal(h.signature, signHandoff(store.consumerSecret, Number(h.timestamp), h.rawBody)) ? null : "the plugin's signature does not match";
}
