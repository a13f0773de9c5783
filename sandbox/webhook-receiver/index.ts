// A merchant's webhook endpoint, simulated: what our outgoing webhooks (docs/webhooks.md) are delivered to in
// `npm start` and the tests. Written from the Standard Webhooks specification (https://www.standardwebhooks.com/)
// and its reference library `standardwebhooks`, which verifies every delivery: the receiver does what a merchant's
// code following our docs does, and records what it saw. Endpoints are made and steered through the control API:
//   POST  /_control/endpoints { secrets?, failTimes?, failStatus?, retryAfter?, gone?, delayMs?, label? } → 201 { id, url, ... }
//   PATCH /_control/endpoints/:id   (the same fields: set secrets after our API showed the secret, change behaviour)
//   GET   /_control/endpoints       every endpoint; GET /_control/endpoints/:id/deliveries its deliveries
//   GET   /_control/deliveries      every delivery, oldest first (?webhookId= to pick one message)
//   POST  /hooks/:id                the endpoint itself: verify, record, then answer as configured:
//         gone → 410; failTimes > 0 → failStatus (default 500, with Retry-After when set), once per call;
//         delayMs → answer 200 that late (slower than the sender's time-out: a time-out); else 200.
//   GET   /                         a page listing endpoints and their latest deliveries
// Imports nothing from our code: a witness of the protocol, not a copy of our sender.
import { Webhook } from 'standardwebhooks';
import { z } from 'zod';
import type { FastifyRequest } from 'fastify';
import { createSimulator, type Simulator, type SimulatorOptions } from '../shared/simulator.js';
import { escapeHtml } from '../storefront-common/html.js';

export interface ReceivedDelivery {
  endpointId: string;
  /** webhook-id: receivers dedupe on it. */
  webhookId: string | null;
  timestamp: string | null;
  signature: string | null;
  headers: Record<string, string>;
  body: string;
  /** Verified by `standardwebhooks` with one of the endpoint's secrets (signature and a timestamp within 5 minutes). */
  verified: boolean;
  /** Which of the endpoint's secrets (by index) verify it. */
  verifiedWith: number[];
  /** Why it did not verify. */
  error: string | null;
  /** What the receiver answered. */
  answeredStatus: number;
  receivedAt: string;
}

interface ReceiverEndpoint {
  id: string;
  label: string;
  secrets: string[];
  failTimes: number;
  failStatus: number;
  retryAfter: string | null;
  gone: boolean;
  delayMs: number;
}

const behaviour = z.strictObject({
  label: z.string().max(100).optional(),
  /** whsec_… secrets to verify with (the endpoint's current one, and the previous one during a rotation). */
  secrets: z.array(z.string().regex(/^whsec_[A-Za-z0-9+/=]+$/, 'a whsec_… secret')).max(5).optional(),
  failTimes: z.number().int().min(0).max(1_000_000).optional(),
  failStatus: z.number().int().min(300).max(599).optional(),
  retryAfter: z.string().max(100).nullable().optional(),
  gone: z.boolean().optional(),
  delayMs: z.number().int().min(0).max(600_000).optional(),
});

export interface WebhookReceiverSimulator extends Simulator {
  /** Deliveries received, oldest first (optionally of one endpoint). */
  deliveries(endpointId?: string): ReceivedDelivery[];
}

export interface WebhookReceiverOptions extends SimulatorOptions {
  /** This simulator's base URL as senders reach it (for the url of each endpoint). Default: the Host of each request. */
  publicUrl?: string | (() => string);
}

