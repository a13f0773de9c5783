// Checkout create: requests/s and p99 of POST /api/checkout/create with a storefront B cart, the whole real
// path (store lookup, both prices re-read from the store simulator over REST, FX snapshot, session insert,
// workflow start), against a bare Fastify route in the same process that does one INSERT (the same JSON
// body, as jsonb) into a table of the same database through the same Prisma client. Both over real
// loopback HTTP, same clients, same duration, in alternating slices. Target: ratio ≥ 0.5.
import Fastify from 'fastify';
import { randomBytes } from 'node:crypto';
import { benchStack, demoCartBody } from './stack.js';
import { compareLoad } from './load.js';

export async function benchCheckoutCreate(opts: { concurrency?: number; durationMs?: number; maxRequests?: number } = {}): Promise<Record<string, number>> {
  const concurrency = opts.concurrency ?? 8;
  const durationMs = opts.durationMs ?? 5_000;
  const maxRequests = opts.maxRequests ?? 20_000;
  const { service, merchant } = await benchStack();
  const { db } = service;

  const bare = Fastify({ logger: false });
  bare.post('/bare/insert', async (request, reply) => {
    const ref = randomBytes(24).toString('base64url');
    await db.$executeRaw`INSERT INTO bench_rows (ref, payload) VALUES (${ref}, ${JSON.stringify(request.body)}::jsonb)`;
    return reply.code(201).send({ token: ref });
  });
  const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });
  const sessionsBefore = await db.checkoutSession.count();
  try {
    const body = demoCartBody(service, merchant.storeUrl);
    const { target, baseline } = await compareLoad(
      { name: 'create', method: 'POST', url: () => `${service.apiUrl}/api/checkout/create`, body: () => body, expectStatus: 201 },
      { name: 'bare insert', method: 'POST', url: () => `${bareUrl}/bare/insert`, body: () => body, expectStatus: 201 },
      { concurrency, durationMs, maxRequests },
    );
    const created = (await db.checkoutSession.count()) - sessionsBefore;
    return {
      concurrency,
      createRequests: target.requests,
      sessionsInclWarmup: created,
      createRps: target.rps,
      createP50Ms: target.p50Ms,
      createP99Ms: target.p99Ms,
      bareInsertRequests: baseline.requests,
      bareInsertRps: baseline.rps,
      bareInsertP50Ms: baseline.p50Ms,
      bareInsertP99Ms: baseline.p99Ms,
      ratio: target.rps / baseline.rps,
    };
  } finally {
    await bare.close();
  }
}
