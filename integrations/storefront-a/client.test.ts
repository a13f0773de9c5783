// The client against the simulator over real HTTP: Storefront API cart, draft orders completed exactly once
// under "commit, then time out" faults, THROTTLED waited out, embed status from settings_data.json.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../test/harness/simulators.js';
import { createStorefrontASimulator, DEMO_APP, DEMO_SHOP, type StorefrontASimulator } from '../../sandbox/storefront-a/simulator.js';
import { createStorefrontAClient, embedInSettings, type OrderIntent } from './client.js';
import type { StoreOrderInput } from '../storefront-common/order.js';

let sim: StorefrontASimulator;
let url: string;
let close: () => Promise<void>;
beforeAll(async () => ({ sim, url, close } = await startSimulator((publicUrl) => createStorefrontASimulator({ publicUrl }))));
afterAll(() => close());
beforeEach(() => sim.reset());

const control = (path: string, body: unknown) => fetch(`${url}/_control/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const clientFor = (accessToken: string, extra: { storefrontToken?: string; timeoutMs?: number } = {}) => createStorefrontAClient({ shop: DEMO_SHOP, accessToken, apiUrlTemplate: `${url}/shops/{shop}`, ...extra });
const memoryIntent = (): OrderIntent & { recorded: string[] } => {
  const recorded: string[] = [];
  return { recorded, draftOrderId: async () => recorded[0] ?? null, recordDraftOrder: async (id) => void recorded.push(id) };
};

function orderInput(sessionToken: string, variantId: number, method: 'card' | 'cod' = 'card'): StoreOrderInput {
  return {
    sessionToken, currency: 'EUR', email: 'ann@example.com',
    shippingAddress: { firstName: 'Ann', lastName: 'Lee', line1: '1 Main St', city: 'Berlin', postalCode: '10115', countryCode: 'DE' },
    lines: [{ title: 'Tote', quantity: 2, unitPriceMinor: 2000, productId: '1', variantId: String(variantId) }],
    shipping: { title: 'Standard', priceMinor: 450 },
    totals: { subtotalMinor: 4000, shippingMinor: 450, discountMinor: 0, totalMinor: 4450 },
    payment: { method, reference: method === 'card' ? 'pay_1' : undefined },
  };
}
const ordersOf = (token: string) => [...sim.state.shops.get(DEMO_SHOP)!.orders.values()].filter((o) => o.customAttributes.some((a) => a.value === token));

describe('orders exactly once without idempotency keys', () => {
  // The answers are lost by the store dropping the connection right after its commit (hangMs 1), not by a short
  // client time-out: a 300 ms time-out also cut off calls that were merely slow on a loaded machine. From the
  // client's side both are the same ambiguous failure; its own time-out is the refund case below.
  it('given 20 "commit, then lose the answer" faults on completion, then each of 20 checkouts has exactly one order', async () => {
    const client = clientFor(sim.install(DEMO_SHOP));
    const variant = sim.state.shops.get(DEMO_SHOP)!.products[0]!.variants[0]!;
    await control('faults/commit-then-timeout', { mutation: 'draftOrderComplete', count: 20, hangMs: 1 });
    for (let i = 0; i < 20; i++) {
      const { order, created } = await client.placeOrder(orderInput(`cs_${i}`, variant.id), memoryIntent());
      expect(created).toBe(false); // the answer was lost: the order was found through its draft
      expect(order.totalMinor).toBe(4450);
    }
    expect(sim.state.commitThenTimeout.size).toBe(0);
    for (let i = 0; i < 20; i++) expect(ordersOf(`cs_${i}`)).toHaveLength(1);
    expect(sim.state.shops.get(DEMO_SHOP)!.orders.size).toBe(20);
  }, 60_000);

  it('given 20 faults on one checkout, retried the way the activity retries (intent kept), then one order', async () => {
    const client = clientFor(sim.install(DEMO_SHOP));
    const variant = sim.state.shops.get(DEMO_SHOP)!.products[0]!.variants[0]!;
    await control('faults/commit-then-timeout', { mutation: 'draftOrderCreate', count: 20, hangMs: 1 });
    const intent = memoryIntent();
    let result;
    for (let attempt = 0; attempt < 30 && !result; attempt++) result = await client.placeOrder(orderInput('cs_same', variant.id), intent).catch(() => undefined);
    expect(result?.order.paid).toBe(true);
    // Lost create answers leave extra open drafts, never a second order.
    expect(ordersOf('cs_same')).toHaveLength(1);
    expect([...sim.state.shops.get(DEMO_SHOP)!.draftOrders.values()].filter((d) => d.status === 'COMPLETED')).toHaveLength(1);
    // And once more, later: answered from the recorded draft.
    expect(await client.placeOrder(orderInput('cs_same', variant.id), intent)).toMatchObject({ created: false, order: { id: result!.order.id } });
    expect(ordersOf('cs_same')).toHaveLength(1);
  }, 60_000);

  it('given an order / a partial refund with a line restocked, then the rest: PARTIALLY_REFUNDED then REFUNDED; a refund whose answer was lost is found by its mark, never made twice', async () => {
    const accessToken = sim.install(DEMO_SHOP);
    const client = clientFor(accessToken);
    const variant = sim.state.shops.get(DEMO_SHOP)!.products[0]!.variants[0]!;
    const { order } = await client.placeOrder(orderInput('cs_refund', variant.id), memoryIntent());
    const first = await client.refundOrder(order.id, { refundId: '11111111-1111-4111-8111-111111111111', amountMinor: 2000, currency: 'EUR', reason: 'one arrived broken', lines: [{ line: 0, quantity: 1 }], restock: true });
    expect(first).toMatchObject({ amountMinor: 2000, orderStatus: 'partially_refunded', created: true });
    const stored = ordersOf('cs_refund')[0]!;
    expect(stored.refunds[0]).toMatchObject({ amount: 2000, note: expect.stringContaining('one arrived broken'), lines: [{ lineIndex: 0, quantity: 1, restockType: 'CANCEL' }] });
    // The same refund asked again (a retry of the activity): the store's refund is found, nothing refunded twice.
    expect(await client.refundOrder(order.id, { refundId: '11111111-1111-4111-8111-111111111111', amountMinor: 2000, currency: 'EUR', reason: 'one arrived broken', lines: [{ line: 0, quantity: 1 }], restock: true })).toMatchObject({ id: first.id, created: false });
    // The rest, committed but its answer lost: the retry finds it by its mark.
    // The store holds the answer far past this client's time-out (3 s: ample for the calls before it, even on a
    // loaded machine), so the client's own time-out is what loses it.
    await control('faults/commit-then-timeout', { mutation: 'refundCreate', count: 1, hangMs: 60_000 });
    const rest = { refundId: '22222222-2222-4222-8222-222222222222', amountMinor: 2450, currency: 'EUR', reason: null, lines: [], restock: false };
    await expect(clientFor(accessToken, { timeoutMs: 3_000 }).refundOrder(order.id, rest)).rejects.toMatchObject({ kind: 'timeout' });
    expect(await client.refundOrder(order.id, rest)).toMatchObject({ amountMinor: 2450, orderStatus: 'refunded', created: false });
    expect(stored.refunds).toHaveLength(2);
    expect(stored.financialStatus).toBe('REFUNDED');
    // Nothing left: the store refuses more (a permanent refusal).
    await expect(client.refundOrder(order.id, { ...rest, refundId: '33333333-3333-4333-8333-333333333333', amountMinor: 1 })).rejects.toMatchObject({ kind: 'rejected' });
  });

  it('given a shop that adds 19 % tax in DE / calculateTaxes quotes it; an order charged with it completes; one charged without it is left an open draft, never a paid order for more than was charged', async () => {
    const client = clientFor(sim.install(DEMO_SHOP));
    const variant = sim.state.shops.get(DEMO_SHOP)!.products[0]!.variants[0]!;
    await control(`shops/${DEMO_SHOP}/taxes`, { included: false, rates: { DE: 19 } });
    const input = orderInput('cs_tax_1', variant.id);
    const quoted = await client.calculateTaxes(input);
    expect(quoted).toEqual({ taxMinor: 760, taxesIncluded: false, totalMinor: 5210 });
    const { order } = await client.placeOrder({ ...input, totals: { ...input.totals, taxMinor: 760, totalMinor: 5210 } }, memoryIntent());
    expect(order).toMatchObject({ totalMinor: 5210, paid: true });
    const intent = memoryIntent();
    await expect(client.placeOrder(orderInput('cs_tax_2', variant.id), intent)).rejects.toMatchObject({ kind: 'rejected', message: expect.stringMatching(/would book 52\.10 EUR \(tax 7\.60\), the shopper was charged 44\.50 EUR/) });
    expect(ordersOf('cs_tax_2')).toHaveLength(0);
    expect(sim.state.shops.get(DEMO_SHOP)!.draftOrders.get(Number(intent.recorded[0]!.split('/').pop()))).toMatchObject({ status: 'OPEN' });
  });

  it('given a COD checkout, then the order is payment pending and reads paid after the merchant marks it paid', async () => {
    const client = clientFor(sim.install(DEMO_SHOP));
    const variant = sim.state.shops.get(DEMO_SHOP)!.products[0]!.variants[0]!;
    const { order } = await client.placeOrder(orderInput('cs_cod', variant.id, 'cod'), memoryIntent());
    expect(order).toMatchObject({ paid: false, status: 'pending', number: '#1001' });
    ordersOf('cs_cod')[0]!.financialStatus = 'PAID';
    expect(await client.getOrder(order.id)).toMatchObject({ paid: true, sessionToken: 'cs_cod' });
  });
});

describe('drafts Shopify is still working on, completions in flight, completions that commit and then fail', () => {
  const variantOf = () => sim.state.shops.get(DEMO_SHOP)!.products[0]!.variants[0]!;
  const draftsOf = (token: string) => [...sim.state.shops.get(DEMO_SHOP)!.draftOrders.values()].filter((d) => d.tags.includes(token));
  const faults = (body: unknown) => control(`shops/${DEMO_SHOP}/faults/draft-orders`, body);
  /** Places the order the way the activity does: a retryable failure is tried again (intent kept), a permanent one ends it. */
  async function placeLikeTheActivity(client: ReturnType<typeof clientFor>, token: string, intent = memoryIntent(), method: 'card' | 'cod' = 'card') {
    const failures: Array<{ kind: string; retryable: boolean }> = [];
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        return { ...(await client.placeOrder(orderInput(token, variantOf().id, method), intent)), failures };
      } catch (err) {
        const e = err as { kind: string; retryable: boolean };
        failures.push({ kind: e.kind, retryable: e.retryable });
        if (!e.retryable) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    throw new Error('no order after 20 attempts');
  }

  it('given a draft not ready for 3 reads / it is read until ready, then completed once: one paid order, no failure', async () => {
    const client = clientFor(sim.install(DEMO_SHOP));
    await faults({ notReady: { count: 1, reads: 3 } });
    const { order, created, failures } = await placeLikeTheActivity(client, 'cs_ready_3');
    expect({ created, paid: order.paid, failures }).toEqual({ created: true, paid: true, failures: [] });
    expect(ordersOf('cs_ready_3')).toHaveLength(1);
    expect(draftsOf('cs_ready_3')).toMatchObject([{ status: 'COMPLETED', notReadyReads: 0 }]);
  });

  it('given a draft not ready for 12 reads / each attempt ends retryable without completing it, a later attempt completes it: one order', async () => {
    const client = clientFor(sim.install(DEMO_SHOP));
    await faults({ notReady: { count: 1, reads: 12 } });
    const intent = memoryIntent();
    // The first attempt waits a little, then hands the wait to the activity's retries; nothing was completed.
    await expect(client.placeOrder(orderInput('cs_ready_12', variantOf().id), intent)).rejects.toMatchObject({ kind: 'unavailable', retryable: true, message: expect.stringMatching(/not ready/) });
    expect(draftsOf('cs_ready_12')).toMatchObject([{ status: 'OPEN' }]);
    expect(ordersOf('cs_ready_12')).toHaveLength(0);
    const { created, failures } = await placeLikeTheActivity(client, 'cs_ready_12', intent);
    expect(created).toBe(true);
    expect(failures.every((f) => f.retryable)).toBe(true);
    expect(ordersOf('cs_ready_12')).toHaveLength(1);
    expect(draftsOf('cs_ready_12')).toHaveLength(1);
  }, 30_000);

  it('given a completion in flight for 300 ms whose answer is lost / the second completion is refused, the draft is read again and its order taken: one order', async () => {
    const client = clientFor(sim.install(DEMO_SHOP));
    await faults({ inFlight: { count: 1, commitMs: 300 } });
    const { order, created, failures } = await placeLikeTheActivity(client, 'cs_flight_short');
    expect({ created, paid: order.paid, failures }).toEqual({ created: false, paid: true, failures: [] });
    expect(ordersOf('cs_flight_short')).toHaveLength(1);
  });

  it('given a completion in flight for 4 s / the attempt ends retryable (never a refusal for good), no second order is made, and the next attempt finds the first one', async () => {
    const client = clientFor(sim.install(DEMO_SHOP));
    await faults({ inFlight: { count: 1, commitMs: 4_000 } });
    const intent = memoryIntent();
    // While it commits, every completion the client tries is refused: retryable, so the checkout is not given up.
    await expect(client.placeOrder(orderInput('cs_flight_long', variantOf().id), intent)).rejects.toMatchObject({ kind: 'unavailable', retryable: true, message: expect.stringMatching(/already being completed/) });
    expect(ordersOf('cs_flight_long')).toHaveLength(0);
    await expect.poll(() => ordersOf('cs_flight_long').length, { timeout: 6_000, interval: 100 }).toBe(1);
    const { order, created } = await placeLikeTheActivity(client, 'cs_flight_long', intent);
    expect({ created, id: order.id }).toEqual({ created: false, id: String(ordersOf('cs_flight_long')[0]!.id) });
    expect(ordersOf('cs_flight_long')).toHaveLength(1);
  }, 20_000);

  it('given completions that commit and then answer INTERNAL_SERVER_ERROR, for 5 checkouts / each order is found through its draft: one each, none made twice', async () => {
    const client = clientFor(sim.install(DEMO_SHOP));
    await faults({ commitThenError: { count: 5 } });
    for (let i = 0; i < 5; i++) {
      const { created, failures } = await placeLikeTheActivity(client, `cs_ise_${i}`);
      expect({ created, failures }).toEqual({ created: false, failures: [] });
      expect(ordersOf(`cs_ise_${i}`)).toHaveLength(1);
    }
    expect(sim.state.draftFaults.get(DEMO_SHOP)?.commitThenError?.count).toBe(0);
  });

  it('given a COD checkout with a draft not ready and a completion whose answer is lost / one payment-pending order through payment terms "due on fulfillment"', async () => {
    const client = clientFor(sim.install(DEMO_SHOP));
    await faults({ notReady: { count: 1, reads: 2 } });
    await control('faults/commit-then-timeout', { mutation: 'draftOrderComplete', count: 1, hangMs: 1 });
    const { order } = await placeLikeTheActivity(client, 'cs_cod_faults', memoryIntent(), 'cod');
    expect(order).toMatchObject({ paid: false, status: 'pending' });
    expect(draftsOf('cs_cod_faults')).toMatchObject([{ status: 'COMPLETED', paymentTerms: { type: 'FULFILLMENT' } }]);
    expect(ordersOf('cs_cod_faults')).toMatchObject([{ financialStatus: 'PENDING', transactions: [] }]);
  });
});

describe('cart, throttling, embed status', () => {
  it('reads the /cart.js token through the Storefront API with the token the install created', async () => {
    const admin = clientFor(sim.install(DEMO_SHOP));
    const storefrontToken = await admin.createStorefrontToken('hosted-checkout');
    const variant = sim.state.shops.get(DEMO_SHOP)!.products[3]!.variants[2]!;
    const token = sim.createCart(DEMO_SHOP, [{ variantId: variant.id, quantity: 2 }]);
    const cart = await clientFor('x', { storefrontToken }).getCart(token);
    expect(cart).toMatchObject({ currency: 'EUR', country: 'DE', subtotalMinor: 6200, items: [{ variantId: String(variant.id), quantity: 2, unitPriceMinor: 3100, title: 'Organic Cotton Tee', variantTitle: 'L' }] });
    await expect(clientFor('x', { storefrontToken }).getCart(token.replace(/key=.*/, 'key=00'))).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('given an empty cost bucket, then the call waits for it to refill instead of failing', async () => {
    const client = clientFor(sim.install(DEMO_SHOP));
    await control(`shops/${DEMO_SHOP}/throttle`, { currentlyAvailable: 0, restoreRate: 50 });
    const started = Date.now();
    expect((await client.getShop()).origins).toContain('https://www.demo-shop.example');
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
  });

  it('given a bucket that would refill only after the longest wait, then the call fails at once as rate_limited (retryable)', async () => {
    let calls = 0;
    const counting: typeof fetch = (input, init) => ((calls += 1), fetch(input, init));
    const client = createStorefrontAClient({ shop: DEMO_SHOP, accessToken: sim.install(DEMO_SHOP), apiUrlTemplate: `${url}/shops/{shop}`, maxThrottleWaitMs: 1_000, fetch: counting });
    await control(`shops/${DEMO_SHOP}/throttle`, { currentlyAvailable: 0, restoreRate: 1 });
    await expect(client.getShop()).rejects.toMatchObject({ kind: 'rate_limited', retryable: true });
    // At once: the one throttled answer decided it — no wait for the bucket and no second call.
    expect(calls).toBe(1);
    await control(`shops/${DEMO_SHOP}/throttle`, { currentlyAvailable: 2000 });
  });

  it('given a market domain and a domain that redirects / the origins are the primary domain, the market\'s and the myshopify host, read without the deprecated Shop.domains; an install without read_markets still gets its primary domain', async () => {
    await control(`shops/${DEMO_SHOP}/domains`, { host: 'demo-shop.ca', webPresence: true });
    await control(`shops/${DEMO_SHOP}/domains`, { host: 'old-demo-shop.example' });
    const seen: string[] = [];
    const recording: typeof fetch = async (input, init) => (seen.push(String(init?.body)), fetch(input, init));
    const client = createStorefrontAClient({ shop: DEMO_SHOP, accessToken: sim.install(DEMO_SHOP), apiUrlTemplate: `${url}/shops/{shop}`, fetch: recording });
    expect((await client.getShop()).origins).toEqual(['https://www.demo-shop.example', 'https://demo-shop.ca', `https://${DEMO_SHOP}`]);
    expect(seen.some((b) => /\bdomains\s*\{/.test(b))).toBe(false);
    const older = clientFor(sim.install(DEMO_SHOP, { scopes: ['write_draft_orders', 'write_orders', 'read_themes', 'write_script_tags'] }));
    expect((await older.getShop()).origins).toEqual(['https://www.demo-shop.example', `https://${DEMO_SHOP}`]);
  });

  it('reports the embed on only when settings_data.json holds it enabled', async () => {
    const client = clientFor(sim.install(DEMO_SHOP));
    expect(await client.embedStatus()).toMatchObject({ active: false, present: false, themeName: 'Dawn' });
    await control(`apps/${DEMO_APP.clientId}/extensions`, { handle: 'checkout', blocks: { 'checkout-embed': '{% schema %}{"name":"x","target":"body"}{% endschema %}' }, assets: {} });
    await control(`shops/${DEMO_SHOP}/app-embeds`, { clientId: DEMO_APP.clientId, block: 'checkout-embed', enabled: true });
    expect(await client.embedStatus()).toMatchObject({ active: true, present: true });
    await control(`shops/${DEMO_SHOP}/app-embeds`, { clientId: DEMO_APP.clientId, block: 'checkout-embed', enabled: false });
    expect(await client.embedStatus()).toMatchObject({ active: false, present: true });
    expect(embedInSettings('not json', { appHandle: DEMO_APP.handle })).toEqual({ active: false, present: false });
  });
});
