// Shipping zones at the checkout, enforced by the API and not only by the page: init-payment and complete-cod refuse
// an address in a country none of the merchant's rates ships to (400 INVALID_INPUT on address.country) and a rate
// that does not ship to the address's country (on shippingRateId), before anything is stored or any workflow starts;
// an address where the chosen rate ships goes through. Each merchant's zones are its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { api, SHOPPER, storefrontACheckout, storefrontAMerchant, type Json, type Merchant } from '../../../test/e2e/checkout-helpers.js';
import type { SimShop } from '../../../sandbox/storefront-a/state.js';
import { priceCheckout } from '../../../model/checkout/pricing.js';
import { AppError } from '../../../domain/errors.js';
import { WORKFLOWS } from '../../../domain/temporal/workflow-names.js';

let stack: TestStack;
/** Ships DE and AT by DHL, and wherever its shop ships (DE, AT, US) by World; COD on. */
let a: Merchant & { shop: SimShop };
/** Ships FR by La Poste only. */
let b: Merchant & { shop: SimShop };
const rates: Record<string, string> = {};

beforeAll(async () => {
  stack = await startTestStack();
  a = await storefrontAMerchant(stack, 'Zones Alpha', { shipsTo: ['DE', 'AT', 'US'] });
  b = await storefrontAMerchant(stack, 'Zones Beta', { shipsTo: ['FR', 'DE'] });
  const setA = await api(stack, 'PATCH', '/api/merchant/config', { codEnabled: true, shippingRates: [{ name: 'DHL', basePriceCents: 490, countries: ['DE', 'AT'] }, { name: 'World', basePriceCents: 2990, countries: 'store' }] }, a.token);
  expect(setA.status, JSON.stringify(setA.body)).toBe(200);
  const setB = await api(stack, 'PATCH', '/api/merchant/config', { shippingRates: [{ name: 'La Poste', basePriceCents: 690, countries: ['FR'] }] }, b.token);
  expect(setB.status, JSON.stringify(setB.body)).toBe(200);
  for (const r of [...setA.body.shippingRates, ...setB.body.shippingRates] as Json[]) rates[r.name as string] = r.id as string;
});
afterAll(async () => {
  await stack?.close();
});

/** A postal code (and state) each country's address rules take (domain/address-rules.ts); Berlin's 10115 elsewhere. */
const LOCAL: Record<string, { postalCode: string; region?: string }> = { AT: { postalCode: '1010' }, US: { postalCode: '94105', region: 'CA' } };
const at = (country: string, rate: string) => ({ ...SHOPPER, address: { ...SHOPPER.address, country, ...LOCAL[country] }, shippingRateId: rates[rate] });
const row = (token: string) => stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } });
const hasWorkflow = (token: string) => stack.temporal.client.workflow.getHandle(WORKFLOWS.checkout.id(token)).describe().then(() => true, () => false);

/** The session as a refusal must leave it: open, nothing entered, no total, no workflow, no event but its creation. */
async function expectUntouched(token: string) {
  expect(await row(token)).toMatchObject({ status: 'OPEN', email: null, shippingAddress: null, shippingRateId: null, totalMinor: null, workflowStartedAt: null });
  expect(await hasWorkflow(token)).toBe(false);
  expect((await stack.database.db.sessionEvent.findMany({ where: { token } })).map((e) => e.type)).toEqual(['created']);
}

describe('an address in a country no rate ships to', () => {
  it.each(['init-payment', 'complete-cod'])('given North Korea / %s answers 400 INVALID_INPUT on address.country and changes nothing', async (route) => {
    const token = await storefrontACheckout(stack, a.shop);
    const res = await api(stack, 'POST', `/api/checkout/${token}/${route}`, at('KP', 'World'));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_INPUT', details: { fields: { 'body.address.country': 'this shop does not ship to North Korea (KP)' } } });
    await expectUntouched(token);
  });

  it('given Antarctica and a code that is no country / both are refused on address.country', async () => {
    const token = await storefrontACheckout(stack, a.shop);
    const aq = await api(stack, 'POST', `/api/checkout/${token}/init-payment`, at('AQ', 'DHL'));
    expect(aq.body.details.fields).toEqual({ 'body.address.country': 'this shop does not ship to Antarctica (AQ)' });
    const xx = await api(stack, 'POST', `/api/checkout/${token}/init-payment`, at('XX', 'DHL'));
    expect(xx.status).toBe(400);
    expect(xx.body.details.fields).toEqual({ 'body.address.country': 'choose a country: a two-letter code such as DE' });
    await expectUntouched(token);
  });
});

