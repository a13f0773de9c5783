// Outgoing webhooks, the part the API and the activities share (docs/webhooks.md): endpoint secrets (made, sealed,
// opened), an event recorded once per fact (its unique fact key), its deliveries (one per subscribed endpoint,
// unique per endpoint and event) and the start of their workflows. Every step is idempotent, so a retried
// activity, a second workflow run or a killed worker never makes a second event or a second delivery.
import { randomBytes } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { MerchantEvent, WebhookDelivery, WebhookEndpoint } from '../generated/prisma/client.js';
import type { Db } from '../prisma/client.js';
import type { SecretBox } from '../security/secrets.js';
import { isPaymentMethod } from '../domain/checkout/payment-method.js';
import { type MerchantEventType, type SessionEventType } from '../domain/merchant-webhooks/merchant-webhooks.js';
import { merchantEventSchemas, type MerchantEventPayload, type SessionEventData } from '../domain/merchant-webhooks/merchant-event-payloads.js';
import { webhookEndpointAad } from './connections.js';
import { WORKFLOWS } from '../domain/temporal/workflow-names.js';

/** The delivery workflow's type name: started by name, so callers never import workflow code. */

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
function base62(length: number): string {
  let out = '';
  // 248 = 4 × 62: bytes above it are skipped, so every character is equally likely.
  while (out.length < length) for (const byte of randomBytes(length)) if (byte < 248 && out.length < length) out += BASE62[byte % 62];
  return out;
}

export const newEventId = () => `evt_${base62(24)}`;
/** The webhook-id of one delivery (Standard Webhooks asks for a unique id per message). */
export const newDeliveryId = () => `msg_${base62(24)}`;
/** `whsec_` + base64 of 24 random bytes: the Standard Webhooks secret format (`standardwebhooks` decodes it). */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

// ---- secrets -----------------------------------------------------------------------------------------

export function sealEndpointSecret(secrets: SecretBox, merchantId: string, endpointId: string, plain: string): string {
  return secrets.encrypt(plain, webhookEndpointAad.secret(merchantId, endpointId));
}

export function sealPreviousEndpointSecret(secrets: SecretBox, merchantId: string, endpointId: string, plain: string): string {
  return secrets.encrypt(plain, webhookEndpointAad.previousSecret(merchantId, endpointId));
}

/** The secrets a delivery made at `at` is signed with: the current one, and the previous one until its overlap ends. */
export function signingSecrets(secrets: SecretBox, endpoint: Pick<WebhookEndpoint, 'id' | 'merchantId' | 'secretEnc' | 'previousSecretEnc' | 'previousSecretExpiresAt'>, at: Date): string[] {
  const current = secrets.decrypt(endpoint.secretEnc, webhookEndpointAad.secret(endpoint.merchantId, endpoint.id));
  const overlapping = endpoint.previousSecretEnc && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt.getTime() > at.getTime();
  if (!overlapping) return [current];
  return [current, secrets.decrypt(endpoint.previousSecretEnc!, webhookEndpointAad.previousSecret(endpoint.merchantId, endpoint.id))];
}

// ---- events ------------------------------------------------------------------------------------------

/**
 * The event of `factKey`, recorded now unless it exists (then the stored one, unchanged: its id and payload are the
 * first run's). `data` is built only when the event is new, and the payload goes through its schema.
 */
export async function recordMerchantEvent<T extends MerchantEventType>(
  db: Db,
  input: { merchantId: string; type: T; factKey: string; data: () => Promise<MerchantEventPayload<T>['data']> | MerchantEventPayload<T>['data'] },
): Promise<MerchantEvent> {
  const existing = await db.merchantEvent.findUnique({ where: { factKey: input.factKey } });
  if (existing) return existing;
  const id = newEventId();
  const createdAt = new Date();
  const payload = merchantEventSchemas[input.type].parse({ id, type: input.type, created_at: createdAt.toISOString(), data: await input.data() });
  // Two first calls at once: one insert wins, the other reads it.
  await db.merchantEvent.createMany({ data: [{ id, merchantId: input.merchantId, type: input.type, factKey: input.factKey, payload, createdAt }], skipDuplicates: true });
  return db.merchantEvent.findUniqueOrThrow({ where: { factKey: input.factKey } });
}

/** What session.* events say of a session (the orders API's fields, snake_case as in every payload). */
export async function sessionEventData(db: Db, token: string, status: 'COMPLETED' | 'REFUNDED' | 'ABANDONED'): Promise<{ merchantId: string; data: SessionEventData }> {
  const s = await db.checkoutSession.findUniqueOrThrow({ where: { token } });
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  return {
    merchantId: s.merchantId,
    data: {
      token: s.token,
      status,
      currency: s.currency.toUpperCase(),
      subtotal_minor: s.subtotalMinor,
      shipping_minor: s.shippingMinor,
      discount_minor: s.discountMinor,
      total_minor: s.totalMinor,
      payment_method: isPaymentMethod(s.paymentMethod) ? s.paymentMethod : null,
      customer_email: s.email,
      store_order_id: s.storeOrderId,
      processor_payment_id: s.processorPaymentId,
      created_at: s.createdAt.toISOString(),
      completed_at: iso(s.completedAt),
      refunded_at: iso(s.refundedAt),
    },
  };
}

