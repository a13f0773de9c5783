// The shopper's language, recorded with their details at complete-cod and init-payment: from the body's `locale`
// (the checkout page sends navigator.language), else the Accept-Language header; the order emails name the country in
// it. A locale that is no language tag is refused like any bad input, and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { api, emailsOf, SHOPPER, storefrontACheckout, storefrontAMerchant, waitFor, type Json } from '../../../test/e2e/checkout-helpers.js';

let stack: TestStack;
let merchant: Awaited<ReturnType<typeof storefrontAMerchant>>;

beforeAll(async () => {
  stack = await startTestStack();
  merchant = await storefrontAMerchant(stack, 'Language Shop');
  const cod = await api(stack, 'PATCH', '/api/merchant/config', { codEnabled: true }, merchant.token);
  expect(cod.status, JSON.stringify(cod.body)).toBe(200);
});
afterAll(async () => {
  await stack?.close();
});

let ip = 0;
/** complete-cod as a browser sends it: the details, and the headers it sets. */
async function completeCod(token: string, body: Json, headers: Record<string, string> = {}) {
  const bundle = await api(stack, 'GET', `/api/checkout/session-bundle/${token}`);
  const res = await stack.app.inject({
    method: 'POST',
    url: `/api/checkout/${token}/complete-cod`,
    payload: { ...SHOPPER, shippingRateId: bundle.body.shipping[0].id, ...body },
    headers,
    remoteAddress: `203.0.113.${(ip++ % 250) + 1}`,
  });
  return { status: res.statusCode, body: res.json() as Json };
}

/** The shopper's confirmation, once sent: its text. */
const confirmation = (token: string) =>
  waitFor('the confirmation email', () => emailsOf(stack, token, merchant.email).toShopper[0]?.TextBody ?? undefined);

const row = (token: string) => stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } });

describe('the shopper\'s language', () => {
  it('given the page sends de_DE / it is stored as de-DE, and the confirmation names the country in German', async () => {
    const token = await storefrontACheckout(stack, merchant.shop);
    const res = await completeCod(token, { locale: 'de_DE' }, { 'accept-language': 'en-US' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await row(token)).shopperLocale).toBe('de-DE');
    const text = await confirmation(token);
    expect(text).toContain('10115 Berlin\nDeutschland');
    expect(text).not.toMatch(/\nDE\n/);
  });

  it('given no locale in the body / the Accept-Language header\'s preferred language is stored and used', async () => {
    const token = await storefrontACheckout(stack, merchant.shop);
    const res = await completeCod(token, {}, { 'accept-language': 'de;q=0.5, fr-CH, en;q=0.8' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await row(token)).shopperLocale).toBe('fr-CH');
    expect(await confirmation(token)).toContain('10115 Berlin\nAllemagne');
  });

  it('given a header that names no usable language / nothing is stored, and the country reads in English', async () => {
    const token = await storefrontACheckout(stack, merchant.shop);
    const res = await completeCod(token, {}, { 'accept-language': '*, x!!;q=0.9' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await row(token)).shopperLocale).toBeNull();
    expect(await confirmation(token)).toContain('10115 Berlin\nGermany');
  });

  it('given a locale that is no language tag / 400 INVALID_INPUT naming it, and the checkout is unchanged', async () => {
    const token = await storefrontACheckout(stack, merchant.shop);
    for (const locale of ['not a tag', 'de-DE-x-private-use-too-long', 'e', '']) {
      const res = await completeCod(token, { locale });
      expect([res.status, res.body.code], locale).toEqual([400, 'INVALID_INPUT']);
      expect(Object.keys(res.body.details.fields), locale).toEqual(['body.locale']);
    }
    expect(await row(token)).toMatchObject({ status: 'OPEN', email: null, shopperLocale: null });
  });

  it('given init-payment with a locale / it is stored with the details before the payment starts', async () => {
    const token = await storefrontACheckout(stack, merchant.shop);
    const bundle = await api(stack, 'GET', `/api/checkout/session-bundle/${token}`);
    const res = await api(stack, 'POST', `/api/checkout/${token}/init-payment`, { ...SHOPPER, shippingRateId: bundle.body.shipping[0].id, locale: 'pt-BR' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await row(token)).toMatchObject({ status: 'PAYMENT_PENDING', shopperLocale: 'pt-BR' });
  });
});
