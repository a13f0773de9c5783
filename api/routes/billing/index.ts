// Platform billing: the public plan catalog, the merchant's subscription (read from PostgreSQL only), and
// subscribe/cancel, which go to the merchant's subscription workflow (platform-subscription-<merchantId>):
// the API never writes the plan itself. Subscribe answers the processor's payment page; the plan is ACTIVE
// once the processor confirms the payment (billing webhook, or the workflow asking). Cancel answers once
// the account is on Demo.
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { type RouteDeps } from '../../route-deps.js';
import type { MerchantScope } from '../../../model/merchant/merchant-scope.js';
import type { PlatformSubscription } from '../../../generated/prisma/client.js';
import { AppError } from '../../../domain/errors.js';
import { ENDED_REASONS, FREE_PLAN_ID, PLANS, SUBSCRIPTION_STATUSES, findPlan, isPaidPlan, isPaidStatus } from '../../../domain/merchant/plans.js';
import { errorResponse } from '../../schemas/common.js';
import { trimmed } from '../../schemas/text.js';
import { cancelUpdate, subscribeUpdate, type PlatformSubscriptionInput } from '../../../workflows/billing/platform-subscription.messages.js';
import { WORKFLOWS } from '../../../domain/temporal/workflow-names.js';

const auth = { security: [{ bearerAuth: [] }] };
const tags = ['billing'];
/** The workflow's type name: started by name so the API does not import workflow code. */

const planSchema = z
  .object({
    id: z.string().describe('FREE is the Demo plan'),
    name: z.string(),
    monthlyPriceCents: z.number().int().describe('Monthly price in EUR cents (integer minor units); 0 for Demo'),
    currency: z.literal('EUR'),
    description: z.string(),
    includes: z.array(z.string()).describe('What the plan includes, one line each'),
    checkoutEnabled: z.boolean().describe('Shoppers get the hosted checkout; false: checkouts pass through to the store'),
  })
  .meta({ id: 'Plan' });

const plansResponse = z.object({ plans: z.array(planSchema) }).meta({ id: 'PlanCatalog' });

export const subscriptionSchema = z
  .object({
    planId: z.string().describe('The plan in force: FREE (Demo) or a paid plan'),
    planName: z.string(),
    status: z.enum(SUBSCRIPTION_STATUSES).describe(
      'DEMO: no paid plan. PENDING: Demo, a first payment was started and is not confirmed yet. ACTIVE: paid plan in force. ' +
      'PAST_DUE: the renewal failed and is being retried; the plan stays in force until graceUntil',
    ),
    paid: z.boolean().describe('A paid plan is in force (ACTIVE or PAST_DUE): checkouts are hosted, not passed through'),
    monthlyPriceCents: z.number().int(),
    currency: z.literal('EUR'),
    currentPeriodStart: z.string().nullable(),
    currentPeriodEnd: z.string().nullable(),
    nextRenewalAt: z.string().nullable().describe('When the next renewal charge runs: the period end, or the next retry while PAST_DUE'),
    graceUntil: z.string().nullable().describe('While PAST_DUE: the account returns to Demo then unless a retry succeeds'),
    renewalFailures: z.number().int().describe('Failed charges of the current renewal'),
    cancelledAt: z.string().nullable().describe('When the merchant last cancelled'),
    endedReason: z.enum(ENDED_REASONS).nullable().describe('Why the account last returned to Demo (membership_ended: the processor ended the membership, e.g. a refund, a dispute or a cancel in its own pages)'),
    pending: z
      .object({ planId: z.string(), paymentUrl: z.string().describe("The processor's hosted page for the first payment"), since: z.string() })
      .nullable()
      .describe('A plan bought and not paid yet (first plan or a change of plan)'),
  })
  .meta({ id: 'PlatformSubscription' });

export type SubscriptionView = z.infer<typeof subscriptionSchema>;

const PAID_PLAN_IDS = PLANS.filter((p) => isPaidPlan(p.id)).map((p) => p.id);
const subscribeBody = z.strictObject({
  planId: trimmed(new RegExp(`^(?:${PAID_PLAN_IDS.join('|')})$`), `a paid plan: ${PAID_PLAN_IDS.join(' or ')} (to return to Demo, cancel the paid plan)`)
    .describe(`A paid plan id from the catalog: ${PAID_PLAN_IDS.join(', ')}`),
});
const subscribeResponse = z
  .object({
    planId: z.string(),
    paymentUrl: z.string().describe("Pay the first period on the processor's hosted page; the plan becomes ACTIVE when the processor confirms"),
    subscription: subscriptionSchema,
  })
  .meta({ id: 'PlatformSubscribeResult' });

const iso = (d: Date | null) => d?.toISOString() ?? null;
const ENDED = new Set<string>(ENDED_REASONS);

export function toSubscriptionView(row: PlatformSubscription | null): SubscriptionView {
  const planId = row?.planId ?? FREE_PLAN_ID;
  const plan = findPlan(planId) ?? findPlan(FREE_PLAN_ID)!;
  const status = (SUBSCRIPTION_STATUSES as readonly string[]).includes(row?.status ?? '') ? (row!.status as SubscriptionView['status']) : 'DEMO';
  const paid = isPaidStatus(planId, status);
  return {
    planId,
    planName: plan.name,
    status,
    paid,
    monthlyPriceCents: plan.monthlyPriceCents,
    currency: 'EUR',
    currentPeriodStart: paid ? iso(row!.currentPeriodStart) : null,
    currentPeriodEnd: paid ? iso(row!.currentPeriodEnd) : null,
    nextRenewalAt: !row || !paid || !row.processorMembershipId ? null : status === 'PAST_DUE' ? iso(row.nextRetryAt) : iso(row.currentPeriodEnd),
    graceUntil: status === 'PAST_DUE' ? iso(row!.graceUntil) : null,
    renewalFailures: row?.renewalFailures ?? 0,
    cancelledAt: iso(row?.cancelledAt ?? null),
    endedReason: row?.endedReason && ENDED.has(row.endedReason) ? (row.endedReason as SubscriptionView['endedReason']) : null,
    pending: row?.pendingPlanId && row.pendingPaymentUrl && row.pendingSince
      ? { planId: row.pendingPlanId, paymentUrl: row.pendingPaymentUrl, since: row.pendingSince.toISOString() }
      : null,
  };
}

