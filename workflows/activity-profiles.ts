// Every time-out and retry policy a workflow gives its activities, named by what it is for, in one place: a workflow
// picks a profile (`proxyActivities<A>(PROFILES.email)`), never writes its own. A policy shared by several profiles
// is written once (RETRY). Changing a value here changes every workflow that uses the profile; a command's time-outs
// and retry policy are not part of the determinism check, so recorded histories replay either way.
import type { ActivityOptions } from '@temporalio/workflow';
import { DELIVERY_TIMEOUT_MS } from '../domain/merchant-webhooks/merchant-webhooks.js';

/** Retry policies used by more than one profile. */
const RETRY = {
  /** Our own database or Temporal: retried until it lands, every 30 s at most. */
  untilDone: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  /** Our own infrastructure over longer outages: retried until it works, every minute at most. */
  untilDoneMinutely: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  /** Someone waits: a few quick attempts, then a clear error. */
  waitedOn: { initialInterval: '500 milliseconds', maximumInterval: '5 seconds', maximumAttempts: 3 },
  /** Emails: a few attempts over about an hour, never a flood. */
  email: { initialInterval: '10 seconds', backoffCoefficient: 3, maximumInterval: '20 minutes', maximumAttempts: 6 },
  /** A sweep's list of work: our own database, retried a while (the next run asks again anyway). */
  sweepList: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10 },
  /** A sweep's remote calls: few attempts, as the next run asks again anyway. */
  sweepRemote: { initialInterval: '2 seconds', maximumInterval: '30 seconds', maximumAttempts: 3 },
  /** The merchant waits on a remote's answer (processor, store): one quick retry, then tell them. */
  merchantWaitsOnRemote: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '2 seconds', maximumAttempts: 2 },
  /** Our own records of a connection the merchant waits on: retried a little longer, they keep its state true. */
  connectionRecord: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds', maximumAttempts: 6 },
  /** Our own records the merchant waits on at setup: a few quick attempts. */
  setupRecord: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds', maximumAttempts: 5 },
} as const satisfies Record<string, ActivityOptions['retry']>;

