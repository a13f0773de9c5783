// The merchant's outgoing webhooks (docs/webhooks.md), all under /api/merchant/webhooks: endpoints (create with a
// secret shown once, read, change, delete, rotate the secret, send a test event), deliveries with their attempt
// log and the dead-letter list (status dead), replays (one delivery, or every dead one of an endpoint since a
// time), and the events. Reads are PostgreSQL only; a test event and a replay start delivery workflows. Every
// query goes through the caller's merchant scope (request.merchantData): another merchant's ids are not found (404).
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { WebhookDelivery, WebhookDeliveryAttempt, WebhookEndpoint, MerchantEvent } from '../../../generated/prisma/client.js';
import type { Prisma } from '../../../prisma/client.js';
import { type RouteDeps } from '../../route-deps.js';
import type { MerchantScope } from '../../../model/merchant/merchant-scope.js';
import { AppError } from '../../../domain/errors.js';
import { UnsafeUrlError } from '../../../security/ssrf.js';
import {
  factKeyOf, isMerchantEventType, MAX_WEBHOOK_ENDPOINTS, SECRET_ROTATION_OVERLAP_MS, type DeliveryStatus, type DisabledReason, type MerchantEventType,
} from '../../../domain/merchant-webhooks/merchant-webhooks.js';
import {
  deliverMerchantEvent, newWebhookSecret, recordMerchantEvent, replayDeadDeliveriesSince, replayDelivery, rotateEndpointSecret, sealEndpointSecret,
} from '../../../model/merchant-webhooks.js';
import { errorResponse } from '../../schemas/common.js';
import { keysetPages } from '../../pagination.js';
import {
  deliveriesPage, deliveriesQuery, deliveryDetail, deliveryIdParams, endpointCreated, endpointCreateFor, endpointDeleted, endpointIdParams, endpointList,
  endpointPatchFor, endpointView, eventDetail, eventIdParams, eventsPage, eventsQuery, replaySinceBody, replayStarted, replaysStarted,
  secretRotated, testSent,
} from '../../schemas/merchant-webhooks.js';

const auth = { security: [{ bearerAuth: [] }] };
const tags = ['merchant webhooks'];
/** Dead deliveries one replay-since call starts (the answer says when more are left). */
const REPLAY_BATCH = 1000;

const iso = (d: Date | null) => d?.toISOString() ?? null;
const notFound = (what: string) => new AppError('NOT_FOUND', `No such ${what}`);

export function toEndpointView(e: WebhookEndpoint) {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    eventTypes: e.eventTypes.filter(isMerchantEventType).filter((t): t is Exclude<MerchantEventType, 'webhook.test'> => t !== 'webhook.test'),
    enabled: e.enabled,
    disabledReason: (e.disabledReason as DisabledReason | null) ?? null,
    disabledAt: iso(e.disabledAt),
    failingSince: iso(e.failingSince),
    // Only while it still signs: an expired overlap is history.
    previousSecretExpiresAt: e.previousSecretExpiresAt && e.previousSecretExpiresAt.getTime() > Date.now() ? e.previousSecretExpiresAt.toISOString() : null,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}

function toDeliveryView(d: WebhookDelivery) {
  return {
    id: d.id,
    endpointId: d.endpointId,
    eventId: d.eventId,
    eventType: d.eventType as MerchantEventType,
    status: d.status as DeliveryStatus,
    run: d.run,
    attempts: d.attempts,
    nextAttemptAt: iso(d.nextAttemptAt),
    lastAttemptAt: iso(d.lastAttemptAt),
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    succeededAt: iso(d.succeededAt),
    deadAt: iso(d.deadAt),
    createdAt: d.createdAt.toISOString(),
  };
}

const toAttemptView = (a: WebhookDeliveryAttempt) => ({
  number: a.number, run: a.run, at: a.at.toISOString(), statusCode: a.statusCode, durationMs: a.durationMs, responseBody: a.responseBody, error: a.error,
});

const payloadOf = (e: Pick<MerchantEvent, 'payload'>) => e.payload as Record<string, unknown>;
const toEventView = (e: MerchantEvent) => ({ id: e.id, type: e.type as MerchantEventType, createdAt: e.createdAt.toISOString(), payload: payloadOf(e) });

// Deliveries and events page alike: keyed by (createdAt, id), newest first.
const pages = keysetPages('id', (id) => /^(msg|evt)_[A-Za-z0-9]{24}$/.test(id));

