// Contract tests: Shopify's official libraries (@shopify/shopify-api 15: OAuth begin/callback, webhooks.validate,
// GraphQL Admin client; @shopify/storefront-api-client 2) pointed at the simulator, for every operation the
// service uses. A simulator that drifts from what the libraries send and expect fails here. The libraries
// address https://<shop>.myshopify.com; the fetch below only moves that origin to the simulator's /shops/<shop>.
import '@shopify/shopify-api/adapters/node';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiVersion, GraphqlQueryError, LogSeverity, Session, shopifyApi } from '@shopify/shopify-api';
import { setAbstractFetchFunc } from '@shopify/shopify-api/runtime';
import { createStorefrontApiClient } from '@shopify/storefront-api-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../test/harness/simulators.js';
import { createStorefrontASimulator, DEMO_APP, DEMO_SHOP, DEMO_SHOP_PRIMARY_DOMAIN, type StorefrontASimulator } from './simulator.js';

const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';
let sim: StorefrontASimulator;
let simUrl: string;
let closeSim: () => Promise<void>;
const toSim = (url: string) => url.replace(/^https:\/\/([a-z0-9-]+\.myshopify\.com)/, (_, shop: string) => `${simUrl}/shops/${shop}`);
const simFetch = (url: string | URL | Request, init?: RequestInit) => fetch(toSim(String(url instanceof Request ? url.url : url)), init);

// The app's own HTTP side: begin, callback and the webhook endpoint, handled by the library.
let app: ReturnType<typeof createServer>;
let appUrl: string;
let shopify: ReturnType<typeof shopifyApi>;
const webhookResults: unknown[] = [];

beforeAll(async () => {
  ({ sim, url: simUrl, close: closeSim } = await startSimulator((publicUrl) => createStorefrontASimulator({ publicUrl })));
  setAbstractFetchFunc(simFetch as typeof fetch);
  app = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const path = new URL(req.url ?? '/', appUrl).pathname;
        if (path === '/begin') {
          await shopify.auth.begin({ shop: DEMO_SHOP, callbackPath: '/callback', isOnline: false, rawRequest: req, rawResponse: res });
        } else if (path === '/callback') {
          try {
            const { session } = await shopify.auth.callback({ rawRequest: req, rawResponse: res });
            res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(session.toObject()));
          } catch (err) {
            res.writeHead(400).end((err as Error).constructor.name);
          }
        } else if (path === '/webhooks') {
          const result = await shopify.webhooks.validate({ rawBody: Buffer.concat(chunks).toString('utf8'), rawRequest: req, rawResponse: res });
          webhookResults.push(result);
          res.writeHead(result.valid ? 200 : 401).end();
        } else res.writeHead(404).end();
      })().catch((err: unknown) => res.writeHead(500).end(String(err)));
    });
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  shopify = shopifyApi({
    apiKey: DEMO_APP.clientId,
    apiSecretKey: DEMO_APP.clientSecret,
    scopes: ['write_draft_orders', 'read_orders', 'read_themes', 'write_script_tags', 'unauthenticated_read_checkouts'],
    hostName: new URL(appUrl).host,
    hostScheme: 'http',
    apiVersion: ApiVersion.October26,
    isEmbeddedApp: false,
    logger: { level: LogSeverity.Error },
  });
});
afterAll(async () => {
  await new Promise((resolve) => app.close(resolve));
  await closeSim();
});
beforeEach(async () => {
  await sim.reset();
  webhookResults.length = 0;
});

const cookiesOf = (res: Response) => res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');

/** The whole install through the library: begin → consent → Install → callback → token exchange. */
async function installWithLibrary(): Promise<{ accessToken: string; scope: string; callback: URL }> {
  const begin = await fetch(`${appUrl}/begin`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } });
  expect(begin.status).toBe(302);
  const authorize = new URL(begin.headers.get('location')!);
  expect(authorize.origin + authorize.pathname).toBe(`https://${DEMO_SHOP}/admin/oauth/authorize`);
  const consent = await fetch(toSim(authorize.toString()));
  expect(consent.status).toBe(200);
  const page = await consent.text();
  const fields = Object.fromEntries([...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!.replace(/&#38;/g, '&')]));
  const action = /<form method="post" action="([^"]+)"/.exec(page)![1]!;
  const install = await fetch(simUrl + action, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ ...fields, decision: 'install' }) });
  expect(install.status).toBe(302);
  const callback = new URL(install.headers.get('location')!);
  const done = await fetch(callback, { headers: { 'user-agent': BROWSER_UA, cookie: cookiesOf(begin) } });
  expect(done.status, await done.clone().text()).toBe(200);
  const session = (await done.json()) as { accessToken: string; scope: string };
  return { ...session, callback };
}

