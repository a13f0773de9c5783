// Platform billing activities: the merchant's plan is paid on the PLATFORM's own processor account (config
// PLATFORM_PROCESSOR_API_KEY), as a processor membership: its first payment is made on the processor's
// hosted page, each renewal is charged on the card on file with an idempotency key per membership, period
// and attempt. platform_subscriptions is written only here, on the subscription workflow's orders, and the
// workflow resumes from it. Emails go through the outbox (recorded, then sent once).
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../config/index.js';
import { Prisma, type Db } from '../prisma/client.js';
import type { SecretBox } from '../security/secrets.js';
import type { EmailClient } from '../integrations/email/index.js';
import { PROCESSOR_EVENTS, type ProcessorClient } from '../integrations/processor/index.js';
import { platformBillingWebhookAad, platformProcessorClient } from '../model/connections.js';
import { isIntegrationError } from '../integrations/errors.js';
import { FREE_PLAN_ID, findPlan, isPaidPlan } from '../domain/plans.js';
import { eur, formatMoney } from '../domain/money.js';
import { PLATFORM_BILLING_METADATA_KEY, PLATFORM_BILLING_WEBHOOK_PATH } from '../domain/plans.js';
import { classifyFailures } from './failures.js';
import { recordEmail, sendRecordedEmail, type EmailSendResult } from './email-outbox.js';
import { renderBillingEmail, type BillingEmailKind } from './billing-email-templates.js';

/** The aad sealing a billing webhook endpoint's secret (security/secrets.ts). */

/** The subscription as the workflow keeps it: instants in epoch ms, so it travels through history as is. */
export interface SubscriptionRecord {
  planId: string;
  status: string;
  membershipId: string | null;
  periodStart: number | null;
  periodEnd: number | null;
  renewalFailures: number;
  pending: { planId: string; membershipId: string; paymentUrl: string; since: number } | null;
}

export type PaymentCheck = 'paid' | 'failed' | 'open' | 'canceled';

export interface BillingEmailRequest {
  merchantId: string;
  kind: BillingEmailKind;
  /** Unique per step (e.g. the membership, period and attempt): the email is sent once per key. */
  idempotencyKey: string;
  planId: string;
  periodEnd?: number;
  attempt?: number;
  attempts?: number;
  nextRetryAt?: number | null;
  graceUntil?: number;
}

const ms = (d: Date | null) => (d ? d.getTime() : null);
const date = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 10);
const EMAIL_LOCALE = 'en';

