// A paid checkout on a Shopify store whose draft order is not ready at once, whose completion is still committing
// when it is tried again, or commits and answers an internal error: through HTTP, the workflow and the sandboxes
// only, the session ends COMPLETED with exactly one order on the store (never a paid checkout without one, never two).
//
// The stack starts its checkout workflows with storeRetryInitialMs = 250 ms (the production policy, 20 times faster),
// as test/e2e/exactly-once.test.ts does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack.js';
import {
  control, expectCompletedWithOneOrderAndTwoEmails, payOnHostedPage, returnFromPaymentPage, startPayment, storefrontACheckout, storefrontAMerchant, storefrontAOrdersOf, timelineOf, type Json,
} from './checkout-helpers.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({}, { checkoutWorkflowInput: { storeRetryInitialMs: 250 } });
});
afterAll(async () => {
  await stack?.close();
});

/** A storefront A checkout paid by card with the given draft order faults queued on its shop; answers its token and shop. */
async function paidCheckoutWith(name: string, faults: Json) {
  const merchant = await storefrontAMerchant(stack, name);
  const token = await storefrontACheckout(stack, merchant.shop);
  const payment = await startPayment(stack, token);
  const queued = await control(stack.urls.storefrontA, 'POST', `shops/${merchant.shop.host}/faults/draft-orders`, faults);
  expect(queued.status, JSON.stringify(queued.body)).toBe(200);
  await payOnHostedPage(token, payment.paymentUrl as string);
  await returnFromPaymentPage(stack, token);
  return { merchant, token };
}

describe('Shopify draft orders that are not ready or whose completion is ambiguous', () => {
  it('given a draft not ready for 15 reads (more than one attempt waits) / the activity retries, then COMPLETED with one order; no failure recorded', async () => {
    const { merchant, token } = await paidCheckoutWith('Slow Draft Store', { notReady: { count: 1, reads: 15 } });
    await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, () => storefrontAOrdersOf(merchant.shop, token).length, 60_000);
    expect(stack.sims.storefrontA.state.draftFaults.get(merchant.shop.host)?.notReady?.count).toBe(0);
    expect(await timelineOf(stack, token, 'order_failed')).toEqual([]);
  });

  it('given a completion still committing for 3 s after its answer was lost (every completion meanwhile refused) / never given up: COMPLETED with the one order that committed', async () => {
    const { merchant, token } = await paidCheckoutWith('In-flight Store', { inFlight: { count: 1, commitMs: 3_000 } });
    await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, () => storefrontAOrdersOf(merchant.shop, token).length, 60_000);
    const created = await timelineOf(stack, token, 'order_created');
    expect(created).toHaveLength(1);
    expect((created[0]!.data as Json).created).toBe(false); // found through its draft, not made again
    expect(await timelineOf(stack, token, 'order_failed')).toEqual([]);
  });

  it('given a completion that commits and answers INTERNAL_SERVER_ERROR / COMPLETED with that order, none made twice', async () => {
    const { merchant, token } = await paidCheckoutWith('Erring Store', { commitThenError: { count: 1 } });
    await expectCompletedWithOneOrderAndTwoEmails(stack, token, merchant.email, () => storefrontAOrdersOf(merchant.shop, token).length, 60_000);
    expect([...merchant.shop.draftOrders.values()].filter((d) => d.status === 'COMPLETED')).toHaveLength(1);
    expect(await timelineOf(stack, token, 'order_failed')).toEqual([]);
  });
});
