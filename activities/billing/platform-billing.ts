// Platform billing activities: the merchant's plan is paid on the PLATFORM's own Whop company (config
// PLATFORM_PROCESSOR_API_KEY) as a Whop renewal plan: the first payment is made on the hosted checkout of a
// checkout configuration for that plan (its `ch_…` id is the pending purchase's reference until it is paid and
// Whop's membership `mem_…` exists), and Whop bills every renewal itself: at a period's end, and whenever one of
// its billing events arrives while the plan is paid, we read the membership (renewed, past due, ended) instead of
// charging anything. platform_subscriptions is written only here, on the subscription workflow's orders, and the
// workflow resumes from it. Emails go through the outbox (recorded, then sent once).
import { ApplicationFailure } from '@temporalio/common';
import { judgePayment } from '../../domain/checkout/payment-check.js';
import type { Config } from '../../config/index.js';
import { Prisma, type Db } from '../../prisma/client.js';
import type { SecretBox } from '../../security/secrets.js';
import type { EmailClient } from '../../integrations/email/index.js';
import { SUBSCRIBED_EVENTS, type Membership, type ProcessorClient } from '../../integrations/processor/index.js';
import { platformBillingWebhookAad, platformProcessorClient } from '../../model/connections.js';
import { isIntegrationError } from '../../integrations/errors.js';
import { FREE_PLAN_ID, findPlan, isPaidPlan } from '../../domain/merchant/plans.js';
import { eur, formatMoney } from '../../domain/money.js';
import { PLATFORM_BILLING_METADATA_KEY, PLATFORM_BILLING_WEBHOOK_PATH, type DowngradeReason } from '../../domain/merchant/plans.js';
import { classifyFailures } from '../failures.js';
import { recordEmail, sendRecordedEmail, type EmailSendResult } from '../email/email-outbox.js';
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

/**
 * Where Whop's membership stands against the period we hold (ending at `periodEnd`):
 * renewed: valid, and its paid period ends later than ours (Whop billed the next one);
 * current: valid, still in the period we hold (nothing new);
 * failing: past due or otherwise invalid, or not found: Whop may still collect (a failed renewal, grace);
 * ended: canceled, expired or completed: Whop will never bill it again (refund, dispute, a cancel in Whop).
 */
export type MembershipStanding = 'renewed' | 'current' | 'failing' | 'ended';

const ENDED_STATUSES = new Set(['canceled', 'expired', 'completed']);

function membershipStanding(m: Pick<Membership, 'status' | 'valid'>, renewedUntil: number | null, periodEnd: number): MembershipStanding {
  if (ENDED_STATUSES.has(m.status)) return 'ended';
  if (!m.valid) return 'failing';
  return renewedUntil !== null && renewedUntil > periodEnd ? 'renewed' : 'current';
}

interface MembershipRead {
  standing: MembershipStanding;
  /** Why it is not a renewal (Whop's status, not_renewed_yet, not_found); null when renewed. */
  reason: string | null;
  /** The end of the period Whop has been paid for, epoch ms. */
  renewedUntil: number | null;
}

export interface RenewalInput {
  merchantId: string;
  planId: string;
  membershipId: string;
  periodEnd: number;
  attempt: number;
}

/** What a read of the membership decided for renewal `attempt` (standing and renewedUntil are absent in results recorded before events were followed). */
export interface RenewalCheck {
  outcome: 'succeeded' | 'failed';
  paymentId: string | null;
  reason: string | null;
  standing?: MembershipStanding;
  renewedUntil?: number | null;
}

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
  /** billing_downgraded: why (default grace_expired). */
  reason?: Exclude<DowngradeReason, 'cancelled'>;
}

const ms = (d: Date | null) => (d ? d.getTime() : null);
const date = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 10);
const EMAIL_LOCALE = 'en';

