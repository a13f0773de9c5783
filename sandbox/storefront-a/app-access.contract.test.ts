// Contract tests of the simulator's app-access side with Shopify's official libraries: the private Storefront token
// (GraphQL Admin delegateAccessTokenCreate through @shopify/shopify-api, then @shopify/storefront-api-client with
// privateAccessToken and the Shopify-Storefront-Buyer-IP header), the refusals Shopify answers there (430 to a public
// token from one server, 429 without a body, which the library itself retries), the offline token's `expiring`
// parameter, and a retried webhook that webhooks.validate sees with the same event id under a new webhook id.
import '@shopify/shopify-api/adapters/node';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiVersion, LogSeverity, Session, shopifyApi } from '@shopify/shopify-api';
import { setAbstractFetchFunc } from '@shopify/shopify-api/runtime';
import { createStorefrontApiClient } from '@shopify/storefront-api-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../test/harness/simulators.js';
import { createStorefrontASimulator, DEMO_APP, DEMO_SHOP, type StorefrontASimulator } from './simulator.js';
import { PUBLIC_IP_BUDGET } from './storefront-access.js';

let sim: StorefrontASimulator;
let simUrl: string;
let closeSim: () => Promise<void>;
const toSim = (url: string) => url.replace(/^https:\/\/([a-z0-9-]+\.myshopify\.com)/, (_, shop: string) => `${simUrl}/shops/${shop}`);
const simFetch = ((url: string | URL | Request, init?: RequestInit) => fetch(toSim(String(url instanceof Request ? url.url : url)), init)) as typeof fetch;

// The app's webhook endpoint, validated by the library.
let receiver: ReturnType<typeof createServer>;
let receiverUrl: string;
const validated: Array<Record<string, unknown>> = [];
const shopify = shopifyApi({ apiKey: DEMO_APP.clientId, apiSecretKey: DEMO_APP.clientSecret, hostName: 'app.example', apiVersion: ApiVersion.October26, isEmbeddedApp: false, logger: { level: LogSeverity.Error } });

beforeAll(async () => {
  ({ sim, url: simUrl, close: closeSim } = await startSimulator((publicUrl) => createStorefrontASimulator({ publicUrl })));
  setAbstractFetchFunc(simFetch);
  receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void shopify.webhooks.validate({ rawBody: Buffer.concat(chunks).toString('utf8'), rawRequest: req, rawResponse: res }).then((result) => {
        validated.push(result as unknown as Record<string, unknown>);
        res.writeHead(result.valid ? 200 : 401).end();
      });
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
  await closeSim();
});
beforeEach(async () => {
  await sim.reset();
  validated.length = 0;
});

const control = (path: string, body: unknown) => fetch(`${simUrl}/_control/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const admin = (accessToken: string) => new shopify.clients.Graphql({ session: new Session({ id: 'offline', shop: DEMO_SHOP, state: 'x', isOnline: false, accessToken }) });
const CART = 'query C($id: ID!) { cart(id: $id) { id totalQuantity } }';
const aCart = () => sim.createCart(DEMO_SHOP, [{ variantId: sim.state.shops.get(DEMO_SHOP)!.products[0]!.variants[0]!.id, quantity: 1 }]);

async function delegateToken(offline: string, scopes = ['unauthenticated_read_checkouts', 'unauthenticated_read_product_listings']) {
  const { data } = await admin(offline).request('mutation D($input: DelegateAccessTokenInput!) { delegateAccessTokenCreate(input: $input) { delegateAccessToken { accessToken accessScopes } userErrors { code field message } } }', { variables: { input: { delegateAccessScope: scopes } } });
  return (data as { delegateAccessTokenCreate: { delegateAccessToken: { accessToken: string; accessScopes: string[] } | null; userErrors: Array<{ code: string }> } }).delegateAccessTokenCreate;
}

describe('private Storefront token (delegateAccessTokenCreate, createStorefrontApiClient privateAccessToken)', () => {
  it('given a delegate token of the offline token, then the Storefront client reads a cart with it and the buyer\'s IP', async () => {
    const created = await delegateToken(sim.install(DEMO_SHOP));
    expect(created.userErrors).toEqual([]);
    expect(created.delegateAccessToken!.accessScopes).toEqual(['unauthenticated_read_checkouts', 'unauthenticated_read_product_listings']);
    const sf = createStorefrontApiClient({ storeDomain: DEMO_SHOP, apiVersion: '2026-10', privateAccessToken: created.delegateAccessToken!.accessToken, customFetchApi: simFetch });
    const cartToken = aCart();
    const { data, errors } = await sf.request(CART, { variables: { id: `gid://shopify/Cart/${cartToken}` }, headers: { 'Shopify-Storefront-Buyer-IP': '203.0.113.7' } });
    expect(errors).toBeUndefined();
    expect(data).toEqual({ cart: { id: `gid://shopify/Cart/${cartToken}`, totalQuantity: 1 } });
  });

  it('refuses a scope the parent lacks (UNKNOWN_SCOPES), a delegate as parent (DELEGATE_ACCESS_TOKEN), and an expiring parent (REFRESH_TOKEN)', async () => {
    const offline = sim.install(DEMO_SHOP, { scopes: ['read_themes', 'unauthenticated_read_checkouts'] });
    expect((await delegateToken(offline)).userErrors).toEqual([expect.objectContaining({ code: 'UNKNOWN_SCOPES' })]);
    const delegate = (await delegateToken(offline, ['unauthenticated_read_checkouts'])).delegateAccessToken!.accessToken;
    expect((await delegateToken(delegate, ['unauthenticated_read_checkouts'])).userErrors).toEqual([expect.objectContaining({ code: 'DELEGATE_ACCESS_TOKEN' })]);
    const [token, grant] = [...sim.state.tokens].find(([t]) => t === offline)!;
    sim.state.tokens.set(token, { ...grant, expiresAt: Date.now() + 60_000 });
    expect((await delegateToken(offline, ['unauthenticated_read_checkouts'])).userErrors).toEqual([expect.objectContaining({ code: 'REFRESH_TOKEN' })]);
  });

  it('given a public token used from one server for many buyers, then past its budget Shopify answers 430; the library reports the status', async () => {
    const created = await admin(sim.install(DEMO_SHOP)).request('mutation { storefrontAccessTokenCreate(input: { title: "t" }) { storefrontAccessToken { accessToken } } }');
    const publicAccessToken = (created.data as { storefrontAccessTokenCreate: { storefrontAccessToken: { accessToken: string } } }).storefrontAccessTokenCreate.storefrontAccessToken.accessToken;
    const sf = createStorefrontApiClient({ storeDomain: DEMO_SHOP, apiVersion: '2026-10', publicAccessToken, customFetchApi: simFetch });
    const statuses: Array<number | undefined> = [];
    for (let i = 0; i <= PUBLIC_IP_BUDGET.burst; i++) statuses.push((await sf.request(CART, { variables: { id: `gid://shopify/Cart/${aCart()}` } })).errors?.networkStatusCode);
    expect(statuses.slice(0, PUBLIC_IP_BUDGET.burst)).toEqual(Array(PUBLIC_IP_BUDGET.burst).fill(undefined));
    expect(statuses.at(-1)).toBe(430);
  });

  it('given a 429 without a body, then the library\'s own retry gets the answer; a THROTTLED answer reaches the caller as a GraphQL error', async () => {
    const privateAccessToken = (await delegateToken(sim.install(DEMO_SHOP))).delegateAccessToken!.accessToken;
    const sf = createStorefrontApiClient({ storeDomain: DEMO_SHOP, apiVersion: '2026-10', privateAccessToken, customFetchApi: simFetch });
    await control(`shops/${DEMO_SHOP}/storefront-throttle`, { status: 429, count: 1 });
    const retried = await sf.request(CART, { variables: { id: `gid://shopify/Cart/${aCart()}` }, retries: 1 });
    expect(retried.errors).toBeUndefined();
    await control(`shops/${DEMO_SHOP}/storefront-throttle`, { status: 'THROTTLED', count: 1 });
    const throttled = await sf.request(CART, { variables: { id: `gid://shopify/Cart/${aCart()}` } });
    expect(throttled.errors?.graphQLErrors).toEqual([expect.objectContaining({ message: 'Throttled', extensions: { code: 'THROTTLED' } })]);
  });
});

