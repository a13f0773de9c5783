// Two API replicas on one database, one Temporal server and one Redis, as the cluster runs them: what must
// hold across processes rests on shared state, never on a process's memory.
//   - Rate limits count in Redis: a client alternating between replicas still gets the configured limit,
//     not twice it; without REDIS_URL each process counts alone (npm start's single process).
//   - The same signed webhook sent to both replicas at once is applied once (the advisory lock and unique
//     event id in PostgreSQL): one signal, one order, one email each.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../api/app.js';
import type { Config } from '../../config/index.js';
import { PROCESSOR_WEBHOOK_PATH } from '../../model/connections.js';
import { Webhook } from 'standardwebhooks';
import { createSecretBox } from '../../security/secrets.js';
import { createUrlGuard } from '../../security/ssrf.js';
import { freePort } from '../../scripts/lib/ports.js';
import { ManagedProcess } from '../../scripts/cluster/process.js';
import { redisServerSpec } from '../../scripts/cluster/cluster.js';
import { processorAad } from '../../model/connections.js';
import { startTestStack, type TestStack } from '../harness/stack.js';
import { control, expectCompletedWithOneOrderAndTwoEmails, payOnHostedPage, startPayment, storefrontACheckout, storefrontAMerchant, storefrontAOrdersOf, type Json } from '../e2e/checkout-helpers.js';
import { WORKFLOWS } from '../../domain/temporal/workflow-names.js';

let stack: TestStack;
let redis: ManagedProcess;
let redisUrl: string;
let logDir: string;
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  logDir = mkdtempSync(path.join(os.tmpdir(), 'replicas-test-'));
  const port = await freePort();
  redis = new ManagedProcess(redisServerSpec(port), logDir);
  redisUrl = `redis://127.0.0.1:${port}`;
  [stack] = await Promise.all([startTestStack(), redis.start()]);
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await stack?.close();
  await redis?.close();
  if (logDir) rmSync(logDir, { recursive: true, force: true });
});

/** Another API replica: the same configuration, database and Temporal, its own process-level state. */
async function replica(overrides: Partial<Config> = {}): Promise<FastifyInstance> {
  const app = await buildApp({
    config: { ...stack.config, ...overrides },
    db: stack.database.db,
    temporal: { client: stack.temporal.client, connection: stack.temporal.connection },
    logger: false,
    urlGuard: createUrlGuard({ allowedOrigins: Object.values(stack.urls) }),
  });
  apps.push(app);
  return app;
}

const tightLogin = (redis: string | undefined): Partial<Config> => ({ redisUrl: redis, rateLimits: { ...stack.config.rateLimits, login: { max: 3, windowSeconds: 60 } } });

/** A failed login from `ip` on `app`: its status. */
async function login(app: FastifyInstance, ip: string): Promise<number> {
  const res = await app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: ip, payload: { email: 'nobody@replicas.test', password: 'not the password 1' } });
  return res.statusCode;
}

describe('rate limits across replicas', () => {
  it('given two replicas sharing Redis, when one client alternates between them, then the 4th login of a 3-per-minute limit is refused on either', async () => {
    const [a, b] = [await replica(tightLogin(redisUrl)), await replica(tightLogin(redisUrl))];
    const ip = '198.51.100.21';
    const statuses = [await login(a!, ip), await login(b!, ip), await login(a!, ip), await login(b!, ip), await login(a!, ip)];
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    // Another client has its own counter.
    expect(await login(b!, '198.51.100.22')).toBe(401);
  });

  it('given two replicas counting in memory (no REDIS_URL), then each allows the whole limit: why the cluster needs the shared store', async () => {
    const [a, b] = [await replica(tightLogin(undefined)), await replica(tightLogin(undefined))];
    const ip = '198.51.100.31';
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push(await login(a!, ip), await login(b!, ip));
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401]);
    expect(await login(a!, ip)).toBe(429);
  });

  it('given two replicas sharing Redis, when unknown API keys from one address alternate between them, then past the failed-authentication limit both refuse it, and its count is shared', async () => {
    const tight = { redisUrl, rateLimits: { ...stack.config.rateLimits, authFailures: { max: 4, windowSeconds: 60 } } };
    const [a, b] = [await replica(tight), await replica(tight)];
    const key = () => `ck_test_${'A'.repeat(20)}${Math.random().toString(36).slice(2, 12).padEnd(23, 'b')}`;
    const get = (app: FastifyInstance, ip: string) => app.inject({ method: 'GET', url: '/api/merchant/stats', remoteAddress: ip, headers: { authorization: `Bearer ${key()}` } }).then((r) => r.statusCode);
    const ip = '198.51.100.51';
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push(await get(i % 2 ? b! : a!, ip));
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
    expect(await get(b!, '198.51.100.52')).toBe(401);
  });

  it('given Redis unreachable, then limited routes still answer (fail open) instead of failing', async () => {
    const app = await replica(tightLogin(`redis://127.0.0.1:${await freePort()}`));
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push(await login(app, '198.51.100.41'));
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
  });
});

