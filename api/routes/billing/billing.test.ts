// Platform billing over HTTP, on the whole test stack: the public catalog; a Demo merchant subscribes, pays
// on the processor's page, the platform account's signed webhook reaches /webhooks/processor/platform-billing
// and the plan is ACTIVE; cancel returns to Demo at once; Whop's own membership events on a paid plan (its
// Standard Webhooks deliveries from the sandbox: a membership ended at Whop, a renewal Whop billed) are followed
// at once, once, whatever their order; bad input and forged webhooks change nothing.
import { findPlan } from '../../../domain/merchant/plans.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { createTestMerchant, type TestMerchant } from '../../../test/harness/merchants.js';
import { TEST_PAID_PLAN } from '../../../scripts/lib/stack/billing.js';
import { api, control, waitFor, type Json } from '../../../test/e2e/checkout-helpers.js';
import { signSpecWebhook as signWebhook, SPEC_SIGNATURE_HEADER as SIGNATURE_HEADER } from '../../../integrations/processor/webhook.js';
import { periodEndFrom } from '../../../domain/merchant/plans.js';
import { createProcessorClient } from '../../../integrations/processor/index.js';
import { PLATFORM_API_KEY, PLATFORM_COMPANY_ID, eventPayload } from '../../../sandbox/processor/index.js';
import { Webhook } from 'standardwebhooks';
import { createSecretBox } from '../../../security/secrets.js';
import { platformBillingWebhookAad } from '../../../model/connections.js';
import { WORKFLOWS } from '../../../domain/temporal/workflow-names.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

const db = () => stack.database.db;
const demoMerchant = (name: string) => createTestMerchant(db(), stack.app, name, { plan: 'demo' });
const current = async (m: TestMerchant) => (await api(stack, 'GET', '/api/platform-billing/current', undefined, m.token)).body;
const mails = (m: TestMerchant, tag: string) => stack.sims.email.messages({ to: m.email, tag });

async function payOnHostedPage(paymentUrl: string, card = '4242 4242 4242 4242') {
  return fetch(paymentUrl, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ card_number: card, expiry: '12/34', cvc: '123', name: 'Merchant' }).toString(),
  });
}

async function workflowRunning(merchantId: string): Promise<boolean> {
  try {
    return (await stack.temporal.client.workflow.getHandle(WORKFLOWS.platformSubscription.id(merchantId)).describe()).status.name === 'RUNNING';
  } catch {
    return false;
  }
}

/** A Demo merchant who subscribed to STARTER and paid: ACTIVE, the activation email sent, every webhook so far delivered. */
async function activeMerchant(name: string) {
  const m = await demoMerchant(name);
  const sub = await api(stack, 'POST', '/api/platform-billing/subscribe', { planId: 'STARTER' }, m.token);
  expect(sub.status, JSON.stringify(sub.body)).toBe(200);
  expect((await payOnHostedPage(sub.body.paymentUrl as string)).status).toBe(303);
  await waitFor('ACTIVE', async () => ((await current(m)).status === 'ACTIVE' ? true : undefined), 15_000);
  await waitFor('the activation email', () => (mails(m, 'billing_activated').length ? true : undefined));
  await stack.sims.processor.webhooks.idle();
  const row = await db().platformSubscription.findUniqueOrThrow({ where: { merchantId: m.id } });
  expect(row.processorMembershipId).toMatch(/^mem_/);
  return { m, row, membershipId: row.processorMembershipId! };
}

/** The platform's own Whop company, as the service reaches it. */
const platformWhop = () => createProcessorClient({ apiKey: PLATFORM_API_KEY, baseUrl: `${stack.urls.processor}/api/v1` });

/** The billing webhook deliveries of a merchant for one event type (and, given, one event id: its copies too), oldest first. */
async function billingDeliveries(merchantId: string, event: string, eventId?: string) {
  const rows = await db().platformBillingWebhookDelivery.findMany({ where: { merchantId, event }, orderBy: { receivedAt: 'asc' } });
  return eventId === undefined ? rows : rows.filter((r) => (JSON.parse(r.rawBody) as { id?: string }).id === eventId);
}

