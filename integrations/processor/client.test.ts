// Our Whop client against the local Whop over HTTP: the two reads that keep an upsell charge single and honest —
// a member's saved payment methods, and a payment found again by our metadata after its answer was lost.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startProcessor, type RunningProcessor } from '../../test/harness/processor.js';

let processor: RunningProcessor;

beforeAll(async () => {
  processor = await startProcessor();
});
afterAll(async () => {
  await processor?.close();
});
beforeEach(async () => {
  await processor.sim.reset();
});

/** A checkout of `productId` paid through the control plane (as on the hosted page, or with the embed's saved card). */
async function paid(productId: string, metadata: Record<string, string>, saveCard = false): Promise<{ id: string; member: { id: string }; payment_method: { id: string } }> {
  const { store } = processor.sim;
  const checkout = store.createCheckout(processor.sim.defaultBusinessId, { plan: { product_id: productId, initial_price: 2, currency: 'eur' }, metadata });
  const res = await processor.control<{ id: string; member: { id: string }; payment_method: { id: string } }>('POST', `checkout_configurations/${checkout.id}/pay`, saveCard ? { setupFutureUsage: 'off_session' } : {});
  expect(res.status).toBe(200);
  return res.body;
}

describe('the processor client', () => {
  it('given a card paid on the hosted page and one saved with the embed / listSavedPaymentMethods lists only the saved one, for its member', async () => {
    const product = processor.sim.store.createProduct(processor.sim.defaultBusinessId, { title: 'Checkout' }).id;
    const hosted = await paid(product, { checkout_session_token: 'cs_a' });
    const saved = await paid(product, { checkout_session_token: 'cs_b' }, true);
    const client = processor.client();
    expect(await client.listSavedPaymentMethods(hosted.member.id)).toEqual([{ id: saved.payment_method.id, type: 'card', createdAt: expect.any(String) }]);
    expect((await client.listSavedPaymentMethods(saved.member.id)).map((m) => m.id)).not.toContain(hosted.payment_method.id);
  });

  it('given more than a page of the product\'s payments since the purchase / findPayment reads on to the one whose metadata holds every pair, and finds none of another product or from before', async () => {
    const { store, defaultBusinessId } = processor.sim;
    const product = store.createProduct(defaultBusinessId, { title: 'Checkout' }).id;
    const other = store.createProduct(defaultBusinessId, { title: 'Other' }).id;
    const before = await paid(product, { checkout_session_token: 'cs_x', checkout_upsell_id: 'up_old' });
    await new Promise((r) => setTimeout(r, 10));
    const since = new Date();
    await new Promise((r) => setTimeout(r, 10));
    const ours = await paid(product, { checkout_session_token: 'cs_x', checkout_upsell_id: 'up_1' });
    await paid(other, { checkout_session_token: 'cs_x', checkout_upsell_id: 'up_2' });
    // 150 newer payments of the same product (every checkout of a merchant is paid on its one product).
    for (let i = 0; i < 150; i++) await paid(product, { checkout_session_token: `cs_${i}` });

    const client = processor.client();
    const find = (metadata: Record<string, string>, productId = product) => client.findPayment({ companyId: defaultBusinessId, productId, createdAfter: since, metadata });
    expect(await find({ checkout_session_token: 'cs_x', checkout_upsell_id: 'up_1' })).toMatchObject({ id: ours.id, state: 'paid', metadata: { checkout_upsell_id: 'up_1' } });
    expect(await find({ checkout_session_token: 'cs_x', checkout_upsell_id: 'up_old' })).toBeNull();
    expect(await find({ checkout_session_token: 'cs_x', checkout_upsell_id: 'up_2' })).toBeNull();
    expect(await find({ checkout_session_token: 'cs_y', checkout_upsell_id: 'up_1' })).toBeNull();
    expect(before.id).not.toBe(ours.id);
  });
});
