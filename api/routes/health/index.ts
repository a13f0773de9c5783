// Liveness and readiness. /health: the process answers. /ready: the database and Temporal both answer
// within a short deadline; otherwise 503 naming the one that failed (for load balancers and operators).
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../app.js';
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

export const healthRoutes: FastifyPluginAsyncZod<Pick<AppDeps, 'db' | 'temporal'>> = async (app, deps) => {
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
      timed(() => deps.temporal.connection.withDeadline(Date.now() + CHECK_TIMEOUT_MS, () => deps.temporal.connection.healthService.check({}))),
    ]);
    if (database.ok && temporal.ok) return { status: 'ok' as const, checks: { database, temporal } };
    const down = [!database.ok && 'database', !temporal.ok && 'temporal'].filter(Boolean).join(' and ');
    return reply.code(503).send({ error: `Not ready: ${down} unreachable`, code: 'NOT_READY' as const, checks: { database, temporal } });
  });
};
