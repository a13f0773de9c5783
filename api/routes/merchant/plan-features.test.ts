// Plan rules enforced by the API (domain/merchant/plan-features.ts): a setting the merchant's plan in force does not have is
// refused with PLAN_FEATURE_REQUIRED naming the plan that has it, and nothing of the request is applied; the checkout
// never offers cash on delivery on a plan without it, also when it was switched on under a plan that had it, and
// Whop's hosted page is told not to offer wallets on a plan without them.
// Demo sets everything up (nothing is live on Demo). Each merchant's plan is its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import Whop from '@whop/sdk';
import { api, merchantWithProcessor, SHOPPER, startPayment, storefrontACheckout, storefrontAMerchant, type Json, type Merchant } from '../../../test/e2e/checkout-helpers.js';
import type { SimShop } from '../../../sandbox/storefront-a/state.js';
import { givePaidPlan } from '../../../scripts/lib/stack/billing.js';
import { newSessionToken } from '../../cart-sources.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

const db = () => stack.database.db;
const patch = (m: Merchant, body: Json) => api(stack, 'PATCH', '/api/merchant/config', body, m.token);
const me = async (m: Merchant) => (await api(stack, 'GET', '/api/merchant/me', undefined, m.token)).body;
const REFUSED = { code: 'PLAN_FEATURE_REQUIRED', details: { feature: 'cod', currentPlan: 'STARTER', requiredPlan: 'GROWTH' } };

/** An open EUR session of the merchant's, as create stores one. */
async function sessionOf(m: Merchant): Promise<string> {
  const token = newSessionToken();
  await db().checkoutSession.create({
    data: { token, merchantId: m.id, platform: 'STOREFRONT_B', currency: 'EUR', fxRates: { date: '2026-11-20', rates: {} }, items: [{ productId: '1', variantId: null, title: 'Mug', variantTitle: null, quantity: 1, unitPrice: 1200, imageUrl: null }], subtotalMinor: 1200 },
  });
  return token;
}

