// The onboarding wizard's state, checkout activation and each condition that blocks setup verification,
// through the API on the whole stack (workflow → activities → sandboxes). The merchant's starting point
// (email verified; a paid plan, test/harness/billing.ts) is given in the database; the rest goes through the API.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { api, control, merchantWithProcessor, storefrontACheckout, storefrontAMerchant, unique, type Json, type Merchant, type MerchantOptions } from '../../../test/e2e/checkout-helpers.js';
import { setAppEmbed } from '../../../scripts/lib/theme-extension.js';
import { DEMO_APP } from '../../../sandbox/storefront-a/simulator.js';
import type { SimShop } from '../../../sandbox/storefront-a/state.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});
beforeEach(() => {
  stack.sims.storefrontA.faults.clear();
});

const db = () => stack.database.db;
const onboarding = (m: Merchant) => api(stack, 'GET', '/api/merchant/onboarding', undefined, m.token);
const activation = (m: Merchant) => api(stack, 'GET', '/api/merchant/checkout-activation', undefined, m.token);
const verify = (m: Merchant) => api(stack, 'POST', '/api/merchant/setup-verification', undefined, m.token);
const completedAt = async (m: Merchant) => (await db().merchant.findUniqueOrThrow({ where: { id: m.id } })).onboardingCompletedAt;

const givenEmailVerified = (m: Merchant) => db().merchant.update({ where: { id: m.id }, data: { emailVerifiedAt: new Date() } });

/** Logo (an SVG served by the sandbox store over the allowed origin) and both colors, through PATCH config. */
async function setBrand(m: Merchant): Promise<void> {
  const page = await (await fetch(`${stack.urls.storefrontA}/shops/demo-shop.myshopify.com/`)).text();
  const logoUrl = new URL(/src="([^"]+\.svg)"/.exec(page)![1]!, `${stack.urls.storefrontA}/`).toString();
  const res = await api(stack, 'PATCH', '/api/merchant/config', { branding: { logoUrl, primaryColor: '#3355ff', accentColor: '#2244cc' } }, m.token);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** A storefront A merchant past steps 1-4 (on a paid plan unless `plan: 'demo'`), email verified: what the later blocking conditions start from. */
async function readyStorefrontAMerchant(name: string, opts: MerchantOptions = {}) {
  const m = await storefrontAMerchant(stack, name, opts);
  await givenEmailVerified(m);
  await setBrand(m);
  return m;
}

const embed = (shop: SimShop, enabled: boolean) => setAppEmbed(stack.urls.storefrontA, shop.host, DEMO_APP.clientId, enabled);

