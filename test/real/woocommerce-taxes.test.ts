// The real-platform tier, taxes: what our storefront B client quotes before payment (calculateTaxes, which restates
// WooCommerce's tax arithmetic in integrations/storefront-b/taxes.ts) against what a real WooCommerce 10.0.2 books when
// createOrder sends it that order, to the cent, for the store set-ups merchants use. The store's tax settings and rates
// are set through WooCommerce's own REST API (settings/<group>/batch, taxes/batch) as a merchant's tools would; the
// orders are read back with WooCommerce's official client. Then one checkout end to end through the real plugin with
// taxes on: the total the page shows, the amount the processor charged and the real order's total are one number.
// What this proves and what still rests on WooCommerce's source alone: docs/storefront-b.md "Taxes".
//
// The tests of this file share one store and run in order; each sets the store's tax settings it needs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestKey } from '../harness/wordpress.js';
import { realOrderOf, savePluginSettings, Shopper, startRealWooCommerce, tokenOf, uploadAndActivatePlugin, wpAdminLogin, type RealWooCommerce } from '../harness/real-woocommerce.js';
import { api, merchantWithProcessor, payOnHostedPage, returnFromPaymentPage, sessionStatus, SHOPPER, waitFor, type Json } from '../e2e/checkout-helpers.js';
import { createStorefrontBClient, type StorefrontBClient } from '../../integrations/storefront-b/client.js';
import { decimalToMinor } from '../../integrations/storefront-common/money.js';
import type { OrderAddress, StoreOrderInput } from '../../integrations/storefront-common/order.js';
import { PLUGIN_SLUG } from '../../api/storefront-b-plugin.js';

let world: RealWooCommerce;
/** The administrator's Read/Write key: sets the store up, and our client uses it as a connected merchant's key. */
let writer: RestKey;
let client: StorefrontBClient;
/** The catalogue added for these tests (prices chosen so rounding matters). */
const products = { tee: 0, paperback: 0, pin: 0, patch: 0 };

const rest = () => world.wp.rest(writer);
const eur = (amount: string) => decimalToMinor(amount, 'EUR');

beforeAll(async () => {
  world = await startRealWooCommerce();
  writer = await world.wp.createKey('read_write');
  client = createStorefrontBClient({ storeUrl: world.wp.url, consumerKey: writer.consumerKey, consumerSecret: writer.consumerSecret });
  // createOrder finds orders again through our plugin's lookup route: installed as the merchant installs it.
  const zip = await world.stack.app.inject({ method: 'GET', url: '/api/merchant/storefront-b/plugin.zip', headers: { authorization: `Bearer ${(await merchantWithProcessor(world.stack, 'Zip Reader')).token}` } });
  expect(zip.statusCode).toBe(200);
  await uploadAndActivatePlugin(await wpAdminLogin(world.wp), zip.rawPayload, `${PLUGIN_SLUG}.zip`);
  const created = await rest().post('products/batch', {
    create: [
      { name: 'Tax Tee', type: 'simple', regular_price: '19.99', status: 'publish' },
      { name: 'Paperback', type: 'simple', regular_price: '9.99', tax_class: 'reduced-rate', status: 'publish' },
      { name: 'Enamel Pin', type: 'simple', regular_price: '1.50', status: 'publish' },
      { name: 'Sew-on Patch', type: 'simple', regular_price: '2.50', status: 'publish' },
    ],
  });
  const ids = (created.data.create as Array<{ id: number; error?: unknown }>).map((p) => {
    expect(p.error).toBeUndefined();
    return p.id;
  });
  [products.tee, products.paperback, products.pin, products.patch] = ids as [number, number, number, number];
}, 180_000);
afterAll(async () => {
  await world?.close();
});

interface RateInput {
  country: string;
  rate: string;
  name: string;
  priority?: number;
  compound?: boolean;
  shipping?: boolean;
  class?: string;
  postcodes?: string[];
}

interface TaxSetup {
  pricesIncludeTax?: boolean;
  basedOn?: 'shipping' | 'billing' | 'base';
  roundAtSubtotal?: boolean;
  shippingTaxClass?: string;
  rates: RateInput[];
}