export function createPlatformBillingActivities(deps: { db: Db; config: Config; secrets: SecretBox; email: EmailClient; timeoutMs?: number }) {
  const { db, config, secrets } = deps;

  const platformProcessor = (): ProcessorClient => platformProcessorClient(deps, config.platformBilling.apiKey);

  function paidPlan(planId: string) {
    const plan = findPlan(planId);
    if (!plan || !isPaidPlan(planId)) throw ApplicationFailure.nonRetryable(`planId: ${planId} is not a paid plan`, 'INVALID_INPUT');
    return plan;
  }

  /**
   * Our endpoint for the platform account's events, registered once per URL and its secret sealed here;
   * skipped when an operator registered one by hand (PLATFORM_PROCESSOR_WEBHOOK_SECRET). Best effort: the
   * workflow also polls, so a failure here only makes confirmation slower.
   */
  async function ensureWebhook(client: ProcessorClient): Promise<void> {
    if (config.platformBilling.webhookSecret) return;
    const url = `${config.publicApiUrl}${PLATFORM_BILLING_WEBHOOK_PATH}`;
    if (await db.platformBillingWebhook.findUnique({ where: { url }, select: { id: true } })) return;
    try {
      const endpoint = await client.registerWebhook({ url, events: [...PROCESSOR_EVENTS] }, `platform-billing-webhook:${url}`);
      await db.platformBillingWebhook.upsert({
        where: { url },
        create: { id: endpoint.id, url, secretEnc: secrets.encrypt(endpoint.secret, platformBillingWebhookAad(endpoint.id)) },
        update: {},
      });
    } catch (err) {
      if (isIntegrationError(err) || (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002')) return;
      throw err;
    }
  }

  /** The processor plan billing this catalog plan at its current price: created once, then reused. */
  async function processorPlanId(client: ProcessorClient, planId: string): Promise<string> {
    const plan = paidPlan(planId);
    const key = `${plan.id}:${plan.monthlyPriceCents}:${plan.currency}:month`;
    const known = await db.platformProcessorPlan.findUnique({ where: { key } });
    if (known) return known.processorPlanId;
    const created = await client.createPlan({ name: `Checkout ${plan.name}`, amount: plan.monthlyPriceCents, currency: plan.currency, interval: 'month' }, `platform-plan:${key}`);
    const row = await db.platformProcessorPlan.upsert({ where: { key }, create: { key, processorPlanId: created.id }, update: {} });
    return row.processorPlanId;
  }

  async function settlePayment(where: { processorPaymentId: string } | { idempotencyKey: string }, status: 'SUCCEEDED' | 'FAILED', error?: string) {
    await db.platformBillingPayment.updateMany({ where: { ...where, status: 'PENDING' }, data: { status, error: error ?? null, settledAt: new Date() } });
  }

  return classifyFailures({
    /** What the workflow resumes from; null for a merchant that never subscribed. */
    async loadPlatformSubscription(merchantId: string): Promise<SubscriptionRecord | null> {
      const row = await db.platformSubscription.findUnique({ where: { merchantId } });
      if (!row) return null;
      return {
        planId: row.planId,
        status: row.status,
        membershipId: row.processorMembershipId,
        periodStart: ms(row.currentPeriodStart),
        periodEnd: ms(row.currentPeriodEnd),
        renewalFailures: row.renewalFailures,
        pending: row.pendingPlanId && row.pendingMembershipId && row.pendingPaymentUrl && row.pendingSince
          ? { planId: row.pendingPlanId, membershipId: row.pendingMembershipId, paymentUrl: row.pendingPaymentUrl, since: row.pendingSince.getTime() }
          : null,
      };
    },

    /**
     * A membership for `planId` on the platform's account and its first payment's hosted page. `key` (one per
     * subscribe) makes a retry answer the same membership. The account stays on its plan (or Demo) until paid.
     */
    async startPlatformPlanPayment(input: { merchantId: string; planId: string; key: string; since: number }): Promise<{ membershipId: string; paymentUrl: string }> {
      const { merchantId, planId, key } = input;
      const plan = paidPlan(planId);
      const client = platformProcessor();
      await ensureWebhook(client);
      const membership = await client.createMembership(
        {
          plan_id: await processorPlanId(client, planId),
          metadata: { [PLATFORM_BILLING_METADATA_KEY]: merchantId, plan_id: planId },
          return_url: `${config.appOrigin}/billing`,
        },
        key,
      );
      const pending = { pendingPlanId: planId, pendingMembershipId: membership.id, pendingPaymentUrl: membership.payment_url, pendingSince: new Date(input.since) };
      await db.$transaction(async (tx) => {
        const row = await tx.platformSubscription.findUnique({ where: { merchantId }, select: { status: true } });
        if (!row) await tx.platformSubscription.create({ data: { merchantId, status: 'PENDING', ...pending } });
        else await tx.platformSubscription.update({ where: { merchantId }, data: { ...pending, ...(row.status === 'DEMO' ? { status: 'PENDING' } : {}) } });
        await tx.platformBillingPayment.upsert({
          where: { idempotencyKey: key },
          create: {
            merchantId, idempotencyKey: key, planId, kind: 'first', amountCents: plan.monthlyPriceCents, currency: plan.currency,
            processorMembershipId: membership.id, processorPaymentId: membership.latest_payment_id,
          },
          update: {},
        });
        // A first payment this one replaces (another plan chosen before paying) will never count.
        await tx.platformBillingPayment.updateMany({
          where: { merchantId, kind: 'first', status: 'PENDING', NOT: { idempotencyKey: key } },
          data: { status: 'FAILED', error: 'replaced', settledAt: new Date() },
        });
      });
      return { membershipId: membership.id, paymentUrl: membership.payment_url };
    },

    /** Where the first payment of a membership stands at the processor (the webhook is only a cue to ask). */
    async checkPlatformPayment(membershipId: string): Promise<{ state: PaymentCheck; paymentId: string }> {
      const client = platformProcessor();
      const membership = await client.getMembership(membershipId);
      const paymentId = membership.latest_payment_id;
      if (membership.status === 'canceled') return { state: 'canceled', paymentId };
      if (membership.valid) {
        await settlePayment({ processorPaymentId: paymentId }, 'SUCCEEDED');
        return { state: 'paid', paymentId };
      }
      const payment = await client.getPayment(paymentId);
      if (payment.status === 'failed') {
        await settlePayment({ processorPaymentId: paymentId }, 'FAILED', payment.failure_reason ?? 'failed');
        return { state: 'failed', paymentId };
      }
      return { state: 'open', paymentId };
    },

    /** The bought plan is in force from now for one period; a replaced plan's membership is the workflow's to cancel. */
    async activatePlatformPlan(input: { merchantId: string; planId: string; membershipId: string; periodStart: number; periodEnd: number }): Promise<void> {
      await db.platformSubscription.update({
        where: { merchantId: input.merchantId },
        data: {
          planId: input.planId, status: 'ACTIVE', processorMembershipId: input.membershipId,
          currentPeriodStart: new Date(input.periodStart), currentPeriodEnd: new Date(input.periodEnd),
          renewalFailures: 0, nextRetryAt: null, graceUntil: null,
          pendingPlanId: null, pendingMembershipId: null, pendingPaymentUrl: null, pendingSince: null,
          cancelledAt: null, endedReason: null,
        },
      });
    },

    /** A first payment that failed or was never made: forgotten; an account that had only it is Demo again. */
    async clearPendingPlatformPayment(input: { merchantId: string; membershipId: string; reason: 'payment_failed' | 'payment_expired' | 'replaced' }): Promise<void> {
      const { merchantId, membershipId, reason } = input;
      await db.$transaction([
        db.platformSubscription.updateMany({
          where: { merchantId, pendingMembershipId: membershipId },
          data: { pendingPlanId: null, pendingMembershipId: null, pendingPaymentUrl: null, pendingSince: null },
        }),
        db.platformSubscription.updateMany({ where: { merchantId, status: 'PENDING', pendingMembershipId: null }, data: { status: 'DEMO', endedReason: reason } }),
        db.platformBillingPayment.updateMany({ where: { merchantId, processorMembershipId: membershipId, kind: 'first', status: 'PENDING' }, data: { status: 'FAILED', error: reason, settledAt: new Date() } }),
      ]);
    },

    /**
     * Charges renewal `attempt` of the period ending at `periodEnd` on the membership's card. The idempotency
     * key (membership, period, attempt) makes a retried activity answer the first charge, never a second one.
     */
    async chargePlatformRenewal(input: { merchantId: string; planId: string; membershipId: string; periodEnd: number; attempt: number }): Promise<{ outcome: 'succeeded' | 'failed'; paymentId: string | null; reason: string | null }> {
      const { merchantId, planId, membershipId, periodEnd, attempt } = input;
      const plan = findPlan(planId);
      const idempotencyKey = `platform-renewal:${membershipId}:${periodEnd}:${attempt}`;
      await db.platformBillingPayment.upsert({
        where: { idempotencyKey },
        create: { merchantId, idempotencyKey, planId, kind: 'renewal', attempt, amountCents: plan?.monthlyPriceCents ?? 0, processorMembershipId: membershipId },
        update: {},
      });
      let payment;
      try {
        payment = await platformProcessor().renewMembership(membershipId, idempotencyKey);
      } catch (err) {
        // The processor refuses to charge (membership cancelled there, card gone): a failed attempt, not a crash.
        if (isIntegrationError(err, 'rejected') || isIntegrationError(err, 'not_found')) {
          await settlePayment({ idempotencyKey }, 'FAILED', err.message.slice(0, 500));
          return { outcome: 'failed', paymentId: null, reason: err.kind };
        }
        throw err;
      }
      await db.platformBillingPayment.updateMany({ where: { idempotencyKey, processorPaymentId: null }, data: { processorPaymentId: payment.id } });
      if (payment.status === 'succeeded') {
        await settlePayment({ idempotencyKey }, 'SUCCEEDED');
        return { outcome: 'succeeded', paymentId: payment.id, reason: null };
      }
      const reason = payment.failure_reason ?? payment.status;
      await settlePayment({ idempotencyKey }, 'FAILED', reason);
      return { outcome: 'failed', paymentId: payment.id, reason };
    },

    /** A renewal went through: the next period, in good standing. */
    async recordPlatformRenewal(input: { merchantId: string; periodStart: number; periodEnd: number }): Promise<void> {
      await db.platformSubscription.update({
        where: { merchantId: input.merchantId },
        data: { status: 'ACTIVE', currentPeriodStart: new Date(input.periodStart), currentPeriodEnd: new Date(input.periodEnd), renewalFailures: 0, nextRetryAt: null, graceUntil: null },
      });
    },

    /** A renewal charge failed: PAST_DUE (still paid) until the grace period ends. */
    async recordPlatformRenewalFailure(input: { merchantId: string; failures: number; nextRetryAt: number | null; graceUntil: number }): Promise<void> {
      await db.platformSubscription.update({
        where: { merchantId: input.merchantId },
        data: { status: 'PAST_DUE', renewalFailures: input.failures, nextRetryAt: input.nextRetryAt === null ? null : new Date(input.nextRetryAt), graceUntil: new Date(input.graceUntil) },
      });
    },

    /** Back to Demo (cancelled, or the grace period ran out): checkouts pass through to the store from now on. */
    async downgradePlatformToDemo(input: { merchantId: string; reason: 'cancelled' | 'grace_expired' }): Promise<void> {
      await db.platformSubscription.updateMany({
        where: { merchantId: input.merchantId },
        data: {
          planId: FREE_PLAN_ID, status: 'DEMO', processorMembershipId: null, currentPeriodStart: null, currentPeriodEnd: null,
          renewalFailures: 0, nextRetryAt: null, graceUntil: null,
          pendingPlanId: null, pendingMembershipId: null, pendingPaymentUrl: null, pendingSince: null,
          endedReason: input.reason, cancelledAt: input.reason === 'cancelled' ? new Date() : null,
        },
      });
    },

    /** Stops the membership at the processor so it never charges again (already cancelled or unknown: done). */
    async cancelPlatformMembership(membershipId: string): Promise<void> {
      try {
        await platformProcessor().cancelMembership(membershipId);
      } catch (err) {
        if (!isIntegrationError(err, 'not_found')) throw err;
      }
    },

    /** One billing email to the merchant, recorded under its idempotency key and sent once. */
    async sendPlatformBillingEmail(req: BillingEmailRequest): Promise<EmailSendResult> {
      const merchant = await db.merchant.findUniqueOrThrow({ where: { id: req.merchantId }, select: { email: true, shopName: true } });
      const plan = findPlan(req.planId);
      const planName = plan?.name ?? req.planId;
      const rendered = renderBillingEmail(req.kind, {
        shopName: merchant.shopName,
        planName,
        price: formatMoney(eur(plan?.monthlyPriceCents ?? 0), EMAIL_LOCALE),
        billingUrl: `${config.appOrigin}/billing`,
        periodEnd: req.periodEnd === undefined ? undefined : date(req.periodEnd),
        attempt: req.attempt,
        attempts: req.attempts,
        nextRetry: req.nextRetryAt === undefined || req.nextRetryAt === null ? null : date(req.nextRetryAt),
        graceUntil: req.graceUntil === undefined ? undefined : date(req.graceUntil),
      });
      const row = await recordEmail(db, { idempotencyKey: req.idempotencyKey, merchantId: req.merchantId, kind: req.kind, to: merchant.email, subject: rendered.subject });
      return sendRecordedEmail({ db, email: deps.email, from: config.email.from }, row, () => ({
        ...rendered,
        tag: req.kind,
        metadata: { merchantId: req.merchantId, kind: req.kind, emailId: row.id },
      }));
    },
  });
}

export type PlatformBillingActivities = ReturnType<typeof createPlatformBillingActivities>;
