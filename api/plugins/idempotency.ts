// Idempotency-Key on every POST of an authenticated merchant (session or API key), as Stripe does it: the first
// answer to a key is kept 24 hours and given again, with `Idempotent-Replayed: true`, to the same request under the
// same key, so a client that lost an answer can retry without acting twice. Keys are per merchant, and an answer is
// given again only to the credential that made it (the same dashboard session or the same API key): it may hold a
// secret (a new API key) or describe a moment (logout-all ended every session *then*), so another session or key of
// the merchant sending the same key gets 422 IDEMPOTENCY_KEY_REUSED, is not run, and is told why.
//
//   same key, same request (method, URL, body)   → the stored answer, not run again
//   same key, another request                    → 422 IDEMPOTENCY_KEY_REUSED, nothing run
//   same key, same merchant, another credential  → 422 IDEMPOTENCY_KEY_REUSED, nothing run (another session or key)
//   same key while its first request still runs  → 409 CONFLICT, nothing run (retry later)
//   first answer 5xx                              → not kept: the next try runs (the failure may not have acted)
//   first answer 2xx/4xx                          → kept: a business refusal (409 NOT_REFUNDABLE, …) is the outcome
//                                                   of that attempt, as at Stripe; send a new key for a new attempt
//   refused before the handler (401, 403, 429, 400 validation) → nothing claimed or kept
//   no Idempotency-Key                            → an ordinary request
//
// The claim is one INSERT … ON CONFLICT on (merchant_id, key), so two requests racing on a key cannot both run.
// A claim whose request never finished (the process died) is taken over after ABANDONED_AFTER. Rows older than
// 24 hours count as absent and are cleared lazily, a bounded batch at most once a minute per process.
// Answers are stored sealed (AES-256-GCM, security/secrets.ts, bound to merchant and key): they can hold a new API
// key's secret or shoppers' personal data, which this table must not keep in clear.
//
// Public checkout routes (shoppers' browsers, no merchant) are out of scope: there is no merchant to scope a key to,
// and their writes are idempotent by design (init-payment twice → the same payment; one order per session).
import { createHash, randomUUID } from 'node:crypto';
import fp from 'fastify-plugin';
import { z } from 'zod';
import type { FastifyInstance, FastifyRequest, onSendHookHandler, preHandlerHookHandler, preValidationHookHandler, RouteOptions } from 'fastify';
import type { Db } from '../../prisma/client.js';
import type { SecretBox } from '../../security/secrets.js';
import { AppError } from '../../domain/errors.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';
/** How long a first answer is kept and replayed. */
export const IDEMPOTENCY_KEPT_HOURS = 24;
/** A claim older than this without an answer belongs to a request that died: the next try takes it over. */
const ABANDONED_AFTER = '5 minutes';
const KEPT = `${IDEMPOTENCY_KEPT_HOURS} hours`;
const SWEEP_EVERY_MS = 60_000;

/** 1-255 printable ASCII characters (a UUID fits), no space at either end (HTTP would drop it anyway). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/;

const headerSchema = z
  .string()
  .regex(IDEMPOTENCY_KEY_PATTERN, 'must be 1-255 printable ASCII characters, without a space at either end')
  .optional()
  .describe(
    `Makes a retry of this POST safe: the first answer under this key is kept ${IDEMPOTENCY_KEPT_HOURS} h and answered again (header ` +
      'Idempotent-Replayed: true) to the same request; the same key with another method, URL or body answers 422 IDEMPOTENCY_KEY_REUSED, ' +
      'and while the first request still runs 409 CONFLICT. A 5xx answer is not kept. Keys are per merchant, and only the session or API key ' +
      'that used a key gets its answer again (another one gets 422 IDEMPOTENCY_KEY_REUSED, not run); use a UUID.',
  );

export interface IdempotencyOptions {
  db: Db;
  secrets: SecretBox;
}

interface Claim {
  merchantId: string;
  key: string;
  claimId: string;
}

/** Who sent it: the dashboard session or the API key (request.merchant / request.apiKey, set by the auth plugin). */
const credentialOf = (request: FastifyRequest) => (request.apiKey ? `api-key:${request.apiKey.id}` : `session:${request.merchant.sessionId}`);

interface State {
  fingerprint?: string;
  claim?: Claim;
}

const BEARER = (schema: RouteOptions['schema']) => Array.isArray(schema?.security) && schema.security.some((s) => 'bearerAuth' in (s as object));

/** Routes it applies to: POSTs that authenticate a merchant (they declare bearer security; test/api/auth-required.test.ts holds them to it). */
export const isIdempotentRoute = (route: Pick<RouteOptions, 'method' | 'schema'>) => [route.method].flat().includes('POST') && BEARER(route.schema);

const aad = (c: { merchantId: string; key: string }) => `idempotency:${c.merchantId}:${c.key}`;