describe('cash on delivery on Starter, which billing sells without it', () => {
  it('given a Starter merchant / PATCH codEnabled true answers 403 PLAN_FEATURE_REQUIRED naming Growth, and nothing of the body is applied', async () => {
    const m = await merchantWithProcessor(stack, 'Starter Shop', { plan: 'STARTER' });

    const res = await patch(m, { codEnabled: true, branding: { primaryColor: '#123456' } });

    expect(res.status).toBe(403);
    expect(res.body).toMatchObject(REFUSED);
    expect(res.body.error).toBe('Cash on delivery is not included in the Starter plan: it comes with Growth (Billing)');
    const row = await db().merchant.findUniqueOrThrow({ where: { id: m.id } });
    expect(row).toMatchObject({ codEnabled: false, primaryColor: null });
    // Switching it off, or anything else, is fine.
    expect((await patch(m, { codEnabled: false, branding: { primaryColor: '#123456' } })).status).toBe(200);
    expect(await me(m)).toMatchObject({ codEnabled: false, plan: { id: 'STARTER', name: 'Starter', features: { cod: { availability: 'none', requiredPlan: 'GROWTH', requiredPlanName: 'Growth' }, customDomain: { availability: 'live' } } } });
  });

  it('given COD switched on under Growth and a downgrade to Starter / the setting stays, the checkout neither offers nor takes it, and Growth brings it back', async () => {
    const m = await merchantWithProcessor(stack, 'Downgraded Shop', { plan: 'GROWTH' });
    expect((await patch(m, { codEnabled: true })).status).toBe(200);
    const token = await sessionOf(m);
    const rate = (await me(m)).shippingRates[0].id as string;
    expect((await api(stack, 'GET', `/api/checkout/session-bundle/${token}`)).body.codEnabled).toBe(true);

    await givePaidPlan(db(), m.id, 'STARTER');

    expect(await me(m)).toMatchObject({ codEnabled: true, plan: { id: 'STARTER', features: { cod: { availability: 'none' } } } });
    expect((await api(stack, 'GET', `/api/checkout/session-bundle/${token}`)).body.codEnabled).toBe(false);
    const slug = (await me(m)).slug as string;
    expect((await api(stack, 'GET', `/api/merchant/config/${slug}`)).body.codEnabled).toBe(false);
    const cod = await api(stack, 'POST', `/api/checkout/${token}/complete-cod`, { ...SHOPPER, shippingRateId: rate });
    expect(cod.status).toBe(409);
    expect(cod.body.code).toBe('COD_NOT_ENABLED');
    expect(await db().checkoutSession.findUniqueOrThrow({ where: { token } })).toMatchObject({ status: 'OPEN', email: null, totalMinor: null, workflowStartedAt: null });
    // Re-sending it does not switch it on either.
    expect((await patch(m, { codEnabled: true })).body).toMatchObject(REFUSED);

    await givePaidPlan(db(), m.id, 'GROWTH');
    expect((await api(stack, 'GET', `/api/checkout/session-bundle/${token}`)).body.codEnabled).toBe(true);
  });

  it('given Demo / COD can be set up (the wizard\'s cash-on-delivery-only launch), not live yet', async () => {
    const m = await merchantWithProcessor(stack, 'Demo Shop', { plan: 'demo' });
    expect((await patch(m, { codEnabled: true })).status).toBe(200);
    expect(await me(m)).toMatchObject({ codEnabled: true, plan: { id: 'FREE', name: 'Demo', features: { cod: { availability: 'setup' } } } });
  });

  it('given COD on and a Starter plan without a processor / the wizard\'s payments step is not filled: COD is no way to pay on Starter', async () => {
    const m = await merchantWithProcessor(stack, 'Cod Only Shop', { plan: 'demo' });
    await db().merchant.update({ where: { id: m.id }, data: { emailVerifiedAt: new Date(), codEnabled: true } });
    await db().processorConnection.deleteMany({ where: { merchantId: m.id } });
    const payments = async () => ((await api(stack, 'GET', '/api/merchant/onboarding', undefined, m.token)).body.steps as Json[]).find((s) => s.key === 'payments');
    expect(await payments()).toMatchObject({ filled: true });

    await givePaidPlan(db(), m.id, 'STARTER');
    expect(await payments()).toMatchObject({ filled: false });
    await givePaidPlan(db(), m.id, 'GROWTH');
    expect(await payments()).toMatchObject({ filled: true });
  });

  it('given two merchants / one\'s Starter refusal leaves the other\'s Growth COD as it is', async () => {
    const starter = await merchantWithProcessor(stack, 'Iso Starter', { plan: 'STARTER' });
    const growth = await merchantWithProcessor(stack, 'Iso Growth', { plan: 'GROWTH' });
    expect((await patch(growth, { codEnabled: true })).status).toBe(200);
    expect((await patch(starter, { codEnabled: true })).status).toBe(403);
    expect((await me(growth)).codEnabled).toBe(true);
    expect((await me(starter)).codEnabled).toBe(false);
  });
});

describe('wallet payments, which come with Growth', () => {
  /** The checkout configuration the session's payment created at the processor sandbox, as Whop's SDK reads it back. */
  async function checkoutAtWhop(m: Merchant & { shop: SimShop }) {
    const { paymentId } = await startPayment(stack, await storefrontACheckout(stack, m.shop));
    const whop = new Whop({ apiKey: m.processorApiKey!, baseURL: `${stack.urls.processor}/api/v1`, maxRetries: 0, webhookKey: null });
    return whop.checkoutConfigurations.retrieve(paymentId as string);
  }

  it("given a Starter merchant / its shopper's checkout configuration at Whop switches Apple Pay and Google Pay off (Whop's page offers them by default), every other method left to Whop", async () => {
    const m = await storefrontAMerchant(stack, 'Wallet Starter', { plan: 'STARTER' });
    expect((await checkoutAtWhop(m)).payment_method_configuration).toEqual({ disabled: ['apple_pay', 'google_pay'], enabled: [], include_platform_defaults: true });
  });

  it("given a Growth merchant / its checkout configuration carries no override: Whop's defaults, wallets included; a downgrade to Starter switches them off for the next checkout", async () => {
    const m = await storefrontAMerchant(stack, 'Wallet Growth', { plan: 'GROWTH' });
    expect((await checkoutAtWhop(m)).payment_method_configuration).toBeNull();

    await givePaidPlan(db(), m.id, 'STARTER');
    expect((await checkoutAtWhop(m)).payment_method_configuration).toMatchObject({ disabled: ['apple_pay', 'google_pay'] });
  });
});
