// Outgoing webhooks to merchants, the worker's side (docs/webhooks.md): an event recorded once per fact and handed
// to one delivery workflow per subscribed endpoint; each attempt of a delivery (one POST, its log row, the
// delivery's state and the endpoint's health, written together); the endpoint health workflow's reads, emails
// and the day-5 disable. Writes to a delivery are fenced by its run: a late write of a run a replay superseded
// changes nothing.
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Config } from '../../config/index.js';
import { Prisma, type Db } from '../../prisma/client.js';
import type { SecretBox } from '../../security/secrets.js';
import type { UrlGuard } from '../../security/ssrf.js';
import type { EmailClient } from '../../integrations/email/index.js';
import { postWebhook } from '../../integrations/merchant-webhooks/sender.js';
import { answerKind, DELIVERY_TIMEOUT_MS, ENDPOINT_HEALTH_CUE, ENDPOINT_HEALTH_STEPS, factKeyOf, nextWaitMs, parseRetryAfter, RESPONSE_BODY_LOG_BYTES, RETRY_AFTER_STATUSES, type DisputeEventType, type EndpointHealthStep, type SessionEventType } from '../../domain/merchant-webhooks/merchant-webhooks.js';
import type { DisputeEventData } from '../../domain/merchant-webhooks/merchant-event-payloads.js';
import { deliverMerchantEvent, recordMerchantEvent, SESSION_STATUS_OF_EVENT, sessionEventData, signingSecrets } from '../../model/merchant-webhooks.js';
import { processorClientFor } from '../../model/connections.js';
import { sessionOfProcessorPayment } from '../../model/checkout/processor-cues.js';
import { Context, log } from '@temporalio/activity';
import { classifyFailures } from '../failures.js';
import { recordEmail, sendRecordedEmail, type EmailSendResult } from '../email/email-outbox.js';
import { renderWebhookEmail, WEBHOOK_EMAIL_KINDS } from './webhook-email-templates.js';
import { notificationRecipients } from '../../domain/merchant/notifications.js';
import { WORKFLOWS } from '../../domain/temporal/workflow-names.js';

/** The merchant columns the notification settings read. */
const NOTIFICATION_SELECT = { notifyNewOrder: true, notifyRefund: true, notifyStoreOrderFailed: true, notifyEndpointDisabled: true, notificationEmails: true } as const;

/** A dispute as the processor reported it: the session it concerns is found by the worker (our rows, else the processor's payment). */
export type DisputeFacts = Omit<DisputeEventData, 'session_token'>;

/** A fact the checkout workflow (a session's status) or the API (a processor's dispute event) reports. */
export type EmitMerchantEventInput =
  | { type: SessionEventType; token: string }
  | { type: DisputeEventType; merchantId: string; dispute: DisputeFacts };

export interface DeliveryRunStart {
  /** False: the run was superseded (a replay claimed the delivery) or the delivery is gone with its endpoint. */
  proceed: boolean;
  /** Attempts made by earlier runs: this run's attempts are numbered after them. */
  attemptsBefore: number;
}

export interface DeliveryAttemptInput {
  deliveryId: string;
  run: number;
  /** 1-based, across runs. */
  attempt: number;
  /** The attempt's moment on the workflow's clock (epoch ms): which secrets sign it (a rotation's overlap ends on the same clock as the schedule). */
  at: number;
  /** The schedule's (jittered) wait before the next attempt; null: this is the last one. */
  nextWaitMs: number | null;
}

export interface DeliveryAttemptResult {
  /** failed: another attempt follows after waitMs; the others end the run. */
  outcome: 'succeeded' | 'failed' | 'dead' | 'gone' | 'endpoint_disabled' | 'superseded';
  statusCode: number | null;
  waitMs: number | null;
}

export interface EndpointHealth {
  /** Epoch ms of the first failure since the last success; null while healthy. */
  failingSince: number | null;
  enabled: boolean;
}

