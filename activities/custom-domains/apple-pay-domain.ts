// Apple Pay on the embedded checkout: the merchant's checkout host as a domain on its Whop company with the
// `apple_pay` capability (Whop's Domains API as Whop's Python SDK whop-sdk 2.6.0 has it; docs/processor.md, "Apple
// Pay on the embedded checkout"). The host is never one a client sent: it is the merchant's own checkout host now (its verified custom domain, else its
// subdomain). What Whop answers is stored as it stands (apple_pay_domains), read by the wallet view (model/merchant/wallets.ts).
import type { Config } from '../../config/index.js';
import type { Db } from '../../prisma/client.js';
import type { SecretBox } from '../../security/secrets.js';
import { AppError } from '../../domain/errors.js';
import { isIntegrationError } from '../../integrations/errors.js';
import type { CheckoutDomain } from '../../integrations/processor/index.js';
import { processorClientFor } from '../../model/connections.js';
import { checkoutHostnameOf } from '../../model/merchant/wallets.js';
import { classifyFailures } from '../failures.js';

/** What Whop answered, as stored (apple_pay_domains). */
export interface ApplePayDomainResult {
  hostname: string;
  domainId: string;
  applePayState: string | null;
}

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
    /**
     * Registers the host for Apple Pay, or has Whop check it again, and stores Whop's answer. `requestKey`: one per
     * registration the merchant asked for (the workflow's run), so a retried activity replays the same create.
     */
    async syncApplePayDomain(merchantId: string, requestKey: string): Promise<ApplePayDomainResult> {
      const merchant = await db.merchant.findUnique({ where: { id: merchantId }, select: { id: true, slug: true } });
      if (!merchant) throw new AppError('NOT_FOUND', 'Merchant not found');
      const { client, businessId } = await processorClientFor(deps, merchantId);
      const hostname = await checkoutHostnameOf(db, config, merchant);
      const row = await db.applePayDomain.findUnique({ where: { merchantId } });
      try {
        let domain: CheckoutDomain | null = null;
        if (row && row.hostname === hostname && row.businessId === businessId) domain = await orNull(client.getDomain(row.domainId));
        domain ??= await client.findDomain({ companyId: businessId, hostname });
        if (!domain) {
          // Always with apple_pay: Whop's create without a capability buys the domain (registration).
          domain = await client.createDomain({ companyId: businessId, hostname }, `apple-pay-domain-${requestKey}`);
        } else if (domain.applePay === null || domain.applePay === 'releasing') {
          domain = await client.addApplePay(domain.id);
        } else {
          // "Check again": Whop registers it with Apple again and "returns the domain as saved; retrieve it again to see
          // the result".
          await client.checkDomain(domain.id);
          domain = await client.getDomain(domain.id);
        }
        const data = {
          businessId, hostname, domainId: domain.id, applePayState: domain.applePay,
          issues: domain.issues.filter((i) => i.capability === 'apple_pay').map((i) => ({
            code: i.code, message: i.message, codeBlock: i.codeBlock, dnsRecords: i.dnsRecords.map((r) => ({ type: r.type, name: r.name, value: r.value })),
          })),
          checkedAt: new Date(),
        };
        await db.applePayDomain.upsert({ where: { merchantId }, create: { merchantId, ...data }, update: data });
        return { hostname, domainId: domain.id, applePayState: domain.applePay };
      } catch (err) {
        // Whop's docs: without domain:read and domain:manage, "listing, adding, checking, and updating domains return 403".
        if (isIntegrationError(err, 'unauthorized') && err.status === 403) {
          throw new AppError('INVALID_PROCESSOR_KEY', "Whop refused: the processor API key lacks the domain:read and domain:manage permissions. Add both to the key in Whop's dashboard (Developer → API keys), then register again");
        }
        throw err;
      }
    },
  });
}

/** Whop's domain, or null when it is gone (deleted on Whop's side). */
async function orNull(answer: Promise<CheckoutDomain>): Promise<CheckoutDomain | null> {
  try {
    return await answer;
  } catch (err) {
    if (isIntegrationError(err, 'not_found')) return null;
    throw err;
  }
}

export type ApplePayDomainActivities = ReturnType<typeof createApplePayDomainActivities>;