describe('the wizard state (GET/PATCH /api/merchant/onboarding)', () => {
  it('given an unverified email / the wizard answers locked behind the verification screen, and nothing can be saved or verified', async () => {
    const m = await merchantWithProcessor(stack, 'Locked Shop');

    const state = await onboarding(m);
    expect(state.status).toBe(200);
    expect(state.body).toMatchObject({ emailVerified: false, locked: true, redirect: 'verify-email', completed: false });
    expect((state.body.steps as Json[]).every((s) => !s.unlocked)).toBe(true);

    const save = await api(stack, 'PATCH', '/api/merchant/onboarding', { currentStep: 3 }, m.token);
    expect(save).toMatchObject({ status: 403, body: { code: 'EMAIL_NOT_VERIFIED' } });
    expect(await verify(m)).toMatchObject({ status: 403, body: { code: 'EMAIL_NOT_VERIFIED' } });
    expect((await db().merchant.findUniqueOrThrow({ where: { id: m.id } })).onboardingStep).toBeNull();
  });

  it('given a verified merchant with a processor and rates / steps 3 and 4 filled, the saved step is where the wizard resumes', async () => {
    const m = await merchantWithProcessor(stack, 'Resume Shop');
    await givenEmailVerified(m);

    const before = await onboarding(m);
    expect(before.body).toMatchObject({ locked: false, redirect: 'wizard', currentStep: 1, savedStep: null, firstIncompleteStep: 1, payments: { processorReady: true, codEnabled: false, canContinue: true } });
    expect((before.body.steps as Json[]).map((s) => [s.key, s.filled])).toEqual([
      ['platform', false], ['brand', false], ['shipping', true], ['payments', true], ['preview', false], ['final-check', false],
    ]);
    expect((before.body.finalCheck as Json).prerequisites.map((p: Json) => [p.key, p.ok, p.code])).toEqual([
      ['store', false, 'STORE_NOT_CHOSEN'], ['brand', false, 'BRAND_INCOMPLETE'], ['shipping', true, null], ['payment', true, null], ['realCheckout', false, 'NO_REAL_CHECKOUT'],
    ]);

    const saved = await api(stack, 'PATCH', '/api/merchant/onboarding', { currentStep: 4 }, m.token);
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ currentStep: 4, savedStep: 4 });
    expect((await onboarding(m)).body.currentStep).toBe(4);

    for (const bad of [0, 7, 2.5, '3']) {
      const res = await api(stack, 'PATCH', '/api/merchant/onboarding', { currentStep: bad }, m.token);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_INPUT');
    }
    expect((await onboarding(m)).body.currentStep).toBe(4);
  });

  it('given no platform chosen / Continue on step 1 is refused with STEP_INCOMPLETE and nothing saved; the stepper may still skip; once chosen, Continue passes', async () => {
    const m = await merchantWithProcessor(stack, 'Undecided Shop');
    await givenEmailVerified(m);
    expect(((await onboarding(m)).body.steps as Json[]).map((s) => [s.number, s.canContinue])).toEqual([[1, false], [2, false], [3, true], [4, true], [5, false], [6, false]]);

    const refused = await api(stack, 'PATCH', '/api/merchant/onboarding', { currentStep: 2, continueFrom: 1 }, m.token);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ code: 'STEP_INCOMPLETE', error: 'Step 1 is not done: Choose Shopify or WooCommerce first' });
    expect((await db().merchant.findUniqueOrThrow({ where: { id: m.id } })).onboardingStep).toBeNull();

    // Continue from step 2 without a logo and colors, from step 5 without a preview: refused the same way, with the reason.
    for (const [from, reason] of [[2, /logo URL, primary color, accent color/], [5, /preview/]] as const) {
      const res = await api(stack, 'PATCH', '/api/merchant/onboarding', { currentStep: from + 1, continueFrom: from }, m.token);
      expect(res.status, String(from)).toBe(409);
      expect(res.body.code).toBe('STEP_INCOMPLETE');
      expect(res.body.error).toMatch(reason);
    }
    expect((await db().merchant.findUniqueOrThrow({ where: { id: m.id } })).onboardingStep).toBeNull();

    // The stepper (no continueFrom) skips, as the spec allows.
    expect((await api(stack, 'PATCH', '/api/merchant/onboarding', { currentStep: 2 }, m.token)).body).toMatchObject({ currentStep: 2 });

    expect((await api(stack, 'PATCH', '/api/merchant/shop', { storePlatform: 'storefront-b' }, m.token)).status).toBe(200);
    const passed = await api(stack, 'PATCH', '/api/merchant/onboarding', { currentStep: 2, continueFrom: 1 }, m.token);
    expect(passed.status, JSON.stringify(passed.body)).toBe(200);
    expect(passed.body).toMatchObject({ currentStep: 2, savedStep: 2, platform: 'storefront-b' });
    // Step 3 has its rate (merchantWithProcessor): Continue from it passes.
    expect((await api(stack, 'PATCH', '/api/merchant/onboarding', { currentStep: 4, continueFrom: 3 }, m.token)).status).toBe(200);
  });

  it('given setup not verified / PATCH config cannot set onboardingCompletedAt, and nothing else in that body is applied', async () => {
    const m = await merchantWithProcessor(stack, 'Eager Shop');
    await givenEmailVerified(m);

    const res = await api(stack, 'PATCH', '/api/merchant/config', { codEnabled: true, onboardingCompletedAt: new Date().toISOString() }, m.token);

    expect(res).toMatchObject({ status: 409, body: { code: 'SETUP_NOT_VERIFIED' } });
    const row = await db().merchant.findUniqueOrThrow({ where: { id: m.id } });
    expect(row.onboardingCompletedAt).toBeNull();
    expect(row.codEnabled).toBe(false);
  });
});

