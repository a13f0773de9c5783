// Liveness and readiness. /health: the process answers. /ready: the database and Temporal both answer
// within a short deadline; otherwise 503 naming the one that failed (for load balancers and operators).
//
// Temporal is probed over a connection of its own without the SDK's retry interceptor: a probe should
// report the server as it is now in one attempt, and the interceptor's pending retry timers (up to ten
// attempts, seconds apart) would otherwise outlive the answer and throw "Channel has been shut down"
// as an uncaught exception if the app's connection is closed meanwhile (shutdown during an outage).
import { z } from 'zod';
import { Connection } from '@temporalio/client';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type AppDeps } from '../../route-deps.js';
import { errorResponse } from '../../schemas/common.js';

const CHECK_TIMEOUT_MS = 2_000;

const checkResult = z.object({ ok: z.boolean(), latencyMs: z.number(), error: z.string().optional() });
const readyResponse = z.object({
  status: z.literal('ok'),
  checks: z.object({ database: checkResult, temporal: checkResult }),
});
const notReadyResponse = errorResponse.extend({ checks: z.object({ database: checkResult, temporal: checkResult }) });

async function timed(fn: () => Promise<unknown>): Promise<z.infer<typeof checkResult>> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      fn(),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS))),
    ]);
    return { ok: true, latencyMs: Math.round(performance.now() - started) };
  } catch (err) {
    return { ok: false, latencyMs: Math.round(performance.now() - started), error: (err as Error).message.split('\n')[0] };
  } finally {
    clearTimeout(timer);
  }
}

/** A lazily dialled connection with the app connection's address and credentials, and no retries. */
function probeConnection(connection: Connection): Connection {
  const { connectTimeoutMs, ...options } = connection.options;
  return Connection.lazy({ ...options, connectTimeout: connectTimeoutMs, interceptors: [] });
}

export const healthRoutes: FastifyPluginAsyncZod<Pick<AppDeps, 'db' | 'temporal'>> = async (app, deps) => {
  let probe: Connection | undefined;
  app.addHook('onClose', async () => {
    await probe?.close().catch(() => undefined);
  });

  app.get('/health', {
    schema: { tags: ['operations'], summary: 'The process is up', response: { 200: z.object({ status: z.literal('ok') }) } },
  }, async () => ({ status: 'ok' as const }));

  app.get('/ready', {
    schema: {
      tags: ['operations'],
      summary: 'The database and Temporal are reachable',
      response: { 200: readyResponse, 503: notReadyResponse },
    },
  }, async (_request, reply) => {
    const [database, temporal] = await Promise.all([
      timed(() => deps.db.$queryRawUnsafe('SELECT 1')),
      timed(() => {
        const connection = (probe ??= probeConnection(deps.temporal.connection));
        return connection.withDeadline(Date.now() + CHECK_TIMEOUT_MS, () => connection.healthService.check({}));
      }),
    ]);
    if (database.ok && temporal.ok) return { status: 'ok' as const, checks: { database, temporal } };
    const down = [!database.ok && 'database', !temporal.ok && 'temporal'].filter(Boolean).join(' and ');
    return reply.code(503).send({ error: `Not ready: ${down} unreachable`, code: 'NOT_READY' as const, checks: { database, temporal } });
  });
};
