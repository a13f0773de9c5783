// Session bundle: requests/s and p99 of GET /api/checkout/session-bundle/:token (the checkout page's one
// read: session, merchant, shipping rates, FX conversion, serialization; PostgreSQL only) over a rotation
// of real sessions, against a bare Fastify route in the same process answering the very same bytes (and
// content type) per token from memory. Both over real loopback HTTP, same clients, same duration, in
// alternating slices. Target: ratio ≥ 0.5.
//
// A second pair shows what any read from PostgreSQL costs here: a bare route that reads the session row by
// its primary key through the same Prisma client (and then answers the same bytes), against the memory
// route again. `pkReadVsMemory` is the ceiling for a route that reads the database on every request;
// `bundleVsPkRead` is how close the bundle (one statement: session, merchant, rates, pixels) comes to it.
import Fastify from 'fastify';
import { benchStack, createSession, demoCart } from './stack.js';
import { compareLoad } from './load.js';

export async function benchSessionBundle(opts: { sessions?: number; concurrency?: number; durationMs?: number; maxRequests?: number } = {}): Promise<Record<string, number>> {
  const sessions = opts.sessions ?? 50;
  const concurrency = opts.concurrency ?? 8;
  const durationMs = opts.durationMs ?? 5_000;
  const maxRequests = opts.maxRequests ?? 50_000;
  const { service, merchant } = await benchStack();

  // Real sessions, created through the API; each one's bundle as the API answers it now.
  const cart = demoCart(service, merchant.storeUrl);
  const tokens: string[] = [];
  for (let i = 0; i < sessions; i++) tokens.push(await createSession(service, cart));
  const bytes = new Map<string, { body: Buffer; contentType: string }>();
  for (const token of tokens) {
    const res = await service.app.inject({ method: 'GET', url: `/api/checkout/session-bundle/${token}` });
    if (res.statusCode !== 200) throw new Error(`session-bundle answered ${res.statusCode}: ${res.body}`);
    bytes.set(token, { body: res.rawPayload, contentType: String(res.headers['content-type']) });
  }

  const bare = Fastify({ logger: false });
  bare.get<{ Params: { token: string } }>('/bare/session-bundle/:token', async (request, reply) => {
    const found = bytes.get(request.params.token);
    if (!found) return reply.code(404).send();
    return reply.header('content-type', found.contentType).header('cache-control', 'no-store').send(found.body);
  });
  bare.get<{ Params: { token: string } }>('/bare/pk-read/:token', async (request, reply) => {
    const rows = await service.db.$queryRaw<Array<{ token: string }>>`SELECT token, status, items, fx_rates FROM checkout_sessions WHERE token = ${request.params.token}`;
    const found = rows[0] ? bytes.get(rows[0].token) : undefined;
    if (!found) return reply.code(404).send();
    return reply.header('content-type', found.contentType).header('cache-control', 'no-store').send(found.body);
  });
  const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });
  try {
    const { target, baseline } = await compareLoad(
      { name: 'session-bundle', method: 'GET', url: (i) => `${service.apiUrl}/api/checkout/session-bundle/${tokens[i % tokens.length]}`, expectStatus: 200 },
      { name: 'bare bytes', method: 'GET', url: (i) => `${bareUrl}/bare/session-bundle/${tokens[i % tokens.length]}`, expectStatus: 200 },
      { concurrency, durationMs, maxRequests },
    );
    const pk = await compareLoad(
      { name: 'bare pk read', method: 'GET', url: (i) => `${bareUrl}/bare/pk-read/${tokens[i % tokens.length]}`, expectStatus: 200 },
      { name: 'bare bytes', method: 'GET', url: (i) => `${bareUrl}/bare/session-bundle/${tokens[i % tokens.length]}`, expectStatus: 200 },
      { concurrency, durationMs: durationMs / 2, maxRequests },
    );
    return {
      concurrency,
      sessions,
      bundleBytes: bytes.get(tokens[0]!)!.body.length,
      bundleRequests: target.requests,
      bundleRps: target.rps,
      bundleP50Ms: target.p50Ms,
      bundleP99Ms: target.p99Ms,
      bareRequests: baseline.requests,
      bareRps: baseline.rps,
      bareP50Ms: baseline.p50Ms,
      bareP99Ms: baseline.p99Ms,
      ratio: target.rps / baseline.rps,
      pkReadRps: pk.target.rps,
      pkReadP50Ms: pk.target.p50Ms,
      pkReadVsMemory: pk.target.rps / pk.baseline.rps,
      bundleVsPkRead: target.rps / pk.target.rps,
    };
  } finally {
    await bare.close();
  }
}
