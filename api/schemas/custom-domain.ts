// The custom checkout domain a merchant claims, as the OpenAPI document states it: one regex over the value as
// typed (customDomainPattern) for what domain/hostnames.ts customDomainProblem accepts once the value is trimmed,
// lower-cased and stripped of a trailing dot, with this server's policy. The field checks both: the problem's
// message says what is wrong, the pattern makes the document the exact rule; api/schemas/patterns.test.ts keeps
// the two in agreement.
import { CUSTOM_DOMAIN_PREFIX, UNROUTABLE_TLDS, customDomainProblem, normalizeHostname, type HostnamePolicy } from '../../domain/hostnames.js';
import { caseless, chars, TRIMMED_CLASS } from './text.js';

const W = `[${TRIMMED_CLASS}]*`;
const HOST_CHAR = '[A-Za-z0-9.-]';
const LABEL = '(?!-)[A-Za-z0-9-]{1,63}(?<!-)';
/** The end of the host: an optional trailing dot, then only whitespace. */
const END = `\\.?${W}$`;

/** Every parent domain of `domain`, itself included: pay.example.com → pay.example.com, example.com, com. */
function selfAndParents(domain: string): string[] {
  const labels = normalizeHostname(domain).replace(/^\./, '').split('.').filter(Boolean);
  return labels.map((_, i) => labels.slice(i).join('.'));
}

export function customDomainPattern(policy: HostnamePolicy): RegExp {
  const service = normalizeHostname(policy.serviceDomain).replace(/^\./, '');
  const shops = normalizeHostname(policy.storefrontAShopSuffix).replace(/^\./, '');
  const under = (domain: string) => `(?!(?:[A-Za-z0-9-]+\\.)*${caseless(domain)}${END})`;
  const unroutable = [...UNROUTABLE_TLDS].map(caseless).join('|');
  const tld = `(?!(?:${unroutable})${END})(?:[A-Za-z]{2,63}|[xX][nN]--[A-Za-z0-9-]{1,59})`;
  const guards = [
    // At most 253 characters, the trailing dot not counted.
    `(?!${HOST_CHAR}{253}[A-Za-z0-9-])`,
    ...(service ? [under(service), `(?!${caseless(CUSTOM_DOMAIN_PREFIX)}(?:${selfAndParents(service).map(caseless).join('|')})${END})`] : []),
    ...(shops ? [under(shops)] : []),
  ];
  return new RegExp(`^${W}${guards.join('')}${caseless(CUSTOM_DOMAIN_PREFIX)}(?:${LABEL}\\.)+${tld}${END}`);
}

function build(policy: HostnamePolicy) {
  const pattern = customDomainPattern(policy);
  return chars(300)
    .meta({ pattern: pattern.source })
    .describe(
      'The checkout hostname, exactly checkout.<your domain> (e.g. checkout.example.com): labels of letters, digits and inner hyphens, ' +
        `a real top-level domain, not an IP address, not under ${policy.serviceDomain} or ${policy.storefrontAShopSuffix}; letter case and a trailing dot do not matter`,
    )
    .superRefine((raw, ctx) => {
      const problem = customDomainProblem(normalizeHostname(raw), policy) ?? (pattern.test(raw) ? undefined : 'not a valid checkout hostname');
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .transform(normalizeHostname);
}

const built = new Map<string, ReturnType<typeof build>>();

/** The domain field for this server's policy (built once per policy): answers the normalized hostname. */
export function customDomainInput(policy: HostnamePolicy) {
  const key = `${policy.serviceDomain} ${policy.storefrontAShopSuffix}`;
  if (!built.has(key)) built.set(key, build(policy));
  return built.get(key)!;
}
