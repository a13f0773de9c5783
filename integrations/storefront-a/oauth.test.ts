import { describe, expect, it } from 'vitest';
import { buildAuthorizeUrl, isValidShopHost, signCallbackParams, verifyCallbackHmac } from './oauth.js';
import { parseWebhookPayload, signWebhookBody, verifyWebhookHmac } from './webhooks.js';

describe('shop hosts', () => {
  it('given platform shop hosts, when checked, then only one label before the suffix passes', () => {
    expect(isValidShopHost('demo-shop.myshopify.com')).toBe(true);
    expect(isValidShopHost('a1.myshopify.com')).toBe(true);
    for (const host of ['evil.com', 'demo.myshopify.com.evil.com', 'a.b.myshopify.com', '-x.myshopify.com', 'Demo.myshopify.com', 'myshopify.com', 'x.myshopifyxcom']) {
      expect(isValidShopHost(host), host).toBe(false);
    }
    expect(isValidShopHost('demo.shops.test', '.shops.test')).toBe(true);
  });

  it('given the sandbox template, when an authorize URL is built, then it points at the shop under the prefix', () => {
    const url = new URL(buildAuthorizeUrl({ shop: 'demo-shop.myshopify.com', clientId: 'cid', scopes: ['read_orders', 'write_orders'], redirectUri: 'http://localhost:3000/cb', state: 'n1', apiUrlTemplate: 'http://127.0.0.1:4020/shops/{shop}' }));
    expect(url.origin + url.pathname).toBe('http://127.0.0.1:4020/shops/demo-shop.myshopify.com/admin/oauth/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({ client_id: 'cid', scope: 'read_orders,write_orders', redirect_uri: 'http://localhost:3000/cb', state: 'n1' });
    expect(() => buildAuthorizeUrl({ shop: 'evil.com/x', clientId: 'c', scopes: [], redirectUri: 'http://x', state: 's' })).toThrow(/not a valid shop host/);
  });
});

describe('OAuth callback hmac', () => {
  // The real platform's documented example (secret "hush").
  const documented = 'code=0907a61c0c8d55e99db179b68161bc00&hmac=700e2dadb827fcc8609e9d5ce208b2e9cdaab9df07390d2cbca10d7c328fc4bf&shop=some-shop.myshopify.com&state=0.6784241404160823&timestamp=1337178173';

  it("given the platform's documented callback, when verified, then it passes as URLSearchParams and as a parsed query", () => {
    const query = new URLSearchParams(documented);
    expect(verifyCallbackHmac(query, 'hush')).toBe(true);
    expect(verifyCallbackHmac(Object.fromEntries(query), 'hush')).toBe(true);
  });

  it('given a tampered parameter, a wrong secret or a malformed hmac, when verified, then it fails', () => {
    const tampered = new URLSearchParams(documented);
    tampered.set('shop', 'other-shop.myshopify.com');
    expect(verifyCallbackHmac(tampered, 'hush')).toBe(false);
    expect(verifyCallbackHmac(new URLSearchParams(documented), 'hash')).toBe(false);
    const malformed = new URLSearchParams(documented);
    malformed.set('hmac', 'zz');
    expect(verifyCallbackHmac(malformed, 'hush')).toBe(false);
    expect(verifyCallbackHmac({ shop: 'x' }, 'hush')).toBe(false);
  });

  it('given a maximum age, when the timestamp is older, then it fails', () => {
    const params = { code: 'c', shop: 's.myshopify.com', timestamp: '1000' };
    const query = { ...params, hmac: signCallbackParams(params, 'k') };
    expect(verifyCallbackHmac(query, 'k', { maxAgeSeconds: 60, now: new Date(1030_000) })).toBe(true);
    expect(verifyCallbackHmac(query, 'k', { maxAgeSeconds: 60, now: new Date(2000_000) })).toBe(false);
  });

  it("given values with '&' and '%', when signed, then they are escaped so they cannot forge other parameters", () => {
    const a = signCallbackParams({ a: '1&b=2' }, 'k');
    const b = signCallbackParams({ a: '1', b: '2' }, 'k');
    expect(a).not.toBe(b);
  });
});

describe('webhook hmac', () => {
  const body = JSON.stringify({ shop_id: 1, shop_domain: 'demo-shop.myshopify.com' });

  it('given a signed body, when verified with the same secret, then it passes and parses', () => {
    const header = signWebhookBody(body, 'secret');
    expect(verifyWebhookHmac(body, header, 'secret')).toBe(true);
    expect(verifyWebhookHmac(Buffer.from(body), header, 'secret')).toBe(true);
    expect(parseWebhookPayload('shop/redact', body)).toEqual({ shop_id: 1, shop_domain: 'demo-shop.myshopify.com' });
  });

  it('given a tampered body, another secret or a missing header, when verified, then it fails', () => {
    const header = signWebhookBody(body, 'secret');
    expect(verifyWebhookHmac(body.replace('1', '2'), header, 'secret')).toBe(false);
    expect(verifyWebhookHmac(body, header, 'other')).toBe(false);
    expect(verifyWebhookHmac(body, undefined, 'secret')).toBe(false);
    expect(verifyWebhookHmac(body, 'not base64', 'secret')).toBe(false);
  });

  it('given a payload not in the topic shape, when parsed, then it is an invalid_response', () => {
    expect(() => parseWebhookPayload('customers/redact', body)).toThrow(expect.objectContaining({ kind: 'invalid_response' }));
  });
});