async function postWebhook(body: string, signature?: string) {
  const res = await stack.app.inject({
    method: 'POST',
    url: '/webhooks/processor/platform-billing',
    payload: body,
    headers: { 'content-type': 'application/json', ...(signature === undefined ? {} : { [SIGNATURE_HEADER]: signature }) },
  });
  return { status: res.statusCode, body: res.json() as Json };
}

describe('the plan catalog', () => {
  it('given no token / GET plans answers Demo (FREE, 0) and the paid plans in EUR cents with what they include', async () => {
    const res = await api(stack, 'GET', '/api/platform-billing/plans');
    expect(res.status).toBe(200);
    const plans = res.body.plans as Json[];
    expect(plans.map((p) => [p.id, p.name, p.monthlyPriceCents, p.currency, p.checkoutEnabled])).toEqual([
      ['FREE', 'Demo', 0, 'EUR', false],
      ['STARTER', 'Starter', 2_900, 'EUR', true],
      ['GROWTH', 'Growth', 7_900, 'EUR', true],
    ]);
    for (const p of plans) expect((p.includes as string[]).length).toBeGreaterThan(0);
  });
});

describe('subscribe, pay, cancel', () => {
  it('given a Demo merchant / subscribe answers the payment page, the signed webhook after paying makes the plan ACTIVE, cancel returns to Demo at once', async () => {
    const m = await demoMerchant('Billing Alpha');
    expect(await current(m)).toMatchObject({ planId: 'FREE', planName: 'Demo', status: 'DEMO', paid: false, pending: null, nextRenewalAt: null });

    const sub = await api(stack, 'POST', '/api/platform-billing/subscribe', { planId: 'STARTER' }, m.token);
    expect(sub.status, JSON.stringify(sub.body)).toBe(200);
    const paymentUrl = sub.body.paymentUrl as string;
    // Whop's hosted checkout of the plan: purchase_url /checkout/<plan>/?session=<ch_…>.
    expect(paymentUrl).toMatch(new RegExp(`^${stack.urls.processor}/checkout/plan_\\w+/\\?session=ch_`));
    expect(sub.body.subscription).toMatchObject({ planId: 'FREE', status: 'PENDING', paid: false, pending: { planId: 'STARTER', paymentUrl } });
    // Not paid yet: still Demo for checkouts.
    expect((await current(m)).paid).toBe(false);

    const paid = await payOnHostedPage(paymentUrl);
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toContain(`${stack.config.appOrigin}/billing?payment_id=`);

    // The workflow's own first look is 30 s away: ACTIVE within seconds means the webhook did it.
    const active = await waitFor('ACTIVE', async () => {
      const c = await current(m);
      return c.status === 'ACTIVE' ? c : undefined;
    }, 15_000);
    expect(active).toMatchObject({ planId: 'STARTER', planName: 'Starter', paid: true, monthlyPriceCents: 2_900, pending: null, renewalFailures: 0, graceUntil: null });
    expect(active.nextRenewalAt).toBe(active.currentPeriodEnd);
    expect(Date.parse(active.currentPeriodEnd as string)).toBeGreaterThan(Date.parse(active.currentPeriodStart as string) + 27 * 24 * 3600_000);
    const deliveries = await db().platformBillingWebhookDelivery.findMany({ where: { merchantId: m.id, signatureValid: true, rejection: null } });
    expect(deliveries.length).toBeGreaterThan(0);
    expect(deliveries.every((d) => d.signalledAt !== null && d.eventId !== null)).toBe(true);
    await waitFor('the activation email', () => (mails(m, 'billing_activated').length ? true : undefined));

    const again = await api(stack, 'POST', '/api/platform-billing/subscribe', { planId: 'STARTER' }, m.token);
    expect(again).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });

    const cancel = await api(stack, 'POST', '/api/platform-billing/cancel', undefined, m.token);
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    expect(cancel.body).toMatchObject({ planId: 'FREE', status: 'DEMO', paid: false, endedReason: 'cancelled', currentPeriodEnd: null, nextRenewalAt: null });
    expect(cancel.body.cancelledAt).toEqual(expect.any(String));
    expect(await current(m)).toMatchObject({ planId: 'FREE', status: 'DEMO', paid: false });

    await waitFor('the cancellation email', () => (mails(m, 'billing_cancelled').length ? true : undefined));
    await waitFor('the workflow to end', async () => ((await workflowRunning(m.id)) ? undefined : true));
    // Whop ended the membership at once (cancellation_mode immediate): its membership.deactivated, carrying the checkout's metadata.
    const ofMerchant = (e: { payload: { data: unknown } }) => (e.payload.data as { metadata?: Record<string, unknown> }).metadata?.platform_billing_merchant_id === m.id;
    expect(stack.sims.processor.webhooks.listEvents().some((e) => e.event === 'membership.deactivated' && ofMerchant(e))).toBe(true);
    await stack.sims.processor.webhooks.idle();
    expect(mails(m, 'billing_activated')).toHaveLength(1);
    expect(mails(m, 'billing_cancelled')).toHaveLength(1);

    const twice = await api(stack, 'POST', '/api/platform-billing/cancel', undefined, m.token);
    expect(twice).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
  });

  it('given a merchant on a paid plan (as the harness makes them) / cancel answers Demo at once', async () => {
    const m = await createTestMerchant(db(), stack.app, 'Billing Paid');
    expect(await current(m)).toMatchObject({ planId: TEST_PAID_PLAN, status: 'ACTIVE', paid: true });

    const cancel = await api(stack, 'POST', '/api/platform-billing/cancel', undefined, m.token);

    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    expect(cancel.body).toMatchObject({ planId: 'FREE', status: 'DEMO', paid: false, endedReason: 'cancelled' });
    expect(await db().platformSubscription.findUniqueOrThrow({ where: { merchantId: m.id } })).toMatchObject({ planId: 'FREE', status: 'DEMO' });
    await waitFor('the cancellation email', () => (mails(m, 'billing_cancelled').length ? true : undefined));
    await waitFor('the workflow to end', async () => ((await workflowRunning(m.id)) ? undefined : true));
    expect(mails(m, 'billing_cancelled')).toHaveLength(1);
  });

  it('given the stored processor plan unknown to Whop (deleted there, or a restarted simulator under a kept database) / subscribe makes a new one and answers its page', async () => {
    const m = await demoMerchant('Billing Replanned');
    // The stored plan of STARTER at its price is one Whop answers 404 for.
    const starter = findPlan('STARTER')!;
    const key = `${starter.id}:${starter.monthlyPriceCents}:${starter.currency}:month`;
    await db().platformProcessorPlan.upsert({ where: { key }, create: { key, processorPlanId: 'plan_gone0000000' }, update: { processorPlanId: 'plan_gone0000000' } });

    const sub = await api(stack, 'POST', '/api/platform-billing/subscribe', { planId: 'STARTER' }, m.token);
    expect(sub.status, JSON.stringify(sub.body)).toBe(200);
    expect(sub.body.paymentUrl).toMatch(new RegExp(`^${stack.urls.processor}/checkout/plan_\\w+/\\?session=ch_`));
    expect(sub.body.paymentUrl).not.toContain('plan_gone0000000');
    const stored = await db().platformProcessorPlan.findUniqueOrThrow({ where: { key } });
    expect(stored.processorPlanId).toMatch(/^plan_/);
    expect(stored.processorPlanId).not.toBe('plan_gone0000000');
    expect(sub.body.paymentUrl).toContain(`/checkout/${stored.processorPlanId}/`);
    expect((await payOnHostedPage(sub.body.paymentUrl as string)).status).toBe(303);
    await waitFor('ACTIVE', async () => ((await current(m)).status === 'ACTIVE' ? true : undefined));
  });

  it('given a declined card / the plan stays Demo and a new subscribe answers a new page', async () => {
    const m = await demoMerchant('Billing Declined');
    const first = await api(stack, 'POST', '/api/platform-billing/subscribe', { planId: 'GROWTH' }, m.token);
    expect(first.status).toBe(200);
    expect((await payOnHostedPage(first.body.paymentUrl as string, '4000 0000 0000 0002')).status).toBe(303);

    const ended = await waitFor('the failed payment to be given up', async () => {
      const c = await current(m);
      return c.status === 'DEMO' ? c : undefined;
    }, 15_000);
    expect(ended).toMatchObject({ planId: 'FREE', paid: false, pending: null, endedReason: 'payment_failed' });
    expect(await db().platformBillingPayment.findMany({ where: { merchantId: m.id } })).toMatchObject([{ kind: 'first', status: 'FAILED' }]);
    // Demo is written a moment before the run ends; a subscribe in between is answered 409 "try again in a moment".
    await waitFor('the workflow to end', async () => ((await workflowRunning(m.id)) ? undefined : true));

    const retry = await api(stack, 'POST', '/api/platform-billing/subscribe', { planId: 'GROWTH' }, m.token);
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    expect(retry.body.paymentUrl).not.toBe(first.body.paymentUrl);
    expect(mails(m, 'billing_activated')).toHaveLength(0);
  });
});

