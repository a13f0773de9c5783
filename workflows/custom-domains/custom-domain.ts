import { condition, patched, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { CustomDomainActivities } from '../../activities/custom-domains/custom-domain.js';
import { DOMAIN_CHECK_SCHEDULE, nextCheckDelayMs } from '../../domain/hostnames.js';
import { recheckDomainSignal, removeDomainSignal, type CustomDomainInput, type CustomDomainResult } from './custom-domain.messages.js';
import { type DomainCheckOutcome } from '../../activities/custom-domains/custom-domain.js';
import { startOrSignalWalletDomain } from './wallet-domain.js';
import { WALLETS_ON_HOSTED_PAGE } from './wallet-domain.messages.js';
import { PROFILES } from '../activity-profiles.js';

// One DNS look: a few quick attempts (a resolver hiccup), then it counts as a failed check and the schedule goes on.
const dns = proxyActivities<CustomDomainActivities>(PROFILES.dnsLook);
/** "Check now" clicks closer together than this wait for it: one DNS look, not one per click. */
const MIN_RECHECK_MS = 3_000;
// Our own database: retried longer, it is what the merchant sees.
const records = proxyActivities<CustomDomainActivities>(PROFILES.customDomainRecord);

async function checkOnce(domainId: string): Promise<DomainCheckOutcome> {
  try {
    return await dns.checkCustomDomainDns(domainId);
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
    return { kind: 'lookup_failed', problem: `DNS lookup failed: ${cause instanceof Error ? cause.message : String(cause)}` };
  }
}

/**
 * Proves the merchant controls checkout.<domain>: looks for the CNAME (or TXT token) now, then after 1 minute
 * doubling to hourly, for 72 hours; stops when verified, deleted or expired.
 */
export async function verifyCustomDomainWorkflow({ merchantId, domainId }: CustomDomainInput): Promise<CustomDomainResult> {
  let recheck = false;
  let removed = false;
  setHandler(recheckDomainSignal, () => {
    recheck = true;
  });
  setHandler(removeDomainSignal, () => {
    removed = true;
  });
  const deadline = Date.now() + DOMAIN_CHECK_SCHEDULE.giveUpAfterMs;
  let checks = 0;

  for (;;) {
    if (removed) return { status: 'DELETED', checks };
    recheck = false;
    const outcome = await checkOnce(domainId);
    checks++;
    const { recorded } = await records.recordCustomDomainCheck({ domainId, outcome });
    if (!recorded) return { status: 'DELETED', checks };
    if (outcome.kind === 'verified') {
      // Whop's hosted page offers wallets on its own domain; runs recorded before that was known told the
      // wallet-domain workflow here and replay doing so.
      if (!patched(WALLETS_ON_HOSTED_PAGE)) await startOrSignalWalletDomain(merchantId);
      return { status: 'VERIFIED', checks };
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      // Records were there but wrong: FAILED tells the merchant to fix them; nothing at all: EXPIRED.
      const status = outcome.kind === 'not_yet' && outcome.misconfigured ? 'FAILED' : 'EXPIRED';
      await records.finishCustomDomainVerification({ domainId, status });
      return { status, checks };
    }
    const checkedAt = Date.now();
    const asked = await condition(() => recheck || removed, Math.min(nextCheckDelayMs(checks), left));
    if (asked && !removed && Date.now() - checkedAt < MIN_RECHECK_MS) await sleep(MIN_RECHECK_MS - (Date.now() - checkedAt));
  }
}
