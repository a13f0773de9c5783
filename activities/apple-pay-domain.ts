// Apple Pay on the embedded checkout: the merchant's checkout host as a domain on its Whop company with the
// `apple_pay` capability (Whop's Domains API; docs/processor.md, "Apple Pay on the embedded checkout"). The host is
// never one a client sent: it is the merchant's own checkout host now (its verified custom domain, else its
// subdomain). What Whop answers is stored as it stands (apple_pay_domains), read by the wallet view (model/wallets.ts).
import type { Config } from '../config/index.js';
import type { Db } from '../prisma/client.js';
import type { SecretBox } from '../security/secrets.js';
import { AppError } from '../domain/errors.js';
import { isIntegrationError } from '../integrations/errors.js';
import type { CheckoutDomain } from '../integrations/processor/index.js';
import { processorClientFor } from '../model/connections.js';
import { checkoutHostnameOf } from '../model/wallets.js';
import type { ApplePayDomainResult } from '../workflows/apple-pay-domain.messages.js';
import { classifyFailures } from './failures.js';

export interface ApplePayDomainActivityDeps {
  db: Db;
  secrets: SecretBox;
  config: Config;
  /** Per-call time-out of the processor client (default 10 s); tests shorten it. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export function createApplePayDomainActivities(deps: ApplePayDomainActivityDeps) {
  const { db, config } = deps;
  return classifyFailures({
    /** Claims the host (or finds the claim), adds Apple Pay (or checks it again), and stores Whop's answer. */
    async syncApplePayDomain(merchantId: string): Promise<ApplePayDomainResult> {
      const merchant = await db.merchant.findUnique({ where: { id: merchantId }, select: { id: true, slug: true } });
      if (!merchant) throw new AppError('NOT_FOUND', 'Merchant not found');
      const { client, businessId } = await processorClientFor(deps, merchantId);
      const hostname = await checkoutHostnameOf(db, config, merchant);
      const row = await db.applePayDomain.findUnique({ where: { merchantId } });

      let domain: CheckoutDomain | null = null;
      if (row && row.hostname === hostname && row.businessId === businessId) {
        domain = await client.getDomain(row.domainId).catch((err: unknown) => {
          if (isIntegrationError(err) && err.kind === 'not_found') return null;
          throw err;
        });
        if (domain?.verification === 'expired') domain = null;
      }
      domain ??= await client.findDomain({ companyId: businessId, hostname });
      // The key names the host and the day: a retry replays the same claim; an expired claim (48 hours) is made anew.
      domain ??= await client.createDomain({ companyId: businessId, hostname }, `apple-pay-domain-${merchantId}-${hostname}-${new Date().toISOString().slice(0, 10)}`);
      domain = domain.applePay && domain.applePay.status !== 'releasing' ? await client.checkApplePay(domain.id) : await client.addApplePay(domain.id, `apple-pay-add-${domain.id}`);

      const data = {
        businessId, hostname, domainId: domain.id, verification: domain.verification, applePayStatus: domain.applePay?.status ?? null,
        issue: domain.applePay?.issue ?? null, records: domain.records.map((r) => ({ type: r.type, name: r.name, value: r.value })), checkedAt: new Date(),
      };
      await db.applePayDomain.upsert({ where: { merchantId }, create: { merchantId, ...data }, update: data });
      return { hostname, domainId: domain.id, applePayStatus: data.applePayStatus };
    },
  });
}

export type ApplePayDomainActivities = ReturnType<typeof createApplePayDomainActivities>;
