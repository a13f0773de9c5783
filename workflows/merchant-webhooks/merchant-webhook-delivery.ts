// Delivers one event to one merchant endpoint, durably, on the schedule of domain/merchant-webhooks/merchant-webhooks.ts (0 s, 5 s,
// 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, each wait jittered ±10 %): each attempt is one activity, one POST; a 2xx ends
// it succeeded, a 410 or the last failure dead (the dead-letter list), an endpoint disabled meanwhile dead too.
// A replay is a new run of the same workflow with the same delivery (webhook-id), under an id of its own
// (merchant-webhook-<id>-replay-<run>); the run claims the delivery first, so no two runs deliver at once.
import { proxyActivities, sleep } from '@temporalio/workflow';
import { DELIVERY_SCHEDULE_MS, jittered } from '../../domain/merchant-webhooks/merchant-webhooks.js';
import type { DeliveryAttemptResult, MerchantWebhookActivities } from '../../activities/merchant-webhooks/merchant-webhooks.js';
import { PROFILES } from '../activity-profiles.js';

// Our own infrastructure (the database, the signing, Temporal): retried until it works. An endpoint's answer is
// never a failed activity: it is the attempt's result, so an answered attempt is never POSTed twice.
const deliveries = proxyActivities<MerchantWebhookActivities>(PROFILES.webhookDelivery);
// The attempt heartbeats: a worker that died mid-POST is noticed after the heartbeat time-out (20 s) and the
// attempt retried elsewhere, instead of waiting out the start-to-close time-out (a minute).
const attempts = proxyActivities<Pick<MerchantWebhookActivities, 'attemptWebhookDelivery'>>(PROFILES.webhookDeliveryAttempt);

export interface MerchantWebhookDeliveryInput {
  /** msg_…, a row of webhook_deliveries. */
  deliveryId: string;
  /** 0: the first run; n: the n-th replay. */
  run?: number;
}

export interface MerchantWebhookDeliveryResult {
  outcome: DeliveryAttemptResult['outcome'];
  /** Attempts this run made. */
  attempts: number;
}

/** Gets one event to one merchant endpoint, retrying for more than a day before it goes to the dead-letter list. */
export async function merchantWebhookDeliveryWorkflow(input: MerchantWebhookDeliveryInput): Promise<MerchantWebhookDeliveryResult> {
  const { deliveryId } = input;
  const run = input.run ?? 0;
  const claimed = await deliveries.startWebhookDeliveryRun({ deliveryId, run });
  if (!claimed.proceed) return { outcome: 'superseded', attempts: 0 };
  let result: DeliveryAttemptResult = { outcome: 'dead', statusCode: null, waitMs: null };
  for (let i = 0; i < DELIVERY_SCHEDULE_MS.length; i++) {
    const next = DELIVERY_SCHEDULE_MS[i + 1];
    result = await attempts.attemptWebhookDelivery({
      deliveryId,
      run,
      attempt: claimed.attemptsBefore + i + 1,
      at: Date.now(),
      // Math.random is deterministic in workflow code (seeded per run): the jitter replays as it was drawn.
      nextWaitMs: next === undefined ? null : jittered(next, Math.random()),
    });
    if (result.outcome !== 'failed') return { outcome: result.outcome, attempts: i + 1 };
    await sleep(result.waitMs!);
  }
  return { outcome: result.outcome, attempts: DELIVERY_SCHEDULE_MS.length };
}
