// Outgoing webhooks of the local Whop. Every new event passes one pipeline:
//   [delay] → drop (while a drop count is armed) → hold (queued in the outbox) → deliver.
// Delivery POSTs the event's exact JSON bytes ({ id, api_version, type, timestamp, company_id, data }) to each
// subscribed endpoint of the company, signed as Whop signs that endpoint (Whop's whop-sandbox notes, "verified live"):
// - created through `POST /webhooks`: no Standard Webhooks headers, only `x-whop-signature: t=<unix>,v1=<hex
//   HMAC-SHA256 of "t.body">` keyed with the endpoint's raw `ws_…` secret (the notes observed it at api_version v5;
//   this simulator signs every API-created endpoint so, whatever its api_version);
// - created in the dashboard: Standard Webhooks (https://www.standardwebhooks.com/): webhook-id, webhook-timestamp
//   (unix seconds) and webhook-signature `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the UTF-8
//   bytes of the same kind of secret.
// During a secret rotation a delivery carries one signature per secret (`v1,…` entries, or `v1=` entries). A failed attempt (non-2xx, network error, time-out) is retried
// after each configured delay (Whop: 10, 20, 40 s), then dropped. Every attempt is logged. Redelivery sends an
// existing event again, same id and bytes (a fresh timestamp and signature), outside the pipeline.
import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { newId, WhopError } from './store.js';

/** The signature of one Standard Webhooks delivery with one secret (its UTF-8 bytes are the key, as Whop documents). */
export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** Whop's x-whop-signature for a body: t=<unix>, then one v1=<hex HMAC-SHA256 of "t.body"> per secret (raw secret bytes as the key). */
export function whopSignature(secrets: readonly string[], timestamp: number, body: string): string {
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.${body}`).digest('hex')}`)].join(',');
}

export interface EventPayload {
  id: string;
  api_version: 'v1';
  type: string;
  timestamp: string;
  company_id: string;
  data: unknown;
}

/** A new event as Whop sends it (SDK `PaymentSucceededWebhookEvent` and siblings); its `id` is also the webhook-id header. */
export function eventPayload(companyId: string, type: string, data: unknown): EventPayload {
  return { id: newId('msg', 24), api_version: 'v1', type, timestamp: new Date().toISOString(), company_id: companyId, data };
}

export interface WebhookTarget {
  id: string;
  url: string;
  /** How this endpoint's deliveries are signed: API-created ones with x-whop-signature, dashboard ones with Standard Webhooks. */
  scheme: 'x-whop-signature' | 'standard-webhooks';
  /** The secrets a delivery is signed with: one, or the old and the new one during a rotation. */
  secrets: string[];
}

export interface WebhookDispatcherOptions {
  targets(companyId: string, type: string): WebhookTarget[];
  /** Retries stop once the endpoint is deleted. */
  targetExists(id: string): boolean;
  retryDelaysMs: number[];
  timeoutMs: number;
}

export type EventState = 'scheduled' | 'dropped' | 'held' | 'sent';

export interface StoredEvent {
  id: string;
  event: string;
  companyId: string;
  state: EventState;
  /** The exact bytes sent on every delivery of this event. */
  body: string;
  payload: EventPayload;
}

export interface DeliveryAttempt {
  event_id: string;
  event: string;
  webhook_id: string;
  url: string;
  attempt: number;
  ok: boolean;
  status_code: number | null;
  error: string | null;
  at: string;
  duration_ms: number;
}

export class WebhookDispatcher {
  private events = new Map<string, StoredEvent>();
  private outbox: Array<{ event: StoredEvent; times: number }> = [];
  private log: DeliveryAttempt[] = [];
  private holding = false;
  private dropCount = 0;
  private inflight = new Set<Promise<unknown>>();
  private abort = new AbortController();
  /** Endpoint id → its previous secret, while a rotation lasts (deliveries carry both signatures). */
  readonly rotating = new Map<string, string>();

  constructor(private readonly opts: WebhookDispatcherOptions) {}

  /** Creates an event and sends it through the pipeline; `times` copies are delivered concurrently. */
  publish(companyId: string, type: string, data: unknown, opts: { times?: number; delayMs?: number } = {}): StoredEvent {
    const payload = eventPayload(companyId, type, data);
    const stored: StoredEvent = { id: payload.id, event: type, companyId, state: 'scheduled', body: JSON.stringify(payload), payload };
    this.events.set(stored.id, stored);
    const times = opts.times ?? 1;
    if (opts.delayMs) {
      const signal = this.abort.signal;
      this.track(sleep(opts.delayMs, undefined, { signal }).then(() => this.enter(stored, times), () => undefined));
    } else {
      this.enter(stored, times);
    }
    return stored;
  }

  private enter(stored: StoredEvent, times: number): void {
    if (this.dropCount > 0) {
      this.dropCount -= 1;
      stored.state = 'dropped';
    } else if (this.holding) {
      stored.state = 'held';
      this.outbox.push({ event: stored, times });
    } else {
      this.track(this.deliver(stored, times));
    }
  }

  hold(): void {
    this.holding = true;
  }

  drop(count: number): void {
    this.dropCount = count;
  }

