// What a processor's cue does, whoever noticed it: a verified webhook (api/routes/webhooks/processor.ts) or the
// processor sweep that lists what the webhooks may have lost (activities/processor/processor-sweep.ts). One path each:
//
//   - an event about a checkout's payment (a refund among them) → signal-with-start of the session's checkout
//     workflow, which reads the processor itself before believing anything (a refund: syncProcessorRefunds), and
//     deduplicates by event id;
//   - a dispute → the merchant-event workflow of its fact key (merchant-event-<type>:<dispute id>), started once:
//     a dispute seen by the webhook and by the sweep is recorded once, its dispute.created and, at a final status,
//     its dispute.resolved.
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Config } from '../../config/index.js';
import type { Db } from '../../prisma/client.js';
import { PROCESSOR_EVENT_SIGNAL, type CheckoutWorkflowInput, type ProcessorEventMessage } from '../../domain/checkout/checkout-workflow.js';
import { factKeyOf, FINAL_DISPUTE_STATUSES } from '../../domain/merchant-webhooks/merchant-webhooks.js';
import { isCheckoutToken } from '../../domain/tokens.js';
import type { Payment } from '../../integrations/processor/index.js';
import type { ProcessorDispute, ProcessorEvent } from '../../integrations/processor/webhook.js';
import { WORKFLOWS } from '../../domain/temporal/workflow-names.js';


/** What identifies a session to its workflow (a row of checkout_sessions has these three). */
export interface CheckoutRef {
  token: string;
  merchantId: string;
  /** STOREFRONT_A or STOREFRONT_B, as stored. */
  platform: string;
}

export interface CueDeps {
  config: Pick<Config, 'checkout' | 'temporal'>;
  temporal: { readonly client: Client };
}

/** The workflow's input for a session: its identity and the configured abandonment delay. */
export function checkoutWorkflowInput(config: Pick<Config, 'checkout'>, session: CheckoutRef): CheckoutWorkflowInput {
  return { token: session.token, merchantId: session.merchantId, platform: session.platform as CheckoutWorkflowInput['platform'], abandonAfterMs: config.checkout.abandonAfterMs };
}

/** The options that start a session's workflow when no run is open. */
export function checkoutStartOptions(deps: CueDeps, session: CheckoutRef) {
  return {
    workflowId: WORKFLOWS.checkout.id(session.token),
    taskQueue: deps.config.temporal.taskQueue,
    args: [checkoutWorkflowInput(deps.config, session)] as [CheckoutWorkflowInput],
  };
}

/** Delivers a processor event to the session's workflow, starting it first if no run is open. */
export async function signalProcessorEvent(deps: CueDeps, session: CheckoutRef, message: ProcessorEventMessage): Promise<void> {
  await deps.temporal.client.workflow.signalWithStart<(input: CheckoutWorkflowInput) => Promise<unknown>, [ProcessorEventMessage]>(WORKFLOWS.checkout.type, {
    ...checkoutStartOptions(deps, session),
    signal: PROCESSOR_EVENT_SIGNAL,
    signalArgs: [message],
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * An event about one of the session's payments, as its workflow takes it: the spec's name (the workflow knows no
 * other), the payment, and an accepted upsell's id when the payment is that upsell's charge (its metadata).
 */
export function checkoutEventMessage(eventId: string, event: Pick<ProcessorEvent, 'specEvent' | 'paymentId' | 'metadata'>): ProcessorEventMessage {
  const upsellId = event.metadata.checkout_upsell_id;
  return { eventId, event: event.specEvent, paymentId: event.paymentId, ...(upsellId && UUID.test(upsellId) ? { upsellId } : {}) };
}

/** A processor event about a checkout's payment, to the session's workflow (signal-with-start). */
export async function cueCheckout(deps: CueDeps, session: CheckoutRef, eventId: string, event: Pick<ProcessorEvent, 'specEvent' | 'paymentId' | 'metadata'>): Promise<void> {
  await signalProcessorEvent(deps, session, checkoutEventMessage(eventId, event));
}

/** A dispute as both paths know it (a webhook's data, a row of the processor's dispute list). */
export type DisputeCue = Pick<ProcessorDispute, 'id' | 'status' | 'amountMinor' | 'currency' | 'reason' | 'paymentId'>;

/**
 * The merchant's dispute events, recorded by a workflow of their own (merchant-event-<fact key>): dispute.created,
 * and dispute.resolved once the status is final; each once, by its fact key (a later cue at a final status also
 * records a dispute.created that was never recorded). The worker finds the session (sessionOfProcessorPayment).
 */
export async function cueDispute(deps: CueDeps, merchantId: string, dispute: DisputeCue): Promise<void> {
  const facts = { dispute_id: dispute.id, status: dispute.status, amount_minor: dispute.amountMinor, currency: dispute.currency, reason: dispute.reason, processor_payment_id: dispute.paymentId };
  const types = FINAL_DISPUTE_STATUSES.has(dispute.status) ? (['dispute.created', 'dispute.resolved'] as const) : (['dispute.created'] as const);
  const last = types[types.length - 1]!;
  try {
    await deps.temporal.client.workflow.start(WORKFLOWS.merchantEvent.type, {
      workflowId: WORKFLOWS.merchantEvent.id(factKeyOf(last, dispute.id)),
      taskQueue: deps.config.temporal.taskQueue,
      args: [{ events: types.map((type) => ({ type, merchantId, dispute: facts })) }],
      // Recorded already (or being recorded): the same facts. A run that failed may run again.
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/** A processor payment's checkout session, and the accepted upsell whose charge it is (absent for the checkout's own payment). */
export type PaymentSession = CheckoutRef & { upsellId?: string };

/**
 * The checkout session a processor payment (`pay_…`) belongs to, or null when it is not one of this merchant's
 * checkouts: ours by the payment id (a session paid by id, an upsell's charge), else the payment read with the
 * merchant's key only then (its checkout_session_token metadata, or the checkout configuration it was paid through, which
 * is the session's processor_payment_id). An upsell's charge names its upsell, so that an event about it (a refund the
 * sweep found) reaches the upsell's purchase, as its webhook's metadata does, not the checkout's own payment.
 */
export async function sessionOfProcessorPayment(db: Db, readPayment: (paymentId: string) => Promise<Pick<Payment, 'metadata' | 'checkoutId'>>, merchantId: string, paymentId: string): Promise<PaymentSession | null> {
  const select = { token: true, merchantId: true, platform: true } as const;
  const own = await db.checkoutSession.findFirst({ where: { merchantId, processorPaymentId: paymentId }, select });
  if (own) return own;
  const upsell = await db.upsellPurchase.findFirst({ where: { merchantId, processorPaymentId: paymentId }, select: { upsellId: true, session: { select } } });
  if (upsell) return { ...upsell.session, upsellId: upsell.upsellId };
  const payment = await readPayment(paymentId);
  const token = payment.metadata.checkout_session_token;
  if (isCheckoutToken(token)) {
    const session = await db.checkoutSession.findFirst({ where: { merchantId, token }, select });
    // An upsell's charge whose answer was lost before its id was stored: its metadata still names the upsell.
    const upsellId = payment.metadata.checkout_upsell_id;
    return session && upsellId ? { ...session, upsellId } : session;
  }
  return payment.checkoutId ? db.checkoutSession.findFirst({ where: { merchantId, processorPaymentId: payment.checkoutId }, select }) : null;
}
