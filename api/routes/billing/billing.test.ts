// Platform billing over HTTP, on the whole test stack: the public catalog; a Demo merchant subscribes, pays
// on the processor's page, the platform account's signed webhook reaches /webhooks/processor/platform-billing
// and the plan is ACTIVE; cancel returns to Demo at once; bad input and forged webhooks change nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { createTestMerchant, type TestMerchant } from '../../../test/harness/merchants.js';
import { api, control, waitFor, type Json } from '../../../test/e2e/checkout-helpers.js';
import { signSpecWebhook as signWebhook, SPEC_SIGNATURE_HEADER as SIGNATURE_HEADER } from '../../../integrations/processor/webhook.js';
import { platformSubscriptionWorkflowId } from '../../../workflows/platform-subscription.messages.js';

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
    return (await stack.temporal.client.workflow.getHandle(platformSubscriptionWorkflowId(merchantId)).describe()).status.name === 'RUNNING';
  } catch {
    return false;
  }
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
    expect(await current(m)).toMatchObject({ planId: 'STARTER', status: 'ACTIVE', paid: true });

    const cancel = await api(stack, 'POST', '/api/platform-billing/cancel', undefined, m.token);

    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    expect(cancel.body).toMatchObject({ planId: 'FREE', status: 'DEMO', paid: false, endedReason: 'cancelled' });
    expect(await db().platformSubscription.findUniqueOrThrow({ where: { merchantId: m.id } })).toMatchObject({ planId: 'FREE', status: 'DEMO' });
    await waitFor('the cancellation email', () => (mails(m, 'billing_cancelled').length ? true : undefined));
    await waitFor('the workflow to end', async () => ((await workflowRunning(m.id)) ? undefined : true));
    expect(mails(m, 'billing_cancelled')).toHaveLength(1);
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

    const retry = await api(stack, 'POST', '/api/platform-billing/subscribe', { planId: 'GROWTH' }, m.token);
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    expect(retry.body.paymentUrl).not.toBe(first.body.paymentUrl);
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
    const first = await db().platformBillingWebhookDelivery.findFirstOrThrow({ where: { merchantId: m.id, event: 'membership.activated', rejection: null } });

    const redelivered = await control(stack.urls.processor, 'POST', 'webhooks/redeliver', { eventId: first.eventId, times: 1 });
    expect(redelivered.status).toBe(202);
    await stack.sims.processor.webhooks.idle();

    const rows = await db().platformBillingWebhookDelivery.findMany({ where: { merchantId: m.id, event: 'membership.activated' }, orderBy: { receivedAt: 'asc' } });
    expect(rows.map((r) => r.rejection)).toEqual([null, 'duplicate']);
    const attempts = stack.sims.processor.webhooks.deliveries(first.eventId!).filter((d) => d.url.endsWith('/webhooks/processor/platform-billing'));
    expect(attempts.map((a) => a.status_code)).toEqual([200, 200]);
  });
});
