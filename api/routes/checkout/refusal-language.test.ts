// The checkout API answers a shopper's refusals in the shopper's language (the Accept-Language the checkout page
// sends: the language it shows): field messages and the `error` text, with Content-Language and Vary saying so; the
// code and the field paths stay as they are. English, a language the page does not speak, and the merchant's routes
// answer as written. Every message the shopper schema can give (each field's rule broken) has its translation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { SHOPPER, storefrontACheckout, storefrontAMerchant, type Json, type Merchant } from '../../../test/e2e/checkout-helpers.js';
import type { SimShop } from '../../../sandbox/storefront-a/state.js';
import { shopperDetails } from '../../schemas/shopper.js';
import { SHOPPER_ERRORS, translateShopperError } from '../../../domain/checkout/shopper-errors/index.js';

let stack: TestStack;
let m: Merchant & { shop: SimShop };
beforeAll(async () => {
  stack = await startTestStack();
  m = await storefrontAMerchant(stack, 'Refusals Polyglot');
});
afterAll(async () => {
  await stack?.close();
});

let n = 0;
async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await stack.app.inject({ method: 'POST', url, payload: body as Json, remoteAddress: `203.0.113.${(n++ % 250) + 1}`, headers });
  return { status: res.statusCode, body: res.json() as Json, headers: res.headers };
}

const badDetails = { ...SHOPPER, email: 'not-an-email', address: { ...SHOPPER.address, city: '   ', country: 'KP' }, shippingRateId: '00000000-0000-4000-8000-000000000000' };

describe('a refused init-payment', () => {
  it('given a German page / each field\'s message and the error in German, the code and field paths as they are, Content-Language: de', async () => {
    const token = await storefrontACheckout(stack, m.shop);
    const res = await post(`/api/checkout/${token}/init-payment`, badDetails, { 'accept-language': 'de' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(res.body.details.fields).toEqual({ 'body.email': 'Geben Sie eine gültige E-Mail-Adresse ein', 'body.address.city': 'Geben Sie den Ort ein' });
    expect(res.body.error).toBe('body.email: Geben Sie eine gültige E-Mail-Adresse ein; body.address.city: Geben Sie den Ort ein');
    expect(res.headers['content-language']).toBe('de');
    expect(String(res.headers.vary)).toMatch(/Accept-Language/i);
  });

  it('given a French page and a country no rate ships to / the country named in French', async () => {
    const token = await storefrontACheckout(stack, m.shop);
    const rates = (await stack.app.inject({ method: 'GET', url: `/api/checkout/session-bundle/${token}` })).json().shipping as Json[];
    const res = await post(`/api/checkout/${token}/init-payment`, { ...SHOPPER, address: { ...SHOPPER.address, country: 'AQ' }, shippingRateId: rates[0]!.id }, { 'accept-language': 'fr-FR,fr;q=0.9' });
    expect(res.status).toBe(400);
    expect(res.body.details.fields).toEqual({ 'body.address.country': 'Cette boutique ne livre pas vers Antarctique' });
  });

  it.each([['en-US'], ['pt-BR'], [undefined]])('given Accept-Language %s / English as written, no Content-Language', async (language) => {
    const token = await storefrontACheckout(stack, m.shop);
    const res = await post(`/api/checkout/${token}/init-payment`, badDetails, language ? { 'accept-language': language } : {});
    expect(res.body.details.fields).toEqual({ 'body.email': 'enter a valid email address', 'body.address.city': 'enter the city' });
    expect(res.headers['content-language']).toBeUndefined();
  });

  it('given a discount code the shop does not have, on an Italian page / the verdict in Italian with its code', async () => {
    const token = await storefrontACheckout(stack, m.shop);
    const res = await post(`/api/checkout/${token}/validate-discount`, { code: 'NOPE-NOPE' }, { 'accept-language': 'it' });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'DISCOUNT_UNKNOWN', error: 'Questo codice sconto non è valido' });
  });
});

describe('the merchant\'s routes', () => {
  it('given Accept-Language: de on a merchant route / the refusal stays as written', async () => {
    const res = await post('/api/checkout/merchant/orders/cs_nope/refund', {}, { 'accept-language': 'de', authorization: `Bearer ${m.token}` });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.headers['content-language']).toBeUndefined();
  });
});

describe('every message of the shopper schema', () => {
  it('given each field\'s rule broken / each message has its translation in every language', () => {
    const broken: unknown[] = [
      { ...badDetails, address: { name: ' ', line1: ' ', city: ' ', postalCode: '!', country: 'XX', region: 'x'.repeat(121), phone: 'call me' }, shippingRateId: 'nope', discountCode: ' ', orderBumpIds: ['nope'] },
      { ...badDetails, address: { ...SHOPPER.address, name: 'x'.repeat(121) } },
    ];
    const messages = new Set(broken.flatMap((body) => shopperDetails.safeParse(body).error?.issues.map((i) => i.message) ?? []));
    expect(messages.size).toBeGreaterThan(8);
    for (const language of Object.keys(SHOPPER_ERRORS).filter((l) => l !== 'en') as Array<Exclude<keyof typeof SHOPPER_ERRORS, 'en'>>) {
      for (const message of messages) expect(translateShopperError(message, language), `${language}: ${message}`).not.toBe(message);
    }
  });
});