describe('OAuth (auth.begin / auth.callback / utils.validateHmac)', () => {
  it('given the library begins an install, when the merchant installs, then the callback validates and the code becomes an offline token', async () => {
    const { accessToken, scope, callback } = await installWithLibrary();
    expect(accessToken).toMatch(/^shpat_/);
    expect(scope.split(',')).toContain('write_draft_orders');
    expect([...callback.searchParams.keys()].sort()).toEqual(['code', 'hmac', 'host', 'shop', 'state', 'timestamp']);
    // host is base64 with padding, so the signature covers an escaped '='.
    expect(Buffer.from(callback.searchParams.get('host')!, 'base64').toString()).toBe('admin.shopify.com/store/demo-shop');
  });

  it('given a callback whose parameters were changed, then the library refuses it', async () => {
    const { callback } = await installWithLibrary();
    expect(await shopify.utils.validateHmac(callback.searchParams)).toBe(true);
    const tampered = new URLSearchParams(callback.searchParams);
    tampered.set('shop', 'evil.myshopify.com');
    expect(await shopify.utils.validateHmac(tampered)).toBe(false);
  });

  it('given a wrong client secret, when the code is exchanged, then the simulator answers 401 invalid_client', async () => {
    const res = await fetch(`${simUrl}/shops/${DEMO_SHOP}/admin/oauth/access_token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_id: DEMO_APP.clientId, client_secret: 'nope', code: 'x' }) });
    expect(res.status).toBe(401);
  });
});

describe('GraphQL Admin API (clients.Graphql)', () => {
  const admin = (token: string) => new shopify.clients.Graphql({ session: new Session({ id: `offline_${DEMO_SHOP}`, shop: DEMO_SHOP, state: 'x', isOnline: false, accessToken: token }) });

  it('answers shop domains, app installation, storefront token, webhook subscription, metafields and theme settings', async () => {
    const client = admin(sim.install(DEMO_SHOP));
    const shop = await client.request('query { shop { myshopifyDomain currencyCode primaryDomain { host } } }');
    expect(shop.data).toMatchObject({ shop: { myshopifyDomain: DEMO_SHOP, primaryDomain: { host: DEMO_SHOP_PRIMARY_DOMAIN } } });
    // The domains shoppers browse on without the deprecated Shop.domains: the web presences (read_markets).
    await fetch(`${simUrl}/_control/shops/${DEMO_SHOP}/domains`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ host: 'demo-shop.ca', webPresence: true }) });
    const presences = await client.request('query { webPresences(first: 250) { nodes { domain { host url } subfolderSuffix rootUrls { locale url } } } }');
    expect(presences.data).toEqual({ webPresences: { nodes: [
      { domain: { host: DEMO_SHOP_PRIMARY_DOMAIN, url: `https://${DEMO_SHOP_PRIMARY_DOMAIN}` }, subfolderSuffix: null, rootUrls: [{ locale: 'en', url: `https://${DEMO_SHOP_PRIMARY_DOMAIN}` }] },
      { domain: { host: 'demo-shop.ca', url: 'https://demo-shop.ca' }, subfolderSuffix: null, rootUrls: [{ locale: 'en', url: 'https://demo-shop.ca' }] },
    ] } });
    const withoutMarkets = admin(sim.install(DEMO_SHOP, { scopes: ['write_draft_orders'] }));
    await expect(withoutMarkets.request('query { webPresences(first: 1) { nodes { domain { host } } } }')).rejects.toMatchObject({ body: { errors: { graphQLErrors: [{ extensions: { code: 'ACCESS_DENIED' } }] } } });
    expect(shop.extensions).toMatchObject({ cost: { requestedQueryCost: expect.any(Number), throttleStatus: { maximumAvailable: 2000, restoreRate: 100 } } });

    const token = await client.request('mutation T($input: StorefrontAccessTokenInput!) { storefrontAccessTokenCreate(input: $input) { storefrontAccessToken { accessToken accessScopes { handle } } userErrors { message } } }', { variables: { input: { title: 'hosted-checkout' } } });
    expect(token.data).toMatchObject({ storefrontAccessTokenCreate: { storefrontAccessToken: { accessToken: expect.any(String), accessScopes: expect.arrayContaining([{ handle: 'unauthenticated_read_checkouts' }]) }, userErrors: [] } });

    const sub = await client.request('mutation S($topic: WebhookSubscriptionTopic!, $s: WebhookSubscriptionInput!) { webhookSubscriptionCreate(topic: $topic, webhookSubscription: $s) { webhookSubscription { id topic uri } userErrors { message } } }', { variables: { topic: 'DOMAINS_UPDATE', s: { uri: `${appUrl}/webhooks`, format: 'JSON' } } });
    expect(sub.data).toMatchObject({ webhookSubscriptionCreate: { webhookSubscription: { topic: 'DOMAINS_UPDATE', uri: `${appUrl}/webhooks` }, userErrors: [] } });

    const me = await client.request('query { currentAppInstallation { id } }');
    const ownerId = (me.data as { currentAppInstallation: { id: string } }).currentAppInstallation.id;
    const mf = await client.request('mutation M($m: [MetafieldsSetInput!]!) { metafieldsSet(metafields: $m) { metafields { key value } userErrors { message } } }', { variables: { m: [{ ownerId, namespace: 'hosted_checkout', key: 'api_base', value: 'https://checkout.example', type: 'single_line_text_field' }] } });
    expect(mf.data).toMatchObject({ metafieldsSet: { metafields: [{ key: 'api_base', value: 'https://checkout.example' }], userErrors: [] } });

    await fetch(`${simUrl}/_control/apps/${DEMO_APP.clientId}/extensions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ handle: 'ext', blocks: { 'checkout-embed': '{% schema %}{"name":"x","target":"body"}{% endschema %}' }, assets: {} }) });
    await fetch(`${simUrl}/_control/shops/${DEMO_SHOP}/app-embeds`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientId: DEMO_APP.clientId, block: 'checkout-embed', enabled: true }) });
    const themes = await client.request('query { themes(first: 1, roles: [MAIN]) { nodes { name role files(filenames: ["config/settings_data.json"], first: 1) { nodes { filename body { ... on OnlineStoreThemeFileBodyText { content } } } } } } }');
    const content = (themes.data as { themes: { nodes: Array<{ files: { nodes: Array<{ body: { content: string } }> } }> } }).themes.nodes[0]!.files.nodes[0]!.body.content;
    expect(content).toMatch(/^\/\*[\s\S]*IMPORTANT: The contents of this file are auto-generated/);
    expect(content).toMatch(/"type": "shopify:\/\/apps\/hosted-checkout\/blocks\/checkout-embed\/[0-9a-f]+"/);
  });

  it('refuses scriptTagCreate since 2026-10-01 but lists and deletes a legacy script tag', async () => {
    const client = admin(sim.install(DEMO_SHOP));
    const created = await client.request('mutation C($i: ScriptTagInput!) { scriptTagCreate(input: $i) { scriptTag { id } userErrors { message } } }', { variables: { i: { src: 'https://x.example/a.js' } } });
    expect(created.data).toMatchObject({ scriptTagCreate: { scriptTag: null, userErrors: [{ message: expect.stringMatching(/deprecated/) }] } });
    const legacy = (await (await fetch(`${simUrl}/_control/shops/${DEMO_SHOP}/script-tags`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientId: DEMO_APP.clientId, src: 'https://x.example/a.js' }) })).json()) as { gid: string };
    const list = await client.request('query { scriptTags(first: 50) { nodes { id src } } }');
    expect(list.data).toEqual({ scriptTags: { nodes: [{ id: legacy.gid, src: 'https://x.example/a.js' }] } });
    const del = await client.request('mutation D($id: ID!) { scriptTagDelete(id: $id) { deletedScriptTagId userErrors { message } } }', { variables: { id: legacy.gid } });
    expect(del.data).toEqual({ scriptTagDelete: { deletedScriptTagId: legacy.gid, userErrors: [] } });
  });

  it('creates a draft order at the given prices, completes it into exactly one order, and a second completion creates nothing', async () => {
    const client = admin(sim.install(DEMO_SHOP));
    const variant = sim.state.shops.get(DEMO_SHOP)!.products[0]!.variants[0]!;
    const created = await client.request('mutation C($input: DraftOrderInput!) { draftOrderCreate(input: $input) { draftOrder { id status totalPriceSet { shopMoney { amount currencyCode } } } userErrors { field message } } }', {
      variables: { input: { email: 'ann@example.com', tags: ['hosted-checkout', 'cs_1'], customAttributes: [{ key: 'checkout_session_token', value: 'cs_1' }], presentmentCurrencyCode: 'EUR', lineItems: [{ variantId: `gid://shopify/ProductVariant/${variant.id}`, quantity: 2, priceOverride: { amount: '20.00', currencyCode: 'EUR' } }], shippingLine: { title: 'Standard', priceWithCurrency: { amount: '4.5', currencyCode: 'EUR' } }, shippingAddress: { firstName: 'Ann', lastName: 'Lee', address1: '1 Main St', city: 'Berlin', zip: '10115', countryCode: 'DE' } } },
    });
    const draft = (created.data as { draftOrderCreate: { draftOrder: { id: string; status: string; totalPriceSet: { shopMoney: { amount: string } } } } }).draftOrderCreate.draftOrder;
    expect(draft).toMatchObject({ status: 'OPEN', totalPriceSet: { shopMoney: { amount: '44.5' } } });
    const complete = () => client.request('mutation X($id: ID!) { draftOrderComplete(id: $id) { draftOrder { status order { id name displayFinancialStatus } } userErrors { message } } }', { variables: { id: draft.id } });
    const first = await complete();
    expect(first.data).toMatchObject({ draftOrderComplete: { draftOrder: { status: 'COMPLETED', order: { name: '#1001', displayFinancialStatus: 'PAID' } }, userErrors: [] } });
    const second = await complete();
    expect(second.data).toMatchObject({ draftOrderComplete: { userErrors: [{ message: expect.any(String) }] } });
    const read = await client.request('query D($id: ID!) { draftOrder(id: $id) { status order { id customAttributes { key value } } } }', { variables: { id: draft.id } });
    const orderId = (read.data as { draftOrder: { order: { id: string } } }).draftOrder.order.id;
    const order = await client.request('query O($id: ID!) { order(id: $id) { name totalPriceSet { presentmentMoney { amount currencyCode } } } }', { variables: { id: orderId } });
    expect(order.data).toEqual({ order: { name: '#1001', totalPriceSet: { presentmentMoney: { amount: '44.5', currencyCode: 'EUR' } } } });
    expect(sim.state.shops.get(DEMO_SHOP)!.orders.size).toBe(1);
  });

  it('DraftOrder.ready and the completion faults: not ready for N reads (a completion meanwhile refused), a completion in flight (another refused), one that commits and answers INTERNAL_SERVER_ERROR', async () => {
    const client = admin(sim.install(DEMO_SHOP));
    const variant = sim.state.shops.get(DEMO_SHOP)!.products[0]!.variants[0]!;
    const faults = (body: unknown) => fetch(`${simUrl}/_control/shops/${DEMO_SHOP}/faults/draft-orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const createDraft = async () => {
      const created = await client.request('mutation C($input: DraftOrderInput!) { draftOrderCreate(input: $input) { draftOrder { id ready } userErrors { message } } }', { variables: { input: { presentmentCurrencyCode: 'EUR', lineItems: [{ variantId: `gid://shopify/ProductVariant/${variant.id}`, quantity: 1 }] } } });
      return (created.data as { draftOrderCreate: { draftOrder: { id: string; ready: boolean } } }).draftOrderCreate.draftOrder;
    };
    const ready = async (id: string) => ((await client.request('query D($id: ID!) { draftOrder(id: $id) { ready status order { id } } }', { variables: { id } })).data as { draftOrder: { ready: boolean; status: string; order: { id: string } | null } }).draftOrder;
    const complete = (id: string) => client.request('mutation X($id: ID!) { draftOrderComplete(id: $id) { draftOrder { status order { id } } userErrors { field message } } }', { variables: { id } });

    await faults({ notReady: { count: 1, reads: 2 } });
    const slow = await createDraft();
    expect(slow.ready).toBe(false);
    expect((await complete(slow.id)).data).toMatchObject({ draftOrderComplete: { userErrors: [{ field: ['id'], message: expect.stringMatching(/not ready/) }] } });
    expect(await ready(slow.id)).toMatchObject({ ready: false, status: 'OPEN', order: null });
    expect(await ready(slow.id)).toMatchObject({ ready: false });
    expect(await ready(slow.id)).toMatchObject({ ready: true });
    expect((await complete(slow.id)).data).toMatchObject({ draftOrderComplete: { draftOrder: { status: 'COMPLETED', order: { id: expect.any(String) } }, userErrors: [] } });

    await faults({ inFlight: { count: 1, commitMs: 500 } });
    const flying = await createDraft();
    expect(flying.ready).toBe(true);
    // The first completion's answer is lost (the connection drops) while it commits: the library sees a network error.
    await expect(complete(flying.id)).rejects.toThrow();
    expect((await complete(flying.id)).data).toMatchObject({ draftOrderComplete: { userErrors: [{ message: expect.stringMatching(/already being completed/) }] } });
    expect(await ready(flying.id)).toMatchObject({ status: 'OPEN', order: null });
    await expect.poll(async () => (await ready(flying.id)).status, { timeout: 3_000, interval: 100 }).toBe('COMPLETED');

    await faults({ commitThenError: { count: 1 } });
    const erring = await createDraft();
    const failed = await complete(erring.id).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(GraphqlQueryError);
    expect((failed as GraphqlQueryError).body).toMatchObject({ errors: { graphQLErrors: [{ extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: expect.any(String) } }] } });
    expect(await ready(erring.id)).toMatchObject({ status: 'COMPLETED', order: { id: expect.any(String) } });
    expect(sim.state.shops.get(DEMO_SHOP)!.orders.size).toBe(3);
  });

  it('cash on delivery through payment terms (2026-10): the "Due on fulfillment" template on the draft, completed without paymentPending → a PENDING order without a sale; terms that need a schedule are refused without one', async () => {
    const client = admin(sim.install(DEMO_SHOP));
    const variant = sim.state.shops.get(DEMO_SHOP)!.products[0]!.variants[0]!;
    const templates = await client.request('query { paymentTermsTemplates(paymentTermsType: FULFILLMENT) { id name paymentTermsType dueInDays } }');
    const template = (templates.data as { paymentTermsTemplates: Array<{ id: string; name: string; paymentTermsType: string; dueInDays: number | null }> }).paymentTermsTemplates;
    expect(template).toEqual([{ id: expect.stringMatching(/^gid:\/\/shopify\/PaymentTermsTemplate\/\d+$/), name: 'Due on fulfillment', paymentTermsType: 'FULFILLMENT', dueInDays: null }]);
    const create = (paymentTerms: unknown) => client.request('mutation C($input: DraftOrderInput!) { draftOrderCreate(input: $input) { draftOrder { id } userErrors { field message } } }', { variables: { input: { presentmentCurrencyCode: 'EUR', lineItems: [{ variantId: `gid://shopify/ProductVariant/${variant.id}`, quantity: 1 }], paymentTerms } } });
    const made = await create({ paymentTermsTemplateId: template[0]!.id });
    const draftId = (made.data as { draftOrderCreate: { draftOrder: { id: string } } }).draftOrderCreate.draftOrder.id;
    const done = await client.request('mutation X($id: ID!) { draftOrderComplete(id: $id) { draftOrder { order { displayFinancialStatus transactions { kind } } } userErrors { message } } }', { variables: { id: draftId } });
    expect(done.data).toEqual({ draftOrderComplete: { draftOrder: { order: { displayFinancialStatus: 'PENDING', transactions: [] } }, userErrors: [] } });
    // Net terms need the schedule's issuedAt (PaymentScheduleInput); an unknown template is refused.
    const net = ((await client.request('query { paymentTermsTemplates(paymentTermsType: NET) { id } }')).data as { paymentTermsTemplates: Array<{ id: string }> }).paymentTermsTemplates[0]!.id;
    expect((await create({ paymentTermsTemplateId: net })).data).toMatchObject({ draftOrderCreate: { draftOrder: null, userErrors: [{ field: ['paymentTerms', 'paymentSchedules'] }] } });
    expect((await create({ paymentTermsTemplateId: net, paymentSchedules: [{ issuedAt: '2026-11-28T00:00:00Z' }] })).data).toMatchObject({ draftOrderCreate: { userErrors: [] } });
    expect((await create({ paymentTermsTemplateId: 'gid://shopify/PaymentTermsTemplate/999' })).data).toMatchObject({ draftOrderCreate: { draftOrder: null, userErrors: [{ field: ['paymentTerms', 'paymentTermsTemplateId'] }] } });
  });

  it('refundCreate (2026-10): @idempotent(key:) is required and replays the first refund; money against the manual sale, lines restocked; PARTIALLY_REFUNDED then REFUNDED; refunds/create reaches a subscribed app and validates', async () => {
    const client = admin(sim.install(DEMO_SHOP));
    const variant = sim.state.shops.get(DEMO_SHOP)!.products[0]!.variants[0]!;
    await client.request('mutation S($sub: WebhookSubscriptionInput!) { webhookSubscriptionCreate(topic: REFUNDS_CREATE, webhookSubscription: $sub) { userErrors { message } } }', { variables: { sub: { uri: `${appUrl}/webhooks`, format: 'JSON' } } });
    const created = await client.request('mutation C($input: DraftOrderInput!) { draftOrderCreate(input: $input) { draftOrder { id } } }', {
      variables: { input: { email: 'ann@example.com', presentmentCurrencyCode: 'EUR', lineItems: [{ variantId: `gid://shopify/ProductVariant/${variant.id}`, quantity: 2, priceOverride: { amount: '25.00', currencyCode: 'EUR' } }], shippingLine: { title: 'Standard', priceWithCurrency: { amount: '4.70', currencyCode: 'EUR' } } } },
    });
    const draftId = (created.data as { draftOrderCreate: { draftOrder: { id: string } } }).draftOrderCreate.draftOrder.id;
    const done = await client.request('mutation X($id: ID!) { draftOrderComplete(id: $id) { draftOrder { order { id } } } }', { variables: { id: draftId } });
    const orderId = (done.data as { draftOrderComplete: { draftOrder: { order: { id: string } } } }).draftOrderComplete.draftOrder.order.id;
    const context = await client.request('query O($id: ID!) { order(id: $id) { transactions(first: 10) { id kind status gateway amountSet { presentmentMoney { amount } } } lineItems(first: 10) { nodes { id quantity unfulfilledQuantity } } } }', { variables: { id: orderId } });
    const { transactions, lineItems } = (context.data as { order: { transactions: Array<{ id: string; kind: string; status: string; gateway: string; amountSet: { presentmentMoney: { amount: string } } }>; lineItems: { nodes: Array<{ id: string; quantity: number; unfulfilledQuantity: number }> } } }).order;
    expect(transactions).toEqual([{ id: expect.stringMatching(/^gid:\/\/shopify\/OrderTransaction\//), kind: 'SALE', status: 'SUCCESS', gateway: 'manual', amountSet: { presentmentMoney: { amount: '54.7' } } }]);
    const REFUND = 'mutation R($input: RefundInput!, $key: String!) { refundCreate(input: $input) @idempotent(key: $key) { refund { id note totalRefundedSet { presentmentMoney { amount } } } order { displayFinancialStatus totalRefundedSet { presentmentMoney { amount } } } userErrors { field message } } }';
    const partial = { orderId, note: 'one broken [hosted-checkout refund 1]', notify: false, refundLineItems: [{ lineItemId: lineItems.nodes[0]!.id, quantity: 1, restockType: 'CANCEL' }], transactions: [{ orderId, parentId: transactions[0]!.id, kind: 'REFUND', gateway: 'manual', amount: '25.00' }] };
    const first = await client.request(REFUND, { variables: { input: partial, key: 'key-1' } });
    expect(first.data).toMatchObject({ refundCreate: { refund: { note: 'one broken [hosted-checkout refund 1]', totalRefundedSet: { presentmentMoney: { amount: '25.0' } } }, order: { displayFinancialStatus: 'PARTIALLY_REFUNDED', totalRefundedSet: { presentmentMoney: { amount: '25.0' } } }, userErrors: [] } });
    // A retry with the key: the first refund, nothing refunded twice.
    const again = await client.request(REFUND, { variables: { input: partial, key: 'key-1' } });
    expect((again.data as { refundCreate: { refund: { id: string } } }).refundCreate.refund.id).toBe((first.data as { refundCreate: { refund: { id: string } } }).refundCreate.refund.id);
    // Without the directive: refused (mandatory since 2026-04).
    await expect(client.request('mutation R($input: RefundInput!) { refundCreate(input: $input) { userErrors { message } } }', { variables: { input: partial } })).rejects.toThrow(/idempotent/);
    // More than is left of the sale: a user error.
    const over = await client.request(REFUND, { variables: { input: { orderId, transactions: [{ orderId, parentId: transactions[0]!.id, kind: 'REFUND', gateway: 'manual', amount: '30.00' }] }, key: 'key-2' } });
    expect(over.data).toMatchObject({ refundCreate: { refund: null, userErrors: [{ field: ['transactions', '0', 'amount'], message: expect.stringMatching(/refundable/) }] } });
    const rest = await client.request(REFUND, { variables: { input: { orderId, transactions: [{ orderId, parentId: transactions[0]!.id, kind: 'REFUND', gateway: 'manual', amount: '29.70' }] }, key: 'key-3' } });
    expect(rest.data).toMatchObject({ refundCreate: { order: { displayFinancialStatus: 'REFUNDED', totalRefundedSet: { presentmentMoney: { amount: '54.7' } } }, userErrors: [] } });
    const after = await client.request('query O($id: ID!) { order(id: $id) { refunds(first: 10) { note } lineItems(first: 10) { nodes { unfulfilledQuantity } } } }', { variables: { id: orderId } });
    expect(after.data).toEqual({ order: { refunds: [{ note: 'one broken [hosted-checkout refund 1]' }, { note: null }], lineItems: { nodes: [{ unfulfilledQuantity: 1 }] } } });
    // Shopify tells the subscribed app of both refunds (its own included), signed like every webhook.
    for (let i = 0; i < 50 && webhookResults.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect(webhookResults).toEqual([expect.objectContaining({ valid: true, topic: 'REFUNDS_CREATE', domain: DEMO_SHOP }), expect.objectContaining({ valid: true, topic: 'REFUNDS_CREATE' })]);
    const body = JSON.parse(sim.deliveries.find((d) => d.topic === 'refunds/create')!.body) as { order_id: number; note: string; transactions: Array<{ kind: string; amount: string; gateway: string }>; refund_line_items: Array<{ quantity: number; restock_type: string }> };
    expect(body).toMatchObject({ order_id: Number(orderId.split('/').pop()), note: 'one broken [hosted-checkout refund 1]', transactions: [{ kind: 'refund', amount: '25.00', gateway: 'manual' }], refund_line_items: [{ quantity: 1, restock_type: 'cancel' }] });
  });

  it('draftOrderCalculate quotes the shop\'s tax (prices without tax: added; with tax: inside) and draftOrderCreate books the same total', async () => {
    const client = admin(sim.install(DEMO_SHOP));
    const variant = sim.state.shops.get(DEMO_SHOP)!.products[0]!.variants[0]!;
    const input = { presentmentCurrencyCode: 'EUR', lineItems: [{ variantId: `gid://shopify/ProductVariant/${variant.id}`, quantity: 1, priceOverride: { amount: '100.00', currencyCode: 'EUR' } }], shippingLine: { title: 'Standard', priceWithCurrency: { amount: '5.00', currencyCode: 'EUR' } }, shippingAddress: { firstName: 'A', lastName: 'B', address1: '1 St', city: 'Berlin', zip: '10115', countryCode: 'DE' } };
    const CALC = 'mutation C($input: DraftOrderInput!) { draftOrderCalculate(input: $input) { calculatedDraftOrder { taxesIncluded totalTaxSet { presentmentMoney { amount } } totalPriceSet { presentmentMoney { amount } } taxLines { ratePercentage } } userErrors { message } } }';
    await fetch(`${simUrl}/_control/shops/${DEMO_SHOP}/taxes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ included: false, rates: { DE: 19 } }) });
    const excluded = await client.request(CALC, { variables: { input } });
    expect(excluded.data).toEqual({ draftOrderCalculate: { calculatedDraftOrder: { taxesIncluded: false, totalTaxSet: { presentmentMoney: { amount: '19.0' } }, totalPriceSet: { presentmentMoney: { amount: '124.0' } }, taxLines: [{ ratePercentage: 19 }] }, userErrors: [] } });
    const created = await client.request('mutation D($input: DraftOrderInput!) { draftOrderCreate(input: $input) { draftOrder { totalPriceSet { presentmentMoney { amount } } totalTaxSet { presentmentMoney { amount } } } } }', { variables: { input } });
    expect(created.data).toEqual({ draftOrderCreate: { draftOrder: { totalPriceSet: { presentmentMoney: { amount: '124.0' } }, totalTaxSet: { presentmentMoney: { amount: '19.0' } } } } });
    await fetch(`${simUrl}/_control/shops/${DEMO_SHOP}/taxes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ included: true, rates: { DE: 19 } }) });
    const included = await client.request(CALC, { variables: { input } });
    expect(included.data).toMatchObject({ draftOrderCalculate: { calculatedDraftOrder: { taxesIncluded: true, totalTaxSet: { presentmentMoney: { amount: '15.97' } }, totalPriceSet: { presentmentMoney: { amount: '105.0' } } } } });
  });

  it('answers THROTTLED with the cost extension when the bucket is empty (the library does not retry it)', async () => {
    const client = admin(sim.install(DEMO_SHOP));
    // Refilling 1 point a second: a busy machine's delay before the query cannot refill the 1 point it costs.
    await fetch(`${simUrl}/_control/shops/${DEMO_SHOP}/throttle`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ currentlyAvailable: 0, restoreRate: 1 }) });
    const err = await client.request('query { shop { name } }').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GraphqlQueryError);
    const body = (err as GraphqlQueryError).body as { errors: { graphQLErrors: Array<{ extensions: { code: string } }> }; extensions: { cost: { throttleStatus: { currentlyAvailable: number } } } };
    expect(body.errors.graphQLErrors[0]!.extensions.code).toBe('THROTTLED');
    expect(body.extensions.cost.throttleStatus.currentlyAvailable).toBe(0);
  });

  it('refuses an unknown token with 401 and a field Shopify does not have with a validation error', async () => {
    await expect(admin('shpat_nope').request('query { shop { name } }')).rejects.toThrow(/401|Unauthorized|Invalid API key/i);
    await expect(admin(sim.install(DEMO_SHOP)).request('query { shop { carts { id } } }')).rejects.toThrow(/carts/);
  });
});

