import { describe, expect, it } from 'vitest';
import { signQuery as signCallbackParams } from '../../../sandbox/storefront-a/oauth.js';
import { createStorefrontAClient } from '../../../integrations/storefront-a/client.js';
import { DEFAULT_SCOPES } from '../../../sandbox/storefront-a/simulator.js';
import { STOREFRONT_A_SCOPES, storefrontAAad } from '../../../model/connections.js';
import {
  call, consent, createMerchant, DEMO_APP, DEMO_SHOP, installThroughOAuth, openCallback, openInstall, saveInputs, simControl, simShop,
  useStorefrontAStack, workflowExists,
} from '../../../test/harness/storefront-a-stack.js';

const s = useStorefrontAStack((s) => s.stack.database.db.oAuthState.deleteMany());

const db = () => s.stack.database.db;

/** A callback as the platform would sign it (with the demo app's secret), with our own parameters. */
function signedCallback(params: Record<string, string>, secret: string = DEMO_APP.clientSecret): URL {
  const url = new URL(`${s.stack.config.publicApiUrl}/api/auth/storefront-a/callback`);
  const all = { code: 'deadbeefdeadbeefdeadbeefdeadbeef', shop: DEMO_SHOP, timestamp: String(Math.floor(Date.now() / 1000)), ...params };
  for (const [k, v] of Object.entries(all)) url.searchParams.set(k, v);
  url.searchParams.set('hmac', signCallbackParams(url.searchParams, secret));
  return url;
}

/** The callback (or install link) ended on the dashboard's connection-problem page, naming what to fix and the error code. */
function expectProblem(res: { status: number; location?: string }, problem: string, code: string) {
  expect(res.status).toBe(302);
  const to = new URL(res.location!);
  expect(to.origin + to.pathname).toBe(`${s.stack.config.appOrigin}/dashboard/connection-problem`);
  expect(Object.fromEntries(to.searchParams)).toEqual({ platform: 'storefront-a', problem, code });
}

async function expectNothingStored(merchantId: string, state?: string) {
  const row = await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId } });
  expect(row).toMatchObject({ accessTokenEnc: null, connected: false, installedAt: null, scriptTagId: null, scopes: null });
  if (state) expect((await db().oAuthState.findUniqueOrThrow({ where: { state } })).usedAt).toBeNull();
  expect(await workflowExists(s, `storefront-a-install-${merchantId}`)).toBe(false);
  expect((await simShop(s)).scriptTags).toEqual([]);
}

describe('the scopes we ask for', () => {
  it('are the ones the platform documents for the checkout service', () => {
    expect([...STOREFRONT_A_SCOPES]).toEqual(DEFAULT_SCOPES);
  });
});