export const PROFILES = {
  // --- checkout (workflows/checkout/checkout.ts) ---
  /**
   * Writes of the session's own record (and payment records that are ours alone): quick, and retried until they land.
   * A status the workflow decided must be written whatever the database's outage: with a bounded policy, a write
   * failing for good inside a signal (a success webhook during a 10-minute outage) was an unhandled rejection that
   * stuck the run's workflow task for ever, and the order with it. Refusals (an unknown rate, a code that does not
   * apply) are non-retryable and still answer at once.
   */
  sessionWrite: { startToCloseTimeout: '15 seconds', retry: RETRY.untilDone },
  /** Someone waits on these (the shopper; the merchant at backfill-status; the store's tax quote; a refund or an upsell's charge). */
  waitedOn: { startToCloseTimeout: '15 seconds', retry: RETRY.waitedOn },
  /** A paid session's order (and its refunds, an upsell's order): keep trying for two days while the store is down; a permanent refusal stops at once. */
  storeOrder: (initialIntervalMs = 5_000): ActivityOptions => ({
    startToCloseTimeout: '30 seconds',
    scheduleToCloseTimeout: '48 hours',
    retry: { initialInterval: initialIntervalMs, backoffCoefficient: 2, maximumInterval: '30 minutes' },
  }),
  /** The store order's first try, as a local activity in the success webhook's workflow task: once; a try that does not land falls back to storeOrder. */
  storeOrderFirstTry: { startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 1 } },
  /** The shopper's cart at the store, emptied after the order: a few quick tries, never holding up the emails for long. */
  storeCart: { startToCloseTimeout: '15 seconds', retry: { initialInterval: '2 seconds', maximumInterval: '10 seconds', maximumAttempts: 3 } },
  /** The merchant's webhook events (session.completed, ...): our own database and Temporal, retried until recorded. */
  merchantEvent: { startToCloseTimeout: '30 seconds', retry: RETRY.untilDone },

  // --- emails ---
  /** Emails: a few attempts over about an hour, never a flood. */
  email: { startToCloseTimeout: '30 seconds', retry: RETRY.email },
  /** Recovery emails: one attempt fewer than other emails (the send itself is idempotent per session and step). */
  recoveryEmail: { startToCloseTimeout: '30 seconds', retry: { ...RETRY.email, maximumAttempts: 5 } },
  /** An email refused for good, recorded as failed: the SDK's default retries. */
  emailFailure: { startToCloseTimeout: '10 seconds' },

  // --- our own records ---
  /** Recovery's own database reads and writes: retried until they answer. */
  recoveryRecord: { startToCloseTimeout: '15 seconds', retry: RETRY.untilDone },
  /** A webhook endpoint's health records: retried until they land. */
  endpointHealthRecord: { startToCloseTimeout: '15 seconds', retry: RETRY.untilDoneMinutely },
  /** A merchant webhook delivery's steps (our database, the signing, Temporal): retried until they work; an endpoint's answer is the attempt's result, never a failure. */
  webhookDelivery: { startToCloseTimeout: DELIVERY_TIMEOUT_MS + 45_000, retry: RETRY.untilDoneMinutely },
  /** The delivery's POST: heartbeats, so a worker that died mid-POST is noticed after 20 s instead of the start-to-close time-out. */
  webhookDeliveryAttempt: { startToCloseTimeout: DELIVERY_TIMEOUT_MS + 45_000, heartbeatTimeout: '20 seconds', retry: RETRY.untilDoneMinutely },
  /** Stats roll-ups: long database work, retried until done. */
  statsRollup: { startToCloseTimeout: '10 minutes', retry: RETRY.untilDoneMinutely },
  /** The platform subscription's own records: quick, retried for a while (they keep the account's plan true). */
  billingRecord: { startToCloseTimeout: '15 seconds', retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 20 } },
  /** A custom domain's records: retried longer, they are what the merchant sees. */
  customDomainRecord: { startToCloseTimeout: '10 seconds', retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 } },
  /** A wallet domain's records. */
  walletDomainRecord: { startToCloseTimeout: '10 seconds', retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 } },
  /** A processor or storefront B connection's records: retried a little longer than the remote's calls. */
  connectionRecord: { startToCloseTimeout: '10 seconds', retry: RETRY.connectionRecord },
  /** Setup verification's and storefront A's own records the merchant waits on. */
  setupRecord: { startToCloseTimeout: '10 seconds', retry: RETRY.setupRecord },
  /** A storefront A webhook's database work: keep trying for a while, the platform has already been answered. */
  storefrontAWebhook: { startToCloseTimeout: '30 seconds', retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 20 } },

  // --- remotes someone waits on ---
  /** The merchant waits on a remote's answer at connect (processor, storefront B, Apple Pay domain): one quick retry, then tell them. */
  merchantWaitsOnRemote: { startToCloseTimeout: '30 seconds', retry: RETRY.merchantWaitsOnRemote },
  /** The merchant waits on subscribe: a few quick attempts, then a clear error. */
  billingWaitedOn: { startToCloseTimeout: '30 seconds', retry: RETRY.waitedOn },
  /** Storefront A calls a merchant waits on (install, script tag, setup): a few quick attempts, then a clear error. */
  storefrontACall: { startToCloseTimeout: '15 seconds', retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '4 seconds', maximumAttempts: 3 } },
  /** Where a store ships, read while the merchant waits: a store failure comes back as the answer's error, not a retry. */
  storeCountries: { startToCloseTimeout: '30 seconds', retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '2 seconds', maximumAttempts: 3 } },
  /** One DNS look: a few quick attempts (a resolver hiccup), then it counts as a failed check. */
  dnsLook: { startToCloseTimeout: '20 seconds', retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 3 } },

  // --- background remotes ---
  /** Platform billing's charges, checks and cancellations: keep trying through a processor outage (the renewal's idempotency key makes every retry the same charge). */
  billingBackground: { startToCloseTimeout: '30 seconds', retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 12 } },
  /** A wallet domain's processor calls: a few attempts a round; the next round comes anyway. */
  walletDomainProcessor: { startToCloseTimeout: '30 seconds', retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 4 } },
  /** The ECB's reference rates: it can be down for a while; keep the last rates and retry with backoff for about half a day. */
  fxFetch: { startToCloseTimeout: '30 seconds', retry: { initialInterval: '1 minute', backoffCoefficient: 2, maximumInterval: '1 hour', maximumAttempts: 15 } },
  /** The fetched rates saved. */
  fxSave: { startToCloseTimeout: '30 seconds', retry: { initialInterval: '5 seconds', maximumInterval: '5 minutes', maximumAttempts: 20 } },
  /** A sweep's list of work (idle checkout sessions, merchants to sweep). */
  sweepList: { startToCloseTimeout: '30 seconds', retry: RETRY.sweepList },
  /** A processor sweep's page: one list call plus a lookup and a signal per item; a minute covers a slow processor. */
  sweepPage: { startToCloseTimeout: '2 minutes', retry: RETRY.sweepRemote },
  /** Open disputes read again: up to one GET per dispute, each answered within the client's 10 s; 5 minutes covers the default 20. */
  disputeRecheck: { startToCloseTimeout: '5 minutes', retry: RETRY.sweepRemote },

  // --- benchmarks (scripts/bench) ---
  /** The benchmarks' bare workflows: one row written, a few attempts. */
  benchRow: { startToCloseTimeout: '10 seconds', retry: { initialInterval: '1 second', maximumAttempts: 3 } },
} as const satisfies Record<string, ActivityOptions | ((...args: never[]) => ActivityOptions)>;
