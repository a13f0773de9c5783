// The storefront B connection end to end: HTTP → connect workflow → activities → storefront B sandbox.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { ServiceWorker } from '../../../worker/worker.js';
import { type AppDeps } from '../../route-deps.js';
import { buildApp } from '../../app.js';
import { createActivities } from '../../../worker/worker.js';
import { createStorefrontBActivities } from '../../../activities/storefront-b/storefront-b.js';
import { createStorefrontBSimulator, DEMO_STORE, type StorefrontBSimulator } from '../../../sandbox/storefront-b/simulator.js';
import { handoffHeaders } from '../../../integrations/storefront-b/handoff.js';
import { createTestMerchant, type TestMerchant } from '../../../test/harness/merchants.js';
import { createSecretBox } from '../../../security/secrets.js';
import { createUrlGuard } from '../../../security/ssrf.js';
import { createTestDatabase, type TestDatabase } from '../../../test/harness/db.js';
import { connectTestTemporal, type TestTemporal } from '../../../test/harness/temporal.js';
import { testConfig } from '../../../scripts/lib/stack/config.js';

/** Short, so a store that never answers times out in about two seconds (two attempts). */
const CLIENT_TIMEOUT_MS = 1_000;

let sim: StorefrontBSimulator;
let simUrl: string;
let database: TestDatabase;
let temporal: TestTemporal;
let worker: ServiceWorker;
let running: Promise<void>;
let app: FastifyInstance;
const secrets = createSecretBox(Buffer.alloc(32, 7).toString('base64'));
let n = 0;
const merchant = () => createTestMerchant(database.db, app);

type Creds = { storeUrl: string; consumerKey: string; consumerSecret: string };

/** A fresh store in the sandbox with its own keys. */
async function store(): Promise<{ storeUrl: string; consumerKey: string; consumerSecret: string }> {
  const res = await fetch(`${simUrl}/_control/stores`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: `shop-${++n}` }) });
  expect(res.status).toBe(201);
  // Only what the connect body takes (it refuses other keys).
  const { storeUrl, consumerKey, consumerSecret } = (await res.json()) as { storeUrl: string; consumerKey: string; consumerSecret: string };
  return { storeUrl, consumerKey, consumerSecret };
}

const demo = () => ({ storeUrl: `${simUrl}/stores/demo`, consumerKey: DEMO_STORE.consumerKey, consumerSecret: DEMO_STORE.consumerSecret });

async function call(method: 'GET' | 'POST' | 'DELETE', url: string, opts: { token?: string; body?: unknown } = {}) {
  const res = await app.inject({
    method,
    url,
    payload: opts.body as Record<string, unknown> | undefined,
    headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
  });
  return { status: res.statusCode, text: res.body, body: res.json() as Record<string, unknown> & { code?: string; error?: string } };
}

