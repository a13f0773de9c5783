// The merchant's checkout domain: where its checkouts are served and linked now (the custom domain once verified,
// else its subdomain of the service domain). Read by the API (domain status, wallet readiness) and the wallet-domain
// activities alike.
import type { Config } from '../config/index.js';

/** The host checkouts of this merchant are served at now. */
export function currentCheckoutDomain(config: Pick<Config, 'serviceDomain'>, merchant: { slug: string; customDomain: { hostname: string; status: string } | null }): string {
  return merchant.customDomain?.status === 'VERIFIED' ? merchant.customDomain.hostname : `${merchant.slug}.${config.serviceDomain}`;
}