describe('GET /api/auth/storefront-a/install', () => {
  it('given saved inputs / when the install link is opened / then it redirects to the shop consent page with a fresh 10-minute state bound to merchant and shop', async () => {
    const m = await createMerchant(s);
    const authorize = await openInstall(s, await saveInputs(s, m.token));
    expect(authorize.origin + authorize.pathname).toBe(`${s.stack.urls.storefrontA}/shops/${DEMO_SHOP}/admin/oauth/authorize`);
    expect(authorize.searchParams.get('client_id')).toBe(DEMO_APP.clientId);
    expect(authorize.searchParams.get('scope')).toBe(STOREFRONT_A_SCOPES.join(','));
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${s.stack.config.publicApiUrl}/api/auth/storefront-a/callback`);
    const state = authorize.searchParams.get('state')!;
    expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const row = await db().oAuthState.findUniqueOrThrow({ where: { state } });
    expect(row).toMatchObject({ merchantId: m.id, shop: DEMO_SHOP, usedAt: null });
    expect(row.expiresAt.getTime() - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(row.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(10 * 60_000);
  });

  it('given no handoff, a session token instead of a handoff, or garbage / then the problem page (start again), no state is made', async () => {
    const m = await createMerchant(s);
    await saveInputs(s, m.token);
    for (const url of ['/api/auth/storefront-a/install', `/api/auth/storefront-a/install?handoff=${m.token}`, '/api/auth/storefront-a/install?handoff=abc.def.ghi']) {
      const res = await call(s, 'GET', url);
      expectProblem({ status: res.status, location: res.headers.location as string }, 'expired', 'UNAUTHORIZED');
    }
    expect(await db().oAuthState.count()).toBe(0);
  });

  it('given a handoff for a shop the merchant has since changed / then the problem page (start again)', async () => {
    const m = await createMerchant(s);
    const oldLink = await saveInputs(s, m.token);
    await saveInputs(s, m.token, { shop: 'other-shop.myshopify.com' });
    const u = new URL(oldLink);
    const res = await call(s, 'GET', u.pathname + u.search);
    expectProblem({ status: res.status, location: res.headers.location as string }, 'expired', 'UNAUTHORIZED');
  });

  it('given a handoff but no saved inputs (removed since) / then the problem page (start again, NOT_FOUND)', async () => {
    const m = await createMerchant(s);
    const link = await saveInputs(s, m.token);
    await db().storefrontAConnection.delete({ where: { merchantId: m.id } });
    const u = new URL(link);
    const res = await call(s, 'GET', u.pathname + u.search);
    expectProblem({ status: res.status, location: res.headers.location as string }, 'expired', 'NOT_FOUND');
  });
});

describe('OAuth install end to end', () => {
  it('given inputs / when the merchant consents and the browser reaches our callback / then the token is stored sealed, works at the store, and our script tag is in the shop', async () => {
    const m = await createMerchant(s);
    const authorize = await openInstall(s, await saveInputs(s, m.token));
    const callback = await consent(authorize);
    const res = await openCallback(s, callback);

    expect(res.status, JSON.stringify(res.body)).toBe(302);
    expect(res.location).toBe(`${s.stack.config.appOrigin}/dashboard?storefrontA=connected`);

    const row = await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: m.id } });
    const issued = [...s.stack.sims.storefrontA.state.tokens].filter(([, g]) => g.shop === DEMO_SHOP && g.clientId === DEMO_APP.clientId && !g.delegate).map(([t]) => t);
    expect(issued).toHaveLength(1);
    const token = issued[0]!;
    expect(row.accessTokenEnc).toBeTruthy();
    expect(row.accessTokenEnc).not.toContain(token);
    expect(s.secrets.decrypt(row.accessTokenEnc!, storefrontAAad.accessToken(m.id))).toBe(token);
    expect(() => s.secrets.decrypt(row.accessTokenEnc!, storefrontAAad.accessToken('someone-else'))).toThrow();
    expect(row).toMatchObject({ connected: true, scopes: STOREFRONT_A_SCOPES.join(','), uninstalledAt: null });
    expect(row.installedAt).toBeInstanceOf(Date);

    const client = createStorefrontAClient({ shop: DEMO_SHOP, accessToken: token, apiUrlTemplate: s.stack.config.storefrontA.apiTemplate });
    expect((await client.getShop()).myshopifyDomain).toBe(DEMO_SHOP);

    // Shopify refuses new script tags: the install sets up the shop for the app embed instead.
    const shop = (await simShop(s)) as unknown as { scriptTags: unknown[]; webhookSubscriptions: Array<{ topic: string; uri: string }> };
    expect(shop.scriptTags).toEqual([]);
    expect(shop.webhookSubscriptions.map((w) => w.topic).sort()).toEqual(['APP_UNINSTALLED', 'DOMAINS_CREATE', 'DOMAINS_DESTROY', 'DOMAINS_UPDATE', 'REFUNDS_CREATE', 'SHOP_UPDATE', 'THEMES_PUBLISH']);
    expect(row.scriptTagId).toBeNull();
    // Cart reads get a private Storefront token: a delegate of the offline token with only the Storefront scopes.
    expect(row.storefrontTokenEnc).toBeNull();
    const privateToken = s.secrets.decrypt(row.storefrontPrivateTokenEnc!, storefrontAAad.storefrontPrivateToken(m.id));
    expect(s.stack.sims.storefrontA.state.tokens.get(privateToken)).toMatchObject({ shop: DEMO_SHOP, delegate: true, scopes: ['unauthenticated_read_checkouts', 'unauthenticated_write_checkouts', 'unauthenticated_read_product_listings'] });
    expect(row.shopOrigins).toEqual(expect.arrayContaining([`https://${DEMO_SHOP}`, 'https://www.demo-shop.example']));
    expect(row.scriptTagCheckedAt).toBeInstanceOf(Date);

    expect((await db().oAuthState.findUniqueOrThrow({ where: { state: callback.searchParams.get('state')! } })).usedAt).toBeInstanceOf(Date);
    // Workflow history holds the code only sealed.
    const history = JSON.stringify(await s.stack.temporal.client.workflow.getHandle(`storefront-a-install-${m.id}`).fetchHistory());
    expect(history).not.toContain(callback.searchParams.get('code')!);
    expect(history).not.toContain(token);
    expect(history).not.toContain(privateToken);

    const view = await call(s, 'GET', '/api/merchant/storefront-a', { token: m.token });
    expect(view.body).toMatchObject({ shop: DEMO_SHOP, connected: true, scopes: STOREFRONT_A_SCOPES });
  });

  it('given an installed shop / when the merchant installs again / then the webhook subscriptions are not duplicated', async () => {
    const m = await createMerchant(s);
    await installThroughOAuth(s, m.token);
    await installThroughOAuth(s, m.token);
    expect(((await simShop(s)) as unknown as { webhookSubscriptions: unknown[] }).webhookSubscriptions).toHaveLength(7);
    expect((await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: m.id } })).connected).toBe(true);
  });

  it('given the real callback / when it is replayed after success / then the expired problem page (state used) and the stored token is unchanged', async () => {
    const m = await createMerchant(s);
    const callback = await consent(await openInstall(s, await saveInputs(s, m.token)));
    expect((await openCallback(s, callback)).status).toBe(302);
    const before = await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: m.id } });
    const replay = await openCallback(s, callback);
    expectProblem(replay, 'expired', 'INVALID_TOKEN');
    expect(await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: m.id } })).toEqual(before);
  });
});