export const idempotencyPlugin = fp(async (app: FastifyInstance, opts: IdempotencyOptions) => {
  const { db, secrets } = opts;
  const states = new WeakMap<FastifyRequest, State>();
  let lastSweep = 0;

  /** Rows past 24 hours, a bounded batch at a time; a failure only delays the clean-up. */
  async function sweep() {
    if (Date.now() - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = Date.now();
    await db.$executeRaw`
      DELETE FROM idempotency_records WHERE ctid IN (
        SELECT ctid FROM idempotency_records WHERE created_at < now() - ${KEPT}::interval LIMIT 1000)`
      .catch((err: unknown) => app.log.warn({ err }, 'idempotency: clearing expired keys failed'));
  }

  // Before validation: the body as sent (parsed JSON, before zod trims or defaults anything), so "the same request" is
  // what the client sent, not what it became.
  const fingerprint: preValidationHookHandler = async (request) => {
    const key = request.headers[IDEMPOTENCY_HEADER];
    if (typeof key !== 'string' || !request.merchant) return;
    const hash = createHash('sha256').update(`${request.method} ${request.url}\n`).update(JSON.stringify(request.body ?? null)).digest('hex');
    states.set(request, { fingerprint: hash });
  };

  // After validation (an invalid request keeps nothing, as at Stripe): claim the key, or answer from it.
  const claimOrReplay: preHandlerHookHandler = async (request, reply) => {
    const state = states.get(request);
    const key = request.headers[IDEMPOTENCY_HEADER];
    if (!state?.fingerprint || typeof key !== 'string') return;
    const { merchantId } = request.merchant;
    const credential = credentialOf(request);
    await sweep();
    for (let attempt = 0; attempt < 3; attempt++) {
      const claimId = randomUUID();
      const claimed = await db.$queryRaw<Array<{ claim_id: string }>>`
        INSERT INTO idempotency_records (merchant_id, key, fingerprint, claim_id, credential, created_at)
        VALUES (${merchantId}::uuid, ${key}, ${state.fingerprint}, ${claimId}::uuid, ${credential}, now())
        ON CONFLICT (merchant_id, key) DO UPDATE
          SET fingerprint = EXCLUDED.fingerprint, claim_id = EXCLUDED.claim_id, credential = EXCLUDED.credential, created_at = EXCLUDED.created_at,
              status_code = NULL, content_type = NULL, body_sealed = NULL, completed_at = NULL
          WHERE idempotency_records.created_at < now() - ${KEPT}::interval
             OR (idempotency_records.status_code IS NULL AND idempotency_records.created_at < now() - ${ABANDONED_AFTER}::interval)
        RETURNING claim_id::text`;
      if (claimed[0]?.claim_id === claimId) {
        state.claim = { merchantId, key, claimId };
        return;
      }
      const found = await db.idempotencyRecord.findUnique({ where: { merchantId_key: { merchantId, key } } });
      // Gone in between (its first request answered 5xx, or it expired): claim again.
      if (!found) continue;
      if (found.credential !== null && found.credential !== credential) {
        throw new AppError('IDEMPOTENCY_KEY_REUSED', `This Idempotency-Key was used in the last ${IDEMPOTENCY_KEPT_HOURS} hours by another ${found.credential.startsWith('api-key:') ? 'API key' : 'dashboard session'} of this merchant: its answer is given again only to that one, and this request was not run. Send a new key`);
      }
      if (found.fingerprint !== state.fingerprint) {
        throw new AppError('IDEMPOTENCY_KEY_REUSED', `This Idempotency-Key was used in the last ${IDEMPOTENCY_KEPT_HOURS} hours for another request (method, URL or body): send a new key for a new request`);
      }
      if (found.statusCode === null || found.bodySealed === null) {
        throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still running: retry once it has answered');
      }
      reply.code(found.statusCode).header(REPLAYED_HEADER, 'true');
      if (found.contentType) reply.header('content-type', found.contentType);
      return reply.send(secrets.decrypt(found.bodySealed, aad(found)));
    }
    throw new AppError('CONFLICT', 'This Idempotency-Key is changing hands: retry in a moment');
  };

  const keepAnswer: onSendHookHandler = async (request, reply, payload) => {
    const claim = states.get(request)?.claim;
    if (!claim) return payload;
    const where = { merchantId: claim.merchantId, key: claim.key, claimId: claim.claimId };
    const body = payload === null || payload === undefined ? '' : typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
    try {
      if (reply.statusCode >= 500 || body === undefined) {
        // Not kept: a 5xx may not have acted (the next try must run), and a stream cannot be answered twice.
        await db.idempotencyRecord.deleteMany({ where });
      } else {
        const contentType = reply.getHeader('content-type');
        await db.idempotencyRecord.updateMany({
          where,
          data: { statusCode: reply.statusCode, contentType: typeof contentType === 'string' ? contentType : null, bodySealed: secrets.encrypt(body, aad(claim)), completedAt: new Date() },
        });
      }
    } catch (err) {
      // The answer still goes out; the key stays claimed until ABANDONED_AFTER, when a retry takes it over.
      request.log.error({ err }, 'idempotency: the answer could not be kept');
    }
    return payload;
  };

  // On each route it applies to: the header in the route's schema (validated like any input, and in the OpenAPI
  // document), and the three hooks above on that route only.
  app.addHook('onRoute', (route) => {
    if (!isIdempotentRoute(route)) return;
    const existing = route.schema?.headers as z.ZodObject | undefined;
    const headers = existing ? existing.extend({ [IDEMPOTENCY_HEADER]: headerSchema }) : z.looseObject({ [IDEMPOTENCY_HEADER]: headerSchema });
    route.schema = { ...route.schema, headers };
    route.preValidation = [...[route.preValidation ?? []].flat(), fingerprint];
    route.preHandler = [...[route.preHandler ?? []].flat(), claimOrReplay];
    route.onSend = [...[route.onSend ?? []].flat(), keepAnswer];
  });
}, { name: 'idempotency', dependencies: ['auth'] });