/** A finished run cannot take updates: the caller starts a new one (it resumes from the database). */
function ranOut(err: unknown): boolean {
  if (err instanceof WorkflowUpdateFailedError) return false;
  return err instanceof WorkflowNotFoundError || /already completed/i.test(err instanceof Error ? err.message : '');
}

export const billingRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, temporal } = deps;

  const current = async (data: MerchantScope) => toSubscriptionView(await data.platformSubscription.findFirst());

  /** The merchant's subscription workflow: the running one, or a new run that resumes from the database. */
  async function subscription(merchantId: string): Promise<WorkflowHandle> {
    const input: PlatformSubscriptionInput = { merchantId };
    const workflowId = WORKFLOWS.platformSubscription.id(merchantId);
    await temporal.client.workflow.start(WORKFLOWS.platformSubscription.type, {
      workflowId,
      taskQueue: config.temporal.taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    });
    // By id alone: the handle start answers is pinned to a run's chain, and an existing workflow may be
    // several continue-as-new runs into it.
    return temporal.client.workflow.getHandle(workflowId);
  }

  /** Runs an update on the merchant's workflow; a run that ended in between is started again once. */
  async function update<R>(merchantId: string, run: (handle: WorkflowHandle) => Promise<R>): Promise<R> {
    try {
      return await run(await subscription(merchantId));
    } catch (err) {
      if (!ranOut(err)) throw err;
      return run(await subscription(merchantId));
    }
  }

  app.get('/plans', {
    schema: {
      tags,
      summary: 'The plan catalog (public): Demo (FREE) and the paid plans with their monthly price in EUR cents and what they include',
      response: { 200: plansResponse },
    },
  }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return { plans: PLANS.map((p) => ({ ...p, includes: [...p.includes] })) };
  });

  app.get('/current', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'billing:read' },
    schema: {
      tags,
      summary: "The merchant's subscription: plan, status, period, next renewal, grace period, cancellation, a pending payment",
      ...auth,
      response: { 200: subscriptionSchema, 401: errorResponse },
    },
  }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    return current(request.merchantData);
  });

  app.post('/subscribe', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'billing:write' },
    schema: {
      tags,
      summary: 'Buy a paid plan (or change plan): answers the processor payment page; the plan becomes ACTIVE when the processor confirms the payment',
      description:
        'The payment is made on the platform\'s own processor account. Until it is confirmed the account keeps its plan (Demo: status PENDING). ' +
        'Calling it again for the same plan before paying answers the same page; another plan replaces the unpaid one. A plan change takes effect ' +
        'when its payment is confirmed and starts a new period (no proration); while PAST_DUE the same plan can be paid again, which ends the ' +
        'grace period. Errors: unknown plan or FREE: INVALID_INPUT (to return to Demo, cancel); already ACTIVE on this plan: CONFLICT; billing not configured: NOT_READY; the processor failing: UPSTREAM_ERROR, too slow: PROCESSOR_TIMEOUT.',
      ...auth,
      body: subscribeBody,
      response: { 200: subscribeResponse, 400: errorResponse, 401: errorResponse, 409: errorResponse, 502: errorResponse, 503: errorResponse, 504: errorResponse },
    },
  }, async (request) => {
    const { merchantId } = request.merchant;
    const { planId } = request.body;
    if (planId === FREE_PLAN_ID) {
      throw new AppError('INVALID_INPUT', 'planId: Demo (FREE) needs no payment: cancel the paid plan to return to it', { fields: { 'body.planId': 'FREE is not bought' } });
    }
    if (!isPaidPlan(planId)) {
      throw new AppError('INVALID_INPUT', `planId: no plan ${JSON.stringify(planId)} (see GET /api/platform-billing/plans)`, { fields: { 'body.planId': 'unknown plan' } });
    }
    if (!config.platformBilling.apiKey) throw new AppError('NOT_READY', 'Platform billing is not configured on this server');
    const result = await update(merchantId, (handle) => handle.executeUpdate(subscribeUpdate, { args: [{ planId }] }));
    return { ...result, subscription: await current(request.merchantData) };
  });

  app.post('/cancel', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'billing:write' },
    schema: {
      tags,
      summary: 'Cancel the paid plan: the account returns to Demo at once',
      description:
        'From any paid plan (ACTIVE or PAST_DUE), and for an unpaid pending plan, the account is on Demo when this answers: checkouts pass ' +
        'through to the store again, the membership is cancelled at the processor (nothing more is charged) and the merchant gets one email. ' +
        'On Demo with nothing pending: CONFLICT.',
      ...auth,
      response: { 200: subscriptionSchema, 401: errorResponse, 409: errorResponse },
    },
  }, async (request) => {
    const { merchantId } = request.merchant;
    const before = await current(request.merchantData);
    if (!before.paid && !before.pending) throw new AppError('CONFLICT', 'The account is on the Demo plan: there is no plan to cancel');
    await update(merchantId, (handle) => handle.executeUpdate(cancelUpdate));
    return current(request.merchantData);
  });
};
