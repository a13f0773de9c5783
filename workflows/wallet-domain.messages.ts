// Ids, input, result and signals of the wallet domain workflow, shared with the API and the workflows that
// start it (processor connection, custom domain). Deterministic: @temporalio/workflow only.
import { defineSignal } from '@temporalio/workflow';

export const walletDomainWorkflowId = (merchantId: string) => `wallet-domain-${merchantId}`;

export interface WalletDomainInput {
  merchantId: string;
}

/** The processor's statuses as we record them, plus ERROR when it could not be asked. */
export type WalletDomainStatus = 'REGISTERED' | 'PENDING' | 'NEEDS_ACTION' | 'ERROR';

export interface WalletDomainResult {
  /** SKIPPED: no connected processor, nothing to register. */
  status: WalletDomainStatus | 'SKIPPED';
  domain: string | null;
}

/** What one registration check answered (the activity's result). */
export type WalletDomainSync =
  | { kind: 'skipped'; reason: string }
  | { kind: 'checked'; domain: string; status: Exclude<WalletDomainStatus, 'ERROR'>; statusMessage: string | null };

/** The checkout domain changed (custom domain verified or removed) or the processor was reconnected: check again now. */
export const walletDomainChangedSignal = defineSignal('walletDomainChanged');

/** Re-checks of a domain the processor has not registered yet: 1 minute doubling to hourly, for 72 hours. */
export const WALLET_CHECK_SCHEDULE = { firstDelayMs: 60_000, maxDelayMs: 60 * 60_000, giveUpAfterMs: 72 * 60 * 60_000 } as const;