  outboxEvents(): { holding: boolean; dropping: number; events: Array<{ id: string; event: string; times: number; payload: EventPayload }> } {
    return {
      holding: this.holding,
      dropping: this.dropCount,
      events: this.outbox.map(({ event, times }) => ({ id: event.id, event: event.event, times, payload: event.payload })),
    };
  }

  /**
   * Ends holding and sends the queued events: those in `ids` first, in that order, then the rest in queue
   * order. Each event's first attempt finishes before the next starts, so receivers see this order.
   */
  async release(ids: string[] = []): Promise<string[]> {
    const unknown = ids.filter((id) => !this.outbox.some((q) => q.event.id === id));
    if (unknown.length) throw new WhopError(404, 'not_found', `Not in the outbox: ${unknown.join(', ')}`);
    const queue = this.outbox;
    const ordered = [...ids.map((id) => queue.find((q) => q.event.id === id)!), ...queue.filter((q) => !ids.includes(q.event.id))];
    this.outbox = [];
    this.holding = false;
    for (const { event, times } of ordered) {
      const firstAttempts: Array<Promise<void>> = [];
      this.track(this.deliver(event, times, firstAttempts));
      await Promise.all(firstAttempts);
    }
    return ordered.map((q) => q.event.id);
  }

  /** Sends an existing event again (same id, same bytes), e.g. to simulate a duplicate delivery. */
  redeliver(eventId: string, times = 1): StoredEvent {
    const stored = this.events.get(eventId);
    if (!stored) throw new WhopError(404, 'not_found', `No such event: '${eventId}'`);
    this.track(this.deliver(stored, times));
    return stored;
  }

  deliveries(eventId?: string): DeliveryAttempt[] {
    return this.log.filter((d) => eventId === undefined || d.event_id === eventId);
  }

  listEvents(): Array<{ id: string; event: string; state: EventState; company_id: string; payload: EventPayload }> {
    return [...this.events.values()].map((e) => ({ id: e.id, event: e.event, state: e.state, company_id: e.companyId, payload: e.payload }));
  }

  /** Resolves once nothing is being delivered, retried or waiting on a delay (held events excepted). */
  async idle(): Promise<void> {
    while (this.inflight.size) await Promise.allSettled([...this.inflight]);
  }

  /** Forgets everything and cancels pending deliveries, retries and delays. */
  reset(): void {
    this.abort.abort();
    this.abort = new AbortController();
    this.events.clear();
    this.outbox = [];
    this.log = [];
    this.holding = false;
    this.dropCount = 0;
    this.rotating.clear();
  }

  private track(promise: Promise<unknown>): void {
    const tracked = promise.catch(() => undefined).finally(() => this.inflight.delete(tracked));
    this.inflight.add(tracked);
  }

  /** Delivers `times` concurrent copies to every subscribed endpoint; pushes each copy's first attempt into `firstAttempts`. */
  private async deliver(stored: StoredEvent, times: number, firstAttempts: Array<Promise<void>> = []): Promise<void> {
    stored.state = 'sent';
    const copies = this.opts.targets(stored.companyId, stored.event).flatMap((target) =>
      Array.from({ length: times }, () => {
        let firstDone!: () => void;
        firstAttempts.push(new Promise<void>((resolve) => (firstDone = resolve)));
        return this.deliverWithRetries(stored, target, firstDone).finally(firstDone);
      }),
    );
    await Promise.all(copies);
  }

  private async deliverWithRetries(stored: StoredEvent, target: WebhookTarget, firstDone: () => void): Promise<void> {
    const signal = this.abort.signal;
    for (let attempt = 1; ; attempt++) {
      const ok = await this.attempt(stored, target, attempt, signal);
      if (attempt === 1) firstDone();
      const delay = this.opts.retryDelaysMs[attempt - 1];
      if (ok || delay === undefined || signal.aborted) return;
      await sleep(delay, undefined, { signal });
      if (!this.opts.targetExists(target.id)) return;
    }
  }

  private async attempt(stored: StoredEvent, target: WebhookTarget, attempt: number, signal: AbortSignal): Promise<boolean> {
    const started = Date.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    const timestamp = Math.floor(started / 1000);
    try {
      const res = await fetch(target.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'whop-sandbox-webhooks/1.0',
          ...(target.scheme === 'x-whop-signature'
            ? { 'x-whop-signature': whopSignature(target.secrets, timestamp, stored.body) }
            : {
              'webhook-id': stored.id,
              'webhook-timestamp': String(timestamp),
              'webhook-signature': target.secrets.map((secret) => standardSignature(secret, stored.id, timestamp, stored.body)).join(' '),
            }),
        },
        body: stored.body,
        redirect: 'manual',
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.opts.timeoutMs)]),
      });
      statusCode = res.status;
      await res.body?.cancel();
    } catch (err) {
      if (signal.aborted) throw err; // reset: this delivery no longer exists
      error = err instanceof Error ? (err.cause instanceof Error ? `${err.message}: ${err.cause.message}` : err.message) : String(err);
    }
    const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
    this.log.push({
      event_id: stored.id,
      event: stored.event,
      webhook_id: target.id,
      url: target.url,
      attempt,
      ok,
      status_code: statusCode,
      error,
      at: new Date(started).toISOString(),
      duration_ms: Date.now() - started,
    });
    return ok;
  }
}