describe('a rate that does not ship to the address\'s country', () => {
  it.each(['init-payment', 'complete-cod'])('given the US (served by World only) and DHL / %s answers 400 on shippingRateId and changes nothing', async (route) => {
    const token = await storefrontACheckout(stack, a.shop);
    const res = await api(stack, 'POST', `/api/checkout/${token}/${route}`, at('US', 'DHL'));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_INPUT', details: { fields: { 'body.shippingRateId': 'DHL does not ship to United States (US): choose another shipping method' } } });
    await expectUntouched(token);
  });

  it('given the US and World, the rate that ships there / init-payment starts the payment with World\'s price', async () => {
    const token = await storefrontACheckout(stack, a.shop);
    const res = await api(stack, 'POST', `/api/checkout/${token}/init-payment`, at('US', 'World'));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('PAYMENT_PENDING');
    expect(await row(token)).toMatchObject({ status: 'PAYMENT_PENDING', shippingRateId: rates.World, shippingMinor: 2990 });
  });

  it('given Austria and DHL / complete-cod confirms the order', async () => {
    const token = await storefrontACheckout(stack, a.shop);
    const res = await api(stack, 'POST', `/api/checkout/${token}/complete-cod`, at('AT', 'DHL'));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await row(token)).toMatchObject({ status: 'COD_CONFIRMED', shippingRateId: rates.DHL, shippingMinor: 490 });
    // The same click again answers the same confirmation; other details on a confirmed order are the workflow's CONFLICT,
    // whatever the zones say.
    expect((await api(stack, 'POST', `/api/checkout/${token}/complete-cod`, at('AT', 'DHL'))).status).toBe(200);
    expect((await api(stack, 'POST', `/api/checkout/${token}/complete-cod`, at('KP', 'DHL'))).body.code).toBe('CONFLICT');
  });
});

describe('each merchant\'s zones are its own', () => {
  it('given France, which only merchant B ships to / A refuses it (also with B\'s rate id), B takes it', async () => {
    const tokenA = await storefrontACheckout(stack, a.shop);
    expect((await api(stack, 'POST', `/api/checkout/${tokenA}/init-payment`, at('FR', 'World'))).body.details.fields).toHaveProperty(['body.address.country']);
    // B's rate is no rate of A's checkout: refused, whichever field says so first.
    expect((await api(stack, 'POST', `/api/checkout/${tokenA}/init-payment`, at('FR', 'La Poste'))).status).toBe(400);
    await expectUntouched(tokenA);

    const tokenB = await storefrontACheckout(stack, b.shop);
    const res = await api(stack, 'POST', `/api/checkout/${tokenB}/init-payment`, at('FR', 'La Poste'));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // B does not ship to Austria, although A does.
    const other = await storefrontACheckout(stack, b.shop);
    expect((await api(stack, 'POST', `/api/checkout/${other}/init-payment`, at('AT', 'La Poste'))).body.details.fields).toEqual({ 'body.address.country': 'this shop does not ship to Austria (AT)' });
  });
});

describe('pricing applies the same rule when it stores the details', () => {
  it('given zones changed after the API checked the address / pricing refuses the destination with the same field message', async () => {
    const token = await storefrontACheckout(stack, a.shop);
    const db = stack.database.db;
    const session = await row(token);
    const rows = await db.shippingRate.findMany({ where: { merchantId: a.id }, orderBy: { position: 'asc' } });
    const refused = await priceCheckout(db, session, rows, { shippingRateId: rates.DHL, country: 'US' }).then(() => null, (e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).details).toEqual({ fields: { 'body.shippingRateId': 'DHL does not ship to United States (US): choose another shipping method' } });
    const priced = await priceCheckout(db, session, rows, { shippingRateId: rates.World, country: 'US' });
    expect(priced.shipping).toMatchObject({ name: 'World', countries: null });
  });
});