describe('setup verification: each blocking condition answers its step and reason', () => {
  it('given the processor not ready and COD disabled / blocked at step 2; with COD enabled (COD-only launch) it gets past step 2', async () => {
    const reg = await api(stack, 'POST', '/api/auth/register', { email: `cod-${unique()}@shop.test`, password: 'correct horse battery 9', shopName: 'No Pay Shop', phone: '+49 30 1234567' });
    const m: Merchant = { token: reg.body.token, id: reg.body.merchant.id, email: reg.body.merchant.email };
    await givenEmailVerified(m);
    await setBrand(m);
    await api(stack, 'PATCH', '/api/merchant/config', { shippingRates: [{ name: 'Standard', basePriceCents: 490 }] }, m.token);

    const res = await verify(m);

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ verified: false, blockedAt: 2, code: 'PAYMENT_METHOD_NOT_READY', redirect: null, onboardingCompletedAt: null });
    expect(res.body.reason).toMatch(/Whop/);
    expect((res.body.steps as Json[]).map((s) => s.outcome)).toEqual(['passed', 'blocked', 'not_reached', 'not_reached', 'not_reached', 'not_reached', 'not_reached']);
    expect(await completedAt(m)).toBeNull();

    await api(stack, 'PATCH', '/api/merchant/config', { codEnabled: true }, m.token);
    expect((await verify(m)).body).toMatchObject({ verified: false, blockedAt: 3 });
  });

  it('given no shipping rate / blocked at step 1 (a rate is needed to pass onboarding)', async () => {
    const m = await merchantWithProcessor(stack, 'No Rate Shop');
    await givenEmailVerified(m);
    await setBrand(m);
    await api(stack, 'PATCH', '/api/merchant/config', { shippingRates: [] }, m.token);

    expect((await verify(m)).body).toMatchObject({ verified: false, blockedAt: 1, code: 'NO_SHIPPING_RATE' });
    expect(await completedAt(m)).toBeNull();
  });

  it('given no paid plan (Demo) / blocked at step 3 with a redirect to billing', async () => {
    const m = await readyStorefrontAMerchant('Demo Shop', { plan: 'demo' });

    const res = await verify(m);

    expect(res.body).toMatchObject({ verified: false, blockedAt: 3, code: 'PLAN_REQUIRED', redirect: 'billing', onboardingCompletedAt: null });
    expect(await completedAt(m)).toBeNull();
  });

  it('given a paid plan and only a preview session / blocked at step 4: no real checkout from a store cart', async () => {
    const m = await readyStorefrontAMerchant('Preview Only Shop');
    expect((await api(stack, 'POST', '/api/merchant/preview', undefined, m.token)).status).toBe(201);

    const live = await activation(m);
    expect(live.body).toMatchObject({ active: false, platform: 'storefront-a', realCheckoutExists: false, code: 'NO_REAL_CHECKOUT', storefrontA: { scriptTagInstalled: true, checkError: null }, storefrontB: null });

    const res = await verify(m);
    expect(res.body).toMatchObject({ verified: false, blockedAt: 4, code: 'NO_REAL_CHECKOUT', redirect: null });
    expect(await completedAt(m)).toBeNull();
  });

  it('given a real checkout but our app embed off in the published theme / blocked at step 5 with the activation link; once the merchant turns it on, verified', async () => {
    const m = await readyStorefrontAMerchant('Embedless Shop');
    await storefrontACheckout(stack, m.shop);
    await embed(m.shop, false);

    const live = await activation(m);
    const activationUrl = `${stack.config.storefrontA.apiTemplate.replace('{shop}', m.shop.host)}/admin/themes/current/editor?context=apps&activateAppId=${DEMO_APP.clientId}/checkout-embed`;
    expect(live.body).toMatchObject({ active: false, realCheckoutExists: true, code: 'SCRIPT_TAG_MISSING', storefrontA: { scriptTagInstalled: false, activationUrl, themeName: 'Dawn' } });
    expect(live.body.reason).toMatch(/app embed/);

    const blocked = await verify(m);
    expect(blocked.body).toMatchObject({ verified: false, blockedAt: 5, code: 'SCRIPT_TAG_NOT_INSTALLED', redirect: null, onboardingCompletedAt: null });
    expect(blocked.body.reason).toContain(activationUrl);
    expect((blocked.body.steps as Json[]).map((s) => s.outcome)).toEqual(['passed', 'passed', 'passed', 'passed', 'blocked', 'not_reached', 'not_reached']);
    expect(await completedAt(m)).toBeNull();

    await embed(m.shop, true);
    const verified = await verify(m);
    expect(verified.body).toMatchObject({ verified: true, blockedAt: null, code: null, redirect: 'dashboard', onboardingCompletedAt: expect.any(String) });
    expect((verified.body.steps as Json[])[4]).toMatchObject({ outcome: 'passed', detail: 'app embed on in Dawn' });
    expect(m.shop.scriptTags.size).toBe(0);
    expect((await completedAt(m))?.toISOString()).toBe(verified.body.onboardingCompletedAt);
    expect((await activation(m)).body).toMatchObject({ active: true, code: null });

    // Verified once: a later run and a PATCH config with another instant keep the recorded one.
    expect((await verify(m)).body.onboardingCompletedAt).toBe(verified.body.onboardingCompletedAt);
    const patched = await api(stack, 'PATCH', '/api/merchant/config', { onboardingCompletedAt: '2030-01-01T00:00:00.000Z' }, m.token);
    expect(patched.status).toBe(200);
    expect(patched.body.onboardingCompletedAt).toBe(verified.body.onboardingCompletedAt);

    // null re-opens the wizard; only the next verification completes it again.
    expect((await api(stack, 'PATCH', '/api/merchant/config', { onboardingCompletedAt: null }, m.token)).body.onboardingCompletedAt).toBeNull();
    expect((await onboarding(m)).body).toMatchObject({ completed: false, redirect: 'wizard' });
    expect((await api(stack, 'PATCH', '/api/merchant/config', { onboardingCompletedAt: verified.body.onboardingCompletedAt }, m.token)).body.code).toBe('SETUP_NOT_VERIFIED');
    expect((await verify(m)).body).toMatchObject({ verified: true });
    expect((await onboarding(m)).body).toMatchObject({ completed: true, redirect: 'dashboard' });
  });
});

