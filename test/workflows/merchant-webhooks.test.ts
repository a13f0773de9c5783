// Outgoing webhooks over days, on the time-skipping test server: the real activities against a real database, the
// webhook receiver simulator (which verifies every delivery with `standardwebhooks`) and the sandbox mailbox. The
// whole retry schedule with its jitter, success on a later attempt, 410, Retry-After, a time-out, an endpoint
// disabled meanwhile, the dead-letter list and its replays, the 24-hour rotation overlap, and an endpoint's health:
// warnings on day 1 and day 3, disabled on day 5, or reset by a success. Days pass in seconds while the test awaits.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { Client } from '@temporalio/client';
import { createMerchantWebhookActivities } from '../../activities/merchant-webhooks/merchant-webhooks.js';
import { createEmailClient } from '../../integrations/email/index.js';
import { createSecretBox } from '../../security/secrets.js';
import { DELIVERY_JITTER, DELIVERY_SCHEDULE_MS, factKeyOf, SECRET_ROTATION_OVERLAP_MS } from '../../domain/merchant-webhooks/merchant-webhooks.js';
import {
  deliverMerchantEvent, newWebhookSecret, recordMerchantEvent, replayDeadDeliveriesSince, replayDelivery, rotateEndpointSecret, sealEndpointSecret, startDeliveryRun,
} from '../../model/merchant-webhooks.js';
import type { MerchantWebhookDeliveryResult } from '../../workflows/merchant-webhooks/merchant-webhook-delivery.js';
import type { WebhookEndpointHealthResult } from '../../workflows/merchant-webhooks/webhook-endpoint-health.js';
import type { ReceivedDelivery } from '../../sandbox/webhook-receiver/index.js';
import { startActivityRig, type ActivityRig } from '../harness/activity-rig.js';
import { startTimeSkipping, uniqueTaskQueue, type TimeSkippingTemporal } from '../harness/temporal.js';
import { WORKFLOWS } from '../../domain/temporal/workflow-names.js';

const SECOND = 1000;
const HOUR = 3600 * SECOND;
const DAY = 24 * HOUR;
/** One attempt's time-out here (15 s in production): the slow receiver test waits it out for real. */
const TIMEOUT_MS = 1500;

const taskQueue = uniqueTaskQueue('hooks');
let rig: ActivityRig;
let ts: TimeSkippingTemporal;
const temporal = { get client(): Client { return ts.env.client; } };

beforeAll(async () => {
  rig = await startActivityRig({ taskQueue, temporal });
});
afterAll(async () => {
  await rig?.close();
});
beforeEach(async () => {
  ts = await startTimeSkipping({ taskQueue });
  await rig.sims.webhookReceiver.reset();
});
afterEach(async () => {
  await ts?.close();
});

const db = () => rig.database.db;
const secrets = () => createSecretBox(rig.config.secretsKey!);
const starter = () => ({ client: ts.env.client, taskQueue });

/** The service's activities, with a short attempt time-out. */
function activities() {
  const email = createEmailClient({ serverToken: rig.config.email.serverToken ?? '', apiUrl: rig.config.email.apiUrl });
  return { ...rig.activities, ...createMerchantWebhookActivities({ db: db(), config: rig.config, secrets: secrets(), urlGuard: rig.urlGuard, email, temporal, deliveryTimeoutMs: TIMEOUT_MS }) };
}
const run = <T>(fn: () => Promise<T>) => ts.withWorker(activities(), fn);