describe('a first payment that is not kept', () => {
  it('given the first payment refunded at the processor before the plan starts (its webhooks late) / the plan stays Demo: the payment is FAILED with the reason, no activation email', async () => {
    const m = await demoMerchant('Billing Refunded First');
    const sub = await api(stack, 'POST', '/api/platform-billing/subscribe', { planId: 'STARTER' }, m.token);
    expect(sub.status).toBe(200);
    expect((await control(stack.urls.processor, 'POST', 'webhooks/hold')).status).toBe(200);
    expect((await payOnHostedPage(sub.body.paymentUrl as string)).status).toBe(303);
    // The platform's own Whop account refunds it (a support refund) before anything told us of the payment.
    const checkoutId = new URL(sub.body.paymentUrl as string).searchParams.get('session')!;
    const [payment] = await platformWhop().listPayments({ companyId: (await platformWhop().getAccount()).id, checkoutIds: [checkoutId] });
    await platformWhop().refundPayment(payment!.id, `test-refund-${m.id}`);
    expect((await control(stack.urls.processor, 'POST', 'webhooks/release', {})).status).toBe(200);
    const ended = await waitFor('the refunded payment to be refused', async () => {
      const rows = await db().platformBillingPayment.findMany({ where: { merchantId: m.id } });
      return rows[0]?.status === 'FAILED' ? rows : undefined;
    }, 20_000);
    expect(ended[0]).toMatchObject({ kind: 'first', status: 'FAILED', error: expect.stringContaining('the plan was not started') });
    await waitFor('Demo', async () => ((await current(m)).status === 'DEMO' ? true : undefined), 20_000);
    expect(await current(m)).toMatchObject({ planId: 'FREE', paid: false });
    expect(mails(m, 'billing_activated')).toHaveLength(0);
  });
});

