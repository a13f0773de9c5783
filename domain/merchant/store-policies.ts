// The store's own policy pages (refund, privacy, terms, shipping, …) that the checkout page links to in its footer, as
// shoppers expect at the foot of a checkout. Read from the store (storefront A: Shop.shopPolicies; storefront B: our
// plugin's policies route) with the store's titles, kept on the merchant (merchants.store_policies) and sent with the
// session bundle. One shape for all three; what comes from a store is checked here before it is kept or shown.
import { z } from 'zod';

/** Our names for the kinds of policy, in the order the page lists them (Shopify's checkout footer's order). */
export const STORE_POLICY_KINDS = ['refund', 'shipping', 'privacy', 'terms', 'terms_of_sale', 'subscription', 'legal_notice', 'contact'] as const;
export type StorePolicyKind = (typeof STORE_POLICY_KINDS)[number];

/** Longest title kept: a page title is a link's words, not its text. Longer ones are cut (with an ellipsis). */
export const STORE_POLICY_TITLE_MAX = 80;
/** Longest address kept (a policy page's permalink; anything longer is not a page address we link to). */
export const STORE_POLICY_URL_MAX = 2048;

/** A policy as kept and shown: its kind, the store's title for it (trimmed, capped), and its public http(s) address. */
export const storePolicySchema = z.object({
  kind: z.enum(STORE_POLICY_KINDS),
  title: z
    .string()
    .transform((s) => s.replace(/\s+/g, ' ').trim())
    .pipe(z.string().min(1, 'no title'))
    .transform((s) => (s.length > STORE_POLICY_TITLE_MAX ? `${s.slice(0, STORE_POLICY_TITLE_MAX - 1).trimEnd()}…` : s)),
  url: z
    .string()
    .trim()
    .max(STORE_POLICY_URL_MAX, 'address too long')
    .transform((s, ctx) => {
      // Only a web page: no javascript:, data: or mailto: link ever reaches the shopper's page. Written as URL parses
      // it (spaces and quotes escaped), which is also how the browser would follow it.
      const url = URL.canParse(s) ? new URL(s) : null;
      if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || !url.hostname || url.username || url.password) {
        ctx.addIssue({ code: 'custom', message: 'not an http(s) address' });
        return z.NEVER;
      }
      return url.href;
    }),
});
export type StorePolicy = z.output<typeof storePolicySchema>;

/** What a store read gives before checking: the kind in our names and what the store said. */
export interface StorePolicyInput {
  kind: StorePolicyKind;
  title: unknown;
  url: unknown;
}

/**
 * The policies to keep from what the store answered: each checked on its own (one bad page does not hide the others),
 * one per kind (the first), in the page's order. `left` says what was left out and why, for the merchant.
 */
export function storePoliciesOf(inputs: readonly StorePolicyInput[]): { policies: StorePolicy[]; left: string[] } {
  const byKind = new Map<StorePolicyKind, StorePolicy>();
  const left: string[] = [];
  for (const input of inputs) {
    const parsed = storePolicySchema.safeParse(input);
    if (!parsed.success) {
      left.push(`${input.kind} (${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')})`);
      continue;
    }
    if (!byKind.has(parsed.data.kind)) byKind.set(parsed.data.kind, parsed.data);
  }
  const policies = STORE_POLICY_KINDS.flatMap((k) => (byKind.has(k) ? [byKind.get(k)!] : []));
  return { policies, left };
}

/** Policies as stored (merchants.store_policies, JSONB): what passes the schema now, anything else dropped. */
export function storedStorePolicies(value: unknown): StorePolicy[] {
  if (!Array.isArray(value)) return [];
  return storePoliciesOf(value.filter((v): v is StorePolicyInput => typeof v === 'object' && v !== null && 'kind' in v && (STORE_POLICY_KINDS as readonly unknown[]).includes((v as { kind: unknown }).kind))).policies;
}