describe('forged or broken callbacks store nothing', () => {
  async function started() {
    const m = await createMerchant(s);
    const authorize = await openInstall(s, await saveInputs(s, m.token));
    return { m, state: authorize.searchParams.get('state')! };
  }

  it('given a callback whose hmac does not match its parameters / then the wrong-secret problem page (INVALID_SIGNATURE)', async () => {
    const { m, state } = await started();
    const forged = signedCallback({ state });
    forged.searchParams.set('code', 'another-code');
    const res = await openCallback(s, forged);
    expectProblem(res, 'wrong-secret', 'INVALID_SIGNATURE');
    await expectNothingStored(m.id, state);
  });

  it('given a callback signed with another secret than the merchant app\'s / then the wrong-secret problem page (INVALID_SIGNATURE)', async () => {
    const { m, state } = await started();
    const res = await openCallback(s, signedCallback({ state }, 'sfa_secret_of_somebody_else_000'));
    expectProblem(res, 'wrong-secret', 'INVALID_SIGNATURE');
    await expectNothingStored(m.id, state);
  });

  it('given a correctly signed callback older than 5 minutes / then the wrong-secret problem page (INVALID_SIGNATURE)', async () => {
    const { m, state } = await started();
    const res = await openCallback(s, signedCallback({ state, timestamp: String(Math.floor(Date.now() / 1000) - 600) }));
    expectProblem(res, 'wrong-secret', 'INVALID_SIGNATURE');
    await expectNothingStored(m.id, state);
  });

  it('given a merchant who saved a wrong client secret / when the real platform redirects back / then the wrong-secret problem page, nothing stored', async () => {
    const m = await createMerchant(s);
    const callback = await consent(await openInstall(s, await saveInputs(s, m.token, { clientSecret: 'not-the-real-secret-000000' })));
    const res = await openCallback(s, callback);
    expectProblem(res, 'wrong-secret', 'INVALID_SIGNATURE');
    await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: m.id } }).then((row) => expect(row.accessTokenEnc).toBeNull());
  });

  it('given a state we never issued / then the expired problem page (INVALID_TOKEN)', async () => {
    const { m, state } = await started();
    const res = await openCallback(s, signedCallback({ state: 'x'.repeat(43) }));
    expectProblem(res, 'expired', 'INVALID_TOKEN');
    await expectNothingStored(m.id, state);
  });

  it('given an expired state / then the expired problem page (INVALID_TOKEN)', async () => {
    const { m, state } = await started();
    await db().oAuthState.update({ where: { state }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const res = await openCallback(s, signedCallback({ state }));
    expectProblem(res, 'expired', 'INVALID_TOKEN');
    await expectNothingStored(m.id, state);
  });

  it('given a used state / then the expired problem page (INVALID_TOKEN)', async () => {
    const { m, state } = await started();
    await db().oAuthState.update({ where: { state }, data: { usedAt: new Date() } });
    const res = await openCallback(s, signedCallback({ state }));
    expectProblem(res, 'expired', 'INVALID_TOKEN');
    const row = await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: m.id } });
    expect(row.accessTokenEnc).toBeNull();
  });

  it('given a shop that is not a shop host, or another shop than the install was started for / then the problem page for what is wrong (INVALID_INPUT)', async () => {
    const { m, state } = await started();
    for (const shop of ['evil.example.com', 'demo-shop.myshopify.com.evil.test', 'other-shop.myshopify.com']) {
      const res = await openCallback(s, signedCallback({ state, shop }));
      expectProblem(res, 'other-shop', 'INVALID_INPUT');
    }
    await expectNothingStored(m.id, state);
  });

  it('given missing parameters / then the problem page for what is wrong (INVALID_INPUT)', async () => {
    const { m, state } = await started();
    const res = await call(s, 'GET', `/api/auth/storefront-a/callback?state=${state}&shop=${DEMO_SHOP}`);
    expectProblem({ status: res.status, location: res.headers.location as string }, 'incomplete', 'INVALID_INPUT');
    await expectNothingStored(m.id, state);
  });

  it('given the merchant declined on the consent page (an OAuth error redirect) / then the problem page says the install was declined', async () => {
    const { m, state } = await started();
    const res = await call(s, 'GET', `/api/auth/storefront-a/callback?error=access_denied&state=${state}&shop=${DEMO_SHOP}`);
    expectProblem({ status: res.status, location: res.headers.location as string }, 'denied', 'UNAUTHORIZED');
    await expectNothingStored(m.id, state);
  });

  it('given any failure / then the answer is a redirect a browser follows, never a JSON page', async () => {
    const { state } = await started();
    const res = await s.app.inject({ method: 'GET', url: signedCallback({ state }, 'shpss_wrong').pathname + signedCallback({ state }, 'shpss_wrong').search });
    expect(res.statusCode).toBe(302);
    expect(res.body).toBe('');
    expect(res.headers['content-type'] ?? '').not.toContain('json');
  });
});

