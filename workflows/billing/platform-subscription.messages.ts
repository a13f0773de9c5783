// The platform subscription workflow's contract: its id, input, updates, signal and query, shared by the
// workflow, the billing API, the billing webhook route and the activities. Deterministic (types and
// @temporalio/workflow definitions only).
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';


/** Clocks of the subscription; every one has a production default, tests shorten them. */
export interface PlatformSubscriptionTimings {
  /** Length of a billing period (default: one calendar month). */
  periodMs?: number;
  /** From the first failed renewal charge to the return to Demo (default 7 days). */
  graceMs?: number;
  /** Renewal charges in all, spread over the grace period (default 3). */
  renewalAttempts?: number;
  /** A first payment not made within this long is given up (default 24 hours). */
  firstPaymentTimeoutMs?: number;
  /** First look at an unpaid first payment when no webhook came; it backs off to hourly (default 30 seconds). */
  firstPollMs?: number;
}

export interface PlatformSubscriptionInput {
  merchantId: string;
  timings?: PlatformSubscriptionTimings;
  /** Set by the run before (continue-as-new) when a billing event came that no read of the membership answered yet. */
  membershipCue?: boolean;
}

export interface SubscribeRequest {
  planId: string;
}

export interface SubscribeResult {
  planId: string;
  /** The processor's hosted page where the merchant pays the first period. */
  paymentUrl: string;
}

export interface CancelResult {
  /** The plan the account was on (or was buying) before it returned to Demo. */
  previousPlanId: string;
}

/**
 * A billing event from the processor (after signature check and dedupe): a cue to look at the processor, never
 * trusted for what it says (the first payment's state, or the membership's while a plan is paid, is read from the API).
 */
export interface BillingEventMessage {
  eventId: string;
  event: string;
  /** The payment (pay_...) or membership (mem_...) the event is about. */
  objectId: string;
}

export interface SubscriptionState {
  planId: string;
  status: string;
  periodEnd: number | null;
  pendingPlanId: string | null;
  renewalFailures: number;
}

/** Buy a paid plan (first plan, or a change of plan): answers the payment page. */
export const subscribeUpdate = defineUpdate<SubscribeResult, [SubscribeRequest]>('subscribe');
/** Back to Demo at once: the account is Demo when this answers; the processor side follows. */
export const cancelUpdate = defineUpdate<CancelResult, []>('cancel');
export const billingEventSignal = defineSignal<[BillingEventMessage]>('billingEvent');
export const subscriptionStateQuery = defineQuery<SubscriptionState>('subscriptionState');
