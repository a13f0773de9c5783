// The merchant's API keys (dashboard sessions only: domain/merchant/api-keys.ts lists these routes as session-only, so a key
// can neither mint nor revoke keys). A key's secret is in the answer of its create or roll, once; the API stores its
// SHA-256 only (api/api-keys.ts) and lists keys by their prefix. Every query carries the caller's merchant id from
// the session, so another merchant's key is simply not found (404).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ApiKey } from '../../../generated/prisma/client.js';
import { type RouteDeps } from '../../route-deps.js';
import type { MerchantScope } from '../../../model/merchant/merchant-scope.js';
import { AppError } from '../../../domain/errors.js';
import {
  apiKeyStatus, DEFAULT_ROLL_OVERLAP_SECONDS, MAX_LIVE_API_KEYS, normalizeScopes, type ApiKeyMode, type ApiKeyScope,
} from '../../../domain/merchant/api-keys.js';
import { issueApiKey } from '../../api-keys.js';
import { errorResponse } from '../../schemas/common.js';
import { apiKeyCreate, apiKeyCreated, apiKeyIdParams, apiKeyList, apiKeyRoll, apiKeyRolled, apiKeyView } from '../../schemas/api-keys.js';

const tags = ['api keys'];
const auth = { security: [{ bearerAuth: [] }] };
const SESSION_ONLY = 'Dashboard sessions only (an API key cannot manage keys).';

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const notFound = () => new AppError('NOT_FOUND', 'No such API key');

export function toApiKeyView(k: ApiKey, now = new Date()) {
  return {
    id: k.id,
    name: k.name,
    mode: (k.mode === 'LIVE' ? 'live' : 'test') as ApiKeyMode,
    prefix: k.displayPrefix,
    scopes: k.scopes,
    status: apiKeyStatus(k, now),
    createdAt: k.createdAt.toISOString(),
    lastUsedAt: iso(k.lastUsedAt),
    expiresAt: iso(k.expiresAt),
    revokedAt: iso(k.revokedAt),
    rolledAt: iso(k.rolledAt),
    rolledToId: k.rolledToId,
  };
}

