// The merchant's checkout texts per page language (PATCH /api/merchant/config checkoutTextTranslations): a page in a
// language shows that language's texts over the texts as written, which still serve every other language; "" removes
// one text; a language the page does not speak, or a key that is no text, is refused and changes nothing. The
// session bundle answers the texts for the language it is asked in (the page sends its own). And the merchant's choice
// of where shoppers pay by card (paymentPage).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { api, storefrontACheckout, storefrontAMerchant, type Json, type Merchant } from '../../../test/e2e/checkout-helpers.js';
import type { SimShop } from '../../../sandbox/storefront-a/state.js';

let stack: TestStack;
let m: Merchant & { shop: SimShop };
beforeAll(async () => {
  stack = await startTestStack();
  m = await storefrontAMerchant(stack, 'Texts Per Language');
});
afterAll(async () => {
  await stack?.close();
});

const bundleIn = async (token: string, language?: string) => {
  const res = await stack.app.inject({ method: 'GET', url: `/api/checkout/session-bundle/${token}`, headers: language ? { 'accept-language': language } : {} });
  return { texts: (res.json() as Json).checkoutTexts as Record<string, string>, vary: String(res.headers.vary) };
};

describe('checkout texts per language', () => {
  it('given texts as written and German ones / a German page gets the German ones over them, others the texts as written', async () => {
    const set = await api(stack, 'PATCH', '/api/merchant/config', {
      checkoutTexts: { headline: 'Almost yours', footerNote: 'Questions? hello@shop.test' },
      checkoutTextTranslations: { de: { headline: 'Fast geschafft', successMessage: 'Danke schön!' }, fr: { headline: 'Presque à vous' } },
    }, m.token);
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.checkoutTextTranslations).toEqual({ de: { headline: 'Fast geschafft', successMessage: 'Danke schön!' }, fr: { headline: 'Presque à vous' } });
    const token = await storefrontACheckout(stack, m.shop);
    const de = await bundleIn(token, 'de-DE,de;q=0.9');
    expect(de.texts).toEqual({ headline: 'Fast geschafft', successMessage: 'Danke schön!', footerNote: 'Questions? hello@shop.test' });
    expect(de.vary).toMatch(/Accept-Language/i);
    expect((await bundleIn(token, 'it')).texts).toEqual({ headline: 'Almost yours', footerNote: 'Questions? hello@shop.test' });
    expect((await bundleIn(token)).texts).toEqual({ headline: 'Almost yours', footerNote: 'Questions? hello@shop.test' });

    // "" removes one text of a language; a language left with none is gone.
    const cleared = await api(stack, 'PATCH', '/api/merchant/config', { checkoutTextTranslations: { de: { successMessage: '' }, fr: { headline: '' } } }, m.token);
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    expect(cleared.body.checkoutTextTranslations).toEqual({ de: { headline: 'Fast geschafft' } });
    expect((await bundleIn(token, 'de')).texts.successMessage).toBeUndefined();
  });

  it.each([
    ['a language the page does not speak', { pt: { headline: 'Quase seu' } }, 'body.checkoutTextTranslations'],
    ['a key that is no text', { de: { greeting: 'Hallo' } }, 'body.checkoutTextTranslations.de'],
    ['a text over 300 characters', { de: { headline: 'x'.repeat(301) } }, 'body.checkoutTextTranslations.de.headline'],
  ])('given %s / 400 INVALID_INPUT naming it, nothing changed', async (_what, checkoutTextTranslations, field) => {
    const before = (await api(stack, 'GET', '/api/merchant/me', undefined, m.token)).body.checkoutTextTranslations as Json;
    const res = await api(stack, 'PATCH', '/api/merchant/config', { checkoutTextTranslations }, m.token);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(Object.keys(res.body.details.fields).some((k) => k.startsWith(field)), JSON.stringify(res.body.details.fields)).toBe(true);
    expect((await api(stack, 'GET', '/api/merchant/me', undefined, m.token)).body.checkoutTextTranslations).toEqual(before);
  });
});

describe('where shoppers pay by card', () => {
  it('given a new merchant / embedded in the checkout page; PATCH paymentPage hosted and back is kept and answered; another word is refused', async () => {
    expect((await api(stack, 'GET', '/api/merchant/me', undefined, m.token)).body.paymentPage).toBe('embedded');
    const hosted = await api(stack, 'PATCH', '/api/merchant/config', { paymentPage: 'hosted' }, m.token);
    expect([hosted.status, hosted.body.paymentPage]).toEqual([200, 'hosted']);
    expect((await stack.database.db.merchant.findUniqueOrThrow({ where: { id: m.id } })).paymentPage).toBe('HOSTED');
    const bad = await api(stack, 'PATCH', '/api/merchant/config', { paymentPage: 'popup' }, m.token);
    expect([bad.status, bad.body.code]).toEqual([400, 'INVALID_INPUT']);
    expect(Object.keys(bad.body.details.fields)).toContain('body.paymentPage');
    expect((await api(stack, 'PATCH', '/api/merchant/config', { paymentPage: 'embedded' }, m.token)).body.paymentPage).toBe('embedded');
  });
});