export function createWebhookReceiverSimulator(opts: WebhookReceiverOptions = {}): WebhookReceiverSimulator {
  const sim = createSimulator('webhook-receiver', opts);
  const endpoints = new Map<string, ReceiverEndpoint>();
  const received: ReceivedDelivery[] = [];
  let next = 1;
  sim.onReset(() => {
    endpoints.clear();
    received.length = 0;
    next = 1;
  });
  const base = (request: FastifyRequest) => {
    const configured = typeof opts.publicUrl === 'function' ? opts.publicUrl() : opts.publicUrl;
    return (configured || `${request.protocol}://${request.host}`).replace(/\/+$/, '');
  };
  const view = (e: ReceiverEndpoint, request: FastifyRequest) => ({ ...e, url: `${base(request)}/hooks/${e.id}`, received: received.filter((d) => d.endpointId === e.id).length });
  const parse = (body: unknown) => {
    try {
      return behaviour.safeParse(typeof body === 'string' && body ? JSON.parse(body) : {});
    } catch {
      return behaviour.safeParse(null);
    }
  };
  const invalid = (error: z.ZodError) => ({ error: error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '), code: 'INVALID_INPUT' });

  // The raw bytes are what is signed: read the body as text, never re-serialized.
  sim.app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  sim.app.post('/_control/endpoints', async (request, reply) => {
    const parsed = parse(request.body);
    if (!parsed.success) return reply.code(400).send(invalid(parsed.error));
    const id = `ep${next++}`;
    const d = parsed.data;
    const endpoint: ReceiverEndpoint = {
      id, label: d.label ?? id, secrets: d.secrets ?? [], failTimes: d.failTimes ?? 0, failStatus: d.failStatus ?? 500, retryAfter: d.retryAfter ?? null, gone: d.gone ?? false, delayMs: d.delayMs ?? 0,
    };
    endpoints.set(id, endpoint);
    return reply.code(201).send(view(endpoint, request));
  });

  sim.app.patch<{ Params: { id: string } }>('/_control/endpoints/:id', async (request, reply) => {
    const endpoint = endpoints.get(request.params.id);
    if (!endpoint) return reply.code(404).send({ error: 'no such endpoint', code: 'NOT_FOUND' });
    const parsed = parse(request.body);
    if (!parsed.success) return reply.code(400).send(invalid(parsed.error));
    Object.assign(endpoint, Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined)));
    return view(endpoint, request);
  });

  sim.app.get('/_control/endpoints', async (request) => ({ endpoints: [...endpoints.values()].map((e) => view(e, request)) }));
  sim.app.get<{ Params: { id: string } }>('/_control/endpoints/:id/deliveries', async (request, reply) => {
    if (!endpoints.has(request.params.id)) return reply.code(404).send({ error: 'no such endpoint', code: 'NOT_FOUND' });
    return { deliveries: received.filter((d) => d.endpointId === request.params.id) };
  });
  sim.app.get<{ Querystring: { webhookId?: string } }>('/_control/deliveries', async (request) => ({
    deliveries: received.filter((d) => !request.query.webhookId || d.webhookId === request.query.webhookId),
  }));

  sim.app.post<{ Params: { id: string } }>('/hooks/:id', async (request, reply) => {
    const endpoint = endpoints.get(request.params.id);
    if (!endpoint) return reply.code(404).send({ error: 'no such endpoint' });
    const body = typeof request.body === 'string' ? request.body : '';
    const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v ?? '')]));
    const verifiedWith: number[] = [];
    let error: string | null = endpoint.secrets.length === 0 ? 'no secret configured for this endpoint' : null;
    endpoint.secrets.forEach((secret, index) => {
      try {
        new Webhook(secret).verify(body, headers);
        verifiedWith.push(index);
      } catch (err) {
        error = (err as Error).message;
      }
    });
    const status = endpoint.gone ? 410 : endpoint.failTimes > 0 ? endpoint.failStatus : 200;
    if (status !== 200 && !endpoint.gone) endpoint.failTimes -= 1;
    received.push({
      endpointId: endpoint.id,
      webhookId: headers['webhook-id'] ?? null,
      timestamp: headers['webhook-timestamp'] ?? null,
      signature: headers['webhook-signature'] ?? null,
      headers,
      body,
      verified: verifiedWith.length > 0,
      verifiedWith,
      error: verifiedWith.length > 0 ? null : error,
      answeredStatus: status,
      receivedAt: new Date().toISOString(),
    });
    if (status === 200 && endpoint.delayMs > 0) await new Promise((r) => setTimeout(r, endpoint.delayMs));
    if (status !== 200 && endpoint.retryAfter) reply.header('retry-after', endpoint.retryAfter);
    return reply.code(status).send(status === 200 ? { ok: true } : { error: status === 410 ? 'gone' : `configured failure (${status})` });
  });

  sim.app.get('/', async (request, reply) => {
    const rows = [...endpoints.values()].map((e) => {
      const latest = received.filter((d) => d.endpointId === e.id).slice(-20).reverse();
      const items = latest.map((d) => `<li><code>${escapeHtml(d.webhookId ?? '-')}</code> ${d.verified ? '✔ verified' : `✘ ${escapeHtml(d.error ?? 'not verified')}`} → ${d.answeredStatus} <small>${escapeHtml(d.receivedAt)}</small><pre>${escapeHtml(d.body.slice(0, 500))}</pre></li>`).join('');
      return `<h2>${escapeHtml(e.label)} <small>${escapeHtml(view(e, request).url)}</small></h2><ul>${items || '<li>nothing received yet</li>'}</ul>`;
    }).join('\n');
    return reply.type('text/html; charset=utf-8').send(`<!doctype html><html><head><meta charset="utf-8"><title>Webhook receiver (sandbox)</title></head><body style="font-family:system-ui,sans-serif"><h1>Webhook receiver (sandbox)</h1>${rows || '<p>No endpoint yet: POST /_control/endpoints</p>'}</body></html>`);
  });

  return Object.assign(sim, { deliveries: (endpointId?: string) => received.filter((d) => !endpointId || d.endpointId === endpointId) });
}
