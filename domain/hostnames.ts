// Custom checkout domains: which hostnames a merchant may claim, the DNS records that prove it, and the
// states of a claim. Pure: shared by the API (validation, answers), the workflow (schedule) and the docs.
//
// A merchant claims exactly `checkout.<domain>`. Proof is either record:
//   CNAME checkout.<domain>          → {slug}.{service_domain}   (required normally: it also routes the traffic)
//   TXT   _checkout-verify.<domain>  = <token>                   (alternative when the DNS host cannot publish that
//                                                                 CNAME as-is, e.g. a proxying/flattening host)

export const CUSTOM_DOMAIN_PREFIX = 'checkout.';
export const TXT_RECORD_PREFIX = '_checkout-verify.';

export const CUSTOM_DOMAIN_STATUSES = ['PENDING', 'VERIFIED', 'FAILED', 'EXPIRED'] as const;
export type CustomDomainStatus = (typeof CUSTOM_DOMAIN_STATUSES)[number];

/** How verification re-checks: first after 1 minute, doubling up to hourly, for 72 hours from its start. */
export const DOMAIN_CHECK_SCHEDULE = { firstDelayMs: 60_000, maxDelayMs: 60 * 60_000, giveUpAfterMs: 72 * 60 * 60_000 } as const;

/** Top-level names that never reach the public internet: a checkout cannot live there. */
export const UNROUTABLE_TLDS = new Set(['localhost', 'local', 'internal', 'invalid', 'arpa', 'onion', 'home', 'lan', 'intranet', 'corp']);
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const TLD = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/** Lower-case, trimmed, without the trailing dot of a fully-qualified name. */
export function normalizeHostname(input: string): string {
  return input.trim().toLowerCase().replace(/\.$/, '');
}

export interface HostnamePolicy {
  /** Our own domain: {slug}.{serviceDomain} and anything under it are ours, not a merchant's. */
  serviceDomain: string;
  /** Storefront A shop host suffix (".myshopify.com"): those hosts belong to the platform. */
  storefrontAShopSuffix: string;
}

function isUnder(host: string, domain: string): boolean {
  const d = normalizeHostname(domain).replace(/^\./, '');
  return d !== '' && (host === d || host.endsWith(`.${d}`));
}

/** Why `hostname` (normalized) cannot be claimed as a custom checkout domain, or undefined when it can. */
export function customDomainProblem(hostname: string, policy: HostnamePolicy): string | undefined {
  const host = hostname;
  if (host.length === 0) return 'a domain is required';
  if (host.includes(':') || host.includes('/') || host.includes('@')) return 'give the hostname only, without scheme, port or path (e.g. checkout.example.com)';
  if (host.length > 253) return 'a hostname has at most 253 characters';
  if (/[^\x00-\x7f]/.test(host)) return 'use the ASCII (punycode, xn--…) form of an internationalized domain';
  if (/^[0-9.]+$/.test(host)) return 'an IP address cannot be a checkout domain';
  if (!host.startsWith(CUSTOM_DOMAIN_PREFIX)) return `the checkout domain must have the form checkout.<your domain> (e.g. checkout.example.com)`;
  const labels = host.split('.');
  if (!labels.every((l) => LABEL.test(l))) return 'not a valid hostname: labels have 1–63 letters, digits or hyphens, not starting or ending with a hyphen';
  if (labels.length < 3) return 'the checkout domain must have the form checkout.<your domain> (e.g. checkout.example.com)';
  const tld = labels[labels.length - 1]!;
  if (!TLD.test(tld)) return `".${tld}" is not a top-level domain`;
  if (UNROUTABLE_TLDS.has(tld)) return `".${tld}" names are not reachable from the internet`;
  if (isUnder(host, policy.serviceDomain) || isUnder(policy.serviceDomain, apexOf(host))) return 'this domain belongs to the checkout service itself';
  if (isUnder(host, policy.storefrontAShopSuffix)) return 'store platform hosts cannot be used as a checkout domain';
  return undefined;
}

/** checkout.<domain> → <domain>. */
export function apexOf(hostname: string): string {
  return hostname.startsWith(CUSTOM_DOMAIN_PREFIX) ? hostname.slice(CUSTOM_DOMAIN_PREFIX.length) : hostname;
}

export interface DnsRecordInstruction {
  type: 'CNAME' | 'TXT';
  name: string;
  value: string;
  /** true: create it; false: the alternative, for DNS hosts that cannot publish the required record. */
  required: boolean;
  purpose: string;
}

/** The records a merchant is told to create for `hostname`, with their current slug. */
export function dnsRecordsFor(hostname: string, expected: { slug: string; serviceDomain: string; token: string }): DnsRecordInstruction[] {
  return [
    {
      type: 'CNAME',
      name: hostname,
      value: `${expected.slug}.${normalizeHostname(expected.serviceDomain)}`,
      required: true,
      purpose: 'Sends your checkout traffic to us and proves you control the domain',
    },
    {
      type: 'TXT',
      name: `${TXT_RECORD_PREFIX}${apexOf(hostname)}`,
      value: expected.token,
      required: false,
      purpose: 'Alternative proof of control when your DNS host cannot publish the CNAME as-is (proxied or flattened CNAMEs); traffic must then still reach us',
    },
  ];
}

/** What one DNS check found, and whether it proves the claim. */
export interface DnsFindings {
  /** Targets of the CNAME at checkout.<domain>. */
  cnames: string[];
  /** TXT values at _checkout-verify.<domain>. */
  txts: string[];
}

export type DnsVerdict = { verifiedBy: 'cname' | 'txt'; problem: null } | { verifiedBy: null; problem: string; misconfigured: boolean };

/** Verified by the CNAME to the merchant's own subdomain, or by the TXT token; otherwise what was seen instead. */
export function judgeDnsFindings(hostname: string, findings: DnsFindings, expected: { slug: string; serviceDomain: string; token: string }): DnsVerdict {
  const [cname, txt] = dnsRecordsFor(hostname, expected);
  const target = cname!.value;
  const cnames = findings.cnames.map(normalizeHostname);
  if (cnames.includes(target)) return { verifiedBy: 'cname', problem: null };
  if (findings.txts.some((v) => v.trim() === expected.token)) return { verifiedBy: 'txt', problem: null };
  const seen: string[] = [];
  if (cnames.length) seen.push(`the CNAME of ${hostname} points to ${cnames.join(', ')}, not ${target}`);
  else seen.push(`${hostname} has no CNAME record yet`);
  if (findings.txts.length) seen.push(`the TXT record ${txt!.name} does not hold the verification token`);
  return { verifiedBy: null, problem: seen.join('; '), misconfigured: cnames.length > 0 || findings.txts.length > 0 };
}

/** The wait before the check after `checksDone` checks: 1 min, 2, 4, … capped at 1 hour. */
export function nextCheckDelayMs(checksDone: number): number {
  const { firstDelayMs, maxDelayMs } = DOMAIN_CHECK_SCHEDULE;
  return Math.min(maxDelayMs, firstDelayMs * 2 ** Math.max(0, Math.min(checksDone - 1, 20)));
}
