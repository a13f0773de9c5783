// A new merchant from registration to a verified setup, over HTTP only, against the sandboxes: the email
// verification link from the sandbox mailbox, storefront A OAuth in the sandbox, brand, a shipping rate,
// the processor key, the preview, a paid plan bought on the processor's payment page, a real cart click
// in the sandbox shop, then setup verification. Every step is read back through the wizard's state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack.js';
import { consent, openCallback, openInstall, saveInputs, storefrontAStackOf } from '../harness/storefront-a-stack.js';
import { api, control, storefrontACheckout, unique, waitFor, type Json } from './checkout-helpers.js';
import { setAppEmbed } from '../../scripts/lib/theme-extension.js';
import { DEMO_APP } from '../../sandbox/storefront-a/simulator.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

const PASSWORD = 'correct horse battery 9';

describe('onboarding end to end', () => {
  it('given a new merchant / register → verify email → six steps → plan → real cart click → setup verified, and later logins go to the dashboard', async () => {
    // Register: the wizard is behind the email verification screen.
    const email = `onboard-${unique()}@shop.test`;
    const reg = await api(stack, 'POST', '/api/auth/register', { email, password: PASSWORD, shopName: 'Onboard Outfitters', phone: '+49 30 1234567' });
    expect(reg.status, JSON.stringify(reg.body)).toBe(201);
    const token = reg.body.token as string;
    const state = async () => (await api(stack, 'GET', '/api/merchant/onboarding', undefined, token)).body;
    const filled = async () => ((await state()).steps as Json[]).map((s) => s.filled);
    expect(await state()).toMatchObject({ locked: true, redirect: 'verify-email' });

    // The verification link from the sandbox mailbox.
    const mail = await waitFor('the verification email', () => stack.sims.email.messages({ to: email, tag: 'email_verification' })[0]);
    const linkToken = /token=([A-Za-z0-9_-]+)/.exec(mail.TextBody ?? '')![1]!;
    expect((await api(stack, 'POST', '/api/auth/email/verify-confirm', { token: linkToken })).status).toBe(200);
    expect(await state()).toMatchObject({ locked: false, redirect: 'wizard', currentStep: 1 });

    // Step 1: storefront A through OAuth in the sandbox (the install also puts our script tag in the shop).
    const host = `onboard-${unique()}.myshopify.com`;
    expect((await control(stack.urls.storefrontA, 'POST', 'shops', { shop: host, name: 'Onboard Outfitters' })).status).toBe(201);
    const s = storefrontAStackOf(stack);
    const callback = await openCallback(s, await consent(await openInstall(s, await saveInputs(s, token, { shop: host }))));
    expect(callback.location).toContain('/dashboard?storefrontA=connected');
    // Installed, but the app embed is the merchant's to turn on: status says off, with the theme editor link.
    const embedOff = await api(stack, 'GET', '/api/merchant/script-tag/status', undefined, token);
    expect(embedOff.body).toMatchObject({ installed: false, activationUrl: expect.stringContaining(`/admin/themes/current/editor?context=apps&activateAppId=${DEMO_APP.clientId}/checkout-embed`) });
    await setAppEmbed(stack.urls.storefrontA, host, DEMO_APP.clientId, true);
    expect((await api(stack, 'GET', '/api/merchant/script-tag/status', undefined, token)).body).toMatchObject({ installed: true });
    expect(await filled()).toEqual([true, false, false, false, false, false]);
    expect((await api(stack, 'PATCH', '/api/merchant/onboarding', { currentStep: 2 }, token)).body.currentStep).toBe(2);

    // Step 2: logo (an SVG the sandbox serves) and colors.
    const page = await (await fetch(`${stack.urls.storefrontA}/shops/${host}/`)).text();
    const logoUrl = new URL(/src="([^"]+\.svg)"/.exec(page)![1]!, `${stack.urls.storefrontA}/`).toString();
    const brand = await api(stack, 'PATCH', '/api/merchant/config', { branding: { logoUrl, primaryColor: '#1d4ed8', accentColor: '#1e3a8a' } }, token);
    expect(brand.status, JSON.stringify(brand.body)).toBe(200);

    // Step 3: one shipping rate.
    expect((await api(stack, 'PATCH', '/api/merchant/config', { shippingRates: [{ name: 'Standard', basePriceCents: 490 }] }, token)).status).toBe(200);

    // Step 4: the processor, connected with a sandbox account's key; it is ready, so step 4 can continue.
    const account = await control(stack.urls.processor, 'POST', 'accounts', { businessName: 'Onboard Outfitters' });
    const connected = await api(stack, 'POST', '/api/merchant/processor/connect', { apiKey: account.body.apiKey }, token);
    expect(connected.body, JSON.stringify(connected.body)).toMatchObject({ ready: true });
    expect((await state()).steps[3]).toMatchObject({ filled: true, canContinue: true });
    expect((await state()).steps[4]).toMatchObject({ filled: false, canContinue: false, code: 'PREVIEW_NOT_OPENED' });

    // Step 5: the preview, opened once.
    expect((await api(stack, 'POST', '/api/merchant/preview', undefined, token)).status).toBe(201);
    expect(await filled()).toEqual([true, true, true, true, true, false]);

    // Step 6: still on Demo, so a cart click passes through to the store and verification sends the merchant to billing.
    const cartToken = stack.sims.storefrontA.createCart(host, [{ variantId: stack.sims.storefrontA.state.shops.get(host)!.products[0]!.variants[0]!.id, quantity: 1 }]);
    expect((await api(stack, 'POST', '/api/checkout/create', { platform: 'storefront-a', shop: host, cartToken })).body).toEqual({ passthrough: true });
    expect((await state()).finalCheck).toMatchObject({ ready: false, prerequisites: [{ ok: true }, { ok: true }, { ok: true }, { ok: true }, { ok: false, code: 'NO_REAL_CHECKOUT' }] });
    expect((await api(stack, 'POST', '/api/merchant/setup-verification', undefined, token)).body).toMatchObject({ verified: false, blockedAt: 3, code: 'PLAN_REQUIRED', redirect: 'billing' });

    // Billing: a paid plan, paid on the processor's hosted page; active once the processor confirms.
    const subscribed = await api(stack, 'POST', '/api/platform-billing/subscribe', { planId: 'STARTER' }, token);
    expect(subscribed.status, JSON.stringify(subscribed.body)).toBe(200);
    const paid = await fetch(subscribed.body.paymentUrl as string, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ card_number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123', name: 'Onboard Outfitters' }).toString(),
    });
    expect(paid.status).toBe(303);
    await waitFor('the paid plan', async () => ((await api(stack, 'GET', '/api/platform-billing/current', undefined, token)).body.paid ? true : undefined), 60_000);

    // A shopper's real cart click in the shop (as the script tag sends it) creates a checkout session.
    await storefrontACheckout(stack, stack.sims.storefrontA.state.shops.get(host)!);
    expect((await api(stack, 'GET', '/api/merchant/checkout-activation', undefined, token)).body).toMatchObject({
      active: true, platform: 'storefront-a', realCheckoutExists: true, storefrontA: { scriptTagInstalled: true }, code: null,
    });
    expect((await state()).finalCheck).toMatchObject({ ready: true });

    // "Mark setup verified".
    const verified = await api(stack, 'POST', '/api/merchant/setup-verification', undefined, token);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ verified: true, blockedAt: null, redirect: 'dashboard', onboardingCompletedAt: expect.any(String) });
    expect((verified.body.steps as Json[]).map((step) => step.outcome)).toEqual(['passed', 'passed', 'passed', 'passed', 'passed', 'passed', 'passed']);
    const completedAt = verified.body.onboardingCompletedAt as string;
    expect((await api(stack, 'GET', '/api/merchant/me', undefined, token)).body.onboardingCompletedAt).toBe(completedAt);
    expect(await state()).toMatchObject({ completed: true, redirect: 'dashboard', onboardingCompletedAt: completedAt });
    expect(await filled()).toEqual([true, true, true, true, true, true]);

    // A later login carries what the web app routes by: straight to the dashboard.
    const login = await api(stack, 'POST', '/api/auth/login', { email, password: PASSWORD });
    expect(login.status).toBe(200);
    expect(login.body.merchant.onboardingCompletedAt).toBe(completedAt);
  });
});
