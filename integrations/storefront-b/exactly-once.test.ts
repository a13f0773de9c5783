// Exactly one WooCommerce order per checkout session without an idempotency key: the store commits the
// order and the answer never arrives ("commit, then time out"), twenty times.
import { describe, expect, it } from 'vitest';
import { DEMO_STORE } from '../../sandbox/storefront-b/simulator.js';
import { useStorefrontBSimulator } from '../../test/harness/simulators.js';
import { WooCommerceRestApi } from '../../test/harness/woocommerce-official.js';
import { isIntegrationError } from '../errors.js';
import type { StoreOrderInput } from '../storefront-common/order.js';
import { createStorefrontBClient } from './client.js';

const b = useStorefrontBSimulator();

const demo = () => b.sim.stores.get('demo')!;
const commitThenTimeout = (count: number) =>
  fetch(`${b.url}/_control/stores/demo/server`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ commitThenTimeout: count }) });
const client = () =>
  createStorefrontBClient({ storeUrl: `${b.url}/stores/demo`, consumerKey: DEMO_STORE.consumerKey, consumerSecret: DEMO_STORE.consumerSecret, timeoutMs: 250, lookupWindowMs: 2_000, lookupIntervalMs: 50 });
const ordersOf = (token: string) => [...demo().orders.values()].filter((o) => o.metaData.some((m) => m.key === '_hosted_checkout_session' && m.value === token));

function orderInput(sessionToken: string): StoreOrderInput {
  const tote = demo().products.find((p) => p.slug === 'linen-tote')!;
  return {
    sessionToken,
    currency: 'EUR',
    email: 'shopper@example.com',
    shippingAddress: { firstName: 'Ada', lastName: 'Lovelace', line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', countryCode: 'DE' },
    lines: [{ title: 'Linen Tote Bag', quantity: 1, unitPriceMinor: 2490, productId: String(tote.id) }],
    shipping: { title: 'Standard', priceMinor: 490 },
    totals: { subtotalMinor: 2490, shippingMinor: 490, discountMinor: 0, totalMinor: 2980 },
    payment: { method: 'card', reference: `pay_${sessionToken}` },
  };
}

/** What a Temporal activity retry does: call again while the failure is retryable. */
async function untilDone<T>(call: () => Promise<T>, attempts = 25): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await call();
    } catch (err) {
      if (i >= attempts || !isIntegrationError(err) || !err.retryable) throw err;
    }
  }
}

describe('given the store commits each order and never answers (20 faults)', () => {
  it('when 20 sessions each create their order, then each has exactly one paid order', async () => {
    await commitThenTimeout(20);
    const c = client();
    const tokens = Array.from({ length: 20 }, (_, i) => `cs_exactly_once_${String(i).padStart(2, '0')}`);
    for (const token of tokens) {
      const order = await untilDone(() => c.createOrder(orderInput(token)));
      expect(order).toMatchObject({ sessionToken: token, paid: true, totalMinor: 2980 });
    }
    expect(demo().commitThenHang).toBe(0);
    expect(demo().orders.size).toBe(20);
    for (const token of tokens) expect(ordersOf(token), token).toHaveLength(1);
  });

  it('when one session is created 20 times in a row (retries, crashes), then it has exactly one order', async () => {
    await commitThenTimeout(20);
    const c = client();
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add((await untilDone(() => c.createOrder(orderInput('cs_exactly_once_single')))).id);
    expect(ids.size).toBe(1);
    expect(ordersOf('cs_exactly_once_single')).toHaveLength(1);
  });

  it('when a client re-posts after each lost answer instead (the official client, no lookup), then the same faults make duplicates', async () => {
    // The control: proves the fault really commits before it times out, so the tests above can fail.
    await commitThenTimeout(3);
    const official = new WooCommerceRestApi({ url: `${b.url}/stores/demo`, consumerKey: DEMO_STORE.consumerKey, consumerSecret: DEMO_STORE.consumerSecret, version: 'wc/v3', timeout: 250 });
    const body = { set_paid: true, line_items: [{ product_id: demo().products.find((p) => p.slug === 'linen-tote')!.id, quantity: 1 }], meta_data: [{ key: '_hosted_checkout_session', value: 'cs_naive' }] };
    for (let i = 0; i < 4; i++) {
      try {
        await official.post('orders', body);
        break;
      } catch {
        // time-out: try again, as a naive retry would
      }
    }
    expect(ordersOf('cs_naive')).toHaveLength(4);
  });
});
