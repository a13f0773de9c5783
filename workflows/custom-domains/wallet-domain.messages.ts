// Ids, input, result and signals of the wallet domain workflow, which only runs started by earlier code still use
// (workflows/custom-domains/wallet-domain.ts), and the version point that retired it. Deterministic: @temporalio/workflow only.
import { defineSignal } from '@temporalio/workflow';


export interface WalletDomainInput {
  merchantId: string;
}

/** The processor's statuses as we record them, plus ERROR when it could not be asked. */
export type WalletDomainStatus = 'REGISTERED' | 'PENDING' | 'NEEDS_ACTION' | 'ERROR';

export interface WalletDomainResult {
  /** SKIPPED: no connected processor, nothing to register. HOSTED: ended by WALLETS_ON_HOSTED_PAGE, nothing to register. */
  status: WalletDomainStatus | 'SKIPPED' | 'HOSTED';
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

/**
 * The version point where wallet domains stopped being asked of the merchant: shoppers pay on Whop's hosted page, which
 * offers Apple Pay and Google Pay with no domain set-up (docs/processor.md, "Wallets"). Workflows that started or
 * signalled the wallet-domain workflow do so only when replaying a history recorded before it; a wallet-domain run
 * still going ends at its next step.
 */
export const WALLETS_ON_HOSTED_PAGE = 'wallets-on-hosted-page';
