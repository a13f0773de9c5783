// A billing address apart from the shipping address, and the country's own address rules (issue 30 item 3), through
// the API on the whole stack: init-payment and complete-cod take an optional billingAddress checked like the shipping
// address; the session stores it (null when billed to the shipping address), the bundle answers it to a returning
// shopper, the store order carries both addresses (Shopify's billingAddress, WooCommerce's billing), and a WooCommerce
// store taxing by the billing address taxes by it. A postal code in the wrong format for its country, or a missing US
// state, is a clear INVALID_INPUT on that field and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import {
  api, connectStorefrontBDemo, control, emailsOf, merchantWithProcessor, SHOPPER, storefrontACheckout, storefrontAMerchant, storefrontAOrdersOf, storefrontBCheckout, storefrontBOrdersOf, waitFor,
  type Json, type Merchant,
} from '../../../test/e2e/checkout-helpers.js';
import type { SimShop } from '../../../sandbox/storefront-a/state.js';
import { WORKFLOWS } from '../../../domain/temporal/workflow-names.js';

let stack: TestStack;
let a: Merchant & { shop: SimShop };
let rateId: string;

const VIENNA = { name: 'Jane Doe Billing', line1: 'Stephansplatz 1', city: 'Wien', postalCode: '1010', country: 'AT' };

beforeAll(async () => {
  stack = await startTestStack();
  a = await storefrontAMerchant(stack, 'Billing Alpha');
  const set = await api(stack, 'PATCH', '/api/merchant/config', { codEnabled: true, shippingRates: [{ name: 'DHL', basePriceCents: 490 }] }, a.token);
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  rateId = (set.body.shippingRates as Json[])[0]!.id as string;
});
afterAll(async () => {
  await stack?.close();
});

const row = (token: string) => stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } });
const bundleShopper = async (token: string) => (await api(stack, 'GET', `/api/checkout/session-bundle/${token}`)).body.shopper as Json;
const hasWorkflow = (token: string) => stack.temporal.client.workflow.getHandle(WORKFLOWS.checkout.id(token)).describe().then(() => true, () => false);
const details = (extra: Json = {}) => ({ ...SHOPPER, shippingRateId: rateId, ...extra });

/** The session as a refusal must leave it: open, nothing entered, no workflow. */
async function expectUntouched(token: string) {
  expect(await row(token)).toMatchObject({ status: 'OPEN', email: null, shippingAddress: null, billingAddress: null, totalMinor: null, workflowStartedAt: null });
  expect(await hasWorkflow(token)).toBe(false);
}

