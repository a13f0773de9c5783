// The webhook receiver simulator as a merchant's endpoint: it verifies with `standardwebhooks` (a good signature with
// any configured secret passes; a wrong secret, a tampered body or a stale timestamp does not), records every
// delivery, and answers as configured (fail N times with a status and Retry-After, 410, slowly).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createWebhookReceiverSimulator, type WebhookReceiverSimulator } from './index.js';
import { startSimulator } from '../../test/harness/simulators.js';

let started: { sim: WebhookReceiverSimulator; url: string; close: () => Promise<void> };
const SECRET = `whsec_${Buffer.alloc(24, 1).toString('base64')}`;
const OTHER = `whsec_${Buffer.alloc(24, 2).toString('base64')}`;

beforeAll(async () => {
  started = await startSimulator((publicUrl) => createWebhookReceiverSimulator({ publicUrl }));
});
afterAll(() => started?.close());
beforeEach(() => started.sim.reset());

async function endpoint(body: Record<string, unknown>) {
  const res = await fetch(`${started.url}/_control/endpoints`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; url: string };
}

function post(url: string, opts: { secret?: string; id?: string; at?: Date; body?: string; tamper?: boolean } = {}) {
  const body = opts.body ?? JSON.stringify({ id: 'evt_1', type: 'webhook.test', data: {} });
  const id = opts.id ?? 'msg_1';
  const at = opts.at ?? new Date();
  const signature = new Webhook(opts.secret ?? SECRET).sign(id, at, body);
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature },
    body: opts.tamper ? body.replace('evt_1', 'evt_2') : body,
  });
}

describe('the webhook receiver simulator', () => {
  it('verifies with any configured secret; refuses a wrong secret, a tampered body, a stale timestamp; records each', async () => {
    const at = await endpoint({ secrets: [OTHER, SECRET] });
    for (const res of [await post(at.url), await post(at.url, { secret: `whsec_${Buffer.alloc(24, 3).toString('base64')}` }), await post(at.url, { tamper: true }), await post(at.url, { at: new Date(Date.now() - 10 * 60_000) })]) {
      expect(res.status).toBe(200);
    }
    const got = started.sim.deliveries(at.id);
    expect(got.map((d) => d.verified)).toEqual([true, false, false, false]);
    expect(got[0]).toMatchObject({ webhookId: 'msg_1', verifiedWith: [1], error: null });
    expect(got[3]!.error).toMatch(/timestamp/i);
  });

  it('fails N times with the configured status and Retry-After, then succeeds; gone answers 410; slow answers late', async () => {
    const failing = await endpoint({ secrets: [SECRET], failTimes: 2, failStatus: 429, retryAfter: '120' });
    const first = await post(failing.url);
    expect([first.status, first.headers.get('retry-after')]).toEqual([429, '120']);
    expect((await post(failing.url)).status).toBe(429);
    expect((await post(failing.url)).status).toBe(200);
    const gone = await endpoint({ gone: true });
    expect((await post(gone.url)).status).toBe(410);
    const slow = await endpoint({ delayMs: 300 });
    const t0 = Date.now();
    expect((await post(slow.url)).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    expect((await fetch(`${started.url}/_control/endpoints`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"failTimes": -1}' })).status).toBe(400);
    expect((await fetch(`${started.url}/hooks/nope`, { method: 'POST' })).status).toBe(404);
  });
});