const connect = (m: TestMerchant, body: unknown) => call('POST', '/api/merchant/storefront-b/connect', { token: m.token, body });
const status = (m: TestMerchant) => call('GET', '/api/merchant/storefront-b', { token: m.token });
const row = (m: TestMerchant) => database.db.storefrontBConnection.findUnique({ where: { merchantId: m.id } });
const merchantRow = (m: TestMerchant) => database.db.merchant.findUniqueOrThrow({ where: { id: m.id } });
const fault = (rule: Record<string, unknown>) =>
  fetch(`${simUrl}/_control/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(rule) });

beforeAll(async () => {
  let publicUrl = '';
  sim = createStorefrontBSimulator({ publicUrl: () => publicUrl, serviceUrl: 'http://127.0.0.1:9' });
  simUrl = publicUrl = await sim.app.listen({ port: 0, host: '127.0.0.1' });
  [database, temporal] = await Promise.all([createTestDatabase(), connectTestTemporal()]);
  const config = testConfig({ TEMPORAL_TASK_QUEUE: temporal.taskQueue });
  // The sandbox's loopback http origin is allowed, as the stack allows it; anything else must be public https.
  const urlGuard = createUrlGuard({ allowedOrigins: [simUrl] });
  const activities = {
    ...createActivities({ config, db: database.db, urlGuard, temporal }),
    ...createStorefrontBActivities({ db: database.db, secrets, urlGuard, timeoutMs: CLIENT_TIMEOUT_MS }),
  };
  worker = await temporal.createWorker(activities);
  running = worker.run();
  const deps: AppDeps = { config, db: database.db, temporal: { client: temporal.client, connection: temporal.connection }, logger: false, secrets, urlGuard };
  app = await buildApp(deps);
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  worker?.shutdown();
  await running;
  await temporal?.close();
  if (sim) {
    const closing = sim.app.close();
    sim.app.server.closeAllConnections();
    await closing;
  }
  await database?.drop();
});
beforeEach(async () => {
  await fetch(`${simUrl}/_control/faults`, { method: 'DELETE' });
});

describe('connecting a storefront B store', () => {
  it('given valid keys / the connection is saved with sealed keys, storefront B becomes the platform and no answer shows a key', async () => {
    const m = await merchant();
    const creds = demo();

    const res = await connect(m, { ...creds, storeUrl: `${creds.storeUrl}/` });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      connected: true,
      storeUrl: creds.storeUrl,
      consumerKeyLast4: creds.consumerKey.slice(-4),
      connectedAt: expect.any(String),
      pluginInterceptedAt: null,
      pluginActive: true,
      currency: 'EUR',
    });
    const saved = (await row(m))!;
    expect(secrets.decrypt(saved.consumerKeyEnc, `${m.id}:storefrontB.consumerKey`)).toBe(creds.consumerKey);
    expect(secrets.decrypt(saved.consumerSecretEnc, `${m.id}:storefrontB.consumerSecret`)).toBe(creds.consumerSecret);
    expect(saved.consumerKeyEnc).not.toContain(creds.consumerKey);
    expect(saved.consumerSecretEnc).not.toContain(creds.consumerSecret);
    expect(await merchantRow(m)).toMatchObject({ storePlatform: 'STOREFRONT_B', shopDomain: new URL(simUrl).host });

    const got = await status(m);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ connected: true, storeUrl: creds.storeUrl, consumerKeyLast4: creds.consumerKey.slice(-4), connectedAt: res.body.connectedAt, pluginInterceptedAt: null });
    // The whole history, payloads decoded (they come as base64 `data`).
    const history = JSON.stringify(await temporal.client.workflow.getHandle(`storefront-b-connection-${m.id}`).fetchHistory(), (key, v: unknown) =>
      key === 'data' && typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : v,
    );
    expect(history).toContain(creds.storeUrl);
    for (const text of [res.text, got.text, history]) {
      expect(text).not.toContain(creds.consumerKey);
      expect(text).not.toContain(creds.consumerSecret);
    }
  });

  it('given keys the store refuses / it answers 422 INVALID_STORE_CREDENTIALS and saves nothing', async () => {
    const m = await merchant();
    const { storeUrl, consumerKey } = await store();

    const res = await connect(m, { storeUrl, consumerKey, consumerSecret: 'cs_wrongwrongwrongwrong' });

    expect(res.status).toBe(422);
    expect(res.body.code).toBe('INVALID_STORE_CREDENTIALS');
    expect(res.text).not.toContain('cs_wrongwrongwrongwrong');
    expect(await row(m)).toBeNull();
    expect(await merchantRow(m)).toMatchObject({ storePlatform: null, shopDomain: null });
  });

  it('given a store selling in a currency Whop cannot charge (ISK) / it answers 422 UNSUPPORTED_CURRENCY naming it and saves nothing', async () => {
    const m = await merchant();
    const res0 = await fetch(`${simUrl}/_control/stores`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: `shop-${++n}`, currency: 'ISK' }) });
    expect(res0.status).toBe(201);
    const { storeUrl, consumerKey, consumerSecret } = (await res0.json()) as Creds;

    const res = await connect(m, { storeUrl, consumerKey, consumerSecret });

    expect(res.status, res.text).toBe(422);
    expect(res.body).toMatchObject({ code: 'UNSUPPORTED_CURRENCY', error: expect.stringContaining('This store sells in ISK') });
    expect(await row(m)).toBeNull();
    expect(await merchantRow(m)).toMatchObject({ storePlatform: null, shopDomain: null });
  });

  it('given a Read key (what WooCommerce\'s Add-key form preselects) / it answers 422 naming the screen and the permission, saves nothing and leaves nothing in the store', async () => {
    const m = await merchant();
    const { storeUrl } = await store();
    const id = storeUrl.split('/').pop()!;
    const key = (await (await fetch(`${simUrl}/_control/stores/${id}/keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"permissions":"read"}' })).json()) as { consumerKey: string; consumerSecret: string };

    const res = await connect(m, { storeUrl, consumerKey: key.consumerKey, consumerSecret: key.consumerSecret });

    expect(res.status, res.text).toBe(422);
    expect(res.body.code).toBe('INVALID_STORE_CREDENTIALS');
    expect(res.body.error).toContain('WooCommerce → Settings → Advanced → REST API');
    expect(res.body.error).toContain('"Read/Write"');
    expect(await row(m)).toBeNull();
    expect(sim.stores.get(id)!.orders.size).toBe(0);
  });

  describe('given a working connection, a reconnect that fails', () => {
    /** A checkout from the store's cart, signed as the plugin signs it: the connection works end to end (keys, prices, plan). */
    async function checkoutFrom({ storeUrl, consumerKey, consumerSecret }: Creds) {
      const summary = (await (await fetch(`${simUrl}/_control/stores/${storeUrl.split('/').pop()}`)).json()) as { products: Array<{ id: number; type: string }> };
      const simple = summary.products.find((p) => p.type === 'simple')!;
      const raw = JSON.stringify({ platform: 'storefront-b', storeUrl, cart: { items: [{ productId: String(simple.id), quantity: 1 }] } });
      const res = await app.inject({ method: 'POST', url: '/api/checkout/create', payload: raw, headers: handoffHeaders(consumerKey, consumerSecret, raw) });
      return res.statusCode;
    }

    it.each([
      ['keys the store refuses', 422, async (c: Creds) => ({ ...c, consumerKey: 'ck_wrongwrongwrong' })],
      ['another store that never answers', 504, async () => { const other = await store(); await fault({ mode: 'timeout', match: new URL(other.storeUrl).pathname, count: 5 }); return other; }],
      ['another store failing with 5xx', 502, async () => { const other = await store(); await fault({ mode: 'error', status: 500, match: new URL(other.storeUrl).pathname, count: 5 }); return other; }],
      ['a URL where no store answers', 400, async (c: Creds) => ({ ...c, storeUrl: `${simUrl}/stores/no-such-store` })],
      ['an unsafe URL', 400, async (c: Creds) => ({ ...c, storeUrl: 'https://169.254.169.254/latest' })],
      ['a store another merchant holds', 409, async () => { const held = await store(); expect((await connect(await merchant(), held)).status).toBe(200); return held; }],
    ] as const)('given %s / it answers %i and the working connection, platform, shop domain and checkouts stay as they were', async (_what, code, next) => {
      const m = await merchant();
      const creds = await store();
      expect((await connect(m, creds)).status).toBe(200);
      expect(await checkoutFrom(creds)).toBe(201);
      const [before, merchantBefore] = [await row(m), await merchantRow(m)];

      const res = await connect(m, await next(creds));

      expect(res.status, JSON.stringify(res.body)).toBe(code);
      expect(await row(m)).toEqual(before);
      expect(await merchantRow(m)).toEqual(merchantBefore);
      expect((await status(m)).body).toMatchObject({ connected: true, storeUrl: creds.storeUrl });
      await fetch(`${simUrl}/_control/faults`, { method: 'DELETE' });
      expect(await checkoutFrom(creds)).toBe(201);
    });
  });

  it.each([
    ['plain http', 'http://shop.example/', 'https'],
    // An address instead of a host name is refused by the schema; a name resolving to such an address by the URL guard.
    ['a private address', 'https://10.1.2.3/shop', 'host name'],
    ['loopback outside the sandbox origin', 'https://127.0.0.1/stores/demo', 'host name'],
    ['the cloud metadata address', 'https://169.254.169.254/latest', 'host name'],
    ['a local host name', 'https://intranet.local/', 'not a public host'],
    ['not a URL', 'shop dot example', 'https URL'],
  ])('given %s as store URL / it answers 400 INVALID_INPUT before calling anything', async (_what, storeUrl, reason) => {
    const m = await merchant();

    const res = await connect(m, { storeUrl, consumerKey: DEMO_STORE.consumerKey, consumerSecret: DEMO_STORE.consumerSecret });

    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(res.body.error).toContain(reason);
    expect(await row(m)).toBeNull();
  });

  it.each([
    ['no store URL', { consumerKey: 'ck_x', consumerSecret: 'cs_x' }],
    ['a blank consumer key', { storeUrl: 'https://shop.example', consumerKey: ' ', consumerSecret: 'cs_x' }],
    ['no consumer secret', { storeUrl: 'https://shop.example', consumerKey: 'ck_x' }],
  ])('given %s / it answers 400 INVALID_INPUT', async (_what, body) => {
    const m = await merchant();
    const res = await connect(m, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_INPUT');
  });

  it('given a store URL where no store answers / it answers 400 INVALID_INPUT', async () => {
    const m = await merchant();
    const res = await connect(m, { ...demo(), storeUrl: `${simUrl}/stores/no-such-store` });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_INPUT', error: expect.stringContaining('No WooCommerce REST API') });
    expect(await row(m)).toBeNull();
  });

  it('given a store that never answers / it answers 504 STORE_TIMEOUT after a short bounded retry', async () => {
    const m = await merchant();
    const creds = await store();
    const rule = (await (await fault({ mode: 'timeout', match: new URL(creds.storeUrl).pathname, count: 5 })).json()) as { id: number };

    const res = await connect(m, creds);

    expect(res.status).toBe(504);
    expect(res.body.code).toBe('STORE_TIMEOUT');
    // Bounded: the store was tried twice (the workflow's maximumAttempts), each hung call abandoned at the client's
    // time-out rather than waited on; three of the five hangs are left unused.
    await expect.poll(() => sim.faults.held().filter((c) => c.ruleId === rule.id).map((c) => c.outcome), { timeout: 30_000, interval: 50 }).toEqual(['abandoned', 'abandoned']);
    expect(sim.faults.list().find((r) => r.id === rule.id)?.remaining).toBe(3);
    expect(await row(m)).toBeNull();
  });

  it('given a store failing with 5xx / it answers 502 UPSTREAM_ERROR', async () => {
    const m = await merchant();
    const creds = await store();
    await fault({ mode: 'error', status: 500, match: new URL(creds.storeUrl).pathname, count: 5 });

    const res = await connect(m, creds);

    expect(res.status).toBe(502);
    expect(res.body.code).toBe('UPSTREAM_ERROR');
    expect(await row(m)).toBeNull();
  });

  it('given a store connected by another merchant / it answers 409 CONFLICT and leaves that connection alone', async () => {
    const a = await merchant();
    const b = await merchant();
    const creds = await store();
    expect((await connect(a, creds)).status).toBe(200);
    const before = await row(a);

    const res = await connect(b, { ...creds, storeUrl: `${creds.storeUrl}/` });

    expect(res.status).toBe(409);
    expect(res.body.code).toBe('CONFLICT');
    expect(await row(b)).toBeNull();
    expect(await row(a)).toEqual(before);
  });

  it('given a connected store / when the merchant connects another store / it replaces the connection and the shop domain follows', async () => {
    const m = await merchant();
    const first = await store();
    const second = await store();
    expect((await connect(m, first)).status).toBe(200);
    await database.db.storefrontBConnection.update({ where: { merchantId: m.id }, data: { pluginInterceptedAt: new Date() } });

    const res = await connect(m, second);

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ storeUrl: second.storeUrl, consumerKeyLast4: second.consumerKey.slice(-4), pluginInterceptedAt: null });
    expect(await database.db.storefrontBConnection.count({ where: { storeUrl: first.storeUrl } })).toBe(0);
  });
});

