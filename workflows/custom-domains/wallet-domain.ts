// Retired: kept so that runs started by earlier code replay and end. Shoppers pay on Whop's hosted page, which offers
// wallets with no domain set-up (docs/processor.md, "Wallets"), so nothing starts this workflow any more, and every
// step an old run would take next is versioned by WALLETS_ON_HOSTED_PAGE: while its recorded history replays,
// patched() answers false and the old steps replay as they were; at the first step beyond it the run ends. Its
// activities are gone from the worker: one still in flight at deploy fails and the run ends at the next step.
import { condition, getExternalWorkflowHandle, patched, proxyActivities, setHandler, startChild } from '@temporalio/workflow';
import { WALLETS_ON_HOSTED_PAGE, WALLET_CHECK_SCHEDULE, walletDomainChangedSignal, type WalletDomainInput, type WalletDomainResult, type WalletDomainSync } from './wallet-domain.messages.js';
import { PROFILES } from '../activity-profiles.js';
import { WORKFLOWS } from '../../domain/temporal/workflow-names.js';

/** The activities runs of the earlier code scheduled (their names and shapes, for replay; none is registered now). */
interface WalletDomainActivities {
  syncWalletDomain(merchantId: string): Promise<WalletDomainSync>;
  recordWalletDomainError(input: { merchantId: string; message: string }): Promise<void>;
  sendWalletDomainActionEmail(input: { merchantId: string; domain: string }): Promise<unknown>;
}

/** Past the recorded history: the hosted page needs no wallet domain, the run ends here. */
const retired = () => patched(WALLETS_ON_HOSTED_PAGE);
const HOSTED: WalletDomainResult = { status: 'HOSTED', domain: null };

// The processor: a few attempts a round; the next round comes anyway.
const processor = proxyActivities<WalletDomainActivities>(PROFILES.walletDomainProcessor);
const records = proxyActivities<WalletDomainActivities>(PROFILES.walletDomainRecord);
// Emails: a few attempts over about an hour, never a flood.
const emails = proxyActivities<WalletDomainActivities>(PROFILES.email);

const messageOf = (err: unknown) => (err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err));

/**
 * Formerly: registered the merchant's checkout domain for wallet payments (re-checks for 72 hours, one email per
 * domain needing the merchant's action). Now it only replays the steps its history recorded and ends (HOSTED) at
 * the next one.
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
    if (retired()) return HOSTED;
    let sync: WalletDomainSync | undefined;
    try {
      sync = await processor.syncWalletDomain(merchantId);
    } catch (err) {
      last = { status: 'ERROR', domain: last.domain };
      if (retired()) return HOSTED;
      await records.recordWalletDomainError({ merchantId, message: messageOf(err) }).catch(() => undefined);
    }
    if (sync?.kind === 'skipped') {
      if (!changed) return { status: 'SKIPPED', domain: null };
      continue;
    }
    if (sync) {
      last = { status: sync.status, domain: sync.domain };
      if (sync.status === 'NEEDS_ACTION' && !notified.has(sync.domain)) {
        if (retired()) return HOSTED;
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
    if (retired()) return HOSTED;
    const wait = Math.min(WALLET_CHECK_SCHEDULE.maxDelayMs, WALLET_CHECK_SCHEDULE.firstDelayMs * 2 ** Math.min(round - 1, 20));
    await condition(() => changed, Math.min(wait, left));
  }
}

/**
 * Starts the merchant's wallet domain workflow (it outlives the caller), or tells the running one to check
 * again. Best effort: the caller's own outcome never depends on it. Called only where a history recorded before
 * WALLETS_ON_HOSTED_PAGE replays (workflows/processor/processor-connection.ts, workflows/custom-domains/custom-domain.ts).
 */
export async function startOrSignalWalletDomain(merchantId: string): Promise<void> {
  const workflowId = WORKFLOWS.walletDomain.id(merchantId);
  try {
    await startChild<typeof walletDomainWorkflow>(WORKFLOWS.walletDomain.type, {
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
