// The merchant's webhook routes through the API, with a real worker, Temporal and the webhook receiver simulator:
// an endpoint's secret shown once and sealed at rest, bad input refused with nothing written, another merchant's
// ids not found, the endpoint limit, a test event delivered and verified, the delivery log, rotation, disable and
// enable, replays, pagination, SSRF refusals when saved and when a name later resolves privately at delivery, and
// the OpenAPI document's webhooks section.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { createTestMerchant, type TestMerchant } from '../../../test/harness/merchants.js';
import { MAX_WEBHOOK_ENDPOINTS, MERCHANT_EVENT_TYPES } from '../../../domain/merchant-webhooks/merchant-webhooks.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PUBLIC_ADDRESS = '93.184.216.34';
/** What merchants' host names resolve to here (no DNS): a test changes it to rebind a name. */
const dns = new Map<string, string[]>([
  ['hooks.merchant.example', [PUBLIC_ADDRESS]],
  ['internal.merchant.example', ['192.168.1.5']],
  ['rebind.merchant.example', [PUBLIC_ADDRESS]],
]);

let stack: TestStack;
let a: TestMerchant;
let b: TestMerchant;

beforeAll(async () => {
  stack = await startTestStack({}, {
    resolveHost: async (host) => {
      const found = dns.get(host);
      if (!found) throw new Error(`ENOTFOUND ${host}`);
      return found;
    },
  });
  a = await createTestMerchant(stack.database.db, stack.app, 'Hooks A');
  b = await createTestMerchant(stack.database.db, stack.app, 'Hooks B');
});
afterAll(async () => {
  await stack?.close();
});

async function call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, token: string, payload?: unknown) {
  const res = await stack.app.inject({ method, url: `/api/merchant/webhooks${url}`, headers: { authorization: `Bearer ${token}` }, ...(payload === undefined ? {} : { payload: payload as object }) });
  return { status: res.statusCode, body: res.json() as Json };
}