/** WooCommerce → Settings → General "Enable tax rates" and → Tax as `setup` says, with exactly these rates. */
async function storeTaxes(setup: TaxSetup): Promise<void> {
  const general = await rest().post('settings/general/batch', { update: [{ id: 'woocommerce_calc_taxes', value: 'yes' }] });
  expect(general.data.update).toEqual([expect.objectContaining({ id: 'woocommerce_calc_taxes', value: 'yes' })]);
  const tax = await rest().post('settings/tax/batch', {
    update: [
      { id: 'woocommerce_prices_include_tax', value: setup.pricesIncludeTax ? 'yes' : 'no' },
      { id: 'woocommerce_tax_based_on', value: setup.basedOn ?? 'shipping' },
      { id: 'woocommerce_tax_round_at_subtotal', value: setup.roundAtSubtotal ? 'yes' : 'no' },
      { id: 'woocommerce_shipping_tax_class', value: setup.shippingTaxClass ?? 'inherit' },
    ],
  });
  for (const u of tax.data.update as Json[]) expect(u.error, JSON.stringify(u)).toBeUndefined();
  const existing = (await rest().get('taxes', { per_page: 100 })).data as Array<{ id: number }>;
  const rates = await rest().post('taxes/batch', {
    delete: existing.map((r) => r.id),
    create: setup.rates.map((r) => ({ priority: 1, compound: false, shipping: true, class: 'standard', postcodes: [], ...r })),
  });
  for (const r of rates.data.create as Json[]) expect(r.error, JSON.stringify(r)).toBeUndefined();
}

