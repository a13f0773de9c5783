// The processor connection end to end: HTTP → connect/disconnect workflows → activities → processor sandbox.
// The API's public URL points at a webhook receiver, so a real signed delivery proves that the secret we
// sealed is the one the processor signs with.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { ServiceWorker } from '../../../worker/worker.js';
import { type AppDeps } from '../../route-deps.js';
import { buildApp } from '../../app.js';
import { createActivities } from '../../../worker/worker.js';
import { createProcessorActivities } from '../../../activities/processor/processor-connection.js';
import { SUBSCRIBED_EVENTS } from '../../../integrations/processor/index.js';
import { verifyDelivery } from '../../../integrations/processor/webhook.js';
import { startProcessor, startWebhookReceiver, type RunningProcessor, type WebhookReceiver } from '../../../test/harness/processor.js';
import { createTestMerchant, type TestMerchant } from '../../../test/harness/merchants.js';
import { createSecretBox } from '../../../security/secrets.js';
import { createTestDatabase, type TestDatabase } from '../../../test/harness/db.js';
import { connectTestTemporal, type TestTemporal } from '../../../test/harness/temporal.js';
import { testConfig } from '../../../scripts/lib/stack/config.js';
import { connectProcessorWorkflow } from '../../../workflows/processor/processor-connection.js';
import { WORKFLOWS } from '../../../domain/temporal/workflow-names.js';

/** Short, so a processor slower than this times out in about two seconds (two attempts). */
const CLIENT_TIMEOUT_MS = 1_000;

let processor: RunningProcessor;
let receiver: WebhookReceiver;
let database: TestDatabase;
let temporal: TestTemporal;
let worker: ServiceWorker;
let running: Promise<void>;
let app: FastifyInstance;
const secrets = createSecretBox(Buffer.alloc(32, 7).toString('base64'));
const merchant = () => createTestMerchant(database.db, app);

async function account(): Promise<{ apiKey: string; businessId: string }> {
  const res = await processor.control<{ apiKey: string; businessId: string }>('POST', 'accounts', {});
  expect(res.status).toBe(201);
  return res.body;
}

async function call(method: 'GET' | 'POST' | 'DELETE', url: string, opts: { token?: string; body?: unknown } = {}) {
  const res = await app.inject({
    method,
    url,
    payload: opts.body as Record<string, unknown> | undefined,
    headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
  });
  return { status: res.statusCode, text: res.body, body: res.json() as Record<string, unknown> & { code?: string; error?: string } };
}

const connect = (m: TestMerchant, apiKey: unknown) => call('POST', '/api/merchant/processor/connect', { token: m.token, body: { apiKey } });
const status = (m: TestMerchant) => call('GET', '/api/merchant/processor', { token: m.token });
const row = (m: TestMerchant) => database.db.processorConnection.findUnique({ where: { merchantId: m.id } });
/** The latest key submitted that did not (yet) become the connection. */
const attemptOf = (m: TestMerchant) => database.db.processorConnectionAttempt.findFirst({ where: { merchantId: m.id }, orderBy: { createdAt: 'desc' } });
const webhooksOf = async (apiKey: string) => processor.webhooksOf(apiKey);
/** A workflow's whole history as text, payloads decoded (they come as base64 `data`), to search it for secrets. */
const historyText = async (workflowId: string) =>
  JSON.stringify(await temporal.client.workflow.getHandle(workflowId).fetchHistory(), (key, v: unknown) =>
    key === 'data' && typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : v,
  );

