import { ApplicationFailure, allHandlersFinished, condition, log, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import { applyProcessorEvent, canTransition, type CheckoutStatus } from '../domain/checkout-status.js';
import type { CheckoutSessionActivities } from '../activities/checkout-session.js';
import type { CheckoutPaymentActivities } from '../activities/checkout-payment.js';
import type { FulfilmentActivities } from '../activities/checkout-fulfilment.js';
import {
  initPaymentUpdate, payUpdate, PAYMENT_STATUS_EVENTS, processorEventSignal, refreshStatusUpdate, statusQuery,
  type CheckoutWorkflowInput, type InitPaymentResult, type ProcessorEventMessage, type ShopperDetails, type StatusResult,
} from './checkout.messages.js';
import { searchAttributeKeys } from './search-attributes.js';

const HOUR = 60 * 60 * 1000;

// Writes of the session's own record: quick, retried for a while.
const session = proxyActivities<CheckoutSessionActivities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 20 },
});
// The shopper is waiting on these: a few quick attempts, then a clear error.
const payment = proxyActivities<CheckoutPaymentActivities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '5 seconds', maximumAttempts: 3 },
});
// A paid session's order: keep trying for two days while the store is down; a permanent refusal stops at once.
const storeActivities = (initialIntervalMs = 5_000) => proxyActivities<FulfilmentActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '48 hours',
  retry: { initialInterval: initialIntervalMs, backoffCoefficient: 2, maximumInterval: '30 minutes' },
});
// Emails: a few attempts, never a flood.
const emails = proxyActivities<FulfilmentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 3, maximumInterval: '20 minutes', maximumAttempts: 6 },
});

const SETTLED: ReadonlySet<CheckoutStatus> = new Set(['COMPLETED', 'REFUNDED', 'COD_CONFIRMED', 'ABANDONED']);

