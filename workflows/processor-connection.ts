// The merchant's payment processor connection, as two business processes: connecting (key checked,
// business found, checkout product created, payment webhook registered) and disconnecting (webhook
// removed at the processor, connection forgotten). The API seals the key into processor_connections
// before it starts a connection, so only the merchant id travels through workflow history.
import { patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ProcessorActivities } from '../activities/processor.js';
import {
  describeProcessorFailure,
  toProcessorFailure,
  type ProcessorConnectionInput,
  type ProcessorConnectionResult,
  type ProcessorDisconnectResult,
} from './processor-connection.messages.js';
import { startOrSignalWalletDomain } from './wallet-domain.js';

// The merchant waits on the answer: one quick retry of a processor call, then tell them (a rejected key is
// never retried: the activities mark it non-retryable).
const processor = proxyActivities<ProcessorActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '2 seconds', maximumAttempts: 2 },
});
// Our own database: retried a little longer, it is what keeps the connection's state true.
const records = proxyActivities<ProcessorActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds', maximumAttempts: 6 },
});

/** Connects the merchant's processor account so it can take card payments and report them by webhook. */
export async function connectProcessorWorkflow({ merchantId }: ProcessorConnectionInput): Promise<ProcessorConnectionResult> {
  let webhookAttempted = false;
  try {
    await processor.validateProcessorKey(merchantId);
    await processor.createProcessorProduct(merchantId);
    webhookAttempted = true;
    await processor.registerProcessorWebhook({ merchantId, idempotencyKey: `webhook-${merchantId}-${workflowInfo().runId}` });
    const connected = await records.markProcessorConnected(merchantId);
    // Wallet payments need the checkout domain registered with this account: best effort, in a workflow of its
    // own. Patched so connections recorded before this step existed still replay.
    if (patched('wallet-domain-after-connect')) await startOrSignalWalletDomain(merchantId);
    return connected;
  } catch (err) {
    const failure = describeProcessorFailure(err);
    // Do not leave an endpoint behind that nothing will ever verify; if this fails too, the row keeps its id
    // and a later disconnect or reconnect removes it.
    if (webhookAttempted) await processor.unregisterProcessorWebhook(merchantId).catch(() => undefined);
    await records.markProcessorConnectionFailed(merchantId, failure.message);
    throw toProcessorFailure(err);
  }
}

/** Disconnects the merchant's processor: our webhook endpoint is removed there, then the connection is forgotten. */
export async function disconnectProcessorWorkflow({ merchantId }: ProcessorConnectionInput): Promise<ProcessorDisconnectResult> {
  try {
    const { unregistered } = await processor.unregisterProcessorWebhook(merchantId);
    const { deleted } = await records.deleteProcessorConnection(merchantId);
    return { deleted, webhookUnregistered: unregistered };
  } catch (err) {
    throw toProcessorFailure(err);
  }
}