export function createPlatformBillingActivities(deps: { db: Db; config: Config; secrets: SecretBox; email: EmailClient; timeoutMs?: number }) {
  const { db, config, secrets } = deps;

  const platformProcessor = (): ProcessorClient => platformProcessorClient(deps, config.platformBilling.apiKey);
  /** The platform's Whop company (the key's Business ID). */
  const platformCompany = async (client: ProcessorClient) => (await client.getAccount()).id;

  /** The platform's payment through a checkout (the first payment of a plan), if one was made. */
  async function checkoutPayment(client: ProcessorClient, checkoutId: string) {
    const payments = await client.listPayments({ companyId: await platformCompany(client), checkoutIds: [checkoutId] });
    return payments.find((p) => p.state === 'paid' || p.state === 'refunded') ?? payments[0] ?? null;
  }

  /** A membership reference as Whop's membership id: a paid checkout's (ch_…) membership, or the id itself. */
  async function membershipIdOf(client: ProcessorClient, ref: string): Promise<string> {
    if (!ref.startsWith('ch_')) return ref;
    const paid = await checkoutPayment(client, ref);
    if (!paid?.membershipId) throw ApplicationFailure.nonRetryable(`The checkout ${ref} has no paid membership`, 'CONFLICT');
    return paid.membershipId;
  }

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
      const endpoint = await client.createWebhook({ companyId: await platformCompany(client), url, events: SUBSCRIBED_EVENTS }, `platform-billing-webhook:${url}`);
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

  /**
   * The processor plan billing this catalog plan at its current price: created once, then reused. `replacing`: the
   * stored plan Whop no longer knows (deleted in its dashboard, or a simulator restarted under a kept database):
   * forgotten, and a new one made under an idempotency key of its own, so the dead plan's cached answer never returns.
   */
  async function processorPlanId(client: ProcessorClient, planId: string, replacing?: string): Promise<string> {
    const plan = paidPlan(planId);
    const key = `${plan.id}:${plan.monthlyPriceCents}:${plan.currency}:month`;
    if (replacing) await db.platformProcessorPlan.deleteMany({ where: { key, processorPlanId: replacing } });
    const known = await db.platformProcessorPlan.findUnique({ where: { key } });
    if (known) return known.processorPlanId;
    const companyId = await platformCompany(client);
    const product = await client.createProduct({ companyId, title: 'Checkout plans' }, `platform-product:${companyId}${replacing ? `:after:${replacing}` : ''}`);
    const created = await client.createRenewalPlan(
      { companyId, productId: product.id, title: `Checkout ${plan.name}`, amountMinor: plan.monthlyPriceCents, currency: plan.currency, billingPeriodDays: 30 },
      `platform-plan:${key}${replacing ? `:after:${replacing}` : ''}`,
    );
    const row = await db.platformProcessorPlan.upsert({ where: { key }, create: { key, processorPlanId: created.id }, update: {} });
    return row.processorPlanId;
  }

  async function settlePayment(where: { processorPaymentId: string } | { idempotencyKey: string }, status: 'SUCCEEDED' | 'FAILED', error?: string) {
    await db.platformBillingPayment.updateMany({ where: { ...where, status: 'PENDING' }, data: { status, error: error ?? null, settledAt: new Date() } });
  }

  /** The membership paying for the period ending at `periodEnd`, as Whop answers it now (a 404 counts as failing). */
  async function readMembership(client: ProcessorClient, membershipId: string, periodEnd: number): Promise<MembershipRead> {
    let membership;
    try {
      membership = await client.getMembership(membershipId);
    } catch (err) {
      if (isIntegrationError(err, 'not_found')) return { standing: 'failing', reason: 'not_found', renewedUntil: null };
      throw err;
    }
    const renewedUntil = membership.periodEnd ? Date.parse(membership.periodEnd) : null;
    const standing = membershipStanding(membership, renewedUntil, periodEnd);
    return { standing, reason: standing === 'renewed' ? null : standing === 'current' ? 'not_renewed_yet' : membership.status, renewedUntil };
  }

  /** Attempt `attempt` of the period decided by this read: its row written once (by key), settled once. */
  async function recordRenewal(input: RenewalInput, membershipId: string, read: MembershipRead): Promise<RenewalCheck> {
    const { merchantId, planId, periodEnd, attempt } = input;
    const idempotencyKey = `platform-renewal:${membershipId}:${periodEnd}:${attempt}`;
    await db.platformBillingPayment.upsert({
      where: { idempotencyKey },
      create: { merchantId, idempotencyKey, planId, kind: 'renewal', attempt, amountCents: findPlan(planId)?.monthlyPriceCents ?? 0, processorMembershipId: membershipId },
      update: {},
    });
    const succeeded = read.standing === 'renewed';
    await settlePayment({ idempotencyKey }, succeeded ? 'SUCCEEDED' : 'FAILED', read.reason ?? undefined);
    return { outcome: succeeded ? 'succeeded' : 'failed', paymentId: null, reason: read.reason, standing: read.standing, renewedUntil: read.renewedUntil };
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
      // Whop's checkout for the plan; its metadata is copied onto the payment and the membership it creates.
      const checkoutFor = (processorPlan: string, idempotencyKey: string) => client.createCheckout(
        { planId: processorPlan, metadata: { [PLATFORM_BILLING_METADATA_KEY]: merchantId, plan_id: planId }, redirectUrl: `${config.appOrigin}/billing` },
        idempotencyKey,
      );
      const stored = await processorPlanId(client, planId);
      const checkout = await checkoutFor(stored, key).catch(async (err: unknown) => {
        // The stored plan is gone at Whop: make it again, once, and start the checkout on the new one.
        if (!isIntegrationError(err, 'not_found')) throw err;
        return checkoutFor(await processorPlanId(client, planId, stored), `${key}:after:${stored}`);
      });
      const membership = { id: checkout.id };
      const pending = { pendingPlanId: planId, pendingMembershipId: checkout.id, pendingPaymentUrl: checkout.purchaseUrl, pendingSince: new Date(input.since) };
      await db.$transaction(async (tx) => {
        const row = await tx.platformSubscription.findUnique({ where: { merchantId }, select: { status: true } });
        if (!row) await tx.platformSubscription.create({ data: { merchantId, status: 'PENDING', ...pending } });
        else await tx.platformSubscription.update({ where: { merchantId }, data: { ...pending, ...(row.status === 'DEMO' ? { status: 'PENDING' } : {}) } });
        await tx.platformBillingPayment.upsert({
          where: { idempotencyKey: key },
          create: {
            merchantId, idempotencyKey: key, planId, kind: 'first', amountCents: plan.monthlyPriceCents, currency: plan.currency,
            processorMembershipId: membership.id,
          },
          update: {},
        });
        // A first payment this one replaces (another plan chosen before paying) will never count.
        await tx.platformBillingPayment.updateMany({
          where: { merchantId, kind: 'first', status: 'PENDING', NOT: { idempotencyKey: key } },
          data: { status: 'FAILED', error: 'replaced', settledAt: new Date() },
        });
      });
      return { membershipId: checkout.id, paymentUrl: checkout.purchaseUrl };
    },

    /**
     * Where the first payment of a plan stands at the processor (the webhook is only a cue to ask): the payment
     * through its checkout (`ch_…`), or for runs from before checkouts, the membership.
     */
    async checkPlatformPayment(ref: string): Promise<{ state: PaymentCheck; paymentId: string }> {
      const client = platformProcessor();
      if (!ref.startsWith('ch_')) {
        const membership = await client.getMembership(ref);
        if (membership.status === 'canceled' || membership.status === 'expired') return { state: 'canceled', paymentId: ref };
        return { state: membership.valid ? 'paid' : 'open', paymentId: ref };
      }
      const payment = await checkoutPayment(client, ref);
      if (!payment) return { state: 'open', paymentId: ref };
      await db.platformBillingPayment.updateMany({ where: { processorMembershipId: ref, processorPaymentId: null }, data: { processorPaymentId: payment.id } });
      if (payment.state === 'paid' || payment.state === 'refunded') {
        // The plan's price, paid and kept: a payment refunded or disputed before the plan starts, or another amount (a
        // promo on Whop's page), buys no plan (domain/checkout/payment-check.ts, the rule every order follows too).
        const row = await db.platformBillingPayment.findFirst({ where: { processorPaymentId: payment.id } });
        const verdict = row ? judgePayment(payment, { amountMinor: row.amountCents, currency: row.currency }) : { verdict: 'paid' as const };
        if (verdict.verdict === 'held') {
          await settlePayment({ processorPaymentId: payment.id }, 'FAILED', verdict.message.replace('no order was created', 'the plan was not started'));
          return { state: 'failed', paymentId: payment.id };
        }
        await settlePayment({ processorPaymentId: payment.id }, 'SUCCEEDED');
        return { state: 'paid', paymentId: payment.id };
      }
      if (payment.state === 'failed') {
        await settlePayment({ processorPaymentId: payment.id }, 'FAILED', payment.failureMessage ?? 'failed');
        return { state: 'failed', paymentId: payment.id };
      }
      return { state: 'open', paymentId: payment.id };
    },

    /** The bought plan is in force from now for one period; a replaced plan's membership is the workflow's to cancel. */
    async activatePlatformPlan(input: { merchantId: string; planId: string; membershipId: string; periodStart: number; periodEnd: number }): Promise<void> {
      const membershipId = await membershipIdOf(platformProcessor(), input.membershipId);
      await db.platformSubscription.update({
        where: { merchantId: input.merchantId },
        data: {
          planId: input.planId, status: 'ACTIVE', processorMembershipId: membershipId,
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
     * Renewal `attempt` of the period ending at `periodEnd`, due now: Whop bills it itself, so this reads the
     * membership. Renewed is a success; ended (canceled, expired) is the end of the plan; past due or not renewed
     * yet is a failed attempt (the workflow asks again at its next retry, within the grace period). Recorded once
     * per key.
     */
    async chargePlatformRenewal(input: RenewalInput): Promise<RenewalCheck> {
      const client = platformProcessor();
      const membershipId = await membershipIdOf(client, input.membershipId);
      const read = await readMembership(client, membershipId, input.periodEnd);
      // At its due time a membership Whop has not renewed yet is a failed attempt too.
      return recordRenewal(input, membershipId, read);
    },

    /**
     * Whop's word on the membership, asked because one of its events arrived while the plan is paid (any event:
     * its content and order are not trusted, the membership is). Renewed is a success of `attempt` and ended is
     * the end of the plan, both recorded once per key as at a due time; past due is failed `attempt` only when
     * `countsFailure` (the workflow's grace policy decides: only a period's first failure is counted early);
     * a membership still in the period we hold changes nothing and records nothing.
     */
    async followPlatformMembership(input: RenewalInput & { countsFailure: boolean }): Promise<RenewalCheck> {
      const client = platformProcessor();
      const membershipId = await membershipIdOf(client, input.membershipId);
      const read = await readMembership(client, membershipId, input.periodEnd);
      if (read.standing === 'current' || (read.standing === 'failing' && !input.countsFailure)) {
        return { outcome: 'failed', paymentId: null, reason: read.reason, standing: read.standing, renewedUntil: read.renewedUntil };
      }
      return recordRenewal(input, membershipId, read);
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

    /** Back to Demo (cancelled, the grace period ran out, or Whop ended the membership): checkouts pass through to the store from now on. */
    async downgradePlatformToDemo(input: { merchantId: string; reason: DowngradeReason }): Promise<void> {
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
        const client = platformProcessor();
        // An unpaid checkout has no membership to stop.
        const id = membershipId.startsWith('ch_') ? (await checkoutPayment(client, membershipId))?.membershipId : membershipId;
        if (id) await client.cancelMembership(id);
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
        downgradeReason: req.reason,
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