/** Owns one checkout session from cart to paid order: its status, its payment, and the order and emails after payment, each exactly once. */
export async function checkoutWorkflow(input: CheckoutWorkflowInput): Promise<StatusResult> {
  const { token } = input;
  const abandonAfterMs = input.abandonAfterMs ?? 24 * HOUR;
  const reconcileAfterMs = input.reconcileAfterMs ?? 5 * 60 * 1000;
  const store = storeActivities(input.storeRetryInitialMs);

  let status = 'OPEN' as CheckoutStatus; // set by the load below and by handlers
  let attempt = 0;
  let lastActivity = Date.now();
  let current: (InitPaymentResult & { detailsKey: string }) | undefined;
  const seenEvents = new Set<string>();
  // Operators find any session in the Web UI by merchant, store platform and status (kept current below).
  upsertSearchAttributes([
    { key: searchAttributeKeys.merchantId, value: input.merchantId },
    { key: searchAttributeKeys.storePlatform, value: input.platform },
  ]);
  const publishStatus = () => upsertSearchAttributes([{ key: searchAttributeKeys.checkoutStatus, value: status }]);
  let fulfilment: Promise<void> | undefined;
  let fulfilled = false;

  // A workflow started (or restarted) by a late event resumes from what the database holds. The load is the
  // first item of the queue below, so handlers registered before it finishes wait for it.
  const load = session.loadSessionStatus(token).then((loaded) => {
    status = loaded.status;
    publishStatus();
    attempt = loaded.paymentAttempt;
    if (loaded.hasOrder) {
      fulfilment = Promise.resolve();
      fulfilled = true;
    }
  });

  // One change at a time: signals and updates that arrive together are applied in order.
  let lock: Promise<unknown> = load;
  function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = lock.then(fn);
    lock = run.catch(() => undefined);
    return run;
  }

  async function setStatus(next: CheckoutStatus, cause: string) {
    if (next === status) return;
    await session.recordSessionStatus(token, next, cause);
    status = next;
    publishStatus();
    lastActivity = Date.now();
  }

  async function fulfil() {
    try {
      await store.createStoreOrder(token);
    } catch (err) {
      // The store refused for good (or for two days): keep the paid session, flag it and tell the merchant.
      const message = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      log.error('store order failed', { token, message });
      await store.recordStoreOrderFailure(token, message);
      await emails.sendStoreOrderProblemEmail(token).catch((e: unknown) => log.error('problem email failed', { token, error: String(e) }));
    }
    for (const send of [emails.sendOrderConfirmation, emails.sendMerchantOrderNotification]) {
      await send(token).catch((e: unknown) => log.error('order email failed', { token, error: String(e) }));
    }
    fulfilled = true;
  }

  async function applyEvent(message: ProcessorEventMessage) {
    if (seenEvents.has(message.eventId)) return;
    seenEvents.add(message.eventId);
    const outcome = applyProcessorEvent(status, message.event);
    if (outcome.changed) await setStatus(outcome.next, `${message.event} (${message.eventId})`);
    // Every COMPLETED session gets its order exactly once, however many success events arrive.
    if (outcome.effect === 'create_order' && !fulfilment) fulfilment = fulfil();
  }

  async function syncWithProcessor(cause: string): Promise<StatusResult> {
    const found = await payment.getProcessorPaymentStatus(token);
    const event = found ? PAYMENT_STATUS_EVENTS[found.status] : undefined;
    if (found && event) await applyEvent({ eventId: `sync:${found.paymentId}:${found.status}`, event, paymentId: found.paymentId });
    log.info('status sync', { token, cause, processorStatus: found?.status ?? null, status });
    return { status };
  }

  setHandler(statusQuery, () => ({ status }));

  setHandler(processorEventSignal, (message) => {
    void exclusive(() => applyEvent(message));
  });

  setHandler(initPaymentUpdate, (details: ShopperDetails) =>
    exclusive(async () => {
      const detailsKey = JSON.stringify(details);
      if (status === 'PAYMENT_PENDING' && current) {
        // A double click gets the same payment; other details while one is pending would make two.
        if (current.detailsKey === detailsKey) return { paymentId: current.paymentId, paymentUrl: current.paymentUrl, totalMinor: current.totalMinor, currency: current.currency };
        throw ApplicationFailure.create({ type: 'CONFLICT', message: 'A payment for this checkout is already in progress', nonRetryable: true });
      }
      if (!canTransition(status, 'PAYMENT_PENDING')) {
        throw ApplicationFailure.create({ type: 'CONFLICT', message: `This checkout is ${status.toLowerCase().replace('_', ' ')}: no payment can start`, nonRetryable: true });
      }
      const quote = await session.recordShopperDetails(token, details);
      attempt += 1;
      const created = await payment.createProcessorPayment(token, attempt);
      await setStatus('PAYMENT_PENDING', 'init-payment');
      current = { ...created, totalMinor: quote.totalMinor, currency: quote.currency, detailsKey };
      return { paymentId: created.paymentId, paymentUrl: created.paymentUrl, totalMinor: quote.totalMinor, currency: quote.currency };
    }),
  );

  setHandler(payUpdate, () => exclusive(() => syncWithProcessor('pay')));
  setHandler(refreshStatusUpdate, () => exclusive(() => syncWithProcessor('refresh-status')));

  await load;

  while (!SETTLED.has(status)) {
    if (status === 'PAYMENT_PENDING') {
      // Processors stop retrying webhooks quickly: when none came, ask, backing off up to an hour.
      let wait = reconcileAfterMs;
      while (status === 'PAYMENT_PENDING' && Date.now() - lastActivity < abandonAfterMs) {
        if (await condition(() => status !== 'PAYMENT_PENDING', wait)) break;
        await exclusive(() => syncWithProcessor('reconciliation'));
        wait = Math.min(wait * 2, HOUR);
      }
      if (status === 'PAYMENT_PENDING') await exclusive(() => setStatus('ABANDONED', 'no payment result'));
      continue;
    }
    const seen = lastActivity;
    const idleFor = Date.now() - lastActivity;
    const progressed = await condition(() => lastActivity !== seen || SETTLED.has(status), Math.max(abandonAfterMs - idleFor, 1));
    if (!progressed && canTransition(status, 'ABANDONED')) await exclusive(() => setStatus('ABANDONED', `no progress for ${abandonAfterMs / HOUR} hours`));
  }

  await condition(() => (fulfilment === undefined || fulfilled) && allHandlersFinished());
  return { status };
}