export const SESSION_STATUS_OF_EVENT: Record<SessionEventType, 'COMPLETED' | 'REFUNDED' | 'ABANDONED'> = {
  'session.completed': 'COMPLETED',
  'session.refunded': 'REFUNDED',
  'session.abandoned': 'ABANDONED',
};

// ---- deliveries --------------------------------------------------------------------------------------

export interface DeliveryStarter {
  client: Client;
  taskQueue: string;
}

/** Starts run `run` of a delivery; a run already started (by a retry, a second click) is that run: not an error. */
export async function startDeliveryRun(starter: DeliveryStarter, deliveryId: string, run: number): Promise<'started' | 'already_started'> {
  try {
    await starter.client.workflow.start(WORKFLOWS.merchantWebhookDelivery.type, {
      workflowId: WORKFLOWS.merchantWebhookDelivery.id(deliveryId, run),
      taskQueue: starter.taskQueue,
      args: [{ deliveryId, run }],
      // Each run id is used once: a retried start never runs the schedule twice (a replay is a new run, a new id).
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
    return 'started';
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return 'already_started';
    throw err;
  }
}

/**
 * One delivery of `event` per enabled endpoint of its merchant that subscribes to its type and existed when it
 * happened (`endpointIds`: exactly those, whatever their filter: the test button), then each delivery's first run.
 * Safe to repeat: deliveries are unique per (endpoint, event), and only first runs not yet finished are started.
 */
export async function deliverMerchantEvent(db: Db, starter: DeliveryStarter, event: Pick<MerchantEvent, 'id' | 'merchantId' | 'type' | 'createdAt'>, endpointIds?: string[]): Promise<string[]> {
  const endpoints = await db.webhookEndpoint.findMany({
    where: {
      merchantId: event.merchantId,
      enabled: true,
      ...(endpointIds
        ? { id: { in: endpointIds } }
        : { createdAt: { lte: event.createdAt }, OR: [{ eventTypes: { isEmpty: true } }, { eventTypes: { has: event.type } }] }),
    },
    select: { id: true },
  });
  if (endpoints.length > 0) {
    await db.webhookDelivery.createMany({
      data: endpoints.map((e) => ({ id: newDeliveryId(), merchantId: event.merchantId, endpointId: e.id, eventId: event.id, eventType: event.type })),
      skipDuplicates: true,
    });
  }
  const pending = await db.webhookDelivery.findMany({ where: { eventId: event.id, status: 'pending', run: 0, ...(endpointIds ? { endpointId: { in: endpointIds } } : {}) }, select: { id: true } });
  for (const d of pending) await startDeliveryRun(starter, d.id, 0);
  return pending.map((d) => d.id);
}

// ---- the merchant's actions (API) --------------------------------------------------------------------

/**
 * A new secret for the endpoint; the current one becomes the previous one, signing beside it for `overlapMs`.
 * Null when someone rotated at the same moment (the secret read is no longer the current one).
 */
export async function rotateEndpointSecret(
  db: Db,
  secrets: SecretBox,
  endpoint: Pick<WebhookEndpoint, 'id' | 'merchantId' | 'secretEnc'>,
  overlapMs: number,
): Promise<{ secret: string; previousSecretExpiresAt: Date } | null> {
  const current = secrets.decrypt(endpoint.secretEnc, webhookEndpointAad.secret(endpoint.merchantId, endpoint.id));
  const secret = newWebhookSecret();
  const previousSecretExpiresAt = new Date(Date.now() + overlapMs);
  const { count } = await db.webhookEndpoint.updateMany({
    where: { id: endpoint.id, merchantId: endpoint.merchantId, secretEnc: endpoint.secretEnc },
    data: {
      secretEnc: sealEndpointSecret(secrets, endpoint.merchantId, endpoint.id, secret),
      previousSecretEnc: sealPreviousEndpointSecret(secrets, endpoint.merchantId, endpoint.id, current),
      previousSecretExpiresAt,
    },
  });
  return count === 0 ? null : { secret, previousSecretExpiresAt };
}

/**
 * Replays a finished delivery (dead or succeeded): its next run, which claims it from the current one (so no two
 * runs ever deliver it at once; two clicks start the same run). Answers that run's number.
 */
export async function replayDelivery(starter: DeliveryStarter, delivery: Pick<WebhookDelivery, 'id' | 'run'>): Promise<number> {
  await startDeliveryRun(starter, delivery.id, delivery.run + 1);
  return delivery.run + 1;
}

/** Replays the endpoint's dead deliveries of events since `since`, oldest first, at most `limit`; `more` when others are left. */
export async function replayDeadDeliveriesSince(
  db: Db,
  starter: DeliveryStarter,
  where: { merchantId: string; endpointId: string; since: Date },
  limit: number,
): Promise<{ deliveryIds: string[]; more: boolean }> {
  const dead = await db.webhookDelivery.findMany({
    where: { merchantId: where.merchantId, endpointId: where.endpointId, status: 'dead', createdAt: { gte: where.since } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: limit + 1,
    select: { id: true, run: true },
  });
  const batch = dead.slice(0, limit);
  for (const d of batch) await replayDelivery(starter, d);
  return { deliveryIds: batch.map((d) => d.id), more: dead.length > limit };
}
