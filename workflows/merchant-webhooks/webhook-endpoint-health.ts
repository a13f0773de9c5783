// Watches one merchant endpoint while its deliveries fail (webhook-endpoint-health-<endpointId>, started by the first
// failed attempt of a streak, signal-with-start): on day 1 and day 3 of continuous failure the merchant gets a
// warning email, on day 5 the endpoint is disabled (reason failing) and the merchant told. A success ends the
// streak (the attempt activity clears failing_since and cues this workflow), and so does the merchant enabling the
// endpoint again: the workflow reads the database before each step and ends once the endpoint is healthy or
// disabled. Each step's email has an idempotency key of its streak, so a step is never mailed twice.
import { condition, defineSignal, log, proxyActivities, setHandler } from '@temporalio/workflow';
import { ENDPOINT_HEALTH_CUE, ENDPOINT_HEALTH_STEPS, type EndpointHealthStep } from '../../domain/merchant-webhooks/merchant-webhooks.js';
import type { MerchantWebhookActivities } from '../../activities/merchant-webhooks/merchant-webhooks.js';
import { PROFILES } from '../activity-profiles.js';

const records = proxyActivities<MerchantWebhookActivities>(PROFILES.endpointHealthRecord);
// Emails: a few attempts, never a flood.
const emails = proxyActivities<MerchantWebhookActivities>(PROFILES.email);

export const endpointHealthCue = defineSignal(ENDPOINT_HEALTH_CUE);

export interface WebhookEndpointHealthInput {
  endpointId: string;
}

export interface WebhookEndpointHealthResult {
  /** recovered (a success, or enabled again), disabled (day 5), already_disabled, deleted. */
  outcome: 'recovered' | 'disabled' | 'already_disabled' | 'deleted';
  /** Steps taken: warning emails and the disable. */
  steps: EndpointHealthStep[];
}

/** Warns the merchant on day 1 and day 3 of a failing endpoint, and disables it on day 5. */
export async function webhookEndpointHealthWorkflow(input: WebhookEndpointHealthInput): Promise<WebhookEndpointHealthResult> {
  const { endpointId } = input;
  let cues = 0;
  setHandler(endpointHealthCue, () => void (cues += 1));
  const steps: EndpointHealthStep[] = [];
  /** `<failingSince>:<step>` done in this run. */
  const done = new Set<string>();

  for (;;) {
    const seen = cues;
    const health = await records.loadWebhookEndpointHealth(endpointId);
    if (!health || !health.enabled || health.failingSince === null) {
      // A cue that came while reading (a new streak began) is read again before the run ends.
      if (cues !== seen) continue;
      return { outcome: !health ? 'deleted' : !health.enabled ? (steps.includes('disable') ? 'disabled' : 'already_disabled') : 'recovered', steps };
    }
    const since = health.failingSince;
    const pending = ENDPOINT_HEALTH_STEPS.filter((s) => !done.has(`${since}:${s.step}`));
    const elapsed = Date.now() - since;
    const due = pending.filter((s) => elapsed >= s.at);
    if (due.length === 0) {
      // Until the next step is due, or a cue (a success, a new streak) says to read again.
      await condition(() => cues !== seen, pending[0]!.at - elapsed);
      continue;
    }
    // Only the latest due step is taken: a run that wakes late (a worker outage) does not mail stale warnings.
    const step = due[due.length - 1]!;
    for (const s of due) done.add(`${since}:${s.step}`);
    if (step.step === 'disable') {
      const { disabled } = await records.disableFailingWebhookEndpoint({ endpointId, failingSince: since });
      if (!disabled) continue;
    }
    steps.push(step.step);
    await emails.sendWebhookEndpointEmail({ endpointId, failingSince: since, step: step.step }).catch((err: unknown) => log.error('webhook endpoint email failed', { endpointId, step: step.step, error: String(err) }));
  }
}