describe('bad input changes nothing', () => {
  it('given FREE, an unknown plan or no body / 400 INVALID_INPUT, no subscription row, no workflow', async () => {
    const m = await demoMerchant('Billing Bad');
    for (const body of [{ planId: 'FREE' }, { planId: 'PLATINUM' }, {}, { planId: 42 }]) {
      const res = await api(stack, 'POST', '/api/platform-billing/subscribe', body, m.token);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ code: 'INVALID_INPUT', error: expect.stringContaining('planId') });
    }
    expect(await db().platformSubscription.count({ where: { merchantId: m.id } })).toBe(0);
    expect(await workflowRunning(m.id)).toBe(false);
    expect(await api(stack, 'POST', '/api/platform-billing/cancel', undefined, m.token)).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
  });

  it('given no token / current, subscribe and cancel answer 401', async () => {
    for (const [method, url] of [['GET', '/current'], ['POST', '/subscribe'], ['POST', '/cancel']] as const) {
      expect((await api(stack, method, `/api/platform-billing${url}`, method === 'POST' ? { planId: 'STARTER' } : undefined)).status).toBe(401);
    }
  });
});

describe('the billing webhook', () => {
  it('given a forged signature, no signature or a body that is not JSON / 401 or 400, stored for audit, nothing signalled', async () => {
    const m = await demoMerchant('Billing Forged');
    const body = JSON.stringify({ id: 'evt_forged_1', event: 'membership.activated', data: { id: 'mem_x', metadata: { platform_billing_merchant_id: m.id } } });

    expect(await postWebhook(body, signWebhook('whsec_not_the_platform_secret_000', body))).toMatchObject({ status: 401, body: { code: 'INVALID_SIGNATURE' } });
    expect(await postWebhook(body)).toMatchObject({ status: 401, body: { code: 'INVALID_SIGNATURE' } });
    expect(await postWebhook('{not json', 'abc')).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });

    const stored = await db().platformBillingWebhookDelivery.findMany({ where: { OR: [{ event: 'membership.activated', eventId: null, signatureValid: false }, { rejection: 'malformed' }] } });
    expect(stored.map((d) => d.rejection).sort()).toEqual(expect.arrayContaining(['bad_signature', 'bad_signature', 'malformed']));
    expect(stored.every((d) => d.signalledAt === null)).toBe(true);
    expect(await workflowRunning(m.id)).toBe(false);
    expect(await db().platformSubscription.count({ where: { merchantId: m.id } })).toBe(0);
  });

  it('given a genuine event delivered twice / it is signalled once and the second answers duplicate', async () => {
    const m = await demoMerchant('Billing Twice');
    const sub = await api(stack, 'POST', '/api/platform-billing/subscribe', { planId: 'STARTER' }, m.token);
    expect(sub.status).toBe(200);
    await payOnHostedPage(sub.body.paymentUrl as string);
    await waitFor('ACTIVE', async () => ((await current(m)).status === 'ACTIVE' ? true : undefined), 15_000);
    await stack.sims.processor.webhooks.idle();
    const first = await db().platformBillingWebhookDelivery.findFirstOrThrow({ where: { merchantId: m.id, event: 'payment.succeeded', rejection: null } });

    const redelivered = await control(stack.urls.processor, 'POST', 'webhooks/redeliver', { eventId: first.eventId, times: 1 });
    expect(redelivered.status).toBe(202);
    await stack.sims.processor.webhooks.idle();

    const rows = await db().platformBillingWebhookDelivery.findMany({ where: { merchantId: m.id, event: 'payment.succeeded' }, orderBy: { receivedAt: 'asc' } });
    expect(rows.map((r) => r.rejection)).toEqual([null, 'duplicate']);
    const attempts = stack.sims.processor.webhooks.deliveries(first.eventId!).filter((d) => d.url.endsWith('/webhooks/processor/platform-billing'));
    expect(attempts.map((a) => a.status_code)).toEqual([200, 200]);
  });
});