beforeAll(async () => {
  [processor, receiver, database, temporal] = await Promise.all([startProcessor({ webhookRetryDelaysMs: [] }), startWebhookReceiver(), createTestDatabase(), connectTestTemporal()]);
  const config = testConfig({ TEMPORAL_TASK_QUEUE: temporal.taskQueue, PROCESSOR_API_URL: `${processor.baseUrl}/api/v1`, PUBLIC_API_URL: receiver.url });
  const activities = {
    ...createActivities({ config, db: database.db, temporal }),
    ...createProcessorActivities({ db: database.db, secrets, config, timeoutMs: CLIENT_TIMEOUT_MS }),
  };
  worker = await temporal.createWorker(activities);
  running = worker.run();
  const deps: AppDeps = { config, db: database.db, temporal: { client: temporal.client, connection: temporal.connection }, logger: false, secrets };
  app = await buildApp(deps);
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  worker?.shutdown();
  await running;
  await temporal?.close();
  await processor?.close();
  await receiver?.close();
  await database?.drop();
});
beforeEach(async () => {
  await processor.control('DELETE', 'faults');
});

describe('connecting the processor', () => {
  it('given a valid key / when the merchant connects / the processor is ready, the key and webhook secret are stored sealed and our webhook is registered', async () => {
    const m = await merchant();
    const { apiKey, businessId } = await account();

    const res = await connect(m, apiKey);

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      connected: true,
      ready: true,
      status: 'CONNECTED',
      apiKeyLast4: apiKey.slice(-4),
      businessId,
      productId: expect.stringMatching(/^prod_/),
      webhookRegistered: true,
      lastError: null,
      connectedAt: expect.any(String),
    });
    // GET adds wallets: the plan and the payment page decide (domain.test.ts, apple-pay-domain.test.ts).
    expect((await status(m)).body).toEqual({ ...res.body, wallets: { status: expect.stringMatching(/^(hosted|embedded|not_on_plan)$/), ready: expect.any(Boolean), statusMessage: expect.any(String), applePayDomain: expect.anything() } });

    const stored = (await row(m))!;
    expect(stored.apiKeyEnc).not.toContain(apiKey);
    expect(secrets.decrypt(stored.apiKeyEnc, `${m.id}:processor.apiKey`)).toBe(apiKey);
    const secret = secrets.decrypt(stored.webhookSecretEnc!, `${m.id}:processor.webhookSecret`);
    expect(secret).toMatch(/^ws_/);
    expect(stored.webhookSecretEnc).not.toContain(secret);

    const hooks = await webhooksOf(apiKey);
    expect(hooks).toEqual([expect.objectContaining({ id: stored.webhookId, url: `${receiver.url}/webhooks/processor/payment-update` })]);
    expect([...hooks[0]!.events].sort()).toEqual([...SUBSCRIBED_EVENTS].sort());

    // The processor signs its deliveries with exactly the secret we sealed.
    const checkout = await processor.client({ apiKey }).createCheckout(
      { price: { productId: stored.productId!, amountMinor: 1000, currency: 'EUR', title: 'Sealed' }, metadata: { checkout_session_token: 'tok_sealed' }, redirectUrl: 'https://shop.example/r' }, 'pay-sealed');
    const payment = (await processor.control<{ id: string }>('POST', `checkout_configurations/${checkout.id}/pay`, { silent: true })).body;
    const before = receiver.received.length;
    await processor.control('POST', 'webhooks/send', { type: 'invoice.paid', objectId: payment.id });
    const [delivery] = (await receiver.waitFor(before + 1)).slice(before);
    // Our endpoint is made through Whop's API: its deliveries carry x-whop-signature, keyed with the sealed secret.
    expect(delivery!.headers['x-whop-signature']).toBeDefined();
    expect(verifyDelivery([secret], delivery!.rawBody, delivery!.headers)).toBe('x-whop-signature');
    expect(delivery!.json).toMatchObject({ type: 'invoice.paid' });

    // No answer, and no workflow history, ever carries a secret.
    for (const text of [res.text, (await status(m)).text, await historyText(WORKFLOWS.processorConnect.id(m.id))]) {
      expect(text).not.toContain(apiKey);
      expect(text).not.toContain(secret);
    }
    expect(await historyText(WORKFLOWS.processorConnect.id(m.id))).toContain(businessId);
  });

  it('given Whop\'s POST /webhooks refuses membership.activated/deactivated (a live account) / the events we register are ones it accepts and the connection is made', async () => {
    const m = await merchant();
    const { apiKey } = await account();
    expect((await connect(m, apiKey)).body).toMatchObject({ status: 'CONNECTED', webhookRegistered: true });
    const [hook] = await webhooksOf(apiKey);
    expect(hook!.events).not.toContain('membership.activated');
    expect(hook!.events).not.toContain('membership.deactivated');
    expect(hook!.events).toEqual(expect.arrayContaining(['payment.succeeded', 'payment.failed', 'refund.updated', 'dispute.created']));
  });

  it('given Whop refuses another of our event names with a 400 naming it / the connection is still made, the webhook registered without that name, and the refusal is in the workflow\'s history', async () => {
    const m = await merchant();
    const { apiKey } = await account();
    await processor.control('POST', 'webhooks/refused-events', { events: ['membership.activated', 'membership.deactivated', 'dispute.updated'] });
    try {
      expect((await connect(m, apiKey)).body).toMatchObject({ status: 'CONNECTED', webhookRegistered: true, lastError: null });
      const hooks = await webhooksOf(apiKey);
      expect(hooks).toHaveLength(1);
      expect([...hooks[0]!.events].sort()).toEqual(SUBSCRIBED_EVENTS.filter((e) => e !== 'dispute.updated').sort());
      expect(await historyText(WORKFLOWS.processorConnect.id(m.id))).toMatch(/refusedEvents[^a-z]+dispute\.updated[^a-z]+\]/);
    } finally {
      await processor.control('POST', 'webhooks/refused-events', { events: ['membership.activated', 'membership.deactivated'] });
    }
  });

  it('given a key the processor rejects / it answers 422 INVALID_PROCESSOR_KEY and stores nothing usable (status FAILED)', async () => {
    const m = await merchant();

    const res = await connect(m, 'sk_not_a_real_key_1234');

    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'INVALID_PROCESSOR_KEY', error: expect.stringContaining('rejected') });
    expect(res.text).not.toContain('sk_not_a_real_key_1234');
    expect(await row(m)).toBeNull();
    const stored = (await attemptOf(m))!;
    expect(stored).toMatchObject({ status: 'FAILED', apiKeyEnc: null, businessId: null, productId: null, webhookId: null, webhookSecretEnc: null });
    expect(stored.lastError).toEqual(expect.stringContaining('rejected'));
    expect((await status(m)).body).toMatchObject({
      connected: false, ready: false, status: 'FAILED', apiKeyLast4: '1234', webhookRegistered: false, lastError: stored.lastError,
      attempt: { status: 'FAILED', apiKeyLast4: '1234', error: stored.lastError, startedAt: expect.any(String) },
    });
  });

  it('given a processor slower than the client time-out / it answers 504 PROCESSOR_TIMEOUT after a short bounded retry and records FAILED', async () => {
    const m = await merchant();
    const { apiKey } = await account();
    const rule = (await processor.control<{ id: number }>('POST', 'faults', { mode: 'slow', delayMs: CLIENT_TIMEOUT_MS * 4, match: '/api/v1/accounts/me', count: 5 })).body;

    const res = await connect(m, apiKey);

    expect(res.status).toBe(504);
    expect(res.body.code).toBe('PROCESSOR_TIMEOUT');
    // Bounded: two calls (the workflow's maximumAttempts), each given up at the client's time-out; three of the
    // five slow answers are left unused.
    const { faults } = (await processor.control<{ faults: Array<{ id: number; remaining: number }> }>('GET', 'faults')).body;
    expect(faults.find((f) => f.id === rule.id)?.remaining).toBe(3);
    expect(await row(m)).toBeNull();
    expect(await attemptOf(m)).toMatchObject({ status: 'FAILED', lastError: expect.stringContaining('did not answer in time'), webhookSecretEnc: null });
    expect(await webhooksOf(apiKey)).toEqual([]);
  });

  it('given a processor failing with 5xx / it answers 502 UPSTREAM_ERROR and records FAILED', async () => {
    const m = await merchant();
    const { apiKey } = await account();
    await processor.control('POST', 'faults', { mode: 'error', status: 503, match: '/api/v1/accounts/me', count: 5 });

    const res = await connect(m, apiKey);

    expect(res.status).toBe(502);
    expect(res.body.code).toBe('UPSTREAM_ERROR');
    expect(await attemptOf(m)).toMatchObject({ status: 'FAILED', lastError: expect.stringContaining('unavailable') });
  });

  it('given a connection in progress / when the merchant connects again / it answers 409 CONFLICT and the first one completes', async () => {
    const m = await merchant();
    const { apiKey } = await account();
    await processor.control('POST', 'faults', { mode: 'slow', delayMs: 600, match: '/api/v1/accounts/me', count: 1 });

    const first = connect(m, apiKey);
    await expect.poll(async () => {
      const d = await temporal.client.workflow.getHandle(WORKFLOWS.processorConnect.id(m.id)).describe().catch(() => undefined);
      return d?.status.name;
    }, { timeout: 5_000, interval: 50 }).toBe('RUNNING');
    const second = await connect(m, apiKey);

    expect(second.status).toBe(409);
    expect(second.body.code).toBe('CONFLICT');
    expect((await first).status).toBe(200);
    expect(await webhooksOf(apiKey)).toHaveLength(1);
  });

  it.each([
    ['a missing key', {}],
    ['a blank key', { apiKey: '   ' }],
    ['a key that is not a string', { apiKey: 42 }],
  ])('given %s / it answers 400 INVALID_INPUT and stores nothing', async (_what, body) => {
    const m = await merchant();
    const res = await call('POST', '/api/merchant/processor/connect', { token: m.token, body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(await row(m)).toBeNull();
    expect(await attemptOf(m)).toBeNull();
  });
});

