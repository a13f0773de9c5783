// Custom domain verification: one DNS look at the records the merchant was told to create, and the writes
// of what it found. The workflow (workflows/custom-domains/custom-domain.ts) decides when to look and when to give up;
// only these activities touch the DNS and the custom_domains row. Every write is conditional on the row
// still being the same PENDING claim, so a deleted or replaced domain is never brought back.
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../../config/index.js';
import type { Db } from '../../prisma/client.js';
import { createDnsClient, type DnsClient } from '../../integrations/dns/index.js';
import { TXT_RECORD_PREFIX, judgeDnsFindings } from '../../domain/hostnames.js';
import { classifyFailures } from '../failures.js';

/** What one check found (the activity's answer). */
export type DomainCheckOutcome =
  | { kind: 'gone' }
  | { kind: 'verified'; verifiedBy: 'cname' | 'txt' }
  | { kind: 'not_yet'; problem: string; misconfigured: boolean }
  | { kind: 'lookup_failed'; problem: string };

export interface CustomDomainActivityDeps {
  db: Db;
  config: Config;
  /** A resolver to use instead of config DNS_SERVERS (tests). */
  dns?: DnsClient;
}

export function createCustomDomainActivities(deps: CustomDomainActivityDeps) {
  const { db, config } = deps;
  let resolver = deps.dns;
  // Built on first use: a worker without DNS_SERVERS still runs everything else.
  const dns = (): DnsClient => {
    if (!resolver) {
      if (!config.dns.servers.length) throw ApplicationFailure.nonRetryable('DNS_SERVERS is not configured: custom domains cannot be verified', 'NOT_READY');
      resolver = createDnsClient({ servers: config.dns.servers });
    }
    return resolver;
  };

  return classifyFailures({
    /** Looks up the CNAME of checkout.<domain> and the TXT of _checkout-verify.<domain>, and judges them. */
    async checkCustomDomainDns(domainId: string): Promise<DomainCheckOutcome> {
      const row = await db.customDomain.findUnique({ where: { id: domainId }, include: { merchant: { select: { slug: true } } } });
      if (!row || row.status !== 'PENDING') return { kind: 'gone' };
      const [cnames, txts] = await Promise.all([dns().resolveCname(row.hostname), dns().resolveTxt(`${TXT_RECORD_PREFIX}${row.apex}`)]);
      const verdict = judgeDnsFindings(row.hostname, { cnames, txts }, { slug: row.merchant.slug, serviceDomain: config.serviceDomain, token: row.verificationToken });
      return verdict.verifiedBy
        ? { kind: 'verified', verifiedBy: verdict.verifiedBy }
        : { kind: 'not_yet', problem: verdict.problem, misconfigured: verdict.misconfigured };
    },

    /** Records one check; answers false when the claim is no longer this pending row (deleted, replaced). */
    async recordCustomDomainCheck(input: { domainId: string; outcome: DomainCheckOutcome }): Promise<{ recorded: boolean }> {
      const { outcome } = input;
      if (outcome.kind === 'gone') return { recorded: false };
      const now = new Date();
      const { count } = await db.customDomain.updateMany({
        where: { id: input.domainId, status: 'PENDING' },
        data:
          outcome.kind === 'verified'
            ? { checks: { increment: 1 }, lastCheckedAt: now, lastError: null, status: 'VERIFIED', verifiedBy: outcome.verifiedBy, verifiedAt: now }
            : { checks: { increment: 1 }, lastCheckedAt: now, lastError: outcome.problem.slice(0, 500) },
      });
      return { recorded: count > 0 };
    },

    /** The verification gave up: EXPIRED (nothing seen) or FAILED (records seen, but wrong). */
    async finishCustomDomainVerification(input: { domainId: string; status: 'EXPIRED' | 'FAILED' }): Promise<{ recorded: boolean }> {
      const { count } = await db.customDomain.updateMany({ where: { id: input.domainId, status: 'PENDING' }, data: { status: input.status } });
      return { recorded: count > 0 };
    },
  });
}

export type CustomDomainActivities = ReturnType<typeof createCustomDomainActivities>;
