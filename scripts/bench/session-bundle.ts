// Session bundle: requests/s, p50 and p99 of GET /api/checkout/session-bundle/:token of the real app (every
// plugin, hook and limiter it runs in production; the checkout page's one read: session, merchant, shipping
// rates, pixels, FX conversion, serialization) over a rotation of real sessions, against a bare baseline: a
// Fastify route with no plugins doing one primary-key read of the session row by its token over a raw
// node-postgres pool (same database, same pool size as the app's, a named prepared statement as the app's
// read uses) and answering that row as JSON. Same process, same clients, same real loopback HTTP, in rotated
// slices (scripts/bench/load.ts) so drift and the machine's other load fall on every target alike.
// Target: ratio (bundle / bare pk read, req/s) ≥ 0.9 (issue 32: keep what it was before; 0.8 until then).
//
// Two more targets in the same run, for context: the same bare route answering the bundle's bytes from
// memory (no database: the ceiling of any route here; `bundleVsMemory` was this benchmark's old ratio), and
// the primary-key read through Prisma instead of raw pg (`prismaVsPg`: what Prisma costs on such a read).
import os from 'node:os';
import Fastify from 'fastify';
import pg from 'pg';
import { benchStack, createSession, demoCart } from './stack.js';
import { measureLoad, type Target } from './load.js';

export const SESSION_BUNDLE_TARGET = 0.9;

/** The pool size of the app's own client (scripts/lib/stack/service-stack.ts), so the baseline gets no more connections. */
const POOL_MAX = 10;

export async function benchSessionBundle(opts: { sessions?: number; concurrency?: number; durationMs?: number; maxRequests?: number } = {}): Promise<Record<string, number>> {
  const sessions = opts.sessions ?? 50;
  const concurrency = opts.concurrency ?? 8;
  const durationMs = opts.durationMs ?? 8_000;
  const maxRequests = opts.maxRequests ?? 100_000;
  const { service, merchant, databaseUrl } = await benchStack();
  const loadBefore = os.loadavg()[0]!;

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

  const pool = new pg.Pool({ connectionString: databaseUrl, max: POOL_MAX });
  pool.on('error', () => undefined);
  const bare = Fastify({ logger: false });
  bare.get<{ Params: { token: string } }>('/bare/pk-read/:token', async (request, reply) => {
    const { rows } = await pool.query({ name: 'bench-session-by-token', text: 'SELECT * FROM checkout_sessions WHERE token = $1', values: [request.params.token] });
    if (!rows[0]) return reply.code(404).send();
    return reply.header('cache-control', 'no-store').send(rows[0]);
  });
  bare.get<{ Params: { token: string } }>('/bare/prisma-pk-read/:token', async (request, reply) => {
    const rows = await service.db.$queryRaw<unknown[]>`SELECT * FROM checkout_sessions WHERE token = ${request.params.token}`;
    if (!rows[0]) return reply.code(404).send();
    return reply.header('cache-control', 'no-store').send(rows[0]);
  });
  bare.get<{ Params: { token: string } }>('/bare/memory/:token', async (request, reply) => {
    const found = bytes.get(request.params.token);
    if (!found) return reply.code(404).send();
    return reply.header('content-type', found.contentType).header('cache-control', 'no-store').send(found.body);
  });
  const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });
  const target = (name: string, url: (token: string) => string): Target => ({ name, method: 'GET', url: (i) => url(tokens[i % tokens.length]!), expectStatus: 200 });
  try {
    const sample = await fetch(`${bareUrl}/bare/pk-read/${tokens[0]}`);
    const baselineBytes = (await sample.arrayBuffer()).byteLength;
    const [bundle, pk, memory, prismaPk] = await measureLoad(
      [
        target('session-bundle', (t) => `${service.apiUrl}/api/checkout/session-bundle/${t}`),
        target('bare pk read (pg)', (t) => `${bareUrl}/bare/pk-read/${t}`),
        target('bare bytes from memory', (t) => `${bareUrl}/bare/memory/${t}`),
        target('bare pk read (Prisma)', (t) => `${bareUrl}/bare/prisma-pk-read/${t}`),
      ],
      // 16 slices of 0.5 s: every target runs in every position 4 times, so a burst of other load falls on all alike.
      { concurrency, durationMs, maxRequests, slices: 16 },
    );
    return {
      concurrency,
      sessions,
      bundleBytes: bytes.get(tokens[0]!)!.body.length,
      baselineBytes,
      bundleRequests: bundle!.requests,
      bundleRps: bundle!.rps,
      bundleP50Ms: bundle!.p50Ms,
      bundleP99Ms: bundle!.p99Ms,
      pkReadRequests: pk!.requests,
      pkReadRps: pk!.rps,
      pkReadP50Ms: pk!.p50Ms,
      pkReadP99Ms: pk!.p99Ms,
      ratio: bundle!.rps / pk!.rps,
      ratioTarget: SESSION_BUNDLE_TARGET,
      memoryRps: memory!.rps,
      memoryP99Ms: memory!.p99Ms,
      bundleVsMemory: bundle!.rps / memory!.rps,
      prismaPkReadRps: prismaPk!.rps,
      prismaPkReadP99Ms: prismaPk!.p99Ms,
      prismaVsPg: prismaPk!.rps / pk!.rps,
      loadAvg1mBefore: loadBefore,
      loadAvg1mAfter: os.loadavg()[0]!,
    };
  } finally {
    await bare.close();
    await pool.end();
  }
}