describe('status and removal', () => {
  it('given no connection / GET answers { connected: false } and DELETE answers 404 NOT_FOUND', async () => {
    const m = await merchant();
    expect((await status(m)).body).toEqual({ connected: false });
    const res = await call('DELETE', '/api/merchant/storefront-b', { token: m.token });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });

  it('given a connected store / DELETE removes it and clears storefront B as the platform', async () => {
    const m = await merchant();
    const creds = await store();
    await connect(m, creds);

    const res = await call('DELETE', '/api/merchant/storefront-b', { token: m.token });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ connected: false });
    expect(await row(m)).toBeNull();
    expect(await merchantRow(m)).toMatchObject({ storePlatform: null, shopDomain: null });
    expect((await status(m)).body).toEqual({ connected: false });
  });

  it('given a storefront B row while storefront A is the platform / DELETE leaves the platform as it is', async () => {
    const m = await merchant();
    await connect(m, await store());
    await database.db.merchant.update({ where: { id: m.id }, data: { storePlatform: 'STOREFRONT_A', shopDomain: 'demo-shop.myshopify.com' } });

    expect((await call('DELETE', '/api/merchant/storefront-b', { token: m.token })).status).toBe(200);
    expect(await merchantRow(m)).toMatchObject({ storePlatform: 'STOREFRONT_A', shopDomain: 'demo-shop.myshopify.com' });
  });
});

