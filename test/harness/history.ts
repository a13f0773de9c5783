// The activities a workflow history shows, remote (ActivityTaskScheduled) and local (the SDK's local activity
// marker, recorded when one finishes): tests ask "how often, and when, was X called" without caring which way it ran.
import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export interface ActivityCall {
  name: string;
  /** Epoch ms of the event (scheduled for a remote activity; recorded, i.e. finished, for a local one). */
  at: number;
  /** Its result is in the history (completed, failed or timed out; a local one only appears once finished). */
  finished: boolean;
  local: boolean;
}

const LOCAL_ACTIVITY_MARKER = 'core_local_activity';
const epochMs = (e: HistoryEvent) => Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6);

function localActivityType(e: HistoryEvent): string | undefined {
  const marker = e.markerRecordedEventAttributes;
  if (marker?.markerName !== LOCAL_ACTIVITY_MARKER) return undefined;
  const data = marker.details?.data?.payloads?.[0]?.data;
  if (!data) return undefined;
  return (JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string }).activity_type;
}

export function activityCalls(events: readonly HistoryEvent[], name?: string): ActivityCall[] {
  const finished = new Set(events.flatMap((e) => {
    const ended = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes;
    return ended ? [String(ended.scheduledEventId)] : [];
  }));
  const calls: ActivityCall[] = [];
  for (const e of events) {
    const remote = e.activityTaskScheduledEventAttributes?.activityType?.name;
    if (remote) calls.push({ name: remote, at: epochMs(e), finished: finished.has(String(e.eventId)), local: false });
    const local = localActivityType(e);
    if (local) calls.push({ name: local, at: epochMs(e), finished: true, local: true });
  }
  return name === undefined ? calls : calls.filter((c) => c.name === name);
}