describe('storefront B: the official plugin is the interception point', () => {
  it('given a connected store without a plugin checkout / not active; after a checkout click through the plugin / active and verified without a script tag', async () => {
    const m = await merchantWithProcessor(stack, 'Plugin Shop');
    await givenEmailVerified(m);
    await setBrand(m);
    const store = await control(stack.urls.storefrontB, 'POST', 'stores', { id: `onb-${unique()}`, currency: 'EUR' });
    expect(store.status, JSON.stringify(store.body)).toBe(201);
    const connected = await api(stack, 'POST', '/api/merchant/storefront-b/connect', { storeUrl: store.body.storeUrl, consumerKey: store.body.consumerKey, consumerSecret: store.body.consumerSecret }, m.token);
    expect(connected.status, JSON.stringify(connected.body)).toBe(200);

    expect((await activation(m)).body).toMatchObject({ active: false, platform: 'storefront-b', code: 'NO_REAL_CHECKOUT', storefrontA: null, storefrontB: { pluginIntercepted: false } });
    expect((await verify(m)).body).toMatchObject({ verified: false, blockedAt: 4, code: 'NO_REAL_CHECKOUT' });

    const simple = (store.body.products as Json[]).find((p) => p.variations.length === 0)!;
    const clicked = await control(stack.urls.storefrontB, 'POST', `stores/${store.body.id}/checkout`, { items: [{ productId: simple.id, quantity: 1 }] });
    expect(clicked.body.interception, JSON.stringify(clicked.body)).toMatchObject({ outcome: 'redirected' });

    expect((await activation(m)).body).toMatchObject({ active: true, realCheckoutExists: true, code: null, storefrontB: { pluginIntercepted: true } });
    const res = await verify(m);
    expect(res.body).toMatchObject({ verified: true, redirect: 'dashboard' });
    expect((res.body.steps as Json[])[4]).toMatchObject({ outcome: 'not_applicable' });
  });
});

describe('the API document', () => {
  it('given the OpenAPI document / it lists the onboarding routes with bearer auth and both shapes of the verification result', async () => {
    const doc = (await api(stack, 'GET', '/docs/json')).body as { paths: Record<string, Record<string, Json>>; components: { schemas: Record<string, Json> } };
    expect(Object.keys(doc.paths['/api/merchant/onboarding'] ?? {}).sort()).toEqual(['get', 'patch']);
    for (const [path, method] of [['/api/merchant/onboarding', 'get'], ['/api/merchant/onboarding', 'patch'], ['/api/merchant/checkout-activation', 'get'], ['/api/merchant/setup-verification', 'post']] as const) {
      expect(doc.paths[path]?.[method]?.security, `${method} ${path}`).toEqual([{ bearerAuth: [] }]);
    }
    expect(JSON.stringify(doc.components.schemas.SetupVerificationResult)).toContain('blockedAt');
    expect(doc.components.schemas.OnboardingState).toBeDefined();
    expect(doc.components.schemas.CheckoutActivation).toBeDefined();
  });
});
