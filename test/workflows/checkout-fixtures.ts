// A merchant ready to sell (storefront A connected, processor connected, one shipping rate) and OPEN
// checkout sessions for it, written straight to the rig's database as the create route would: for
// workflow tests that drive checkoutWorkflow without the API.
import { randomBytes } from 'node:crypto';
import { createProcessorClient } from '../../integrations/processor/index.js';
import { createSecretBox } from '../../security/secrets.js';
import { seedStorefrontAConnection } from '../harness/storefront-a-seed.js';
import { processorAad } from '../../model/connections.js';
import type { CheckoutWorkflowInput, ShopperDetails } from '../../domain/checkout/checkout-workflow.js';
import { DEMO_SHOP } from '../../sandbox/storefront-a/simulator.js';
import type { ActivityRig } from '../harness/activity-rig.js';
import { givePaidPlan } from '../../scripts/lib/stack/billing.js';

export const SHIPPING_MINOR = 490;

export interface SellingMerchant {
  id: string;
  email: string;
  shippingRateId: string;
}

/** A merchant with DEMO_SHOP installed, the sandbox processor account connected and a 4.90 EUR rate. */
export async function createSellingMerchant(rig: ActivityRig): Promise<SellingMerchant> {
  const { db } = rig.database;
  const secrets = createSecretBox(rig.config.secretsKey!);
  const i = randomBytes(4).toString('hex');
  const email = `owner-${i}@shop.test`;
  const merchant = await db.merchant.create({
    data: { email, passwordHash: 'x', shopName: 'Timer Shop', phone: '+49 30 1234', slug: `timer-${i}`, storePlatform: 'STOREFRONT_A', shopDomain: DEMO_SHOP },
  });
  const rate = await db.shippingRate.create({ data: { merchantId: merchant.id, name: 'Standard', basePriceCents: SHIPPING_MINOR, position: 0 } });
  // Selling needs a paid plan (a Demo merchant's checkouts pass through), as through the API.
  await givePaidPlan(db, merchant.id);

  await seedStorefrontAConnection({ db, secrets, config: rig.config, sim: rig.sims.storefrontA }, merchant.id, DEMO_SHOP);

  // The processor connection as the connect workflow leaves it: the sealed key and the checkout product
  // (created at the processor sandbox); no webhook endpoint, so no webhook can ever reach a session.
  const apiKey = rig.sims.processor.defaultApiKey;
  const product = await createProcessorClient({ apiKey, baseUrl: `${rig.urls.processor}/api/v1` }).createProduct({ companyId: rig.sims.processor.defaultBusinessId, title: 'Checkout' }, `checkout-product-${merchant.id}`);
  await db.processorConnection.create({
    data: {
      merchantId: merchant.id,
      apiKeyEnc: secrets.encrypt(apiKey, processorAad.apiKey(merchant.id)),
      apiKeyLast4: apiKey.slice(-4),
      businessId: rig.sims.processor.defaultBusinessId,
      productId: product.id,
      status: 'CONNECTED',
      connectedAt: new Date(),
    },
  });
  return { id: merchant.id, email, shippingRateId: rate.id };
}

/** An OPEN session with two lines of DEMO_SHOP's catalogue, and the workflow input that owns it. */
export async function createOpenSession(rig: ActivityRig, merchant: SellingMerchant): Promise<{ token: string; subtotalMinor: number; input: CheckoutWorkflowInput }> {
  const shop = rig.sims.storefrontA.state.shops.get(DEMO_SHOP)!;
  const [tote, mug] = shop.products;
  const items = [
    { productId: String(tote!.id), variantId: String(tote!.variants[0]!.id), title: tote!.title, variantTitle: null, quantity: 2, unitPrice: tote!.variants[0]!.price, imageUrl: null },
    { productId: String(mug!.id), variantId: String(mug!.variants[1]!.id), title: mug!.title, variantTitle: mug!.variants[1]!.title, quantity: 1, unitPrice: mug!.variants[1]!.price, imageUrl: null },
  ];
  const subtotalMinor = items.reduce((n, l) => n + l.unitPrice * l.quantity, 0);
  const token = `cs_${randomBytes(24).toString('base64url')}`;
  await rig.database.db.checkoutSession.create({
    data: {
      token,
      merchantId: merchant.id,
      platform: 'STOREFRONT_A',
      storeCartRef: `cart-${randomBytes(4).toString('hex')}`,
      currency: 'EUR',
      fxRates: { date: '2030-01-02', rates: { USD: '1.1562' } },
      items,
      subtotalMinor,
    },
  });
  await rig.database.db.sessionEvent.create({ data: { token, type: 'created', data: { platform: 'STOREFRONT_A' } } });
  return { token, subtotalMinor, input: { token, merchantId: merchant.id, platform: 'STOREFRONT_A' } };
}

export const shopperDetails = (merchant: SellingMerchant): ShopperDetails => ({
  email: 'jane@customer.test',
  address: { name: 'Jane Doe', line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
  shippingRateId: merchant.shippingRateId,
});

/**
 * The shopper pays the session's checkout (`ch_…`) at the local Whop with a test card that succeeds or is declined,
 * as a silent control-plane move: no webhook is sent (a lost delivery). Answers Whop's payment (`pay_…`).
 */
export async function settlePaymentSilently(rig: ActivityRig, checkoutId: string, status: 'succeeded' | 'failed'): Promise<string> {
  const res = await fetch(`${rig.urls.processor}/_control/checkout_configurations/${checkoutId}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ card: status === 'succeeded' ? '4242424242424242' : '4000000000000002', silent: true }),
  });
  if (res.status !== 200) throw new Error(`processor sandbox answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}