describe('install failures after a valid callback store nothing', () => {
  it('given the store fails the code exchange / then the shop-unavailable problem page (UPSTREAM_ERROR) and no token is stored', async () => {
    const m = await createMerchant(s);
    const callback = await consent(await openInstall(s, await saveInputs(s, m.token)));
    await simControl(s, 'faults', { mode: 'error', status: 503, count: 10, match: `/shops/${DEMO_SHOP}/admin/oauth/access_token` });
    const res = await openCallback(s, callback);
    await fetch(`${s.stack.urls.storefrontA}/_control/faults`, { method: 'DELETE' });
    expectProblem(res, 'shop-unavailable', 'UPSTREAM_ERROR');
    const row = await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: m.id } });
    expect(row).toMatchObject({ accessTokenEnc: null, connected: false });
  });

  it('given the store refuses the code (already used) / then the expired problem page (INVALID_TOKEN) and no token is stored', async () => {
    const m = await createMerchant(s);
    const callback = await consent(await openInstall(s, await saveInputs(s, m.token)));
    // Somebody else spent the code first.
    await fetch(`${s.stack.urls.storefrontA}/shops/${DEMO_SHOP}/admin/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: DEMO_APP.clientId, client_secret: DEMO_APP.clientSecret, code: callback.searchParams.get('code') }),
    });
    const res = await openCallback(s, callback);
    expectProblem(res, 'expired', 'INVALID_TOKEN');
    expect((await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: m.id } })).accessTokenEnc).toBeNull();
  });

  it('given the store fails to create the script tag / then the shop-unavailable problem page and neither token nor connection is stored', async () => {
    const m = await createMerchant(s);
    const callback = await consent(await openInstall(s, await saveInputs(s, m.token)));
    await simControl(s, 'faults', { mode: 'error', status: 500, count: 10, match: `/shops/${DEMO_SHOP}/admin/api`, method: 'POST' });
    const res = await openCallback(s, callback);
    await fetch(`${s.stack.urls.storefrontA}/_control/faults`, { method: 'DELETE' });
    expectProblem(res, 'shop-unavailable', 'UPSTREAM_ERROR');
    expect(await db().storefrontAConnection.findUniqueOrThrow({ where: { merchantId: m.id } })).toMatchObject({ accessTokenEnc: null, connected: false, scriptTagId: null });
  });
});
