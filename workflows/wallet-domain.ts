import { condition, getExternalWorkflowHandle, proxyActivities, setHandler, startChild } from '@temporalio/workflow';
import type { WalletDomainActivities } from '../activities/wallet-domain.js';
import {
  WALLET_CHECK_SCHEDULE,
  walletDomainChangedSignal,
  walletDomainWorkflowId,
  type WalletDomainInput,
  type WalletDomainResult,
  type WalletDomainSync,
} from './wallet-domain.messages.js';

// The processor: a few attempts a round; the next round comes anyway.
const processor = proxyActivities<WalletDomainActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 4 },
});
const records = proxyActivities<WalletDomainActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});
// Emails: a few attempts over about an hour, never a flood.
const emails = proxyActivities<WalletDomainActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 3, maximumInterval: '20 minutes', maximumAttempts: 6 },
});

const messageOf = (err: unknown) => (err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err));

/**
 * Registers the merchant's checkout domain for wallet payments with its processor, best effort: re-checks a
 * pending or needs-action domain with backoff for 72 hours, emails the merchant once per domain that needs
 * their action, and starts over when the checkout domain changes. A checkout never waits for it.
 */
export async function walletDomainWorkflow({ merchantId }: WalletDomainInput): Promise<WalletDomainResult> {
  let changed = false;
  setHandler(walletDomainChangedSignal, () => {
    changed = true;
  });
  const notified = new Set<string>();
  let deadline = Date.now() + WALLET_CHECK_SCHEDULE.giveUpAfterMs;
  let round = 0;
  let last: WalletDomainResult = { status: 'ERROR', domain: null };

  for (;;) {
    if (changed) {
      changed = false;
      round = 0;
      deadline = Date.now() + WALLET_CHECK_SCHEDULE.giveUpAfterMs;
    }
    round++;
    let sync: WalletDomainSync | undefined;
    try {
      sync = await processor.syncWalletDomain(merchantId);
    } catch (err) {
      last = { status: 'ERROR', domain: last.domain };
      await records.recordWalletDomainError({ merchantId, message: messageOf(err) }).catch(() => undefined);
    }
    if (sync?.kind === 'skipped') {
      if (!changed) return { status: 'SKIPPED', domain: null };
      continue;
    }
    if (sync) {
      last = { status: sync.status, domain: sync.domain };
      if (sync.status === 'NEEDS_ACTION' && !notified.has(sync.domain)) {
        try {
          await emails.sendWalletDomainActionEmail({ merchantId, domain: sync.domain });
          notified.add(sync.domain);
        } catch {
          // Recorded in email_messages with its error; the next round sends it (still once).
        }
      }
      if (sync.status === 'REGISTERED' && !changed) return last;
    }
    const left = deadline - Date.now();
    if (changed) continue;
    if (left <= 0) return last;
    const wait = Math.min(WALLET_CHECK_SCHEDULE.maxDelayMs, WALLET_CHECK_SCHEDULE.firstDelayMs * 2 ** Math.min(round - 1, 20));
    await condition(() => changed, Math.min(wait, left));
  }
}

/**
 * Starts the merchant's wallet domain workflow (it outlives the caller), or tells the running one to check
 * again. Best effort: the caller's own outcome never depends on it.
 */
export async function startOrSignalWalletDomain(merchantId: string): Promise<void> {
  const workflowId = walletDomainWorkflowId(merchantId);
  try {
    await startChild(walletDomainWorkflow, {
      workflowId,
      args: [{ merchantId }],
      parentClosePolicy: 'ABANDON',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      // A child otherwise inherits its parent's execution time-out (the processor connection's few minutes).
      workflowExecutionTimeout: '365 days',
    });
  } catch {
    // Already running (or could not start): a running one re-checks on this signal.
    await getExternalWorkflowHandle(workflowId)
      .signal(walletDomainChangedSignal)
      .catch(() => undefined);
  }
}