describe('Whop\'s membership events on a paid plan', () => {
  it('given an ACTIVE plan and an operator\'s dashboard endpoint for membership events / Whop ends the membership mid-period (its signed membership.deactivated) / Demo at once with one email; a redelivery is stored and changes nothing', async () => {
    const { m, row, membershipId } = await activeMerchant('Billing Ended');
    expect(row.currentPeriodEnd!.getTime()).toBeGreaterThan(Date.now() + 27 * 24 * 3600_000);
    // Whop's API refuses membership.deactivated (the endpoint the service registers cannot have it): an operator who
    // wants ended memberships at once adds an endpoint in Whop's dashboard; its secret is held as a registered one's.
    const made = await control(stack.urls.processor, 'POST', 'webhooks/dashboard', { businessId: PLATFORM_COMPANY_ID, url: `${stack.config.publicApiUrl}/webhooks/processor/platform-billing`, events: ['membership.deactivated'] });
    expect(made.status).toBe(201);
    const box = createSecretBox(stack.config.secretsKey!);
    await db().platformBillingWebhook.create({ data: { id: made.body.id as string, url: `${stack.config.publicApiUrl}/webhooks/processor/platform-billing#dashboard`, secretEnc: box.encrypt(made.body.webhook_secret as string, platformBillingWebhookAad(made.body.id as string)) } });

    // Ended at Whop (a cancel in Whop's own pages, a refund, a dispute): Whop sends membership.deactivated.
    await platformWhop().cancelMembership(membershipId);
    const demo = await waitFor('Demo', async () => {
      const c = await current(m);
      return c.status === 'DEMO' ? c : undefined;
    }, 15_000);
    expect(demo).toMatchObject({ planId: 'FREE', paid: false, endedReason: 'membership_ended', currentPeriodEnd: null, cancelledAt: null });
    await waitFor('the downgrade email', () => (mails(m, 'billing_downgraded').length ? true : undefined));
    await waitFor('the workflow to end', async () => ((await workflowRunning(m.id)) ? undefined : true));

    // What reached the route was Whop's delivery: Standard Webhooks headers, { type, data: Membership }.
    const [delivered] = await billingDeliveries(m.id, 'membership.deactivated');
    expect(delivered).toMatchObject({ signatureValid: true, rejection: null, eventId: expect.stringMatching(/^msg_/) });
    expect(delivered!.signalledAt).not.toBeNull();
    expect(JSON.parse(delivered!.rawBody)).toMatchObject({ api_version: 'v1', type: 'membership.deactivated', data: { id: membershipId, status: 'canceled' } });

    expect((await control(stack.urls.processor, 'POST', 'webhooks/redeliver', { eventId: delivered!.eventId, times: 2 })).status).toBe(202);
    await stack.sims.processor.webhooks.idle();
    // No plan to follow any more: stored, not signalled.
    expect((await billingDeliveries(m.id, 'membership.deactivated')).map((d) => [d.rejection, d.signalledAt !== null])).toEqual([[null, true], ['stale', false], ['stale', false]]);
    expect(await workflowRunning(m.id)).toBe(false);
    expect(mails(m, 'billing_downgraded')).toHaveLength(1);
    expect(mails(m, 'billing_downgraded')[0]!.TextBody).toContain('ended at our payment provider');
    expect(mails(m, 'billing_renewal_failed')).toHaveLength(0);
  });

  it('given an ACTIVE plan / Whop bills the renewal early and its events arrive newest first (membership.cancel_at_period_end_changed, then payment.succeeded) / the next period is recorded once, no email; a redelivery changes nothing', async () => {
    const { m, row, membershipId } = await activeMerchant('Billing Renewed Early');
    const periodEnd = row.currentPeriodEnd!.getTime();

    // Whop's billing run, then the merchant turns off auto-renew in Whop: the two deliveries held, and released newest first.
    expect((await control(stack.urls.processor, 'POST', 'webhooks/hold')).status).toBe(200);
    expect((await control(stack.urls.processor, 'POST', `memberships/${membershipId}/renew`, { outcome: 'succeeded' })).status).toBe(200);
    const atPeriodEnd = await fetch(`${stack.urls.processor}/api/v1/memberships/${membershipId}/cancel`, {
      method: 'POST', headers: { authorization: `Bearer ${PLATFORM_API_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ cancellation_mode: 'at_period_end' }),
    });
    expect(atPeriodEnd.status).toBe(200);
    const outbox = (await control(stack.urls.processor, 'GET', 'webhooks/outbox')).body.events as Array<{ id: string; event: string }>;
    const held = (type: string) => outbox.find((e) => e.event === type)!.id;
    expect(outbox.map((e) => e.event)).toEqual(['payment.succeeded', 'membership.cancel_at_period_end_changed']);
    expect((await control(stack.urls.processor, 'POST', 'webhooks/release', { ids: [held('membership.cancel_at_period_end_changed'), held('payment.succeeded')] })).status).toBe(200);
    await stack.sims.processor.webhooks.idle();

    const whop = await platformWhop().getMembership(membershipId);
    expect(whop).toMatchObject({ status: 'active', valid: true, cancelAtPeriodEnd: true });
    const renewed = await waitFor('the next period', async () => {
      const r = await db().platformSubscription.findUniqueOrThrow({ where: { merchantId: m.id } });
      return r.currentPeriodStart?.getTime() === periodEnd ? r : undefined;
    }, 15_000);
    expect(renewed).toMatchObject({ planId: 'STARTER', status: 'ACTIVE', renewalFailures: 0, processorMembershipId: membershipId });
    expect(renewed.currentPeriodEnd!.getTime()).toBe(Math.max(periodEndFrom(periodEnd), Date.parse(whop.periodEnd!)));
    for (const type of ['membership.cancel_at_period_end_changed', 'payment.succeeded']) {
      expect((await billingDeliveries(m.id, type, held(type))).map((d) => [d.rejection, d.signalledAt !== null])).toEqual([[null, true]]);
    }

    // The renewal's delivery once more: a duplicate; nothing else moves.
    expect((await control(stack.urls.processor, 'POST', 'webhooks/redeliver', { eventId: held('payment.succeeded') })).status).toBe(202);
    await stack.sims.processor.webhooks.idle();
    expect((await billingDeliveries(m.id, 'payment.succeeded', held('payment.succeeded'))).map((d) => d.rejection)).toEqual([null, 'duplicate']);
    // Let the workflow settle (it continued as new after the renewal) and read everything again.
    await new Promise((r) => setTimeout(r, 1_000));
    const after = await db().platformSubscription.findUniqueOrThrow({ where: { merchantId: m.id } });
    expect([after.currentPeriodStart, after.currentPeriodEnd, after.status]).toEqual([renewed.currentPeriodStart, renewed.currentPeriodEnd, 'ACTIVE']);
    expect((await db().platformBillingPayment.findMany({ where: { merchantId: m.id }, orderBy: { createdAt: 'asc' } })).map((p) => [p.kind, p.attempt, p.status])).toEqual([
      ['first', 1, 'SUCCEEDED'],
      ['renewal', 1, 'SUCCEEDED'],
    ]);
    expect(await current(m)).toMatchObject({ status: 'ACTIVE', paid: true, currentPeriodStart: new Date(periodEnd).toISOString() });
    expect(mails(m, 'billing_activated')).toHaveLength(1);
    expect(stack.sims.email.messages({ to: m.email }).map((e) => e.Tag)).toEqual(['billing_activated']);
  });

  it('given an ACTIVE plan / a signed renewal payment.succeeded that carries no metadata of ours (only data.membership) / it is still the merchant\'s: the next period is recorded', async () => {
    const { m, row, membershipId } = await activeMerchant('Billing No Metadata');
    // Whop's billing run, its own delivery lost; the same payment then arrives without our metadata.
    expect((await control(stack.urls.processor, 'POST', 'webhooks/drop', { count: 1 })).status).toBe(200);
    const run = await control(stack.urls.processor, 'POST', `memberships/${membershipId}/renew`, { outcome: 'succeeded' });
    expect(run.status).toBe(200);
    const sim = stack.sims.processor;
    const payment = sim.store.paymentView(sim.store.payments.get((run.body.payment as { id: string }).id)!);
    expect(payment).toMatchObject({ billing_reason: 'subscription_cycle', membership: { id: membershipId } });
    const event = eventPayload(sim.defaultBusinessId, 'payment.succeeded', { ...payment, metadata: null });
    const body = JSON.stringify(event);
    const endpoint = await db().platformBillingWebhook.findFirstOrThrow();
    const secret = createSecretBox(stack.config.secretsKey!).decrypt(endpoint.secretEnc, platformBillingWebhookAad(endpoint.id));
    const res = await stack.app.inject({
      method: 'POST', url: '/webhooks/processor/platform-billing', payload: body,
      headers: {
        'content-type': 'application/json', 'webhook-id': event.id, 'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': new Webhook(Buffer.from(secret, 'utf8').toString('base64')).sign(event.id, new Date(), body),
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ received: true, duplicate: false, ignored: false });

    const renewed = await waitFor('the next period', async () => {
      const r = await db().platformSubscription.findUniqueOrThrow({ where: { merchantId: m.id } });
      return r.currentPeriodStart?.getTime() === row.currentPeriodEnd!.getTime() ? r : undefined;
    }, 15_000);
    expect(renewed).toMatchObject({ status: 'ACTIVE', renewalFailures: 0 });
    expect((await billingDeliveries(m.id, 'payment.succeeded', event.id)).map((d) => [d.rejection, d.signalledAt !== null])).toEqual([[null, true]]);
  });
});