describe('Storefront API (createStorefrontApiClient)', () => {
  it('reads the cart of a /cart.js token by cart(id:), prices from the catalogue', async () => {
    const admin = new shopify.clients.Graphql({ session: new Session({ id: 'offline', shop: DEMO_SHOP, state: 'x', isOnline: false, accessToken: sim.install(DEMO_SHOP) }) });
    const created = await admin.request('mutation { storefrontAccessTokenCreate(input: { title: "t" }) { storefrontAccessToken { accessToken } } }');
    const publicAccessToken = (created.data as { storefrontAccessTokenCreate: { storefrontAccessToken: { accessToken: string } } }).storefrontAccessTokenCreate.storefrontAccessToken.accessToken;
    const variant = sim.state.shops.get(DEMO_SHOP)!.products[3]!.variants[2]!;
    const cartToken = sim.createCart(DEMO_SHOP, [{ variantId: variant.id, quantity: 2 }]);
    expect(cartToken).toMatch(/^c1-[0-9a-f]+\?key=[0-9a-f]+$/);
    const sf = createStorefrontApiClient({ storeDomain: DEMO_SHOP, apiVersion: '2026-10', publicAccessToken, customFetchApi: simFetch as typeof fetch });
    const { data, errors } = await sf.request('query C($id: ID!) { cart(id: $id) { id totalQuantity cost { subtotalAmount { amount currencyCode } } lines(first: 10) { nodes { quantity cost { amountPerQuantity { amount } } merchandise { ... on ProductVariant { id sku product { title } } } } } } }', { variables: { id: `gid://shopify/Cart/${cartToken}` } });
    expect(errors).toBeUndefined();
    expect(data).toMatchObject({ cart: { id: `gid://shopify/Cart/${cartToken}`, totalQuantity: 2, cost: { subtotalAmount: { amount: '62.0', currencyCode: 'EUR' } }, lines: { nodes: [{ quantity: 2, cost: { amountPerQuantity: { amount: '31.0' } }, merchandise: { id: `gid://shopify/ProductVariant/${variant.id}`, sku: 'TEE-L' } }] } } });
    const wrongKey = await sf.request('query C($id: ID!) { cart(id: $id) { id } }', { variables: { id: `gid://shopify/Cart/${cartToken.replace(/key=.*/, 'key=00')}` } });
    expect(wrongKey.data).toEqual({ cart: null });
    // Emptied line by line (cartLinesRemove): the same cart the online store shows.
    const lineIds = ((data as { cart: { lines: { nodes: Array<{ id?: string }> } } }).cart.lines.nodes).map((l) => l.id);
    const lines = await sf.request('query C($id: ID!) { cart(id: $id) { lines(first: 10) { nodes { id } } } }', { variables: { id: `gid://shopify/Cart/${cartToken}` } });
    const ids = (lines.data as { cart: { lines: { nodes: Array<{ id: string }> } } }).cart.lines.nodes.map((l) => l.id);
    expect(lineIds).toHaveLength(1);
    const removed = await sf.request('mutation R($cartId: ID!, $lineIds: [ID!]!) { cartLinesRemove(cartId: $cartId, lineIds: $lineIds) { cart { totalQuantity } userErrors { code field message } } }', { variables: { cartId: `gid://shopify/Cart/${cartToken}`, lineIds: ids } });
    expect(removed.data).toEqual({ cartLinesRemove: { cart: { totalQuantity: 0 }, userErrors: [] } });
    const again = await sf.request('mutation R($cartId: ID!, $lineIds: [ID!]!) { cartLinesRemove(cartId: $cartId, lineIds: $lineIds) { userErrors { code field } } }', { variables: { cartId: `gid://shopify/Cart/${cartToken}`, lineIds: ids } });
    expect(again.data).toEqual({ cartLinesRemove: { userErrors: [{ code: 'INVALID_MERCHANDISE_LINE', field: ['lineIds', '0'] }] } });
  });
});

describe('Webhooks (webhooks.validate)', () => {
  it.each(['app/uninstalled', 'customers/data_request', 'customers/redact', 'shop/redact', 'shop/update', 'domains/update', 'themes/publish'])('validates a %s delivery with its X-Shopify-* headers', async (topic) => {
    sim.install(DEMO_SHOP);
    const res = await fetch(`${simUrl}/_control/webhooks/send`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ shop: DEMO_SHOP, topic, address: `${appUrl}/webhooks` }) });
    const { deliveries } = (await res.json()) as { deliveries: Array<{ status: number }> };
    expect(deliveries[0]!.status).toBe(200);
    expect(webhookResults[0]).toMatchObject({ valid: true, webhookType: 'webhooks', topic: topic.toUpperCase().replace('/', '_'), domain: DEMO_SHOP, apiVersion: '2026-10', webhookId: expect.any(String) });
  });
});