export interface MerchantWebhookActivityDeps {
  db: Db;
  config: Config;
  secrets: SecretBox;
  urlGuard: UrlGuard;
  email: EmailClient;
  /** Starts delivery and health workflows (on config.temporal.taskQueue). */
  temporal: { readonly client: Client };
  /** One attempt's time-out (default DELIVERY_TIMEOUT_MS, 15 s). */
  deliveryTimeoutMs?: number;
}

const MAX_ERROR = 500;
const when = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

export function createMerchantWebhookActivities(deps: MerchantWebhookActivityDeps) {
  const { db, config, secrets, urlGuard } = deps;
  // The client is read when a workflow is started, not before (an event no endpoint subscribes to starts none).
  const starter = () => ({ get client() { return deps.temporal.client; }, taskQueue: config.temporal.taskQueue });
  const outbox = { db, email: deps.email, from: config.email.from };

  /** The endpoint's failing streak changed: its health workflow starts (or hears of it). */
  async function cueHealth(endpointId: string, start: boolean): Promise<void> {
    const { client } = deps.temporal;
    const workflowId = WORKFLOWS.webhookEndpointHealth.id(endpointId);
    if (start) {
      await client.workflow.signalWithStart(WORKFLOWS.webhookEndpointHealth.type, { workflowId, taskQueue: config.temporal.taskQueue, args: [{ endpointId }], signal: ENDPOINT_HEALTH_CUE, signalArgs: [] });
      return;
    }
    // A success: a running health workflow ends early (one that is not running has nothing to stop).
    await client.workflow.getHandle(workflowId).signal(ENDPOINT_HEALTH_CUE).catch((err: unknown) => {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    });
  }

  /**
   * After a failed attempt: the streak starts now unless it runs already, and a health workflow watches every
   * streak (started after the write, so it reads the streak; a crash in between is caught by the next failure).
   */
  async function recordFailure(endpointId: string): Promise<void> {
    const [row] = await db.$queryRaw<Array<{ failingSince: Date; watched: Date | null }>>`
      UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, now()) WHERE id = ${endpointId}::uuid
      RETURNING failing_since AS "failingSince", health_watched_since AS "watched"`;
    if (!row || row.watched?.getTime() === row.failingSince.getTime()) return;
    await cueHealth(endpointId, true);
    await db.webhookEndpoint.updateMany({ where: { id: endpointId, failingSince: row.failingSince }, data: { healthWatchedSince: row.failingSince } });
  }

  async function recordSuccess(endpointId: string): Promise<void> {
    const { count } = await db.webhookEndpoint.updateMany({ where: { id: endpointId, failingSince: { not: null } }, data: { failingSince: null, healthWatchedSince: null } });
    if (count > 0) await cueHealth(endpointId, false);
  }

  /** The checkout session a disputed payment belongs to (model/checkout/processor-cues.ts), or null when it is not one of this merchant's checkouts. */
  async function disputedSession(merchantId: string, paymentId: string): Promise<string | null> {
    const readPayment = async (id: string) => (await processorClientFor({ db, config, secrets }, merchantId)).client.getPayment(id);
    return (await sessionOfProcessorPayment(db, readPayment, merchantId, paymentId))?.token ?? null;
  }

  /** The endpoint's streak after an answered attempt (idempotent: repeated by a retry of the attempt). */
  async function recordHealth(endpointId: string, statusCode: number | null): Promise<void> {
    const kind = answerKind(statusCode);
    if (kind === 'success') await recordSuccess(endpointId);
    else if (kind === 'failure') await recordFailure(endpointId);
  }

  /** A retry of an attempt whose answer was recorded: its outcome, and the health bookkeeping the first try may have missed. */
  async function afterRecorded(endpointId: string, statusCode: number | null, input: DeliveryAttemptInput): Promise<DeliveryAttemptResult> {
    await recordHealth(endpointId, statusCode);
    return recordedOutcome(statusCode, input);
  }

  async function attemptDelivery(input: DeliveryAttemptInput): Promise<DeliveryAttemptResult> {
    const { deliveryId, run, attempt } = input;
    const delivery = await db.webhookDelivery.findUnique({ where: { id: deliveryId }, include: { endpoint: true, event: { select: { payload: true } } } });
    if (!delivery || delivery.run !== run) return { outcome: 'superseded', statusCode: null, waitMs: null };
    const logged = await db.webhookDeliveryAttempt.findUnique({ where: { deliveryId_number: { deliveryId, number: attempt } } });
    if (logged) return afterRecorded(delivery.endpointId, logged.statusCode, input);
    if (delivery.status !== 'pending') return { outcome: delivery.status === 'succeeded' ? 'succeeded' : 'dead', statusCode: delivery.lastStatusCode, waitMs: null };
    const { endpoint } = delivery;
    const at = new Date();
    if (!endpoint.enabled) {
      const error = `endpoint disabled (${endpoint.disabledReason ?? 'merchant'}) before this attempt`;
      await db.webhookDelivery.updateMany({ where: { id: deliveryId, run }, data: { status: 'dead', deadAt: at, lastError: error, nextAttemptAt: null } });
      return { outcome: 'endpoint_disabled', statusCode: null, waitMs: null };
    }

    const answer = await postWebhook(
      { url: endpoint.url, msgId: delivery.id, body: JSON.stringify(delivery.event.payload), secrets: signingSecrets(secrets, endpoint, new Date(input.at)), timestamp: at },
      { urlGuard, timeoutMs: deps.deliveryTimeoutMs ?? DELIVERY_TIMEOUT_MS, bodyBytes: RESPONSE_BODY_LOG_BYTES },
    );
    const kind = answerKind(answer.status);
    const retryAfterMs = answer.status !== null && RETRY_AFTER_STATUSES.has(answer.status) ? parseRetryAfter(answer.retryAfter, Date.now()) : null;
    const waitMs = kind === 'failure' && input.nextWaitMs !== null ? nextWaitMs(input.nextWaitMs, retryAfterMs) : null;
    const outcome: DeliveryAttemptResult['outcome'] = kind === 'success' ? 'succeeded' : kind === 'gone' ? 'gone' : waitMs === null ? 'dead' : 'failed';
    const error = answer.error ?? (kind === 'success' ? null : `HTTP ${answer.status}${answer.status !== null && answer.status >= 300 && answer.status < 400 ? ' (redirects are not followed)' : ''}`);
    const ended = new Date();

    try {
      await db.$transaction(async (tx) => {
        await tx.webhookDeliveryAttempt.create({
          data: { deliveryId, number: attempt, run, at, statusCode: answer.status, durationMs: answer.durationMs, responseBody: answer.body === null ? null : answer.body.replace(/\u0000/g, '\uFFFD'), error: error?.slice(0, MAX_ERROR) ?? null },
        });
        await tx.webhookDelivery.updateMany({
          where: { id: deliveryId, run },
          data: {
            attempts: attempt,
            lastAttemptAt: at,
            lastStatusCode: answer.status,
            lastError: error?.slice(0, MAX_ERROR) ?? null,
            status: outcome === 'succeeded' ? 'succeeded' : outcome === 'failed' ? 'pending' : 'dead',
            nextAttemptAt: waitMs === null ? null : new Date(ended.getTime() + waitMs),
            ...(outcome === 'succeeded' ? { succeededAt: ended } : outcome === 'failed' ? {} : { deadAt: ended }),
          },
        });
        // The receiver says the endpoint is gone for good: nothing more is sent there until the merchant enables it.
        if (kind === 'gone') await tx.webhookEndpoint.updateMany({ where: { id: endpoint.id, enabled: true }, data: { enabled: false, disabledReason: 'gone', disabledAt: ended } });
      });
    } catch (err) {
      // This attempt's log row is there already (a retry of this activity raced it): its outcome stands.
      if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') {
        const row = await db.webhookDeliveryAttempt.findUniqueOrThrow({ where: { deliveryId_number: { deliveryId, number: attempt } } });
        return afterRecorded(endpoint.id, row.statusCode, input);
      }
      throw err;
    }
    await recordHealth(endpoint.id, answer.status);
    return { outcome, statusCode: answer.status, waitMs };
  }

  return classifyFailures({
    /**
     * Records the event of a fact (once: its fact key) and starts one delivery per subscribed enabled endpoint
     * (once each). Repeating it, in a retry or another run, changes nothing.
     */
    async emitMerchantEvent(input: EmitMerchantEventInput): Promise<{ eventId: string | null; deliveries: number }> {
      let event;
      if ('token' in input) {
        const status = SESSION_STATUS_OF_EVENT[input.type];
        const session = await db.checkoutSession.findUnique({ where: { token: input.token }, select: { merchantId: true } });
        if (!session) throw ApplicationFailure.nonRetryable(`No checkout session ${input.token}`, 'NOT_FOUND');
        event = await recordMerchantEvent(db, {
          merchantId: session.merchantId, type: input.type, factKey: factKeyOf(input.type, input.token),
          data: async () => (await sessionEventData(db, input.token, status)).data,
        });
      } else {
        const { merchantId, dispute } = input;
        const factKey = factKeyOf(input.type, dispute.dispute_id);
        const recorded = await db.merchantEvent.findUnique({ where: { factKey } });
        const token = recorded ? null : await disputedSession(merchantId, dispute.processor_payment_id);
        if (!recorded && !token) {
          log.warn('dispute on a payment that is not one of this merchant\'s checkouts: no merchant event', { merchantId, disputeId: dispute.dispute_id });
          return { eventId: null, deliveries: 0 };
        }
        event = recorded ?? (await recordMerchantEvent(db, { merchantId, type: input.type, factKey, data: () => ({ ...dispute, session_token: token! }) }));
      }
      const deliveries = await deliverMerchantEvent(db, starter(), event);
      return { eventId: event.id, deliveries: deliveries.length };
    },

    /**
     * Claims the delivery for `run`: the first run finds it pending; a replay (run n) takes it from dead or
     * succeeded back to pending, only from run n - 1, so two replays never run at once.
     */
    async startWebhookDeliveryRun(input: { deliveryId: string; run: number }): Promise<DeliveryRunStart> {
      const { deliveryId, run } = input;
      if (run > 0) {
        await db.webhookDelivery.updateMany({
          where: { id: deliveryId, run: run - 1, status: { in: ['dead', 'succeeded'] } },
          data: { run, status: 'pending', nextAttemptAt: new Date(), deadAt: null, succeededAt: null },
        });
      }
      const row = await db.webhookDelivery.findUnique({ where: { id: deliveryId }, select: { run: true, status: true, attempts: true } });
      const proceed = row?.run === run && row.status === 'pending';
      return { proceed, attemptsBefore: row?.attempts ?? 0 };
    },

    /**
     * One attempt: the endpoint still enabled, the URL through the SSRF guard, one signed POST, then in one
     * transaction its log row, the delivery's state (succeeded; dead on 410, on the last failure, or when the
     * endpoint was disabled meanwhile; else pending until nextAttemptAt) and, on 410, the endpoint disabled.
     * A retry of this activity after the answer was recorded returns the recorded outcome: never a second POST
     * for an answered attempt. It heartbeats throughout, so a worker killed mid-POST is noticed within the
     * workflow's heartbeat time-out, not its start-to-close time-out.
     */
    attemptWebhookDelivery: (input: DeliveryAttemptInput) => heartbeating(() => attemptDelivery(input)),

    /** The endpoint's failing streak as the health workflow acts on it; null when the endpoint was deleted. */
    async loadWebhookEndpointHealth(endpointId: string): Promise<EndpointHealth | null> {
      const row = await db.webhookEndpoint.findUnique({ where: { id: endpointId }, select: { failingSince: true, enabled: true } });
      return row ? { failingSince: row.failingSince?.getTime() ?? null, enabled: row.enabled } : null;
    },

    /** Day 5 of the streak that began at failingSince: disabled (reason failing), unless it ended or changed meanwhile. */
    async disableFailingWebhookEndpoint(input: { endpointId: string; failingSince: number }): Promise<{ disabled: boolean }> {
      const { count } = await db.webhookEndpoint.updateMany({
        where: { id: input.endpointId, enabled: true, failingSince: new Date(input.failingSince) },
        data: { enabled: false, disabledReason: 'failing', disabledAt: new Date() },
      });
      return { disabled: count > 0 };
    },

    /** The merchant's email for one step of one failing streak (day-1 or day-3 warning, or disabled): once, by its key. */
    async sendWebhookEndpointEmail(input: { endpointId: string; failingSince: number; step: EndpointHealthStep }): Promise<EmailSendResult | null> {
      const endpoint = await db.webhookEndpoint.findUnique({ where: { id: input.endpointId }, include: { merchant: { select: { email: true, shopName: true, ...NOTIFICATION_SELECT } } } });
      if (!endpoint) return null;
      const kind = WEBHOOK_EMAIL_KINDS[input.step];
      const idempotencyKey = `${kind}:${input.endpointId}:${input.failingSince}:${input.step}`;
      const existing = await db.emailMessage.findUnique({ where: { idempotencyKey } });
      if (existing?.status === 'SENT') return { status: 'ALREADY_SENT', messageId: existing.providerMessageId };
      // The notification setting "Webhook endpoint failing or disabled" switches the warnings and the notice alike.
      const to = notificationRecipients(endpoint.merchant, 'endpointDisabled');
      if (!to) return { status: 'SWITCHED_OFF', messageId: null };
      const disableAt = input.failingSince + ENDPOINT_HEALTH_STEPS[ENDPOINT_HEALTH_STEPS.length - 1]!.at;
      const lastFailed = await db.webhookDelivery.findFirst({ where: { endpointId: input.endpointId, lastError: { not: null } }, orderBy: { lastAttemptAt: 'desc' }, select: { lastError: true } });
      const rendered = renderWebhookEmail(input.step, {
        shopName: endpoint.merchant.shopName,
        url: endpoint.url,
        failingSince: when(new Date(input.failingSince)),
        disableAt: when(new Date(disableAt)),
        lastError: lastFailed?.lastError ?? null,
        manageUrl: `${config.appOrigin}/dashboard/webhooks`,
      });
      const row = existing ?? (await recordEmail(db, { idempotencyKey, merchantId: endpoint.merchantId, kind, to: to.join(', '), subject: rendered.subject }));
      return sendRecordedEmail(outbox, row, () => ({ ...rendered, tag: kind, metadata: { merchantId: endpoint.merchantId, endpointId: endpoint.id, step: input.step } }));
    },
  });
}

/** The outcome an attempt already logged stands for (its Retry-After is not kept: the schedule's wait applies). */
function recordedOutcome(statusCode: number | null, input: DeliveryAttemptInput): DeliveryAttemptResult {
  const kind = answerKind(statusCode);
  if (kind === 'success') return { outcome: 'succeeded', statusCode, waitMs: null };
  if (kind === 'gone') return { outcome: 'gone', statusCode, waitMs: null };
  return input.nextWaitMs === null ? { outcome: 'dead', statusCode, waitMs: null } : { outcome: 'failed', statusCode, waitMs: input.nextWaitMs };
}

export type MerchantWebhookActivities = ReturnType<typeof createMerchantWebhookActivities>;

/** How often a long activity tells Temporal it is alive (well inside the workflows' heartbeat time-outs). */
const HEARTBEAT_EVERY_MS = 2_000;

/** Runs `work` heartbeating every HEARTBEAT_EVERY_MS when called as an activity (a plain call just runs it). */
async function heartbeating<T>(work: () => Promise<T>): Promise<T> {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return work();
  }
  context.heartbeat();
  const timer = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