export const apiKeyRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config } = deps;
  const mode = config.apiKeyMode;
  const dbMode = mode === 'live' ? 'LIVE' : 'TEST';

  /** Keys that still work or will (not revoked, not expired): what the per-merchant cap counts. */
  const liveKeys = (data: MerchantScope, now: Date) =>
    data.apiKeys.count({ where: { revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] } });

  app.get('/api-keys', {
    onRequest: app.authenticate,
    config: { sessionOnly: ['owner', 'admin'] },
    schema: {
      tags, summary: 'List API keys', description: `Newest first, revoked and expired ones included; never a secret. ${SESSION_ONLY}`, ...auth,
      response: { 200: apiKeyList },
    },
  }, async (request) => {
    const keys = await request.merchantData.apiKeys.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
    const now = new Date();
    return { items: keys.map((k) => toApiKeyView(k, now)) };
  });

  app.post('/api-keys', {
    onRequest: app.authenticate,
    config: { sessionOnly: ['owner', 'admin'] },
    schema: {
      tags,
      summary: 'Create an API key (its secret is in this answer only)',
      description:
        `A ${mode} key of this deployment (ck_${mode}_…) with the given scopes. The answer holds the whole secret, which is never shown again: ` +
        `only its SHA-256 is stored. Refusals: expiresAt not in the future (400), more than ${MAX_LIVE_API_KEYS} keys that are not revoked or expired (409 CONFLICT). ` +
        SESSION_ONLY,
      ...auth,
      body: apiKeyCreate,
      response: { 201: apiKeyCreated, 409: errorResponse },
    },
  }, async (request, reply) => {
    const data = request.merchantData;
    const { merchantId } = data;
    const { name, scopes, expiresAt } = request.body;
    const now = new Date();
    const expires = expiresAt ? new Date(expiresAt) : null;
    if (expires && expires <= now) {
      throw new AppError('INVALID_INPUT', 'body.expiresAt: must be in the future', { fields: { 'body.expiresAt': 'must be in the future' } });
    }
    if ((await liveKeys(data, now)) >= MAX_LIVE_API_KEYS) {
      throw new AppError('CONFLICT', `At most ${MAX_LIVE_API_KEYS} API keys that are not revoked or expired: revoke one first`);
    }
    const issued = issueApiKey(mode);
    const key = await data.apiKeys.create({
      data: { name, mode: dbMode, displayPrefix: issued.displayPrefix, secretHash: issued.secretHash, scopes: normalizeScopes(scopes as ApiKeyScope[]), expiresAt: expires },
    });
    request.log.info({ apiKeyId: key.id, merchantId }, 'API key created');
    return reply.code(201).send({ key: toApiKeyView(key, now), secret: issued.secret });
  });

  app.get('/api-keys/:id', {
    onRequest: app.authenticate,
    config: { sessionOnly: ['owner', 'admin'] },
    schema: { tags, summary: 'One API key (never its secret)', description: SESSION_ONLY, ...auth, params: apiKeyIdParams, response: { 200: apiKeyView, 404: errorResponse } },
  }, async (request) => {
    const key = await request.merchantData.apiKeys.findFirst({ where: { id: request.params.id } });
    if (!key) throw notFound();
    return toApiKeyView(key);
  });

  app.post('/api-keys/:id/roll', {
    onRequest: app.authenticate,
    config: { sessionOnly: ['owner', 'admin'] },
    schema: {
      tags,
      summary: 'Roll an API key: a new secret now, the old one working until the overlap ends',
      description:
        'The new key has the old one\'s name, scopes and expiry, and its secret is in this answer only. The old key works for overlapSeconds ' +
        `more (default ${DEFAULT_ROLL_OVERLAP_SECONDS}, 0: it stops at once, at most 7 days; never past its own expiry), then answers 401. ` +
        `Only an active key can be rolled (a revoked, expired or already rolled one: 409 CONFLICT). ${SESSION_ONLY}`,
      ...auth,
      params: apiKeyIdParams,
      body: apiKeyRoll,
      response: { 201: apiKeyRolled, 404: errorResponse, 409: errorResponse },
    },
  }, async (request, reply) => {
    const { merchantId } = request.merchant;
    const overlapMs = (request.body?.overlapSeconds ?? DEFAULT_ROLL_OVERLAP_SECONDS) * 1000;
    const now = new Date();
    const rolled = await request.merchantData.transaction(async (tx) => {
      const old = await tx.apiKeys.findFirst({ where: { id: request.params.id } });
      if (!old) throw notFound();
      if (apiKeyStatus(old, now) !== 'active') throw new AppError('CONFLICT', `This API key is ${apiKeyStatus(old, now)}: only an active key can be rolled`);
      const issued = issueApiKey(mode);
      const key = await tx.apiKeys.create({
        data: { name: old.name, mode: dbMode, displayPrefix: issued.displayPrefix, secretHash: issued.secretHash, scopes: old.scopes, expiresAt: old.expiresAt },
      });
      const overlapEnds = new Date(Math.min(now.getTime() + overlapMs, old.expiresAt?.getTime() ?? Infinity));
      // Conditional on the key being unrolled and unrevoked still: of two rolls at once, one wins and the other rolls back.
      const { count } = await tx.apiKeys.updateMany({
        where: { id: old.id, rolledToId: null, revokedAt: null },
        data: { rolledToId: key.id, rolledAt: now, expiresAt: overlapEnds },
      });
      if (count !== 1) throw new AppError('CONFLICT', 'This API key was rolled or revoked meanwhile');
      const previous = await tx.apiKeys.findFirstOrThrow({ where: { id: old.id } });
      return { key, previous, secret: issued.secret };
    });
    request.log.info({ apiKeyId: rolled.key.id, previousId: rolled.previous.id, merchantId }, 'API key rolled');
    return reply.code(201).send({ key: toApiKeyView(rolled.key, now), secret: rolled.secret, previous: toApiKeyView(rolled.previous, now) });
  });

  app.delete('/api-keys/:id', {
    onRequest: app.authenticate,
    config: { sessionOnly: ['owner', 'admin'] },
    schema: {
      tags,
      summary: 'Revoke an API key (at once, for good)',
      description: `Every request with it answers 401 from now on; it stays listed as revoked. Revoking a revoked key changes nothing. ${SESSION_ONLY}`,
      ...auth,
      params: apiKeyIdParams,
      response: { 200: apiKeyView, 404: errorResponse },
    },
  }, async (request) => {
    const data = request.merchantData;
    const where = { id: request.params.id };
    await data.apiKeys.updateMany({ where: { ...where, revokedAt: null }, data: { revokedAt: new Date() } });
    const key = await data.apiKeys.findFirst({ where });
    if (!key) throw notFound();
    request.log.info({ apiKeyId: key.id, merchantId: key.merchantId }, 'API key revoked');
    return toApiKeyView(key);
  });
};