describe('reconnecting and disconnecting', () => {
  it('given a connected processor / when the merchant connects another account / the new connection replaces it and the old webhook is unregistered', async () => {
    const m = await merchant();
    const first = await account();
    const second = await account();
    expect((await connect(m, first.apiKey)).status).toBe(200);
    expect(await webhooksOf(first.apiKey)).toHaveLength(1);

    const res = await connect(m, second.apiKey);

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ready: true, businessId: second.businessId, apiKeyLast4: second.apiKey.slice(-4) });
    expect(await webhooksOf(first.apiKey)).toEqual([]);
    const hooks = await webhooksOf(second.apiKey);
    expect(hooks.map((h) => h.id)).toEqual([(await row(m))!.webhookId]);
    expect(secrets.decrypt((await row(m))!.apiKeyEnc, `${m.id}:processor.apiKey`)).toBe(second.apiKey);
  });

  describe('given a working connection, a new key that fails', () => {
    /** A connected merchant, what it looks like, and the answer to connecting `next` (after `fault`, if any). */
    async function reconnect(next: (working: { apiKey: string }) => Promise<string> | string, fault?: Record<string, unknown>) {
      const m = await merchant();
      const working = await account();
      expect((await connect(m, working.apiKey)).status).toBe(200);
      const before = await row(m);
      const nextKey = await next(working);
      if (fault) await processor.control('POST', 'faults', fault);
      const res = await connect(m, nextKey);
      return { m, working, before, nextKey, res };
    }

    /** The connection is exactly as before, its webhook still registered, and GET says why the new key was not taken. */
    async function expectUnchanged(r: Awaited<ReturnType<typeof reconnect>>, error: RegExp) {
      expect(await row(r.m)).toEqual(r.before);
      const hooks = await webhooksOf(r.working.apiKey);
      expect(hooks.map((h) => h.id)).toEqual([r.before!.webhookId]);
      const body = (await status(r.m)).body;
      expect(body).toMatchObject({
        connected: true, ready: true, status: 'CONNECTED', apiKeyLast4: r.working.apiKey.slice(-4), businessId: r.before!.businessId, webhookRegistered: true,
        lastError: expect.stringMatching(error), attempt: { status: 'FAILED', apiKeyLast4: r.nextKey.slice(-4), error: expect.stringMatching(error) },
      });
    }

    it('when the processor rejects it / 422 INVALID_PROCESSOR_KEY and the working connection stays in place, ready, with its webhook', async () => {
      const r = await reconnect(() => 'sk_rejected_key_9999');
      expect(r.res.status).toBe(422);
      expect(r.res.body.code).toBe('INVALID_PROCESSOR_KEY');
      await expectUnchanged(r, /rejected/);
    });

    it('when the processor fails while the new key is checked / 502 and the working connection stays in place', async () => {
      const r = await reconnect(async () => (await account()).apiKey, { mode: 'error', status: 503, match: '/api/v1/accounts/me', count: 5 });
      expect(r.res.status).toBe(502);
      await expectUnchanged(r, /unavailable/);
    });

    it('when registering the new webhook fails / the working connection stays in place and the new account keeps no webhook of ours', async () => {
      const r = await reconnect(async () => (await account()).apiKey, { mode: 'error', status: 503, match: '/api/v1/webhooks', method: 'POST', count: 5 });
      expect(r.res.status).toBe(502);
      await processor.control('DELETE', 'faults');
      await expectUnchanged(r, /unavailable/);
      expect(await webhooksOf(r.nextKey)).toEqual([]);
    });

    it('then a good key / replaces the connection, and the failed attempt is no longer reported', async () => {
      const r = await reconnect(() => 'sk_rejected_key_9999');
      const next = await account();
      const res = await connect(r.m, next.apiKey);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ ready: true, businessId: next.businessId, lastError: null, attempt: null });
      expect(await webhooksOf(r.working.apiKey)).toEqual([]);
      expect(await database.db.processorConnectionAttempt.count({ where: { merchantId: r.m.id } })).toBe(0);
    });
  });

  it('given the old webhook cannot be removed after a successful reconnect / the new connection stands, and the old webhook is removed by the next disconnect', async () => {
    const m = await merchant();
    const first = await account();
    const second = await account();
    expect((await connect(m, first.apiKey)).status).toBe(200);
    await processor.control('POST', 'faults', { mode: 'error', status: 503, match: '/api/v1/webhooks/', method: 'DELETE', count: 10 });

    const res = await connect(m, second.apiKey);

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ready: true, businessId: second.businessId, apiKeyLast4: second.apiKey.slice(-4) });
    expect(await webhooksOf(first.apiKey)).toHaveLength(1);
    expect(await attemptOf(m)).toMatchObject({ status: 'REPLACED', webhookId: expect.stringMatching(/^hook_/) });
    await processor.control('DELETE', 'faults');

    expect((await call('DELETE', '/api/merchant/processor', { token: m.token })).status).toBe(200);
    expect(await webhooksOf(first.apiKey)).toEqual([]);
    expect(await webhooksOf(second.apiKey)).toEqual([]);
    expect(await database.db.processorConnectionAttempt.count({ where: { merchantId: m.id } })).toBe(0);
  });

  it('given a connected processor / when the merchant connects the same key again / there is still exactly one webhook and the same product', async () => {
    const m = await merchant();
    const { apiKey } = await account();
    const first = await connect(m, apiKey);

    const again = await connect(m, apiKey);

    expect(again.status).toBe(200);
    expect(again.body.productId).toBe(first.body.productId);
    expect(await webhooksOf(apiKey)).toHaveLength(1);
  });

  it('given a connected processor / when the merchant disconnects / the webhook is unregistered at the processor and the connection is gone', async () => {
    const m = await merchant();
    const { apiKey } = await account();
    await connect(m, apiKey);

    const res = await call('DELETE', '/api/merchant/processor', { token: m.token });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ connected: false });
    expect(await row(m)).toBeNull();
    expect(await webhooksOf(apiKey)).toEqual([]);
    expect((await status(m)).body).toMatchObject({ connected: false, ready: false, status: null, webhookRegistered: false });

    const again = await call('DELETE', '/api/merchant/processor', { token: m.token });
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('NOT_FOUND');
  });

  it('given our webhook already deleted at the processor / disconnecting still succeeds', async () => {
    const m = await merchant();
    const { apiKey } = await account();
    await connect(m, apiKey);
    await processor.client({ apiKey }).deleteWebhook((await row(m))!.webhookId!);

    const res = await call('DELETE', '/api/merchant/processor', { token: m.token });

    expect(res.status).toBe(200);
    expect(await row(m)).toBeNull();
  });

  it('given a processor that does not answer / disconnecting answers 504 PROCESSOR_TIMEOUT and keeps the connection', async () => {
    const m = await merchant();
    const { apiKey } = await account();
    await connect(m, apiKey);
    await processor.control('POST', 'faults', { mode: 'timeout', match: '/api/v1/webhooks', method: 'DELETE', count: 5 });

    const res = await call('DELETE', '/api/merchant/processor', { token: m.token });

    expect(res.status).toBe(504);
    expect(res.body.code).toBe('PROCESSOR_TIMEOUT');
    expect(await row(m)).toMatchObject({ status: 'CONNECTED', webhookId: expect.stringMatching(/^hook_/) });
    expect((await status(m)).body.ready).toBe(true);
  });
});

