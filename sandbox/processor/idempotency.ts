// Idempotency-Key handling for every POST of a route scope, the way the real processors do it: the first
// request with a key runs and its answer (2xx or 4xx) is stored; a retry with the same key and the same
// body gets that stored answer again (header Idempotent-Replayed: true); the same key with a different
// body, or while the first request is still running, is a 409. 5xx answers are not stored, so a retry runs.
// Keys are scoped per account, method and path.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from './state.js';

interface IdempotencyRecord {
  fingerprint: string;
  response?: { status: number; body: string };
}

/** JSON with object keys sorted, so key order in the body does not change its fingerprint. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
}

export function installIdempotency(scope: FastifyInstance, accountScope: (request: FastifyRequest) => string): { clear(): void } {
  const records = new Map<string, IdempotencyRecord>();
  const running = new WeakMap<FastifyRequest, string>();

  scope.addHook('preHandler', async (request, reply) => {
    const key = request.headers['idempotency-key'];
    if (request.method !== 'POST' || key === undefined) return;
    if (typeof key !== 'string' || key.length === 0 || key.length > 255) {
      throw new ApiError(400, 'invalid_request_error', 'Idempotency-Key must be one value of 1 to 255 characters', 'Idempotency-Key');
    }
    const storeKey = `${accountScope(request)} ${request.method} ${request.url} ${key}`;
    const fingerprint = canonicalJson(request.body ?? {});
    const record = records.get(storeKey);
    if (!record) {
      records.set(storeKey, { fingerprint });
      running.set(request, storeKey);
      return;
    }
    if (record.fingerprint !== fingerprint) {
      throw new ApiError(409, 'idempotency_error', 'This Idempotency-Key was already used with different parameters', 'Idempotency-Key');
    }
    if (!record.response) throw new ApiError(409, 'idempotency_error', 'A request with this Idempotency-Key is still in progress', 'Idempotency-Key');
    return reply.code(record.response.status).header('idempotent-replayed', 'true').type('application/json; charset=utf-8').send(record.response.body);
  });

  scope.addHook('onSend', async (request, reply, payload) => {
    const storeKey = running.get(request);
    if (storeKey === undefined) return payload;
    running.delete(request);
    const record = records.get(storeKey);
    if (reply.statusCode >= 500 || typeof payload !== 'string' || !record) records.delete(storeKey);
    else record.response = { status: reply.statusCode, body: payload };
    return payload;
  });

  return { clear: () => records.clear() };
}
