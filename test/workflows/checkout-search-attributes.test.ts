// An operator finds any session in the Temporal Web UI by merchant, status and store platform: the
// checkout workflow sets its custom search attributes, registered on the dev server by the harness (as
// `npm start` does), and keeps CheckoutStatus current. Visibility on the real (dev) server, queried as the
// Web UI does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { checkoutWorkflow } from '../../workflows/checkout/checkout.js';
import { initPaymentUpdate, refreshStatusUpdate } from '../../workflows/checkout/checkout.messages.js';
import { startActivityRig, type ActivityRig } from '../harness/activity-rig.js';
import { connectTestTemporal, type TestTemporal } from '../harness/temporal.js';
import { createOpenSession, createSellingMerchant, settlePaymentSilently, shopperDetails, type SellingMerchant } from './checkout-fixtures.js';
import { WORKFLOWS } from '../../domain/temporal/workflow-names.js';

let temporal: TestTemporal;
let rig: ActivityRig;
let merchant: SellingMerchant;

beforeAll(async () => {
  temporal = await connectTestTemporal();
  rig = await startActivityRig({ taskQueue: temporal.taskQueue });
  merchant = await createSellingMerchant(rig);
});
afterAll(async () => {
  await rig?.close();
  await temporal?.close();
});

/** The workflow ids a visibility query lists, polled until they are `expected` (visibility lags the workflow a little). */
async function listUntil(client: Client, query: string, expected: string[], timeoutMs = 10_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  const want = JSON.stringify([...expected].sort());
  for (;;) {
    const ids: string[] = [];
    for await (const w of client.workflow.list({ query })) ids.push(w.workflowId);
    ids.sort();
    if (JSON.stringify(ids) === want || Date.now() > deadline) return ids;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('finding checkout sessions by search attributes (dev server)', () => {
  it('given a session waiting for its payment / when an operator queries MerchantId and CheckoutStatus / its workflow is listed, and follows the status to COMPLETED', async () => {
    const pending = await createOpenSession(rig, merchant);
    const idle = await createOpenSession(rig, merchant);
    const pendingId = WORKFLOWS.checkout.id(pending.token);
    const idleId = WORKFLOWS.checkout.id(idle.token);
    const { client } = temporal;

    await temporal.withWorker(rig.activities, async () => {
      const handle = await client.workflow.start(checkoutWorkflow, { taskQueue: temporal.taskQueue, workflowId: pendingId, args: [pending.input] });
      await client.workflow.start(checkoutWorkflow, { taskQueue: temporal.taskQueue, workflowId: idleId, args: [idle.input] });
      const init = await handle.executeUpdate(initPaymentUpdate, { args: [shopperDetails(merchant)] });

      expect(await listUntil(client, `MerchantId = "${merchant.id}" AND CheckoutStatus = "PAYMENT_PENDING"`, [pendingId])).toEqual([pendingId]);
      expect(await listUntil(client, `MerchantId = "${merchant.id}" AND CheckoutStatus = "OPEN"`, [idleId])).toEqual([idleId]);
      expect(await listUntil(client, `MerchantId = "${merchant.id}" AND StorePlatform = "STOREFRONT_A"`, [pendingId, idleId])).toEqual([pendingId, idleId].sort());
      expect(await listUntil(client, `MerchantId = "00000000-0000-0000-0000-000000000000"`, [])).toEqual([]);

      // Paid: the status change reaches visibility too.
      await settlePaymentSilently(rig, init.paymentId!, 'succeeded');
      expect(await handle.executeUpdate(refreshStatusUpdate)).toEqual({ status: 'COMPLETED' });
      expect(await handle.result()).toEqual({ status: 'COMPLETED' });
      expect(await listUntil(client, `MerchantId = "${merchant.id}" AND CheckoutStatus = "COMPLETED"`, [pendingId])).toEqual([pendingId]);
      expect(await listUntil(client, `MerchantId = "${merchant.id}" AND CheckoutStatus = "PAYMENT_PENDING"`, [])).toEqual([]);

      await client.workflow.getHandle(idleId).terminate('test done');
    });
  });
});
