// Records facts the API learns of (a processor's dispute events) as merchant events, with their deliveries: the API
// never calls activities, so it starts this workflow (merchant-event-<fact key>) and the activity records each
// fact once, by its fact key, however often the processor repeats itself.
import type { EmitMerchantEventInput, MerchantWebhookActivities } from '../../activities/merchant-webhooks/merchant-webhooks.js';
import { backgroundActivities } from '../activity-proxies.js';
import { PROFILES } from '../activity-profiles.js';

const events = backgroundActivities<MerchantWebhookActivities>(PROFILES.merchantEvent);

export interface RecordMerchantEventInput {
  /** In order: a dispute's dispute.created comes before its dispute.resolved. */
  events: EmitMerchantEventInput[];
}

/** Turns facts reported to the API into merchant events, each once, and hands them to their deliveries. */
export async function recordMerchantEventWorkflow(input: RecordMerchantEventInput): Promise<{ eventIds: Array<string | null> }> {
  const eventIds: Array<string | null> = [];
  for (const event of input.events) eventIds.push((await events.emitMerchantEvent(event)).eventId);
  return { eventIds };
}