export const merchantWebhookRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, db, secrets, urlGuard } = deps;
  const starter = { client: deps.temporal.client, taskQueue: config.temporal.taskQueue };
  const errors = { 400: errorResponse, 401: errorResponse, 404: errorResponse };

  /** The caller's endpoint, or 404. */
  async function ownEndpoint(data: MerchantScope, id: string) {
    const endpoint = await data.webhookEndpoints.findFirst({ where: { id } });
    if (!endpoint) throw notFound('webhook endpoint');
    return endpoint;
  }

  /** The URL resolved through the SSRF guard now (public addresses only); INVALID_INPUT naming the field otherwise. */
  async function checkUrl(url: string) {
    try {
      await urlGuard.check(url);
    } catch (err) {
      if (err instanceof UnsafeUrlError) throw new AppError('INVALID_INPUT', `url: ${err.message}`, { fields: { 'body.url': err.message } });
      throw err;
    }
  }

  const enabledOrRefuse = (e: WebhookEndpoint) => {
    if (!e.enabled) throw new AppError('WEBHOOK_ENDPOINT_DISABLED', `This endpoint is disabled (${e.disabledReason ?? 'merchant'}): enable it first`);
  };

  // ---- endpoints -------------------------------------------------------------------------------------------

  app.get('/endpoints', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'webhooks:read' },
    schema: { tags, summary: 'The shop\'s webhook endpoints, oldest first', ...auth, response: { 200: endpointList, 401: errorResponse } },
  }, async (request) => ({
    items: (await request.merchantData.webhookEndpoints.findMany({ orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })).map(toEndpointView),
  }));

  app.post('/endpoints', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'webhooks:write' },
    schema: {
      tags,
      summary: 'Add a webhook endpoint; its signing secret is in this answer only',
      description: `The URL must be https and resolve to public addresses only (INVALID_INPUT otherwise; checked again before every delivery). At most ${MAX_WEBHOOK_ENDPOINTS} endpoints per shop (409 CONFLICT). The endpoint receives the events that happen from now on.`,
      ...auth,
      body: endpointCreateFor(urlGuard.allowedOrigins),
      response: { 201: endpointCreated, ...errors, 409: errorResponse },
    },
  }, async (request, reply) => {
    const data = request.merchantData;
    const body = request.body;
    await checkUrl(body.url);
    if ((await data.webhookEndpoints.count()) >= MAX_WEBHOOK_ENDPOINTS) {
      throw new AppError('CONFLICT', `At most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints per shop: delete one first`);
    }
    const id = randomUUID();
    const secret = newWebhookSecret();
    const enabled = body.enabled ?? true;
    const created = await data.webhookEndpoints.create({
      data: {
        id, url: body.url, description: body.description ?? '', eventTypes: body.eventTypes ?? [], enabled,
        ...(enabled ? {} : { disabledReason: 'merchant', disabledAt: new Date() }),
        secretEnc: sealEndpointSecret(secrets, data.merchantId, id, secret),
      },
    });
    return reply.code(201).send({ ...toEndpointView(created), secret });
  });

  app.get('/endpoints/:id', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'webhooks:read' },
    schema: { tags, summary: 'One webhook endpoint (never its secret)', ...auth, params: endpointIdParams, response: { 200: endpointView, ...errors } },
  }, async (request) => toEndpointView(await ownEndpoint(request.merchantData, request.params.id)));

  app.patch('/endpoints/:id', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'webhooks:write' },
    schema: {
      tags,
      summary: 'Change a webhook endpoint: URL, description, event filter, enabled',
      description: 'enabled: false disables it (reason merchant): deliveries still waiting end dead at their next attempt. enabled: true enables it again whatever disabled it, with a fresh failing streak; replay what went dead meanwhile. A new URL is checked like a new endpoint\'s.',
      ...auth,
      params: endpointIdParams,
      body: endpointPatchFor(urlGuard.allowedOrigins),
      response: { 200: endpointView, ...errors },
    },
  }, async (request) => {
    const data = request.merchantData;
    const endpoint = await ownEndpoint(data, request.params.id);
    const body = request.body;
    if (body.url !== undefined && body.url !== endpoint.url) await checkUrl(body.url);
    const change: Prisma.WebhookEndpointUpdateManyMutationInput = {
      ...(body.url !== undefined ? { url: body.url } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.eventTypes !== undefined ? { eventTypes: body.eventTypes } : {}),
    };
    if (body.enabled === true && !endpoint.enabled) Object.assign(change, { enabled: true, disabledReason: null, disabledAt: null, failingSince: null, healthWatchedSince: null });
    if (body.enabled === false && endpoint.enabled) Object.assign(change, { enabled: false, disabledReason: 'merchant', disabledAt: new Date() });
    await data.webhookEndpoints.updateMany({ where: { id: endpoint.id }, data: change });
    return toEndpointView(await ownEndpoint(data, endpoint.id));
  });

  app.delete('/endpoints/:id', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'webhooks:write' },
    schema: {
      tags,
      summary: 'Delete a webhook endpoint, its deliveries and their log',
      description: 'Deliveries still waiting stop at their next attempt.',
      ...auth,
      params: endpointIdParams,
      response: { 200: endpointDeleted, 401: errorResponse, 404: errorResponse },
    },
  }, async (request) => {
    const { count } = await request.merchantData.webhookEndpoints.deleteMany({ where: { id: request.params.id } });
    if (count === 0) throw notFound('webhook endpoint');
    return { deleted: true as const, id: request.params.id };
  });

  app.post('/endpoints/:id/rotate-secret', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'webhooks:write' },
    schema: {
      tags,
      summary: 'Rotate the signing secret; the new secret is in this answer only',
      description: 'For the next 24 hours every delivery carries two signatures (webhook-signature "v1,<new> v1,<previous>"), so receivers can switch secrets without losing a delivery. Rotating again within the 24 hours drops the oldest secret at once.',
      ...auth,
      params: endpointIdParams,
      response: { 200: secretRotated, ...errors },
    },
  }, async (request) => {
    const data = request.merchantData;
    const endpoint = await ownEndpoint(data, request.params.id);
    const rotated = await rotateEndpointSecret(db, secrets, endpoint, SECRET_ROTATION_OVERLAP_MS);
    if (!rotated) throw new AppError('CONFLICT', 'The secret was rotated at the same moment: try again');
    return { endpoint: toEndpointView(await ownEndpoint(data, endpoint.id)), secret: rotated.secret, previousSecretExpiresAt: rotated.previousSecretExpiresAt.toISOString() };
  });

  app.post('/endpoints/:id/test', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'webhooks:write' },
    schema: {
      tags,
      summary: 'Send a test event (webhook.test) to this endpoint',
      description: 'Delivered like any event (signed, retried on the schedule, logged), to this endpoint only and whatever its event filter. A disabled endpoint answers 409 WEBHOOK_ENDPOINT_DISABLED.',
      ...auth,
      params: endpointIdParams,
      response: { 202: testSent, ...errors, 409: errorResponse },
    },
  }, async (request, reply) => {
    const { merchantId } = request.merchantData;
    const endpoint = await ownEndpoint(request.merchantData, request.params.id);
    enabledOrRefuse(endpoint);
    const event = await recordMerchantEvent(db, {
      merchantId, type: 'webhook.test', factKey: factKeyOf('webhook.test', randomUUID()),
      data: () => ({ endpoint_id: endpoint.id, message: 'A test event from your checkout: your endpoint receives and verifies our webhooks.' }),
    });
    const [deliveryId] = await deliverMerchantEvent(db, starter, event, [endpoint.id]);
    if (!deliveryId) throw new AppError('WEBHOOK_ENDPOINT_DISABLED', 'This endpoint was disabled meanwhile: enable it first');
    return reply.code(202).send({ eventId: event.id, deliveryId });
  });

  app.post('/endpoints/:id/replay', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'webhooks:write' },
    schema: {
      tags,
      summary: 'Replay every dead delivery of this endpoint since a time',
      description: `Each dead delivery (the dead-letter list) of an event created since \`since\` runs its whole schedule again with the same webhook-id, at most ${REPLAY_BATCH} per call (more: true says to call again). Deliveries still being attempted are left to their schedule. A disabled endpoint answers 409 WEBHOOK_ENDPOINT_DISABLED.`,
      ...auth,
      params: endpointIdParams,
      body: replaySinceBody,
      response: { 202: replaysStarted, ...errors, 409: errorResponse },
    },
  }, async (request, reply) => {
    const { merchantId } = request.merchantData;
    const endpoint = await ownEndpoint(request.merchantData, request.params.id);
    enabledOrRefuse(endpoint);
    const { deliveryIds, more } = await replayDeadDeliveriesSince(db, starter, { merchantId, endpointId: endpoint.id, since: new Date(request.body.since) }, REPLAY_BATCH);
    return reply.code(202).send({ replayed: deliveryIds.length, deliveryIds, more });
  });

  // ---- deliveries ------------------------------------------------------------------------------------------

  app.get('/deliveries', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'webhooks:read' },
    schema: {
      tags,
      summary: 'Deliveries, newest first (status=dead: the dead-letter list)',
      ...auth,
      querystring: deliveriesQuery,
      response: { 200: deliveriesPage, 400: errorResponse, 401: errorResponse },
    },
  }, async (request) => {
    const q = request.query;
    const rows = await request.merchantData.webhookDeliveries.findMany({
      where: {
        ...(q.endpointId ? { endpointId: q.endpointId } : {}),
        ...(q.status ? { status: q.status } : {}),
        ...(q.eventType ? { eventType: q.eventType } : {}),
        AND: pages.after(q.cursor),
      },
      orderBy: pages.orderBy,
      take: pages.take(q.limit),
    });
    const { items, nextCursor } = pages.page(rows, q.limit);
    return { items: items.map(toDeliveryView), nextCursor };
  });

  app.get('/deliveries/:id', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'webhooks:read' },
    schema: { tags, summary: 'One delivery with the event it carries and every attempt (status, duration, the first 1 KB of the answer)', ...auth, params: deliveryIdParams, response: { 200: deliveryDetail, ...errors } },
  }, async (request) => {
    // One snapshot: the delivery row and its attempts are read by separate queries, and an attempt commits both at
    // once; read apart, a page could show an attempt logged while the delivery still says none (no next attempt).
    const d = await request.merchantData.transaction(
      (data) => data.webhookDeliveries.findFirst({
        where: { id: request.params.id },
        include: { attemptLog: { orderBy: { number: 'asc' } }, event: { select: { payload: true } }, endpoint: { select: { url: true } } },
      }),
      { isolationLevel: 'RepeatableRead' },
    );
    if (!d) throw notFound('delivery');
    return { ...toDeliveryView(d), endpointUrl: d.endpoint.url, payload: payloadOf(d.event), attemptLog: d.attemptLog.map(toAttemptView) };
  });

  app.post('/deliveries/:id/replay', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'webhooks:write' },
    schema: {
      tags,
      summary: 'Replay one delivery (dead or succeeded) with the same webhook-id',
      description: 'A new run of its whole schedule; receivers that dedupe on webhook-id see the same message again. A delivery still being attempted answers 409 WEBHOOK_DELIVERY_IN_PROGRESS; a disabled endpoint 409 WEBHOOK_ENDPOINT_DISABLED. Two clicks at once start one replay.',
      ...auth,
      params: deliveryIdParams,
      response: { 202: replayStarted, ...errors, 409: errorResponse },
    },
  }, async (request, reply) => {
    const d = await request.merchantData.webhookDeliveries.findFirst({ where: { id: request.params.id }, include: { endpoint: true } });
    if (!d) throw notFound('delivery');
    enabledOrRefuse(d.endpoint);
    if (d.status === 'pending') throw new AppError('WEBHOOK_DELIVERY_IN_PROGRESS', 'This delivery is still being attempted: wait for its outcome');
    return reply.code(202).send({ deliveryId: d.id, run: await replayDelivery(starter, d) });
  });

  // ---- events ----------------------------------------------------------------------------------------------

  app.get('/events', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'webhooks:read' },
    schema: { tags, summary: 'The shop\'s events, newest first', ...auth, querystring: eventsQuery, response: { 200: eventsPage, 400: errorResponse, 401: errorResponse } },
  }, async (request) => {
    const q = request.query;
    const rows = await request.merchantData.merchantEvents.findMany({
      where: { ...(q.type ? { type: q.type } : {}), AND: pages.after(q.cursor) },
      orderBy: pages.orderBy,
      take: pages.take(q.limit),
    });
    const { items, nextCursor } = pages.page(rows, q.limit);
    return { items: items.map(toEventView), nextCursor };
  });

  app.get('/events/:id', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'webhooks:read' },
    schema: { tags, summary: 'One event with its deliveries', ...auth, params: eventIdParams, response: { 200: eventDetail, ...errors } },
  }, async (request) => {
    const e = await request.merchantData.merchantEvents.findFirst({ where: { id: request.params.id }, include: { deliveries: { orderBy: { createdAt: 'asc' } } } });
    if (!e) throw notFound('event');
    return { ...toEventView(e), deliveries: e.deliveries.map(toDeliveryView) };
  });
};