async function receiverEndpoint(body: Json = {}) {
  const res = await fetch(`${stack.urls.webhookReceiver}/_control/endpoints`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return (await res.json()) as { id: string; url: string };
}
const setReceiverSecrets = (id: string, secrets: string[]) =>
  fetch(`${stack.urls.webhookReceiver}/_control/endpoints/${id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ secrets }) });

async function waitFor<T>(what: string, read: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** An endpoint of `m` at a new receiver endpoint that verifies with the secret the API answered. */
async function endpointAtReceiver(m: TestMerchant, extra: Json = {}) {
  const at = await receiverEndpoint();
  const created = await call('POST', '/endpoints', m.token, { url: at.url, ...extra });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await setReceiverSecrets(at.id, [created.body.secret as string]);
  return { endpoint: created.body, receiverId: at.id, secret: created.body.secret as string };
}

const received = (receiverId: string) => stack.sims.webhookReceiver.deliveries(receiverId);

describe('endpoints', () => {
  it('given a new endpoint / its secret (whsec_…) is in the create answer only, sealed at rest', async () => {
    const { endpoint, secret } = await endpointAtReceiver(a, { description: 'orders to the ERP', eventTypes: ['session.completed', 'dispute.created', 'session.completed'] });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(endpoint).toMatchObject({ description: 'orders to the ERP', eventTypes: ['session.completed', 'dispute.created'], enabled: true, disabledReason: null, failingSince: null });
    const listed = await call('GET', '/endpoints', a.token);
    expect(listed.body.items.find((e: Json) => e.id === endpoint.id)).not.toHaveProperty('secret');
    const one = await call('GET', `/endpoints/${endpoint.id}`, a.token);
    expect(one.status).toBe(200);
    expect(one.body).not.toHaveProperty('secret');
    expect(JSON.stringify(one.body)).not.toContain(secret.slice(6));
    const row = await stack.database.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id as string } });
    expect(row.secretEnc).toMatch(/^v1\./);
    expect(row.secretEnc).not.toContain(secret.slice(6));
  });

  it('given bad input / 400 INVALID_INPUT naming the field, and nothing written', async () => {
    const before = await stack.database.db.webhookEndpoint.count({ where: { merchantId: a.id } });
    const at = await receiverEndpoint();
    for (const body of [
      {},
      { url: 'not a url' },
      { url: 'http://hooks.merchant.example/in' },
      { url: at.url, eventTypes: ['order.created'] },
      { url: at.url, eventTypes: ['webhook.test'] },
      { url: at.url, description: 'x'.repeat(201) },
      { url: at.url, secret: 'whsec_mine' },
    ]) {
      const res = await call('POST', '/endpoints', a.token, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('INVALID_INPUT');
    }
    expect((await call('POST', '/deliveries/msg_x/replay', a.token)).status).toBe(400);
    expect((await call('GET', '/deliveries?status=failed', a.token)).status).toBe(400);
    expect((await call('GET', '/deliveries?cursor=nonsense', a.token)).body.code).toBe('INVALID_INPUT');
    expect(await stack.database.db.webhookEndpoint.count({ where: { merchantId: a.id } })).toBe(before);
  });

  it('given another merchant\'s endpoint and deliveries / every route answers 404 and lists show nothing of them', async () => {
    const { endpoint } = await endpointAtReceiver(a);
    const sent = await call('POST', `/endpoints/${endpoint.id}/test`, a.token);
    expect(sent.status).toBe(202);
    const id = endpoint.id as string;
    for (const [method, url, body] of [
      ['GET', `/endpoints/${id}`], ['PATCH', `/endpoints/${id}`, { enabled: false }], ['DELETE', `/endpoints/${id}`], ['POST', `/endpoints/${id}/rotate-secret`],
      ['POST', `/endpoints/${id}/test`], ['POST', `/endpoints/${id}/replay`, { since: '2020-01-01T00:00:00Z' }],
      ['GET', `/deliveries/${sent.body.deliveryId}`], ['POST', `/deliveries/${sent.body.deliveryId}/replay`], ['GET', `/events/${sent.body.eventId}`],
    ] as const) {
      expect((await call(method, url, b.token, body)).status, `${method} ${url}`).toBe(404);
    }
    expect((await call('GET', '/endpoints', b.token)).body.items).toEqual([]);
    expect((await call('GET', '/deliveries', b.token)).body.items).toEqual([]);
    expect((await call('GET', '/events', b.token)).body.items).toEqual([]);
    expect(await stack.database.db.webhookEndpoint.findUniqueOrThrow({ where: { id } })).toMatchObject({ enabled: true });
  });

  it(`given ${MAX_WEBHOOK_ENDPOINTS} endpoints / another answers 409 CONFLICT`, async () => {
    const m = await createTestMerchant(stack.database.db, stack.app, 'Many Hooks');
    const at = await receiverEndpoint();
    for (let i = 0; i < MAX_WEBHOOK_ENDPOINTS; i++) expect((await call('POST', '/endpoints', m.token, { url: `${at.url}?n=${i}` })).status).toBe(201);
    const over = await call('POST', '/endpoints', m.token, { url: at.url });
    expect(over.status).toBe(409);
    expect(over.body.code).toBe('CONFLICT');
  });
});

describe('deliveries', () => {
  it('given "send test event" / one webhook.test POST, verified with the endpoint\'s secret; its delivery and attempt log, the event', async () => {
    const { endpoint, receiverId } = await endpointAtReceiver(a, { eventTypes: ['session.completed'] });
    const sent = await call('POST', `/endpoints/${endpoint.id}/test`, a.token);
    expect(sent.status).toBe(202);
    expect(sent.body.deliveryId).toMatch(/^msg_/);
    const [got] = await waitFor('the delivery', () => (received(receiverId).length ? received(receiverId) : undefined));
    expect(got).toMatchObject({ webhookId: sent.body.deliveryId, verified: true });
    expect(JSON.parse(got!.body)).toMatchObject({ id: sent.body.eventId, type: 'webhook.test', data: { endpoint_id: endpoint.id } });

    const detail = await waitFor('succeeded', async () => {
      const d = await call('GET', `/deliveries/${sent.body.deliveryId}`, a.token);
      return d.body.status === 'succeeded' ? d.body : undefined;
    });
    expect(detail).toMatchObject({ endpointId: endpoint.id, eventType: 'webhook.test', attempts: 1, run: 0, lastStatusCode: 200, endpointUrl: endpoint.url, payload: { id: sent.body.eventId } });
    expect(detail.attemptLog).toEqual([expect.objectContaining({ number: 1, run: 0, statusCode: 200, responseBody: '{"ok":true}', error: null })]);
    expect(detail.attemptLog[0].durationMs).toBeGreaterThanOrEqual(0);
    const list = await call('GET', `/deliveries?endpointId=${endpoint.id}&status=succeeded`, a.token);
    expect(list.body.items.map((d: Json) => d.id)).toEqual([sent.body.deliveryId]);
    const event = await call('GET', `/events/${sent.body.eventId}`, a.token);
    expect(event.body).toMatchObject({ type: 'webhook.test', deliveries: [{ id: sent.body.deliveryId }] });
  });

  it('given a delivered event / replay sends it again with the same webhook-id; a new page of deliveries follows the cursor', async () => {
    const { endpoint, receiverId } = await endpointAtReceiver(a);
    const first = await call('POST', `/endpoints/${endpoint.id}/test`, a.token);
    const second = await call('POST', `/endpoints/${endpoint.id}/test`, a.token);
    await waitFor('both delivered', () => received(receiverId).length === 2);
    await waitFor('succeeded', async () => (await call('GET', `/deliveries/${first.body.deliveryId}`, a.token)).body.status === 'succeeded');
    const replay = await call('POST', `/deliveries/${first.body.deliveryId}/replay`, a.token);
    expect(replay).toMatchObject({ status: 202, body: { deliveryId: first.body.deliveryId, run: 1 } });
    await waitFor('the replay', () => received(receiverId).length === 3);
    expect(received(receiverId).map((d) => d.webhookId).filter((id) => id === first.body.deliveryId)).toHaveLength(2);
    const done = await waitFor('replayed', async () => {
      const d = await call('GET', `/deliveries/${first.body.deliveryId}`, a.token);
      return d.body.status === 'succeeded' && d.body.run === 1 ? d.body : undefined;
    });
    expect(done.attemptLog.map((x: Json) => [x.number, x.run])).toEqual([[1, 0], [2, 1]]);

    const page1 = await call('GET', `/deliveries?endpointId=${endpoint.id}&limit=1`, a.token);
    expect(page1.body.items.map((d: Json) => d.id)).toEqual([second.body.deliveryId]);
    const page2 = await call('GET', `/deliveries?endpointId=${endpoint.id}&limit=1&cursor=${page1.body.nextCursor}`, a.token);
    expect(page2.body.items.map((d: Json) => d.id)).toEqual([first.body.deliveryId]);
    expect(page2.body.nextCursor).toBeNull();
    expect((await call('POST', `/endpoints/${endpoint.id}/replay`, a.token, { since: 'yesterday' })).status).toBe(400);
    expect(await call('POST', `/endpoints/${endpoint.id}/replay`, a.token, { since: new Date(0).toISOString() })).toMatchObject({ status: 202, body: { replayed: 0, more: false } });
  });

  it('given a rotation / the answer holds the new secret; deliveries carry both signatures, each verifying alone', async () => {
    const { endpoint, receiverId, secret } = await endpointAtReceiver(a);
    const rotated = await call('POST', `/endpoints/${endpoint.id}/rotate-secret`, a.token);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(secret);
    expect(new Date(rotated.body.previousSecretExpiresAt).getTime() - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    expect(rotated.body.endpoint.previousSecretExpiresAt).toBe(rotated.body.previousSecretExpiresAt);
    await setReceiverSecrets(receiverId, [rotated.body.secret]);
    await call('POST', `/endpoints/${endpoint.id}/test`, a.token);
    const [got] = await waitFor('the delivery', () => (received(receiverId).length ? received(receiverId) : undefined));
    expect(got!.signature!.split(' ')).toHaveLength(2);
    for (const s of [secret, rotated.body.secret as string]) expect(new Webhook(s).verify(got!.body, got!.headers)).toMatchObject({ type: 'webhook.test' });
  });

  it('given a disabled endpoint / test and replay answer 409 WEBHOOK_ENDPOINT_DISABLED; enabled again it delivers', async () => {
    const { endpoint, receiverId } = await endpointAtReceiver(a);
    const off = await call('PATCH', `/endpoints/${endpoint.id}`, a.token, { enabled: false });
    expect(off.body).toMatchObject({ enabled: false, disabledReason: 'merchant' });
    expect(await call('POST', `/endpoints/${endpoint.id}/test`, a.token)).toMatchObject({ status: 409, body: { code: 'WEBHOOK_ENDPOINT_DISABLED' } });
    expect(await call('POST', `/endpoints/${endpoint.id}/replay`, a.token, { since: new Date(0).toISOString() })).toMatchObject({ status: 409, body: { code: 'WEBHOOK_ENDPOINT_DISABLED' } });
    const on = await call('PATCH', `/endpoints/${endpoint.id}`, a.token, { enabled: true });
    expect(on.body).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null });
    expect((await call('POST', `/endpoints/${endpoint.id}/test`, a.token)).status).toBe(202);
    await waitFor('the delivery', () => received(receiverId).length === 1);
    expect((await call('DELETE', `/endpoints/${endpoint.id}`, a.token)).body).toEqual({ deleted: true, id: endpoint.id });
    expect((await call('GET', `/endpoints/${endpoint.id}`, a.token)).status).toBe(404);
  });
});

describe('SSRF', () => {
  it('given a private, loopback or unresolvable address / the endpoint is refused when saved', async () => {
    for (const url of ['https://10.0.0.1/hook', 'https://127.0.0.1/hook', 'https://169.254.169.254/latest', 'https://internal.merchant.example/hook', 'https://localhost/hook', 'https://nowhere.merchant.example/hook']) {
      const res = await call('POST', '/endpoints', a.token, { url });
      expect(res.status, url).toBe(400);
      expect(res.body.code).toBe('INVALID_INPUT');
    }
    const ok = await call('POST', '/endpoints', a.token, { url: 'https://hooks.merchant.example/in', enabled: false });
    expect(ok.status).toBe(201);
    expect((await call('PATCH', `/endpoints/${ok.body.id}`, a.token, { url: 'https://internal.merchant.example/in' })).status).toBe(400);
    await call('DELETE', `/endpoints/${ok.body.id}`, a.token);
  });

  it('given the sandbox on and a simulator\'s control path (reset, faults), however spelt / refused when saved and when patched, nothing stored', async () => {
    const db = () => stack.database.db;
    const before = await db().webhookEndpoint.count({ where: { merchantId: a.id } });
    for (const url of [`${stack.urls.processor}/_control/reset`, `${stack.urls.webhookReceiver}/_CONTROL/endpoints`, `${stack.urls.storefrontA}/x/%2e%2e/_control/faults`, `${stack.urls.email}/%255Fcontrol/reset`]) {
      const res = await call('POST', '/endpoints', a.token, { url });
      expect(res.status, url).toBe(400);
      expect(res.body).toMatchObject({ code: 'INVALID_INPUT', error: expect.stringContaining('control path') });
    }
    expect(await db().webhookEndpoint.count({ where: { merchantId: a.id } })).toBe(before);
    // The simulators themselves stay usable as endpoints (the receiver is one), their control paths do not.
    const { endpoint } = await endpointAtReceiver(a, { enabled: false });
    expect((await call('PATCH', `/endpoints/${endpoint.id}`, a.token, { url: `${stack.urls.webhookReceiver}/_control/reset` })).status).toBe(400);
    expect((await db().webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).url).toBe(endpoint.url);
  });

  it('given a name that resolved publicly when saved and privately at delivery / the attempt is refused before any connection, logged, and retried', async () => {
    const created = await call('POST', '/endpoints', a.token, { url: 'https://rebind.merchant.example/hook' });
    expect(created.status).toBe(201);
    dns.set('rebind.merchant.example', ['10.1.2.3']);
    const sent = await call('POST', `/endpoints/${created.body.id}/test`, a.token);
    const detail = await waitFor('the refused attempt', async () => {
      const d = await call('GET', `/deliveries/${sent.body.deliveryId}`, a.token);
      return d.body.attemptLog?.length ? d.body : undefined;
    });
    expect(detail).toMatchObject({ status: 'pending', lastStatusCode: null });
    expect(detail.attemptLog[0]).toMatchObject({ statusCode: null, error: 'refused by the SSRF guard: address 10.1.2.3 is in a private network' });
    expect(detail.nextAttemptAt).not.toBeNull();
    // Deleted: the next attempt finds nothing to deliver.
    await call('DELETE', `/endpoints/${created.body.id}`, a.token);
  });
});

describe('the OpenAPI document', () => {
  it('describes every event payload as a webhook with its schema', async () => {
    const doc = (await stack.app.inject({ method: 'GET', url: '/docs/json' })).json() as Json;
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.webhooks).sort()).toEqual([...MERCHANT_EVENT_TYPES].sort());
    const completed = doc.components.schemas.WebhookEvent_session_completed;
    expect(completed.properties.type).toMatchObject({ const: 'session.completed' });
    expect(Object.keys(completed.properties.data.properties)).toEqual(expect.arrayContaining(['token', 'total_minor', 'currency', 'customer_email', 'store_order_id', 'processor_payment_id']));
    expect(doc.webhooks['dispute.resolved'].post.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/WebhookEvent_dispute_resolved');
    expect(doc.paths['/api/merchant/webhooks/endpoints/{id}/rotate-secret']).toBeDefined();
  });
});
