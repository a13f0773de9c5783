// The compiled serializer of the hot read paths must write what the zod serializer would: the documented
// properties, nested and in nullable objects too, never an undeclared one, and never an answer missing a
// required one.
import { describe, expect, it } from 'vitest';
import { sessionBundleResponse } from './schemas/checkout.js';
import { compiledSerializer } from './serialization.js';

const bundle = () => ({
  token: `cs_${'A'.repeat(32)}`,
  status: 'OPEN',
  currency: 'USD',
  preview: false,
  cart: {
    items: [{ productId: '11', variantId: null, title: 'Tote', variantTitle: null, quantity: 2, unitPrice: 2490, imageUrl: null, storeSku: 'internal' }],
    subtotal: { amount: 4980, currency: 'USD', exponent: 2 },
  },
  shopName: 'Shop',
  shopUrl: 'https://shop.example',
  branding: { logoUrl: null, primaryColor: '#112233', accentColor: null, internal: true },
  checkoutTexts: { headline: 'Almost yours' },
  codEnabled: false,
  recoveryOptIn: null,
  storeCountries: null,
  shipping: [
    { id: 'r1', name: 'Pickup', price: { amount: 0, currency: 'USD' }, free: true, reason: 'free_rate', basePriceCents: 900, countries: ['US'], deliveryDays: null },
    { id: 'r2', name: 'Standard', price: { amount: 550, currency: 'USD' }, free: false, countries: ['CA', 'US'], deliveryDays: { min: 2, max: 4, internal: 1 } },
  ],
  pixels: [{ platform: 'meta', trackingId: '123456789012345', events: ['purchase'], active: true }],
  storePolicies: [{ kind: 'refund', title: 'Refund policy', url: 'https://shop.example/policies/refund-policy', internal: 'x' }],
  shopper: {
    email: 'ada@shopper.test',
    address: { name: 'Ada', line1: 'Main St 1', city: 'Springfield', postalCode: '12345', country: 'US', note: 'internal' },
    billingAddress: null,
    shippingRateId: null,
    discountCode: null,
    discountMinor: 0,
    orderBumpIds: ['b1'],
  },
  internal: { secret: 'never sent' },
});

describe('compiledSerializer', () => {
  const serialize = compiledSerializer(sessionBundleResponse);

  it('given an answer carrying undeclared properties at every level / it writes exactly what the zod schema keeps, in its order', () => {
    const written = serialize(bundle());

    expect(written).toBe(JSON.stringify(sessionBundleResponse.parse(bundle())));
    expect(written).not.toMatch(/internal|storeSku|exponent|basePriceCents|"active"|"note"/);
  });

  it('given a null address / it writes null', () => {
    const answer = { ...bundle(), shopper: { ...bundle().shopper, address: null } };
    expect(JSON.parse(serialize(answer)).shopper.address).toBeNull();
  });

  it('given an answer without a required property / it throws rather than answer without it', () => {
    const { shopName: _, ...partial } = bundle();
    expect(() => serialize(partial)).toThrow(/shopName/);
  });
});