describe('offline token (POST /admin/oauth/access_token, expiring)', () => {
  async function exchange(expiring: '0' | '1') {
    const code = 'code-' + expiring;
    sim.state.codes.set(code, { shop: DEMO_SHOP, clientId: DEMO_APP.clientId, scopes: ['read_themes'], expiresAt: Date.now() + 60_000 });
    const shop = sim.state.shops.get(DEMO_SHOP)!;
    shop.installs.set(DEMO_APP.clientId, { scopes: ['read_themes'], installedAt: new Date().toISOString(), installationId: 1 });
    const res = await simFetch(`https://${DEMO_SHOP}/admin/oauth/access_token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_id: DEMO_APP.clientId, client_secret: DEMO_APP.clientSecret, code, expiring }) });
    return (await res.json()) as Record<string, unknown>;
  }

  it('answers expiring "0" with a non-expiring token and "1" with a 60-minute token and a refresh token, as the library reads them', async () => {
    expect(Object.keys(await exchange('0')).sort()).toEqual(['access_token', 'scope']);
    const expiring = await exchange('1');
    expect(expiring).toMatchObject({ expires_in: 3600, refresh_token: expect.any(String), refresh_token_expires_in: expect.any(Number) });
    // The library's session from that answer (auth.callback's createSession) carries the expiry and refresh token.
    const session = new Session({ id: 'offline', shop: DEMO_SHOP, state: '', isOnline: false, accessToken: String(expiring.access_token), expires: new Date(Date.now() + Number(expiring.expires_in) * 1000), refreshToken: String(expiring.refresh_token) });
    expect(session.isExpired()).toBe(false);
    expect((await admin(String(expiring.access_token)).request('query { shop { name } }')).data).toEqual({ shop: { name: 'Demo Shop' } });
  });
});

describe('webhook retries (webhooks.validate)', () => {
  it('given a delivery retried, then the library validates it with the same event id and a new webhook id', async () => {
    sim.install(DEMO_SHOP);
    const sent = (await (await control('webhooks/send', { shop: DEMO_SHOP, topic: 'customers/data_request', address: `${receiverUrl}/webhooks` })).json()) as { deliveries: Array<{ id: string }> };
    const retry = await control(`webhooks/deliveries/${sent.deliveries[0]!.id}/retry`, {});
    expect(retry.status).toBe(200);
    expect(validated).toHaveLength(2);
    const [first, second] = validated as Array<{ valid: boolean; eventId: string; webhookId: string; triggeredAt?: string }>;
    expect(first).toMatchObject({ valid: true, eventId: expect.any(String) });
    expect(second).toMatchObject({ valid: true, eventId: first!.eventId });
    expect(second!.webhookId).not.toBe(first!.webhookId);
  });
});