describe('access', () => {
  it('given the OpenAPI document / it lists the storefront B routes with their bearer auth', async () => {
    const doc = (await call('GET', '/docs/json')).body as { paths: Record<string, Record<string, { security?: unknown }>> };
    expect(Object.keys(doc.paths['/api/merchant/storefront-b'] ?? {}).sort()).toEqual(['delete', 'get']);
    expect(doc.paths['/api/merchant/storefront-b/connect']?.post?.security).toEqual([{ bearerAuth: [] }]);
  });


  it("given merchant A connected / merchant B's token never reads or removes A's connection", async () => {
    const a = await merchant();
    const b = await merchant();
    await connect(a, await store());
    const before = await row(a);

    expect((await status(b)).body).toEqual({ connected: false });
    expect((await call('DELETE', '/api/merchant/storefront-b', { token: b.token })).status).toBe(404);
    expect(await row(a)).toEqual(before);
    expect((await merchantRow(a)).storePlatform).toBe('STOREFRONT_B');
  });
});

describe('GET /api/merchant/storefront-b/plugin.zip', () => {
  const pluginDir = fileURLToPath(new URL('../../../store-extensions/woocommerce/hosted-checkout-connector', import.meta.url));
  const filesOf = (dir: string, prefix = ''): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesOf(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]));

  it('given a merchant / the zip WordPress installs: one top folder with the main file and its header, every plugin file byte for byte, as Debian\'s unzip reads it', async () => {
    const m = await merchant();
    const res = await app.inject({ method: 'GET', url: '/api/merchant/storefront-b/plugin.zip', headers: { authorization: `Bearer ${m.token}` } });

    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toBe('attachment; filename="hosted-checkout-connector-1.4.0.zip"');
    const dir = mkdtempSync(join(tmpdir(), 'plugin-zip-'));
    try {
      const zip = join(dir, 'plugin.zip');
      writeFileSync(zip, res.rawPayload);
      const unzip = (...args: string[]) => execFileSync('unzip', args, { encoding: 'utf8' });
      expect(unzip('-tq', zip)).toMatch(/No errors detected/);
      const names = unzip('-Z1', zip).trim().split('\n');
      expect(new Set(names.map((n) => n.split('/')[0]))).toEqual(new Set(['hosted-checkout-connector']));
      const files = names.filter((n) => !n.endsWith('/')).map((n) => n.slice('hosted-checkout-connector/'.length)).sort();
      expect(files).toEqual(filesOf(pluginDir).sort());
      expect(files).toContain('hosted-checkout-connector.php');
      unzip('-q', zip, '-d', dir);
      for (const file of files) expect(readFileSync(join(dir, 'hosted-checkout-connector', file)).equals(readFileSync(join(pluginDir, file))), file).toBe(true);
      const header = readFileSync(join(dir, 'hosted-checkout-connector', 'hosted-checkout-connector.php'), 'utf8').slice(0, 1200);
      expect(header).toMatch(/Plugin Name:\s+Hosted Checkout Connector/);
      expect(header).toMatch(/Version:\s+1\.4\.0/);
      expect(header).toMatch(/License:\s+GPL-2\.0-or-later/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('given no session / 401 UNAUTHORIZED and no zip; the OpenAPI document lists the route with its zip answer and 401', async () => {
    const res = await call('GET', '/api/merchant/storefront-b/plugin.zip');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
    const doc = (await call('GET', '/docs/json')).body as { paths: Record<string, Record<string, { security?: unknown; responses: Record<string, { content?: Record<string, unknown> }> }>> };
    const op = doc.paths['/api/merchant/storefront-b/plugin.zip']?.get;
    expect(op?.security).toEqual([{ bearerAuth: [] }]);
    expect(Object.keys(op?.responses ?? {})).toEqual(expect.arrayContaining(['200', '401']));
    expect(op?.responses['200']?.content).toEqual({ 'application/zip': { schema: { type: 'string', format: 'binary' } } });
  });
});