describe('exactly once across replicas', () => {
  it('given a paid session, when its success webhook reaches both replicas 5 times each at once, then one signal, one order and one email each', async () => {
    const second = await replica();
    const secondUrl = await second.listen({ port: 0, host: '127.0.0.1' });
    const merchant = await storefrontAMerchant(stack, 'Replica Store');
    const token = await storefrontACheckout(stack, merchant.shop);
    const payment = await startPayment(stack, token);

    // The processor's own deliveries wait in its outbox; we deliver its success event ourselves.
    expect((await control(stack.urls.processor, 'POST', 'webhooks/hold')).status).toBe(200);
    try {
      await payOnHostedPage(token, payment.paymentUrl as string);
      const outbox = await control(stack.urls.processor, 'GET', 'webhooks/outbox');
      // Whop's payment.succeeded: data is the Payment, carrying the checkout configuration's metadata.
      const event = (outbox.body.events as Json[]).find((e) => e.event === 'payment.succeeded' && e.payload.data.metadata?.checkout_session_token === token)!;
      expect(event).toBeDefined();
      const body = JSON.stringify(event.payload);
      const connection = await stack.database.db.processorConnection.findUniqueOrThrow({ where: { merchantId: merchant.id } });
      const secret = createSecretBox(stack.config.secretsKey!).decrypt(connection.webhookSecretEnc!, processorAad.webhookSecret(merchant.id));
      // Signed as Whop signs (Standard Webhooks; the key is the secret's UTF-8 bytes): one webhook-id for all 10 copies.
      const sentAt = new Date();
      const headers = {
        'content-type': 'application/json',
        'webhook-id': event.id as string,
        'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
        'webhook-signature': new Webhook(Buffer.from(secret, 'utf8').toString('base64')).sign(event.id as string, sentAt, body),
      };
      const answers = await Promise.all(
        [stack.apiUrl, secondUrl].flatMap((url) => Array.from({ length: 5 }, () => fetch(`${url}${PROCESSOR_WEBHOOK_PATH}`, { method: 'POST', headers, body }).then((r) => r.status))),
      );
      expect(answers).toEqual(Array(10).fill(200));

      const deliveries = await stack.database.db.processorWebhookDelivery.findMany({ where: { eventId: event.id as string } });
      const byRejection = await stack.database.db.processorWebhookDelivery.groupBy({ by: ['rejection'], where: { sessionToken: token, signatureValid: true }, _count: true });
      expect(deliveries.filter((d) => d.signalledAt)).toHaveLength(1);
      expect(byRejection.find((g) => g.rejection === 'duplicate')?._count).toBe(9);

      const history = await stack.temporal.client.workflow.getHandle(WORKFLOWS.checkout.id(token)).fetchHistory();
      const signals = (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes);
      const ofEvent = signals.filter((e) => (e.workflowExecutionSignaledEventAttributes?.input?.payloads ?? []).some((p) => Buffer.from(p.data ?? []).toString('utf8').includes(event.id as string)));
      expect(ofEvent).toHaveLength(1);
    } finally {
      await control(stack.urls.processor, 'POST', 'webhooks/release', {});
    }
    await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, () => storefrontAOrdersOf(merchant.shop, token).length);
  });
});