describe('a billing address apart from the shipping address', () => {
  it('given init-payment with a billing address in Vienna / stored apart from the Berlin shipping address and answered in the bundle; sent again without one, it is cleared', async () => {
    const token = await storefrontACheckout(stack, a.shop);
    const res = await api(stack, 'POST', `/api/checkout/${token}/init-payment`, details({ billingAddress: { ...VIENNA, city: '  Wien ' } }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await row(token)).toMatchObject({ status: 'PAYMENT_PENDING', shippingAddress: SHOPPER.address, billingAddress: VIENNA });
    expect(await bundleShopper(token)).toMatchObject({ address: SHOPPER.address, billingAddress: VIENNA });

    // Change details: the box ticked again, the store bills the shipping address.
    const again = await api(stack, 'POST', `/api/checkout/${token}/init-payment`, details());
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect((await row(token)).billingAddress).toBeNull();
    expect((await bundleShopper(token)).billingAddress).toBeNull();
  });

  it.each(['init-payment', 'complete-cod'])('given a billing address with a German postal code in Austria, or no street / %s answers 400 INVALID_INPUT on billingAddress.<field> and changes nothing', async (route) => {
    const token = await storefrontACheckout(stack, a.shop);
    const res = await api(stack, 'POST', `/api/checkout/${token}/${route}`, details({ billingAddress: { ...VIENNA, postalCode: '10115', line1: ' ' } }));
    expect(res.status).toBe(400);
    // Every field's problem at once, each next to its field.
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(res.body.details.fields).toEqual({
      'body.billingAddress.line1': 'enter the street and number',
      'body.billingAddress.postalCode': 'enter the postal code in the format used in AT, e.g. 1010 or 3741',
    });
    const postal = await api(stack, 'POST', `/api/checkout/${token}/${route}`, details({ billingAddress: { ...VIENNA, postalCode: '10115' } }));
    expect(postal.status).toBe(400);
    expect(postal.body).toMatchObject({ code: 'INVALID_INPUT', details: { fields: { 'body.billingAddress.postalCode': 'enter the postal code in the format used in AT, e.g. 1010 or 3741' } } });
    expect(postal.body.error).toContain('billingAddress.postalCode');
    const extra = await api(stack, 'POST', `/api/checkout/${token}/${route}`, details({ billingAddress: { ...VIENNA, vatId: 'ATU123' } }));
    expect(extra.status).toBe(400);
    await expectUntouched(token);
  });

  it('given cash on delivery with a billing address / Shopify\'s order has the billing address and the shipping address apart', async () => {
    const token = await storefrontACheckout(stack, a.shop);
    const res = await api(stack, 'POST', `/api/checkout/${token}/complete-cod`, details({ billingAddress: { ...VIENNA, line2: 'Stiege 2', phone: '+43 1 555' } }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [order] = await waitFor('the store order', async () => (storefrontAOrdersOf(a.shop, token).length ? storefrontAOrdersOf(a.shop, token) : undefined));
    // MailingAddressInput, as the Admin API takes it on DraftOrderInput.billingAddress and .shippingAddress.
    expect(order!.billingAddress).toMatchObject({ firstName: 'Jane Doe', lastName: 'Billing', address1: 'Stephansplatz 1', address2: 'Stiege 2', city: 'Wien', zip: '1010', countryCode: 'AT', phone: '+43 1 555' });
    expect(order!.shippingAddress).toMatchObject({ firstName: 'Jane', lastName: 'Doe', address1: 'Hauptstr. 1', city: 'Berlin', zip: '10115', countryCode: 'DE' });

    // What the merchant and the shopper read: the order page and both emails show the two addresses apart.
    const detail = await api(stack, 'GET', `/api/checkout/merchant/orders/${token}`, undefined, a.token);
    expect(detail.status, JSON.stringify(detail.body)).toBe(200);
    expect(detail.body.billingAddress).toMatchObject({ name: 'Jane Doe Billing', line1: 'Stephansplatz 1', line2: 'Stiege 2', city: 'Wien', postalCode: '1010', country: 'AT' });
    expect(detail.body.shippingAddress).toMatchObject({ city: 'Berlin', country: 'DE' });
    const mails = await waitFor('both emails', () => {
      const m = emailsOf(stack, token, a.email);
      return m.toShopper.length && m.toMerchant.length ? m : undefined;
    });
    expect(mails.toShopper[0]!.TextBody).toContain('Billing address:\nJane Doe Billing\nStephansplatz 1\nStiege 2\n1010 Wien\nAustria');
    expect(mails.toMerchant[0]!.TextBody).toContain('Billing address:\nJane Doe Billing\nStephansplatz 1');
    expect(mails.toMerchant[0]!.TextBody).toContain('Ship to:\nJane Doe\nHauptstr. 1');
  });

  it('given no billing address / Shopify\'s order is billed to the shipping address', async () => {
    const token = await storefrontACheckout(stack, a.shop);
    expect((await api(stack, 'POST', `/api/checkout/${token}/complete-cod`, details())).status).toBe(200);
    const [order] = await waitFor('the store order', async () => (storefrontAOrdersOf(a.shop, token).length ? storefrontAOrdersOf(a.shop, token) : undefined));
    expect(order!.billingAddress).toMatchObject({ city: 'Berlin', countryCode: 'DE' });
    expect((await api(stack, 'GET', `/api/checkout/merchant/orders/${token}`, undefined, a.token)).body.billingAddress).toBeNull();
    const mails = await waitFor('the shopper\'s email', () => emailsOf(stack, token, a.email).toShopper[0]);
    expect(mails.TextBody).not.toContain('Billing address');
  });
});

describe('the country\'s own address rules', () => {
  it('given a US address without a state, then with a state by name / refused on address.region, then stored with the state\'s code', async () => {
    const token = await storefrontACheckout(stack, a.shop);
    const sf = { name: 'Jane Doe', line1: '1 Market St', city: 'San Francisco', postalCode: '94105', country: 'US' };
    const missing = await api(stack, 'POST', `/api/checkout/${token}/init-payment`, details({ address: sf }));
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'INVALID_INPUT', details: { fields: { 'body.address.region': 'choose the state: addresses in US need one' } } });
    const zip = await api(stack, 'POST', `/api/checkout/${token}/init-payment`, details({ address: { ...sf, region: 'CA', postalCode: '9410' } }));
    expect(zip.body.details.fields).toEqual({ 'body.address.postalCode': 'enter the ZIP code in the format used in US, e.g. 95014 or 22162-1010' });
    await expectUntouched(token);

    const ok = await api(stack, 'POST', `/api/checkout/${token}/init-payment`, details({ address: { ...sf, region: 'california' } }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((await row(token)).shippingAddress).toEqual({ ...sf, region: 'CA' });
  });

  it('given a Dutch postal code typed in lower case without its space, and a British one / stored upper-case as the country writes it', async () => {
    const token = await storefrontACheckout(stack, a.shop);
    const res = await api(stack, 'POST', `/api/checkout/${token}/init-payment`, details({
      address: { ...SHOPPER.address, city: 'Amsterdam', postalCode: '1012ab', country: 'NL' },
      billingAddress: { ...VIENNA, city: 'London', postalCode: 'sw1a   1aa', country: 'GB' },
    }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const stored = await row(token);
    expect(stored.shippingAddress).toMatchObject({ postalCode: '1012AB', country: 'NL' });
    expect(stored.billingAddress).toMatchObject({ postalCode: 'SW1A 1AA', country: 'GB' });
  });

  it('given the quote / it applies the same rules (nothing is stored)', async () => {
    const token = await storefrontACheckout(stack, a.shop);
    const res = await api(stack, 'POST', `/api/checkout/${token}/quote`, { address: SHOPPER.address, billingAddress: { ...VIENNA, postalCode: 'A-1010' }, shippingRateId: rateId });
    expect(res.status).toBe(400);
    expect(res.body.details.fields).toEqual({ 'body.billingAddress.postalCode': 'enter the postal code in the format used in AT, e.g. 1010 or 3741' });
  });
});

describe('a WooCommerce store whose tax follows the billing address', () => {
  it('given tax based on the billing address, DE 19 % and AT 20 % / the quote taxes a Vienna billing address at 20 %, the order has billing and shipping apart', async () => {
    const merchant = await merchantWithProcessor(stack, 'Billing Woo');
    const store = await connectStorefrontBDemo(stack, merchant);
    expect((await api(stack, 'PATCH', '/api/merchant/config', { codEnabled: true }, merchant.token)).status).toBe(200);
    await control(stack.urls.storefrontB, 'POST', 'stores/demo/taxes', { enabled: true, basedOn: 'billing', rates: [{ country: 'DE', rate: 19, shipping: true }, { country: 'AT', rate: 20, shipping: true }] });
    try {
      const simple = store.products.find((p) => p.option === undefined)!;
      const token = await storefrontBCheckout(stack, [{ productId: simple.id, quantity: 2 }]);
      const rate = ((await api(stack, 'GET', `/api/checkout/session-bundle/${token}`)).body.shipping as Json[])[0]!.id as string;
      const quote = async (extra: Json) => (await api(stack, 'POST', `/api/checkout/${token}/quote`, { address: SHOPPER.address, shippingRateId: rate, ...extra })).body;
      const billedHere = await quote({});
      const billedInVienna = await quote({ billingAddress: VIENNA });
      const taxable = billedHere.subtotalMinor + billedHere.shippingMinor;
      expect(billedHere.taxMinor).toBe(Math.round(taxable * 0.19));
      expect(billedInVienna.taxMinor).toBe(Math.round(taxable * 0.2));

      const res = await api(stack, 'POST', `/api/checkout/${token}/complete-cod`, { ...SHOPPER, shippingRateId: rate, billingAddress: VIENNA });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.totalMinor).toBe(billedInVienna.totalMinor);
      const [order] = await waitFor('the store order', async () => (storefrontBOrdersOf(store, token).length ? storefrontBOrdersOf(store, token) : undefined));
      // WooCommerce REST v3's order billing and shipping objects.
      expect(order!.billing).toMatchObject({ first_name: 'Jane Doe', last_name: 'Billing', address_1: 'Stephansplatz 1', city: 'Wien', postcode: '1010', country: 'AT', email: SHOPPER.email });
      expect(order!.shipping).toMatchObject({ first_name: 'Jane', last_name: 'Doe', address_1: 'Hauptstr. 1', city: 'Berlin', postcode: '10115', country: 'DE' });
      expect(order!.total).toBe(billedInVienna.totalMinor);
    } finally {
      await control(stack.urls.storefrontB, 'POST', 'stores/demo/taxes', { enabled: false });
    }
  });
});
