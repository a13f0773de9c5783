// The server-side cart read as Shopify asks servers to make it (a private Storefront token and the shopper's IP),
// its throttles waited out within bounds, the app embed found by our own app's handle, and the offline token kept
// non-expiring: the client against the simulator over real HTTP (docs/storefront-a.md).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../test/harness/simulators.js';
import { createStorefrontASimulator, DEMO_APP, DEMO_SHOP, type StorefrontASimulator } from '../../sandbox/storefront-a/simulator.js';
import { PUBLIC_IP_BUDGET } from '../../sandbox/storefront-a/storefront-access.js';
import { BUYER_IP_HEADER, createStorefrontAClient, embedInSettings, exchangeCode, MAX_THROTTLE_RETRIES } from './client.js';

let sim: StorefrontASimulator;
let url: string;
let close: () => Promise<void>;
beforeAll(async () => ({ sim, url, close } = await startSimulator((publicUrl) => createStorefrontASimulator({ publicUrl }))));
afterAll(() => close());
beforeEach(() => sim.reset());

const control = async (path: string, body: unknown) => {
  const res = await fetch(`${url}/_control/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.ok, await res.clone().text()).toBe(true);
  return res.json() as Promise<Record<string, unknown>>;
};
/** Every request the client makes, with its headers. */
function recording() {
  const requests: Array<{ url: string; headers: Headers }> = [];
  const fetchFn: typeof fetch = (input, init) => {
    requests.push({ url: String(input), headers: new Headers(init?.headers) });
    return fetch(input, init);
  };
  return { requests, fetchFn };
}
const clientFor = (tokens: { accessToken?: string; storefrontPrivateToken?: string; storefrontToken?: string }, extra: { fetch?: typeof fetch; maxThrottleWaitMs?: number } = {}) =>
  createStorefrontAClient({ shop: DEMO_SHOP, accessToken: tokens.accessToken ?? 'x', storefrontPrivateToken: tokens.storefrontPrivateToken, storefrontToken: tokens.storefrontToken, apiUrlTemplate: `${url}/shops/{shop}`, ...extra });
const aCart = () => {
  const variant = sim.state.shops.get(DEMO_SHOP)!.products[3]!.variants[2]!;
  return sim.createCart(DEMO_SHOP, [{ variantId: variant.id, quantity: 2 }]);
};

describe('the server-side cart read', () => {
  it('given an install, when it makes the private token, then it is a delegate of the offline token with only the Storefront scopes', async () => {
    const offline = sim.install(DEMO_SHOP);
    const privateToken = await clientFor({ accessToken: offline }).createStorefrontPrivateToken();
    expect(privateToken).not.toBe(offline);
    expect(sim.state.tokens.get(privateToken)).toEqual({ shop: DEMO_SHOP, clientId: DEMO_APP.clientId, delegate: true, scopes: ['unauthenticated_read_checkouts', 'unauthenticated_write_checkouts', 'unauthenticated_read_product_listings'] });
  });

  it('given the private token, then each read carries it and the shopper\'s IP, and never the public token header', async () => {
    const privateToken = await clientFor({ accessToken: sim.install(DEMO_SHOP) }).createStorefrontPrivateToken();
    const { requests, fetchFn } = recording();
    const cart = await clientFor({ storefrontPrivateToken: privateToken }, { fetch: fetchFn }).getCart(aCart(), { buyerIp: '203.0.113.7' });
    expect(cart).toMatchObject({ subtotalMinor: 6200, items: [{ quantity: 2, unitPriceMinor: 3100 }] });
    expect(requests).toHaveLength(1);
    expect(requests[0]!.headers.get('shopify-storefront-private-token')).toBe(privateToken);
    expect(requests[0]!.headers.get(BUYER_IP_HEADER)).toBe('203.0.113.7');
    expect(requests[0]!.headers.get('x-shopify-storefront-access-token')).toBeNull();
  });

  it('given many shoppers checking out through this one server, then with the private token every cart is read, while a public token is refused as a bot (430) once its budget is spent', async () => {
    const admin = clientFor({ accessToken: sim.install(DEMO_SHOP) });
    const privateClient = clientFor({ storefrontPrivateToken: await admin.createStorefrontPrivateToken() });
    const shoppers = PUBLIC_IP_BUDGET.burst + 5;
    for (let i = 0; i < shoppers; i++) expect((await privateClient.getCart(aCart(), { buyerIp: `198.51.100.${i + 1}` })).items).toHaveLength(1);

    const publicClient = clientFor({ storefrontToken: await admin.createStorefrontToken('browser') }, { maxThrottleWaitMs: 300 });
    const outcomes: string[] = [];
    for (let i = 0; i < shoppers; i++) outcomes.push(await publicClient.getCart(aCart()).then(() => 'read', (err: { kind?: string; status?: number }) => `${err.kind} ${err.status}`));
    expect(outcomes.slice(0, PUBLIC_IP_BUDGET.burst).every((o) => o === 'read')).toBe(true);
    expect(outcomes.at(-1)).toBe('rate_limited 430');
  }, 30_000);

  it.each([
    ['a 430 security rejection (no Retry-After)', { status: 430 }],
    ['a 429 without a body or Retry-After', { status: 429 }],
    ['a 429 with Retry-After: 1', { status: 429, retryAfterSeconds: 1 }],
    ['a THROTTLED answer without a cost', { status: 'THROTTLED' }],
  ])('given %s, then the read is tried again and succeeds', async (_, fault) => {
    const privateToken = await clientFor({ accessToken: sim.install(DEMO_SHOP) }).createStorefrontPrivateToken();
    const cartToken = aCart();
    await control(`shops/${DEMO_SHOP}/storefront-throttle`, { ...fault, count: 2 });
    const { requests, fetchFn } = recording();
    const started = Date.now();
    const cart = await clientFor({ storefrontPrivateToken: privateToken }, { fetch: fetchFn }).getCart(cartToken, { buyerIp: '203.0.113.7' });
    expect(cart.items).toHaveLength(1);
    expect(requests).toHaveLength(3);
    // Retry-After is honoured when Shopify gives one (seconds); else a short backoff.
    if ('retryAfterSeconds' in fault) expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
  });

  it('given throttles that do not end, then after a few attempts the read fails as rate_limited (retryable), never as a refusal', async () => {
    const privateToken = await clientFor({ accessToken: sim.install(DEMO_SHOP) }).createStorefrontPrivateToken();
    await control(`shops/${DEMO_SHOP}/storefront-throttle`, { status: 430, count: 100 });
    const { requests, fetchFn } = recording();
    await expect(clientFor({ storefrontPrivateToken: privateToken }, { fetch: fetchFn }).getCart(aCart())).rejects.toMatchObject({ kind: 'rate_limited', retryable: true, status: 430 });
    expect(requests).toHaveLength(MAX_THROTTLE_RETRIES + 1);
  });

  it('given throttles whose waits exceed the bound (Retry-After: 5 against 1 s), then it fails at once as rate_limited', async () => {
    const privateToken = await clientFor({ accessToken: sim.install(DEMO_SHOP) }).createStorefrontPrivateToken();
    await control(`shops/${DEMO_SHOP}/storefront-throttle`, { status: 429, count: 1, retryAfterSeconds: 5 });
    const { requests, fetchFn } = recording();
    await expect(clientFor({ storefrontPrivateToken: privateToken }, { fetch: fetchFn, maxThrottleWaitMs: 1_000 }).getCart(aCart())).rejects.toMatchObject({ kind: 'rate_limited', status: 429 });
    expect(requests).toHaveLength(1);
  });
});

describe('app embed status', () => {
  const deployEmbed = (clientId: string) => control(`apps/${clientId}/extensions`, { handle: 'checkout', blocks: { 'checkout-embed': '{% schema %}{"name":"x","target":"body"}{% endschema %}' }, assets: {} });

  it('given another app\'s embed also named checkout-embed is on and ours is not, then ours is reported off; once ours is on, on', async () => {
    const client = clientFor({ accessToken: sim.install(DEMO_SHOP) });
    await control('apps', { clientId: 'other-app-client-01', name: 'Other Checkout', handle: 'other-checkout' });
    await deployEmbed('other-app-client-01');
    await deployEmbed(DEMO_APP.clientId);
    await control(`shops/${DEMO_SHOP}/app-embeds`, { clientId: 'other-app-client-01', block: 'checkout-embed', enabled: true });
    expect(await client.embedStatus()).toMatchObject({ active: false, present: false, themeName: 'Dawn' });
    await control(`shops/${DEMO_SHOP}/app-embeds`, { clientId: DEMO_APP.clientId, block: 'checkout-embed', enabled: true });
    expect(await client.embedStatus()).toMatchObject({ active: true, present: true });
    await control(`shops/${DEMO_SHOP}/app-embeds`, { clientId: DEMO_APP.clientId, block: 'checkout-embed', enabled: false });
    expect(await client.embedStatus()).toMatchObject({ active: false, present: true });
  });

  it('matches only shopify://apps/<our handle>/blocks/<our block>/<uid>, enabled', () => {
    const settings = (blocks: Record<string, { type: string; disabled?: boolean }>) => `/* auto-generated */ ${JSON.stringify({ current: { blocks } })}`;
    const ours = { appHandle: 'hosted-checkout' };
    expect(embedInSettings(settings({ a: { type: 'shopify://apps/other-app/blocks/checkout-embed/0a1b', disabled: false } }), ours)).toEqual({ active: false, present: false });
    expect(embedInSettings(settings({ a: { type: 'shopify://apps/hosted-checkout-2/blocks/checkout-embed/0a1b' } }), ours)).toEqual({ active: false, present: false });
    expect(embedInSettings(settings({ a: { type: 'shopify://apps/hosted-checkout/blocks/checkout-embed-v2/0a1b' } }), ours)).toEqual({ active: false, present: false });
    expect(embedInSettings(settings({ a: { type: 'shopify://apps/hosted-checkout/blocks/checkout-embed/0a1b', disabled: true } }), ours)).toEqual({ active: false, present: true });
    expect(embedInSettings(settings({ a: { type: 'shopify://apps/hosted-checkout/blocks/checkout-embed/0a1b', disabled: false } }), ours)).toEqual({ active: true, present: true });
  });
});

describe('the offline token', () => {
  const codeFor = () => {
    const code = `code-${Math.random().toString(16).slice(2)}`;
    sim.state.codes.set(code, { shop: DEMO_SHOP, clientId: DEMO_APP.clientId, scopes: ['read_themes'], expiresAt: Date.now() + 60_000 });
    return code;
  };
  const exchange = (code: string, fetchFn?: typeof fetch) => exchangeCode({ shop: DEMO_SHOP, clientId: DEMO_APP.clientId, clientSecret: DEMO_APP.clientSecret, code, apiUrlTemplate: `${url}/shops/{shop}`, fetch: fetchFn });

  it('given a merchant-created app, then the code is exchanged for a non-expiring token (expiring: "0")', async () => {
    const { requests, fetchFn } = recording();
    const bodies: unknown[] = [];
    const { accessToken } = await exchange(codeFor(), (input, init) => (bodies.push(JSON.parse(String(init?.body))), fetchFn(input, init)));
    expect(bodies).toEqual([expect.objectContaining({ expiring: '0' })]);
    expect(requests).toHaveLength(1);
    expect(sim.state.tokens.get(accessToken)?.expiresAt).toBeUndefined();
  });

  it('given Shopify answered an expiring token anyway, then the install is refused with the reason instead of storing a token that stops working in an hour', async () => {
    const asIfExpiring: typeof fetch = (input, init) => fetch(input, { ...init, body: String(init?.body).replace('"expiring":"0"', '"expiring":"1"') });
    await expect(exchange(codeFor(), asIfExpiring)).rejects.toMatchObject({ kind: 'invalid_response', message: expect.stringMatching(/expiring offline token/) });
  });
});
