// The TypeScript SDK (sdk/) against the running service, authenticated as a merchant's integration is: with an API
// key made through the API by the merchant's dashboard session. It creates a discount code, pages through its orders,
// reads one and refunds it, and every refusal (a missing scope included) arrives as a typed error. Its webhooks:
// an endpoint made through the SDK at the receiver simulator, a test event and a paid order's session.completed,
// each delivery verified with the SDK's verifyWebhook from the raw bytes the endpoint received.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack.js';
import { api, control, shopperPays, storefrontACheckout, storefrontAMerchant, waitFor } from '../e2e/checkout-helpers.js';
import { CheckoutApiError, createCheckoutClient, verifyWebhook, WebhookVerificationError, type WebhookEvent } from '../../sdk/src/index.js';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({}, { checkoutWorkflowInput: { storeRetryInitialMs: 250 } });
});
afterAll(async () => {
  await stack?.close();
});

/** A secret API key of the merchant, made as the dashboard makes one (its session, POST /api/merchant/api-keys). */
async function apiKey(sessionToken: string, scopes: string[]): Promise<string> {
  const res = await api(stack, 'POST', '/api/merchant/api-keys', { name: 'SDK integration', scopes }, sessionToken);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.secret as string;
}

describe('the SDK against the service', () => {
  it('given a merchant with two paid orders / it creates a discount code, lists and pages orders, reads one and refunds it: REFUNDED; refusals are typed', async () => {
    const merchant = await storefrontAMerchant(stack, 'SDK Store');
    const sdk = createCheckoutClient({ baseUrl: stack.apiUrl, apiKey: await apiKey(merchant.token, ['commerce:write', 'orders:write']) });

    const code = await sdk.discounts.create({ code: 'sdk10', type: 'percentage', percentOff: 10 });
    expect(code).toMatchObject({ code: 'SDK10', type: 'percentage', percentOff: 10 });
    expect((await sdk.discounts.list()).items.map((d) => d.code)).toContain('SDK10');
    const taken = await sdk.discounts.create({ code: 'SDK10', type: 'percentage', percentOff: 5 }).catch((e: unknown) => e);
    expect(taken).toBeInstanceOf(CheckoutApiError);
    expect(taken).toMatchObject({ status: 409, code: 'DISCOUNT_CODE_EXISTS', requestId: expect.any(String) });
    const bad = await sdk.discounts.create({ code: 'x', type: 'percentage', percentOff: 10 }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ status: 400, code: 'INVALID_INPUT', fields: { 'body.code': expect.any(String) } });

    const tokens = [await storefrontACheckout(stack, merchant.shop), await storefrontACheckout(stack, merchant.shop)];
    for (const token of tokens) await shopperPays(stack, token);
    await waitFor('both orders COMPLETED', async () => {
      const page = await sdk.orders.list({ status: 'COMPLETED' });
      return page.items.length === 2 ? page : undefined;
    });
    // One order a page: iterate follows the cursor.
    const paged = await sdk.orders.all({ status: 'COMPLETED', limit: 1 });
    expect(paged.map((o) => o.token).sort()).toEqual([...tokens].sort());

    const detail = await sdk.orders.get(tokens[0]!);
    expect(detail).toMatchObject({ token: tokens[0], status: 'COMPLETED', paymentMethod: 'card' });
    // The paid orders view names each order by the store's number and its customer by name, as the store does.
    const numbered = await waitFor('both store orders', async () => {
      const page = await sdk.orders.list({ view: 'orders' });
      return page.items.every((o) => o.storeOrder?.number) ? page.items : undefined;
    });
    const names = (await stack.database.db.checkoutSession.findMany({ where: { token: { in: tokens } } })).map((r) => r.storeOrderNumber).sort();
    expect(numbered.map((o) => o.storeOrder!.number).sort()).toEqual(names);
    expect(numbered.map((o) => o.customerName)).toEqual(['Jane Doe', 'Jane Doe']);
    expect((await sdk.orders.list({ view: 'checkouts' })).items).toEqual([]);
    const refund = await sdk.orders.refund(tokens[0]!);
    expect(refund).toMatchObject({ status: 'COMPLETED', refund: { state: 'requested' } });
    await waitFor('REFUNDED', async () => ((await sdk.orders.get(tokens[0]!)).status === 'REFUNDED' ? true : undefined));
    await expect(sdk.orders.refund(tokens[0]!)).rejects.toMatchObject({ code: expect.stringMatching(/^(NOT_REFUNDABLE|REFUND_ALREADY_REQUESTED)$/) });

    // Another merchant's order is not found; a wrong credential is refused.
    const stranger = await storefrontAMerchant(stack, 'Other SDK Store');
    const theirs = createCheckoutClient({ baseUrl: stack.apiUrl, apiKey: await apiKey(stranger.token, ['orders:read']) });
    await expect(theirs.orders.get(tokens[1]!)).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
    // A key without the scope: refused with the scope it lacks; the dashboard session token still works as before.
    await expect(theirs.discounts.list()).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN', details: { requiredScope: 'commerce:read' } });
    expect((await createCheckoutClient({ baseUrl: stack.apiUrl, apiKey: stranger.token }).discounts.list()).items).toEqual([]);
    const nobody = createCheckoutClient({ baseUrl: stack.apiUrl, apiKey: 'not-a-key' });
    await expect(nobody.discounts.list()).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });

  it('given a key with webhooks:write / it adds an endpoint, sends a test event, and verifies that and a paid order\'s session.completed with verifyWebhook; a rotated secret verifies alongside the old one', async () => {
    const merchant = await storefrontAMerchant(stack, 'SDK Hooks Store');
    const readOnly = createCheckoutClient({ baseUrl: stack.apiUrl, apiKey: await apiKey(merchant.token, ['webhooks:read']) });
    const sdk = createCheckoutClient({ baseUrl: stack.apiUrl, apiKey: await apiKey(merchant.token, ['webhooks:write', 'orders:read']) });
    const receiver = await control(stack.urls.webhookReceiver, 'POST', 'endpoints', { label: 'sdk' });
    expect(receiver.status).toBe(201);
    const receiverId = receiver.body.id as string;

    await expect(readOnly.webhooks.endpoints.create({ url: receiver.body.url as string })).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN', details: { requiredScope: 'webhooks:write' } });
    const endpoint = await sdk.webhooks.endpoints.create({ url: receiver.body.url as string, description: 'orders to the ERP' });
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect((await readOnly.webhooks.endpoints.list()).items.map((e) => e.id)).toEqual([endpoint.id]);
    expect(JSON.stringify(await readOnly.webhooks.endpoints.get(endpoint.id))).not.toContain(endpoint.secret);

    /** The raw deliveries of one webhook-id as the endpoint received them (headers and bytes). */
    const received = (deliveryId: string) => waitFor(`delivery ${deliveryId} at the endpoint`, () => {
      const found = stack.sims.webhookReceiver.deliveries(receiverId).filter((d) => d.webhookId === deliveryId);
      return found.length ? found : undefined;
    }, 60_000);

    const test = await sdk.webhooks.endpoints.sendTest(endpoint.id);
    const [testDelivery] = await received(test.deliveryId);
    const testEvent: WebhookEvent = verifyWebhook(testDelivery!.body, testDelivery!.headers, endpoint.secret);
    expect(testEvent).toMatchObject({ id: test.eventId, type: 'webhook.test' });
    expect(() => verifyWebhook(testDelivery!.body.replace('"webhook.test"', '"session.completed"'), testDelivery!.headers, endpoint.secret)).toThrow(WebhookVerificationError);
    await waitFor('the test delivery succeeded', async () => ((await readOnly.webhooks.deliveries.get(test.deliveryId)).status === 'succeeded' ? true : undefined));

    // A paid order: its session.completed arrives once, verified, with the order's token; the SDK lists it.
    const token = await storefrontACheckout(stack, merchant.shop);
    await shopperPays(stack, token);
    const completed = await waitFor('session.completed in the event list', async () =>
      (await readOnly.webhooks.events.all({ type: 'session.completed' })).find((e) => JSON.stringify(e).includes(token)));
    const deliveries = await readOnly.webhooks.deliveries.all({ endpointId: endpoint.id, eventType: 'session.completed' });
    expect(deliveries.map((d) => d.eventId)).toEqual([completed.id]);
    const [orderDelivery] = await received(deliveries[0]!.id);
    const orderEvent = verifyWebhook(orderDelivery!.body, orderDelivery!.headers, endpoint.secret);
    if (orderEvent.type !== 'session.completed') throw new Error(`expected session.completed, got ${orderEvent.type}`);
    expect(orderEvent.data).toMatchObject({ token, status: 'COMPLETED', payment_method: 'card' });

    // Rotation: for 24 hours every delivery carries a signature with each secret, so either verifies it.
    const rotated = await sdk.webhooks.endpoints.rotateSecret(endpoint.id);
    expect(rotated.secret).not.toBe(endpoint.secret);
    const after = await sdk.webhooks.endpoints.sendTest(endpoint.id);
    const [afterDelivery] = await received(after.deliveryId);
    expect(verifyWebhook(afterDelivery!.body, afterDelivery!.headers, rotated.secret).id).toBe(after.eventId);
    expect(verifyWebhook(afterDelivery!.body, afterDelivery!.headers, endpoint.secret).id).toBe(after.eventId);
    expect(() => verifyWebhook(afterDelivery!.body, afterDelivery!.headers, `whsec_${Buffer.alloc(24, 1).toString('base64')}`)).toThrow(WebhookVerificationError);
  });
});