describe('runs started before attempts existed', () => {
  it('given a connect run with the key in the connection row (no attemptId) / it still sets the connection up in place', async () => {
    const m = await merchant();
    const { apiKey, businessId } = await account();
    await database.db.processorConnection.create({ data: { merchantId: m.id, apiKeyEnc: secrets.encrypt(apiKey, `${m.id}:processor.apiKey`), apiKeyLast4: apiKey.slice(-4), status: 'CONNECTING' } });

    const result = await temporal.client.workflow.execute(connectProcessorWorkflow, {
      workflowId: WORKFLOWS.processorConnect.id(m.id), taskQueue: temporal.taskQueue, args: [{ merchantId: m.id }], workflowExecutionTimeout: '1 minute',
    });

    expect(result).toMatchObject({ businessId, webhookId: expect.stringMatching(/^hook_/) });
    expect(await row(m)).toMatchObject({ status: 'CONNECTED', businessId, webhookId: result.webhookId });
    expect(await attemptOf(m)).toBeNull();
  });
});

describe('access', () => {
  it('given the OpenAPI document / it lists the processor routes with their bearer auth', async () => {
    const doc = (await call('GET', '/docs/json')).body as { paths: Record<string, Record<string, { security?: unknown }>> };
    expect(Object.keys(doc.paths['/api/merchant/processor'] ?? {}).sort()).toEqual(['delete', 'get']);
    expect(doc.paths['/api/merchant/processor/connect']?.post?.security).toEqual([{ bearerAuth: [] }]);
  });


  it("given merchant A connected / merchant B's token never reads or changes A's connection", async () => {
    const a = await merchant();
    const b = await merchant();
    const { apiKey } = await account();
    await connect(a, apiKey);
    const before = await row(a);

    expect((await status(b)).body).toMatchObject({ connected: false, status: null, businessId: null });
    const del = await call('DELETE', '/api/merchant/processor', { token: b.token });
    expect(del.status).toBe(404);
    expect(await row(a)).toEqual(before);
    expect(await webhooksOf(apiKey)).toHaveLength(1);

    const other = await account();
    expect((await connect(b, other.apiKey)).status).toBe(200);
    expect(await row(a)).toEqual(before);
    expect((await status(a)).body).toMatchObject({ ready: true, apiKeyLast4: apiKey.slice(-4) });
  });
});