async function receiver(path: string, body: unknown, method = 'POST') {
  const res = await fetch(`${rig.urls.webhookReceiver}/_control/${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return (await res.json()) as { id: string; url: string };
}

async function newMerchant() {
  const i = randomUUID().slice(0, 8);
  const row = await db().merchant.create({ data: { email: `hooks-${i}@shop.test`, passwordHash: 'x', shopName: `Hooks Shop ${i}`, phone: '+49 30 1234', slug: `hooks-${i}` } });
  return { id: row.id, email: row.email };
}

interface Behaviour { failTimes?: number; failStatus?: number; retryAfter?: string | null; gone?: boolean; delayMs?: number }

/** A receiver endpoint and our endpoint pointing at it, as the API makes them (secret sealed; the receiver verifies with it). */
async function newEndpoint(merchantId: string, behaviour: Behaviour = {}) {
  const secret = newWebhookSecret();
  const at = await receiver('endpoints', { ...behaviour, secrets: [secret] });
  const id = randomUUID();
  await db().webhookEndpoint.create({ data: { id, merchantId, url: at.url, secretEnc: sealEndpointSecret(secrets(), merchantId, id, secret) } });
  return { id, secret, receiverId: at.id };
}

/** A test event to the endpoint, as its "send test event" button: answers the delivery id (msg_…). */
async function sendTestEvent(merchantId: string, endpointId: string): Promise<string> {
  const event = await recordMerchantEvent(db(), { merchantId, type: 'webhook.test', factKey: factKeyOf('webhook.test', randomUUID()), data: () => ({ endpoint_id: endpointId, message: 'test' }) });
  const [deliveryId] = await deliverMerchantEvent(db(), starter(), event, [endpointId]);
  return deliveryId!;
}

const result = (deliveryId: string, runNumber = 0) => ts.env.client.workflow.getHandle(WORKFLOWS.merchantWebhookDelivery.id(deliveryId, runNumber)).result() as Promise<MerchantWebhookDeliveryResult>;
const healthResult = (endpointId: string) => ts.env.client.workflow.getHandle(WORKFLOWS.webhookEndpointHealth.id(endpointId)).result() as Promise<WebhookEndpointHealthResult>;
const received = (receiverId: string): ReceivedDelivery[] => rig.sims.webhookReceiver.deliveries(receiverId);
const delivery = (id: string) => db().webhookDelivery.findUniqueOrThrow({ where: { id }, include: { attemptLog: { orderBy: { number: 'asc' } } } });

/** The waits between attempts, as the workflow's timers recorded them (ms). */
async function timersOf(deliveryId: string, runNumber = 0): Promise<number[]> {
  const history = await ts.env.client.workflow.getHandle(WORKFLOWS.merchantWebhookDelivery.id(deliveryId, runNumber)).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const d = e.timerStartedEventAttributes?.startToFireTimeout;
    return d ? [Number(d.seconds ?? 0) * 1000 + Math.round((d.nanos ?? 0) / 1e6)] : [];
  });
}

async function until<T>(what: string, read: () => Promise<T | null | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const emailKinds = (to: string) => rig.sims.email.messages({ to }).map((m) => m.Tag ?? '');

describe('the delivery schedule', () => {
  it('given an endpoint that always answers 500 / 8 attempts on the schedule 0 s, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h within ±10 % (≥ 24 h in all), then dead; every attempt the same webhook-id, verified', async () => {
    const merchant = await newMerchant();
    const endpoint = await newEndpoint(merchant.id, { failTimes: 1000, failStatus: 500 });
    await run(async () => {
      const id = await sendTestEvent(merchant.id, endpoint.id);
      expect(await result(id)).toEqual({ outcome: 'dead', attempts: 8 });
      const waits = await timersOf(id);
      expect(waits).toHaveLength(7);
      waits.forEach((wait, i) => {
        const nominal = DELIVERY_SCHEDULE_MS[i + 1]!;
        expect(wait).toBeGreaterThanOrEqual(Math.floor(nominal * (1 - DELIVERY_JITTER)));
        expect(wait).toBeLessThanOrEqual(Math.ceil(nominal * (1 + DELIVERY_JITTER)));
      });
      expect(waits.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(24 * HOUR);
      // Jittered for real: not the nominal schedule to the millisecond.
      expect(waits).not.toEqual(DELIVERY_SCHEDULE_MS.slice(1));

      const row = await delivery(id);
      expect(row).toMatchObject({ status: 'dead', attempts: 8, lastStatusCode: 500, nextAttemptAt: null });
      expect(row.deadAt).not.toBeNull();
      expect(row.attemptLog.map((a) => a.statusCode)).toEqual(Array(8).fill(500));
      expect(row.attemptLog[0]!.responseBody).toContain('configured failure');
      const got = received(endpoint.receiverId);
      expect(got).toHaveLength(8);
      expect(new Set(got.map((d) => d.webhookId))).toEqual(new Set([id]));
      expect(new Set(got.map((d) => d.body)).size).toBe(1);
      expect(got.every((d) => d.verified)).toBe(true);
      expect(got[0]!.headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': expect.stringMatching(/^CheckoutService-Webhooks\//) });
    });
  });

  it('given an endpoint that fails twice / the third attempt succeeds; the failing streak it started ends and its health workflow with it', async () => {
    const merchant = await newMerchant();
    const endpoint = await newEndpoint(merchant.id, { failTimes: 2, failStatus: 503 });
    await run(async () => {
      const id = await sendTestEvent(merchant.id, endpoint.id);
      expect(await result(id)).toEqual({ outcome: 'succeeded', attempts: 3 });
      expect((await delivery(id)).attemptLog.map((a) => a.statusCode)).toEqual([503, 503, 200]);
      expect(await healthResult(endpoint.id)).toEqual({ outcome: 'recovered', steps: [] });
      expect(await db().webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).toMatchObject({ enabled: true, failingSince: null, healthWatchedSince: null });
    });
  });

  it('given a 3xx / a failure (redirects are not followed), retried on the schedule', async () => {
    const merchant = await newMerchant();
    const endpoint = await newEndpoint(merchant.id, { failTimes: 1, failStatus: 302 });
    await run(async () => {
      const id = await sendTestEvent(merchant.id, endpoint.id);
      expect(await result(id)).toEqual({ outcome: 'succeeded', attempts: 2 });
      expect((await delivery(id)).attemptLog[0]).toMatchObject({ statusCode: 302, error: 'HTTP 302 (redirects are not followed)' });
    });
  });

  it('given 410 Gone / the endpoint is disabled (reason gone) and the delivery dead after one attempt; later events make no delivery there', async () => {
    const merchant = await newMerchant();
    const endpoint = await newEndpoint(merchant.id, { gone: true });
    await run(async () => {
      const id = await sendTestEvent(merchant.id, endpoint.id);
      expect(await result(id)).toEqual({ outcome: 'gone', attempts: 1 });
      expect(await delivery(id)).toMatchObject({ status: 'dead', lastStatusCode: 410 });
      expect(await db().webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).toMatchObject({ enabled: false, disabledReason: 'gone' });
      const event = await recordMerchantEvent(db(), { merchantId: merchant.id, type: 'webhook.test', factKey: factKeyOf('webhook.test', randomUUID()), data: () => ({ endpoint_id: endpoint.id, message: 'again' }) });
      expect(await deliverMerchantEvent(db(), starter(), event)).toEqual([]);
      expect(received(endpoint.receiverId)).toHaveLength(1);
    });
  });

  it('given 429 with Retry-After: 3600 / the next attempt waits the hour instead of 5 s; a 503\'s Retry-After is not honoured', async () => {
    const merchant = await newMerchant();
    const limited = await newEndpoint(merchant.id, { failTimes: 1, failStatus: 429, retryAfter: '3600' });
    const unavailable = await newEndpoint(merchant.id, { failTimes: 1, failStatus: 503, retryAfter: '3600' });
    await run(async () => {
      const a = await sendTestEvent(merchant.id, limited.id);
      const b = await sendTestEvent(merchant.id, unavailable.id);
      expect(await result(a)).toEqual({ outcome: 'succeeded', attempts: 2 });
      expect(await result(b)).toEqual({ outcome: 'succeeded', attempts: 2 });
      expect(await timersOf(a)).toEqual([HOUR]);
      const [wait] = await timersOf(b);
      expect(wait).toBeLessThanOrEqual(5.5 * SECOND);
    });
  });

  it('given an endpoint slower than the time-out / the attempt fails without an answer and the next one succeeds', async () => {
    const merchant = await newMerchant();
    const endpoint = await newEndpoint(merchant.id, { delayMs: TIMEOUT_MS + 2000 });
    await run(async () => {
      const id = await sendTestEvent(merchant.id, endpoint.id);
      await until('the first attempt', async () => (await delivery(id)).attemptLog.length === 1);
      await receiver(`endpoints/${endpoint.receiverId}`, { delayMs: 0 }, 'PATCH');
      expect(await result(id)).toEqual({ outcome: 'succeeded', attempts: 2 });
      const [first] = (await delivery(id)).attemptLog;
      expect(first).toMatchObject({ statusCode: null, error: `no answer within ${TIMEOUT_MS / 1000} s` });
      expect(first!.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    });
  });

  it('given the merchant disables the endpoint between attempts / the delivery stops, dead, without another POST', async () => {
    const merchant = await newMerchant();
    const endpoint = await newEndpoint(merchant.id, { failTimes: 1000 });
    await run(async () => {
      const id = await sendTestEvent(merchant.id, endpoint.id);
      await until('the first attempt', async () => (await delivery(id)).attemptLog.length === 1);
      await db().webhookEndpoint.update({ where: { id: endpoint.id }, data: { enabled: false, disabledReason: 'merchant' } });
      expect(await result(id)).toEqual({ outcome: 'endpoint_disabled', attempts: 2 });
      expect(await delivery(id)).toMatchObject({ status: 'dead', attempts: 1, lastError: 'endpoint disabled (merchant) before this attempt' });
      expect(received(endpoint.receiverId)).toHaveLength(1);
    });
  });
});

describe('the dead-letter list and replays', () => {
  it('given a dead delivery / a replay runs the schedule again with the same webhook-id and succeeds; attempts are numbered on; a second start of the replay is the same run', async () => {
    const merchant = await newMerchant();
    const endpoint = await newEndpoint(merchant.id, { failTimes: 8 });
    await run(async () => {
      const id = await sendTestEvent(merchant.id, endpoint.id);
      expect(await result(id)).toEqual({ outcome: 'dead', attempts: 8 });
      const dead = await delivery(id);
      expect(await replayDelivery(starter(), dead)).toBe(1);
      expect(await startDeliveryRun(starter(), id, 1)).toBe('already_started');
      expect(await result(id, 1)).toEqual({ outcome: 'succeeded', attempts: 1 });
      const row = await delivery(id);
      expect(row).toMatchObject({ status: 'succeeded', run: 1, attempts: 9, deadAt: null });
      expect(row.attemptLog.map((a) => [a.number, a.run, a.statusCode])).toEqual([...Array.from({ length: 8 }, (_, i) => [i + 1, 0, 500]), [9, 1, 200]]);
      const got = received(endpoint.receiverId);
      expect(got).toHaveLength(9);
      expect(new Set(got.map((d) => d.webhookId))).toEqual(new Set([id]));
    });
  });

  it('given a delivery still being attempted / a replay run does not claim it: no second run delivers at once', async () => {
    const merchant = await newMerchant();
    const endpoint = await newEndpoint(merchant.id, { failTimes: 1 });
    await run(async () => {
      const id = await sendTestEvent(merchant.id, endpoint.id);
      await until('the first attempt', async () => (await delivery(id)).attemptLog.length === 1);
      await startDeliveryRun(starter(), id, 1);
      expect(await result(id, 1)).toEqual({ outcome: 'superseded', attempts: 0 });
      expect(await result(id)).toEqual({ outcome: 'succeeded', attempts: 2 });
      expect(await delivery(id)).toMatchObject({ run: 0, attempts: 2, status: 'succeeded' });
    });
  });

  it('given dead deliveries before and after a time / replay since that time replays only the later ones', async () => {
    const merchant = await newMerchant();
    const endpoint = await newEndpoint(merchant.id, { failTimes: 24 });
    await run(async () => {
      // All three fail side by side (27 h), so the replays run long before the endpoint's day-3 and day-5 steps.
      const early = await sendTestEvent(merchant.id, endpoint.id);
      await until('the first attempt', async () => (await delivery(early)).attemptLog.length === 1);
      const since = new Date();
      const late = [await sendTestEvent(merchant.id, endpoint.id), await sendTestEvent(merchant.id, endpoint.id)];
      for (const id of [early, ...late]) expect((await result(id)).outcome).toBe('dead');
      const replayed = await replayDeadDeliveriesSince(db(), starter(), { merchantId: merchant.id, endpointId: endpoint.id, since }, 1000);
      expect(new Set(replayed.deliveryIds)).toEqual(new Set(late));
      expect(replayed.more).toBe(false);
      for (const id of late) expect(await result(id, 1)).toEqual({ outcome: 'succeeded', attempts: 1 });
      for (const id of late) expect(await delivery(id)).toMatchObject({ run: 1, attempts: 9, status: 'succeeded' });
      expect(await delivery(early)).toMatchObject({ status: 'dead', run: 0 });
    });
  });
});

describe('secret rotation', () => {
  it('given a rotation / for 24 hours each delivery carries two signatures, each verifying with its secret alone; after that, one', async () => {
    const merchant = await newMerchant();
    const endpoint = await newEndpoint(merchant.id);
    const row = await db().webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    const rotated = (await rotateEndpointSecret(db(), secrets(), row, SECRET_ROTATION_OVERLAP_MS))!;
    await receiver(`endpoints/${endpoint.receiverId}`, { secrets: [rotated.secret, endpoint.secret] }, 'PATCH');
    const verifies = (secret: string, d: ReceivedDelivery) => {
      try {
        new Webhook(secret).verify(d.body, d.headers);
        return true;
      } catch {
        return false;
      }
    };
    await run(async () => {
      const within = await sendTestEvent(merchant.id, endpoint.id);
      expect((await result(within)).outcome).toBe('succeeded');
      const [both] = received(endpoint.receiverId);
      expect(both!.signature!.split(' ')).toHaveLength(2);
      expect(verifies(rotated.secret, both!)).toBe(true);
      expect(verifies(endpoint.secret, both!)).toBe(true);

      await ts.env.sleep(SECRET_ROTATION_OVERLAP_MS + HOUR);
      const after = await sendTestEvent(merchant.id, endpoint.id);
      expect((await result(after)).outcome).toBe('succeeded');
      const one = received(endpoint.receiverId).find((d) => d.webhookId === after)!;
      expect(one.signature!.split(' ')).toHaveLength(1);
      expect(verifies(rotated.secret, one)).toBe(true);
      expect(verifies(endpoint.secret, one)).toBe(false);
    });
  });
});

describe('endpoint health', () => {
  it('given every delivery failing for 5 days / warning emails on day 1 and day 3, disabled on day 5 with a third email, and nothing more', async () => {
    const merchant = await newMerchant();
    const endpoint = await newEndpoint(merchant.id, { failTimes: 100_000 });
    await run(async () => {
      // An event a day: the endpoint keeps failing the whole time.
      for (let day = 0; day < 5; day++) {
        await sendTestEvent(merchant.id, endpoint.id);
        await ts.env.sleep(DAY - HOUR);
      }
      expect(await healthResult(endpoint.id)).toEqual({ outcome: 'disabled', steps: ['warning_day_1', 'warning_day_3', 'disable'] });
      const row = await db().webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
      expect(row).toMatchObject({ enabled: false, disabledReason: 'failing' });

      const timers = ((await ts.env.client.workflow.getHandle(WORKFLOWS.webhookEndpointHealth.id(endpoint.id)).fetchHistory()).events ?? [])
        .flatMap((e) => (e.timerStartedEventAttributes?.startToFireTimeout ? [Number(e.timerStartedEventAttributes.startToFireTimeout.seconds)] : []));
      // Waits up to day 1, then day 3, then day 5 of the streak (less the moments already passed).
      expect(timers.reduce((a, b) => a + b, 0)).toBeGreaterThan(4.9 * 24 * 3600);
      expect(timers.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(5 * 24 * 3600);

      await ts.env.sleep(10 * DAY);
      expect(emailKinds(merchant.email).sort()).toEqual(['webhook_endpoint_disabled', 'webhook_endpoint_failing', 'webhook_endpoint_failing']);
      const mails = await db().emailMessage.findMany({ where: { merchantId: merchant.id }, orderBy: { createdAt: 'asc' } });
      expect(mails.map((m) => m.idempotencyKey.split(':').pop())).toEqual(['warning_day_1', 'warning_day_3', 'disable']);
      expect(mails.every((m) => m.status === 'SENT')).toBe(true);
      expect(rig.sims.email.messages({ to: merchant.email }).find((m) => m.Tag === 'webhook_endpoint_disabled')!.Subject).toContain(row.url);
    });
  });

  it('given 2 days of failures (the day-1 warning sent) / a success ends the streak: no day-3 warning, no disable', async () => {
    const merchant = await newMerchant();
    const endpoint = await newEndpoint(merchant.id, { failTimes: 100_000 });
    await run(async () => {
      await sendTestEvent(merchant.id, endpoint.id);
      await ts.env.sleep(2 * DAY);
      expect(emailKinds(merchant.email)).toEqual(['webhook_endpoint_failing']);
      await receiver(`endpoints/${endpoint.receiverId}`, { failTimes: 0 }, 'PATCH');
      expect((await result(await sendTestEvent(merchant.id, endpoint.id))).outcome).toBe('succeeded');
      expect(await healthResult(endpoint.id)).toEqual({ outcome: 'recovered', steps: ['warning_day_1'] });
      await ts.env.sleep(6 * DAY);
      expect(emailKinds(merchant.email)).toEqual(['webhook_endpoint_failing']);
      expect(await db().webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).toMatchObject({ enabled: true, failingSince: null });
    });
  });
});