const BERLIN: OrderAddress = { firstName: 'Jana', lastName: 'Steuer', line1: 'Invalidenstr. 1', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
const MUNICH: OrderAddress = { ...BERLIN, line1: 'Marienplatz 1', city: 'München', postalCode: '80331' };
const VIENNA: OrderAddress = { ...BERLIN, line1: 'Stephansplatz 1', city: 'Wien', postalCode: '1010', countryCode: 'AT' };
const ZURICH: OrderAddress = { ...BERLIN, line1: 'Bahnhofstr. 1', city: 'Zürich', postalCode: '8001', countryCode: 'CH' };

let seq = 0;
/** A paid card order as the fulfilment activity hands it to the client: lines [product, quantity, unit price in cents]. */
function orderOf(lines: Array<[keyof typeof products, number, number]>, opts: { shipTo?: OrderAddress; billTo?: OrderAddress; discountMinor?: number; shippingMinor?: number } = {}): StoreOrderInput {
  const subtotalMinor = lines.reduce((n, [, q, p]) => n + q * p, 0);
  const shippingMinor = opts.shippingMinor ?? 490;
  const discountMinor = opts.discountMinor ?? 0;
  return {
    sessionToken: `cs_tax${Date.now().toString(36)}${(seq++).toString(36)}aaaa`,
    currency: 'EUR',
    email: 'taxes@customer.test',
    shippingAddress: opts.shipTo ?? BERLIN,
    ...(opts.billTo ? { billingAddress: opts.billTo } : {}),
    lines: lines.map(([p, quantity, unitPriceMinor]) => ({ title: p, quantity, unitPriceMinor, productId: String(products[p]) })),
    shipping: { title: 'Standard', priceMinor: shippingMinor, code: 'flat_rate' },
    ...(discountMinor ? { discount: { code: 'TAX10', amountMinor: discountMinor } } : {}),
    totals: { subtotalMinor, shippingMinor, discountMinor, totalMinor: subtotalMinor + shippingMinor - discountMinor },
    payment: { method: 'card', reference: 'pay_taxes' },
  };
}

/**
 * What the client quotes for `input`, then the order it creates with that quote as the charged totals (as the workflow
 * does), read back from the real store: its total and total_tax must be the quote, to the cent.
 */
async function quoteAndBook(input: StoreOrderInput): Promise<{ quoted: Awaited<ReturnType<StorefrontBClient['calculateTaxes']>>; order: Json }> {
  const quoted = await client.calculateTaxes(input);
  const charged: StoreOrderInput = { ...input, totals: { ...input.totals, taxMinor: quoted.taxMinor, taxesIncluded: quoted.taxesIncluded, totalMinor: quoted.totalMinor } };
  const created = await client.createOrder(charged);
  const order = (await world.wp.rest(world.adminKey).get(`orders/${created.id}`)).data as Json;
  expect({ total: eur(order.total), totalTax: eur(order.total_tax) }, `the store booked ${order.total} (tax ${order.total_tax})`).toEqual({ total: quoted.totalMinor, totalTax: quoted.taxMinor });
  expect(created.totalMinor).toBe(quoted.totalMinor);
  return { quoted, order };
}

const STANDARD_DE = { country: 'DE', rate: '19.0000', name: 'MwSt' } as const;

describe('what calculateTaxes quotes is what the real WooCommerce books (order total and total_tax, to the cent)', () => {
  it('given prices without tax, 19 % standard in DE, shipping taxed / 19.99 × 3 and 4.90 shipping: tax 11.39 + 0.93, total 77.19', async () => {
    await storeTaxes({ rates: [STANDARD_DE] });

    const { quoted, order } = await quoteAndBook(orderOf([['tee', 3, 1999]]));

    // 59.97 × 19 % = 11.3943 → 11.39; 4.90 × 19 % = 0.931 → 0.93; 59.97 + 4.90 + 12.32 = 77.19.
    expect(quoted).toEqual({ taxMinor: 1232, taxesIncluded: false, totalMinor: 7719 });
    expect(order).toMatchObject({ prices_include_tax: false, cart_tax: '11.39', shipping_tax: '0.93', shipping_total: '4.90' });
    expect(order.tax_lines).toEqual([expect.objectContaining({ rate_code: 'DE-MWST-1', tax_total: '11.39', shipping_tax_total: '0.93', compound: false })]);
  });

  it('given prices with tax (19 %) / the shopper pays the prices shown: the store receives them without tax and books 64.87, tax 10.36 inside', async () => {
    await storeTaxes({ pricesIncludeTax: true, rates: [STANDARD_DE] });

    const { quoted, order } = await quoteAndBook(orderOf([['tee', 3, 1999]]));

    // 59.97 holds 9.575042 of tax (net 50.394958), 4.90 holds 0.782353 (net 4.117647); WooCommerce adds 9.58 and 0.78
    // back (its half-down tax rounding for such stores) onto 50.39 and 4.12: 64.87, what the shopper saw.
    expect(quoted).toEqual({ taxMinor: 1036, taxesIncluded: true, totalMinor: 6487 });
    expect(order).toMatchObject({ prices_include_tax: true, cart_tax: '9.58', shipping_tax: '0.78' });
    // The REST answer shows the line's 50.394958 to the price decimals.
    expect(order.line_items.map((l: Json) => [l.quantity, l.total, l.total_tax])).toEqual([[3, '50.39', '9.58']]);

    // A second line whose net (2.10084) rounds down as the first does: WooCommerce adds the lines rounded to the cent
    // (50.39 + 2.10), not their exact sum (52.495798 → 52.50), so the order is 67.37, what the shopper saw.
    const two = await quoteAndBook(orderOf([['tee', 3, 1999], ['patch', 1, 250]]));
    expect(two.quoted).toEqual({ taxMinor: 958 + 40 + 78, taxesIncluded: true, totalMinor: 5997 + 250 + 490 });
  });

  it('given two products in different classes (standard 19 %, reduced rate 7 %) / each line is taxed at its class, shipping at the first class an item has', async () => {
    await storeTaxes({ rates: [STANDARD_DE, { country: 'DE', rate: '7.0000', name: 'MwSt 7', class: 'reduced-rate' }] });

    const mixed = await quoteAndBook(orderOf([['tee', 3, 1999], ['paperback', 2, 999]]));
    // 59.97 × 19 % = 11.3943 → 11.39; 19.98 × 7 % = 1.3986 → 1.40; shipping inherits the standard class: 0.93.
    expect(mixed.quoted).toEqual({ taxMinor: 1372, taxesIncluded: false, totalMinor: 5997 + 1998 + 490 + 1372 });
    expect(mixed.order.line_items.map((l: Json) => [l.tax_class, l.total_tax])).toEqual([['', '11.39'], ['reduced-rate', '1.40']]);

    // Books alone: shipping inherits the reduced rate (4.90 × 7 % = 0.343 → 0.34).
    const books = await quoteAndBook(orderOf([['paperback', 2, 999]]));
    expect(books.quoted).toEqual({ taxMinor: 140 + 34, taxesIncluded: false, totalMinor: 1998 + 490 + 174 });
    expect(books.order.shipping_tax).toBe('0.34');
  });

  it('given a compound rate (3 %, priority 2) on top of the regular 19 % / it is charged on the price plus the regular tax, each rate rounded on its own', async () => {
    await storeTaxes({ rates: [STANDARD_DE, { country: 'DE', rate: '3.0000', name: 'Zuschlag', priority: 2, compound: true }] });

    const { quoted, order } = await quoteAndBook(orderOf([['tee', 3, 1999]]));

    // Line: 11.3943 → 11.39 and (59.97 + 11.3943) × 3 % = 2.140929 → 2.14; shipping: 0.931 → 0.93 and 0.17493 → 0.17.
    expect(quoted).toEqual({ taxMinor: 1139 + 214 + 93 + 17, taxesIncluded: false, totalMinor: 5997 + 490 + 1463 });
    expect(order.tax_lines.map((t: Json) => [t.label, t.compound, t.tax_total, t.shipping_tax_total])).toEqual([['MwSt', false, '11.39', '0.93'], ['Zuschlag', true, '2.14', '0.17']]);
  });

  it('given a rate limited to postcodes 10* and a rate for Austria / Berlin pays 19 %, Munich and Switzerland no tax, Vienna 20 %', async () => {
    await storeTaxes({ rates: [{ ...STANDARD_DE, postcodes: ['10*'] }, { country: 'AT', rate: '20.0000', name: 'USt' }] });

    const berlin = await quoteAndBook(orderOf([['tee', 3, 1999]], { shipTo: BERLIN }));
    expect(berlin.quoted).toEqual({ taxMinor: 1232, taxesIncluded: false, totalMinor: 7719 });
    const munich = await quoteAndBook(orderOf([['tee', 3, 1999]], { shipTo: MUNICH }));
    expect(munich.quoted).toEqual({ taxMinor: 0, taxesIncluded: false, totalMinor: 6487 });
    const zurich = await quoteAndBook(orderOf([['tee', 3, 1999]], { shipTo: ZURICH }));
    expect(zurich.quoted).toEqual({ taxMinor: 0, taxesIncluded: false, totalMinor: 6487 });
    // 59.97 × 20 % = 11.994 → 11.99; 4.90 × 20 % = 0.98.
    const vienna = await quoteAndBook(orderOf([['tee', 3, 1999]], { shipTo: VIENNA }));
    expect(vienna.quoted).toEqual({ taxMinor: 1297, taxesIncluded: false, totalMinor: 7784 });
  });

  it('given tax based on the billing address, then on the shop base (Berlin) / the billing address\'s rate, then the base\'s whatever the address', async () => {
    const rates = [STANDARD_DE, { country: 'AT', rate: '20.0000', name: 'USt' }];
    await storeTaxes({ basedOn: 'billing', rates });
    const billedToVienna = await quoteAndBook(orderOf([['tee', 3, 1999]], { shipTo: BERLIN, billTo: VIENNA }));
    expect(billedToVienna.quoted).toEqual({ taxMinor: 1297, taxesIncluded: false, totalMinor: 7784 });
    expect(billedToVienna.order.tax_lines).toEqual([expect.objectContaining({ rate_code: 'AT-UST-1', tax_total: '11.99', shipping_tax_total: '0.98' })]);

    await storeTaxes({ basedOn: 'base', rates });
    const shippedToVienna = await quoteAndBook(orderOf([['tee', 3, 1999]], { shipTo: VIENNA }));
    expect(shippedToVienna.quoted).toEqual({ taxMinor: 1232, taxesIncluded: false, totalMinor: 7719 });
  });

  it('given rounding per line, then at subtotal / 1.50 × 2 + 19.99 × 3 + 4.90 shipping: 0.57 + 11.39 + 0.93 = 12.89 per line; at subtotal 12.8953 → 12.90', async () => {
    const input = () => orderOf([['pin', 2, 150], ['tee', 3, 1999]]);
    await storeTaxes({ rates: [STANDARD_DE] });
    const perLine = await quoteAndBook(input());
    expect(perLine.quoted).toEqual({ taxMinor: 1289, taxesIncluded: false, totalMinor: 300 + 5997 + 490 + 1289 });
    expect(perLine.order).toMatchObject({ cart_tax: '11.96', shipping_tax: '0.93', total_tax: '12.89' });

    await storeTaxes({ roundAtSubtotal: true, rates: [STANDARD_DE] });
    const atSubtotal = await quoteAndBook(input());
    expect(atSubtotal.quoted).toEqual({ taxMinor: 1290, taxesIncluded: false, totalMinor: 300 + 5997 + 490 + 1290 });
    // The order keeps 11.9643 and 0.931 unrounded: only their sum is rounded (total_tax 12.90, not 11.96 + 0.93).
    expect(atSubtotal.order).toMatchObject({ cart_tax: '11.96', shipping_tax: '0.93', total_tax: '12.90', total: '80.77' });
    expect(atSubtotal.order.line_items.map((l: Json) => l.total_tax)).toEqual(['0.57', '11.39']);
  });

  it('given a 6.25 discount spread over the lines / each line is taxed after its share; with prices with tax the order still shows the discount', async () => {
    await storeTaxes({ rates: [STANDARD_DE] });
    const { quoted, order } = await quoteAndBook(orderOf([['tee', 3, 1999], ['patch', 1, 250]], { discountMinor: 625 }));
    // Shares 6.00 and 0.25: 53.97 × 19 % = 10.2543 → 10.25; 2.25 × 19 % = 0.4275 → 0.43; shipping 0.93.
    expect(quoted).toEqual({ taxMinor: 1161, taxesIncluded: false, totalMinor: 5997 + 250 - 625 + 490 + 1161 });
    // discount_tax: the taxes on the subtotals (11.3943 + 0.475) less those on the totals (10.2543 + 0.4275) = 1.1875.
    expect(order).toMatchObject({ discount_total: '6.25', discount_tax: '1.19', cart_tax: '10.68' });
    expect(order.line_items.map((l: Json) => [l.subtotal, l.subtotal_tax, l.total, l.total_tax])).toEqual([['59.97', '11.39', '53.97', '10.25'], ['2.50', '0.48', '2.25', '0.43']]);

    await storeTaxes({ pricesIncludeTax: true, rates: [STANDARD_DE] });
    const gross = await quoteAndBook(orderOf([['tee', 3, 1999], ['patch', 1, 250]], { discountMinor: 625 }));
    expect(gross.quoted).toMatchObject({ taxesIncluded: true, totalMinor: 5997 + 250 - 625 + 490 });
    // The discount without its tax (5.25) and the tax it took off (1.00): the 6.25 the shopper saved.
    expect(gross.order).toMatchObject({ discount_total: '5.25', discount_tax: '1.00' });
  });
});

describe('a checkout through the real plugin with taxes on (prices without tax, 19 %)', () => {
  it('given 19.99 × 3 in the block cart / the page\'s total, the processor\'s charge and the real order\'s total are 77.19, and the order is paid', async () => {
    const { wp, stack } = world;
    await storeTaxes({ rates: [STANDARD_DE] });
    const merchant = await merchantWithProcessor(stack, 'Real Taxed Store');
    const connect = await api(stack, 'POST', '/api/merchant/storefront-b/connect', { storeUrl: wp.url, consumerKey: writer.consumerKey, consumerSecret: writer.consumerSecret }, merchant.token);
    expect(connect.status, JSON.stringify(connect.body)).toBe(200);
    const { saved } = await savePluginSettings(await wpAdminLogin(wp), { serviceUrl: stack.apiUrl, connectionKey: writer.consumerKey });
    expect(saved.status).toBe(302);
    const shopper = new Shopper(wp);
    await shopper.addWithStoreApi(products.tee, 3);

    const token = tokenOf((await shopper.goToCheckout()).location);
    const bundle = await api(stack, 'GET', `/api/checkout/session-bundle/${token}`);
    expect(bundle.status).toBe(200);
    const init = await api(stack, 'POST', `/api/checkout/${token}/init-payment`, { ...SHOPPER, shippingRateId: bundle.body.shipping[0].id });
    expect(init.status, JSON.stringify(init.body)).toBe(200);
    await payOnHostedPage(token, init.body.paymentUrl as string);
    await returnFromPaymentPage(stack, token);
    await waitFor('COMPLETED', async () => ((await sessionStatus(stack, token)) === 'COMPLETED' ? true : undefined));
    await waitFor('the store order', async () => (await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } })).storeOrderId ?? undefined, 60_000);

    // What the page shows: init-payment's answer, then the followed session (the success step's total).
    const followed = await api(stack, 'GET', `/api/checkout/session/${token}`);
    const session = await stack.database.db.checkoutSession.findUniqueOrThrow({ where: { token } });
    const payments = [...stack.sims.processor.store.payments.values()].filter((p) => p.checkout_configuration_id === init.body.paymentId);
    expect(payments).toHaveLength(1);
    const payment = payments[0];
    const order = await realOrderOf(world, token);
    // 59.97 + 4.90 + 11.39 + 0.93.
    expect({
      page: init.body.totalMinor,
      followed: followed.body.totalMinor,
      charged: Math.round(payment!.total * 100),
      booked: eur(order.total),
    }).toEqual({ page: 7719, followed: 7719, charged: 7719, booked: 7719 });
    expect(session).toMatchObject({ taxMinor: 1232, taxesIncluded: false, totalMinor: 7719, storeOrderError: null });
    expect(payment?.status).toBe('paid');
    expect(payment?.currency.toUpperCase()).toBe('EUR');
    expect(order).toMatchObject({ status: 'processing', total_tax: '12.32', date_paid_gmt: expect.any(String), payment_method: 'hosted_checkout' });
  }, 120_000);
});
