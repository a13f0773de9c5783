// The merchant's payment processor connection, as two business processes: connecting (key checked,
// business found, checkout product created, payment webhook registered) and disconnecting (webhook
// removed at the processor, connection forgotten). The API seals the key into an attempt row
// (processor_connection_attempts) before it starts a connection, so only ids travel through workflow history.
import { log, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ProcessorActivities } from '../../activities/processor/processor-connection.js';
import { describeProcessorFailure, toProcessorFailure, type ProcessorConnectionInput, type ProcessorDisconnectResult } from './processor-connection.messages.js';
import { type ProcessorConnectionResult } from '../../activities/processor/processor-connection.js';
import { startOrSignalWalletDomain } from '../custom-domains/wallet-domain.js';
import { WALLETS_ON_HOSTED_PAGE } from '../custom-domains/wallet-domain.messages.js';
import { PROFILES } from '../activity-profiles.js';

// The merchant waits on the answer: one quick retry of a processor call, then tell them (a rejected key is
// never retried: the activities mark it non-retryable).
const processor = proxyActivities<ProcessorActivities>(PROFILES.merchantWaitsOnRemote);
// Our own database: retried a little longer, it is what keeps the connection's state true.
const records = proxyActivities<ProcessorActivities>(PROFILES.connectionRecord);

/** The version point of connecting through an attempt row (and of disconnect removing attempts' webhooks). */
const CANDIDATE_KEY_PATCH = 'processor-candidate-key';

/**
 * Connects the merchant's processor account so it can take card payments and report them by webhook. The new
 * key is set up on its own (attempt row) while any working connection keeps taking payments; only a complete
 * set-up replaces it, and then the replaced connection's webhook is removed with its own key. A refused key
 * or any other failure leaves the previous connection exactly as it was.
 */
export async function connectProcessorWorkflow(input: ProcessorConnectionInput): Promise<ProcessorConnectionResult> {
  // Versioned: runs started before attempts existed (no attemptId, no marker) replay the in-place set-up below.
  if (input.attemptId === undefined || !patched(CANDIDATE_KEY_PATCH)) return connectInPlace(input.merchantId);
  const key = { merchantId: input.merchantId, attemptId: input.attemptId };
  let webhookAttempted = false;
  let connected: ProcessorConnectionResult;
  try {
    await processor.validateProcessorKey(key);
    await processor.createProcessorProduct(key);
    webhookAttempted = true;
    const { webhookId } = await processor.registerProcessorWebhook({ ...key, idempotencyKey: `webhook-${key.merchantId}-${workflowInfo().runId}` });
    connected = await records.promoteProcessorAttempt({ ...key, webhookId });
  } catch (err) {
    const failure = describeProcessorFailure(err);
    // Do not leave an endpoint behind that nothing will ever verify; if this fails too, the attempt keeps its
    // key and webhook id, and the next successful connect (or a disconnect) removes it.
    if (webhookAttempted) await processor.unregisterProcessorWebhook(key).catch(() => undefined);
    await records.markProcessorAttemptFailed(key, failure.message);
    throw toProcessorFailure(err);
  }
  // The connection is made: removing the replaced webhook is housekeeping, retried by the next connect or disconnect.
  await processor.removeStaleProcessorWebhooks(key.merchantId).catch((err: unknown) => log.warn('stale processor webhooks not removed yet', { error: String(err) }));
  // Whop's hosted page offers wallets with no domain set-up; connections recorded before that was known started the
  // wallet-domain workflow here and replay doing so.
  if (!patched(WALLETS_ON_HOSTED_PAGE)) await startOrSignalWalletDomain(key.merchantId);
  return connected;
}

/** Runs started before attempts existed: the key was set up in processor_connections itself. Kept for replay. */
async function connectInPlace(merchantId: string): Promise<ProcessorConnectionResult> {
  let webhookAttempted = false;
  try {
    await processor.validateProcessorKey(merchantId);
    await processor.createProcessorProduct(merchantId);
    webhookAttempted = true;
    await processor.registerProcessorWebhook({ merchantId, idempotencyKey: `webhook-${merchantId}-${workflowInfo().runId}` });
    const connected = await records.markProcessorConnected(merchantId);
    // Patched both ways so connections recorded before this step existed, and those recorded while it did, still replay.
    if (!patched(WALLETS_ON_HOSTED_PAGE) && patched('wallet-domain-after-connect')) await startOrSignalWalletDomain(merchantId);
    return connected;
  } catch (err) {
    const failure = describeProcessorFailure(err);
    if (webhookAttempted) await processor.unregisterProcessorWebhook(merchantId).catch(() => undefined);
    await records.markProcessorConnectionFailed(merchantId, failure.message);
    throw toProcessorFailure(err);
  }
}

/**
 * Disconnects the merchant's processor: our webhook endpoints are removed there (the connection's, and any
 * an attempt left behind), then the connection and its attempts are forgotten.
 */
export async function disconnectProcessorWorkflow({ merchantId }: ProcessorConnectionInput): Promise<ProcessorDisconnectResult> {
  try {
    if (patched(CANDIDATE_KEY_PATCH)) await processor.removeStaleProcessorWebhooks(merchantId);
    const { unregistered } = await processor.unregisterProcessorWebhook(merchantId);
    const { deleted } = await records.deleteProcessorConnection(merchantId);
    return { deleted, webhookUnregistered: unregistered };
  } catch (err) {
    throw toProcessorFailure(err);
  }
}
