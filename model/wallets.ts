// Wallet payments (Apple Pay, Google Pay) as the merchant sees them. Where shoppers pay decides what is asked of the
// merchant (docs/processor.md, "Wallets" and "Apple Pay on the embedded checkout"):
// - Whop's hosted page offers wallets with no domain set-up ("Domain verification is only required for embedded
//   checkout", Whop's "Enable Apple Pay"): the plan alone decides.
// - Whop's embedded checkout on our page offers Apple Pay only on a domain whose `apple_pay` capability Whop reports
//   ready: Apple Pay is `ready` only then, for the merchant's checkout host as it is now; otherwise the view says what
//   is missing (the DNS records Whop asks for, or registering the host at all).
// A plan without wallets has them switched off on Whop's page (activities/checkout-payment.ts, walletsOffered).
import type { Config } from '../config/index.js';
import type { Db } from '../prisma/client.js';
import { featureAvailability, planInForce, planRefusal } from '../domain/plan-features.js';
import { normalizeHostname } from '../domain/hostnames.js';

export interface ApplePayDnsRecord {
  type: string;
  name: string;
  value: string;
}

/** The checkout host's registration with Whop for Apple Pay (the embedded checkout). */
export interface ApplePayDomainView {
  /** The merchant's checkout host now (its verified custom domain, else its subdomain): what gets registered. */
  hostname: string;
  /**
   * not_registered: never registered, or registered for another host or Whop company (register again);
   * pending / ready / action_required / releasing: the capability's status as Whop last reported it; expired: the claim
   * lapsed (48 hours unverified): register again.
   */
  status: 'not_registered' | 'pending' | 'ready' | 'action_required' | 'releasing' | 'expired';
  /** Whop's claim on the host: pending, verified or expired; null before registering. */
  verification: string | null;
  /** The DNS records Whop asks for on the host (ownership), as Whop returned them. */
  records: ApplePayDnsRecord[];
  /** Whop's explanation when Apple Pay is not ready, as Whop wrote it. */
  issue: string | null;
  checkedAt: string | null;
}

export type WalletStatusView =
  /** Whop's page offers them (Whop's defaults); `ready` when shoppers' checkouts get them (Demo: previews only). */
  | { status: 'hosted'; ready: boolean; statusMessage: string; applePayDomain: null }
  /** Shoppers pay in Whop's embed on our page: Apple Pay needs the checkout host verified with Whop. */
  | { status: 'embedded'; ready: boolean; statusMessage: string; applePayDomain: ApplePayDomainView }
  /** The plan lacks them: Whop's page is told not to offer them. */
  | { status: 'not_on_plan'; ready: false; statusMessage: string; applePayDomain: null };

const HOSTED_MESSAGE = "Apple Pay and Google Pay are offered on Whop's checkout page, where shoppers pay: Whop needs no domain set-up for it.";

/** What GET /api/merchant/processor shows of wallets for a plan on Whop's hosted page (the subscription row; none: Demo). */
export function walletStatusFor(subscription: { planId: string; status: string } | null): WalletStatusView {
  const planId = planInForce(subscription);
  const refusal = planRefusal(planId, 'wallets');
  if (refusal) return { status: 'not_on_plan', ready: false, statusMessage: `${refusal.message}. Whop's checkout page does not offer them to your shoppers.`, applePayDomain: null };
  if (featureAvailability(planId, 'wallets') === 'live') return { status: 'hosted', ready: true, statusMessage: HOSTED_MESSAGE, applePayDomain: null };
  return { status: 'hosted', ready: false, statusMessage: `${HOSTED_MESSAGE} On Demo only your previews show them.`, applePayDomain: null };
}

interface ApplePayRow {
  businessId: string;
  hostname: string;
  verification: string | null;
  applePayStatus: string | null;
  issue: string | null;
  records: unknown;
  checkedAt: Date;
}

const KNOWN = new Set(['pending', 'ready', 'action_required', 'releasing']);

function recordsOf(value: unknown): ApplePayDnsRecord[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((r: unknown) => {
    const o = r as Partial<Record<string, unknown>> | null;
    return o && typeof o.type === 'string' && typeof o.name === 'string' && typeof o.value === 'string' ? [{ type: o.type, name: o.name, value: o.value }] : [];
  });
}

/** The registration as it counts for `hostname` on Whop company `businessId`: a row for another host or company counts for nothing. */
export function applePayDomainView(row: ApplePayRow | null, hostname: string, businessId: string | null): ApplePayDomainView {
  if (!row || row.hostname !== hostname || row.businessId !== businessId) {
    return { hostname, status: 'not_registered', verification: null, records: [], issue: null, checkedAt: null };
  }
  const status: ApplePayDomainView['status'] = row.verification === 'expired' ? 'expired' : row.applePayStatus && KNOWN.has(row.applePayStatus) ? (row.applePayStatus as ApplePayDomainView['status']) : row.applePayStatus ? 'pending' : 'not_registered';
  return { hostname, status, verification: row.verification, records: recordsOf(row.records), issue: row.issue, checkedAt: row.checkedAt.toISOString() };
}

/** The wallet view on the embedded payment page: Apple Pay ready only when Whop says so for this host (and the plan has it live). */
export function embeddedWalletStatus(subscription: { planId: string; status: string } | null, domain: ApplePayDomainView): WalletStatusView {
  const hosted = walletStatusFor(subscription);
  if (hosted.status === 'not_on_plan') return hosted;
  const live = hosted.ready;
  const base = `Shoppers pay inside your checkout page (Whop's embedded checkout), which offers Apple Pay only on a domain verified with Whop: ${domain.hostname}.`;
  const onDemo = live ? '' : ' On Demo only your previews show them.';
  const missing: Record<ApplePayDomainView['status'], string> = {
    not_registered: `${base} Register it to get the DNS records to create.`,
    expired: `${base} Whop's claim lapsed before the DNS records were found: register it again.`,
    pending: `${base} Create the DNS records below at your DNS provider, then check again.`,
    action_required: `${base} Apple could not verify it${domain.issue ? `: ${domain.issue}` : ''}. Fix it, then check again.`,
    releasing: `${base} Whop is removing Apple Pay from it: register it again.`,
    ready: `Apple Pay is verified by Whop for ${domain.hostname}: your checkout page offers it.${onDemo}`,
  };
  return { status: 'embedded', ready: live && domain.status === 'ready', statusMessage: missing[domain.status], applePayDomain: domain };
}

/** The merchant's checkout host now: its verified custom domain, else {slug}.{service domain} (never a client-given name). */
export async function checkoutHostnameOf(db: Db, config: Pick<Config, 'serviceDomain'>, merchant: { id: string; slug: string }): Promise<string> {
  const custom = await db.customDomain.findUnique({ where: { merchantId: merchant.id }, select: { hostname: true, status: true } });
  return custom?.status === 'VERIFIED' ? custom.hostname : normalizeHostname(`${merchant.slug}.${config.serviceDomain}`);
}

/** The merchant's wallet status; null without a connected processor (no card payments, so no wallets either). */
export async function walletStatusView(db: Db, config: Pick<Config, 'serviceDomain' | 'processor'>, merchantId: string): Promise<WalletStatusView | null> {
  const merchant = await db.merchant.findUnique({
    where: { id: merchantId },
    select: {
      id: true, slug: true, paymentPage: true, applePayDomain: true,
      processorConnection: { select: { status: true, businessId: true } }, platformSubscription: { select: { planId: true, status: true } },
    },
  });
  if (merchant?.processorConnection?.status !== 'CONNECTED') return null;
  // The same rule as the checkout page's (api/routes/pages): the deployment's setting and the merchant's choice.
  const embedded = config.processor.paymentPage === 'embedded' && merchant.paymentPage === 'EMBEDDED';
  if (!embedded) return walletStatusFor(merchant.platformSubscription);
  const hostname = await checkoutHostnameOf(db, config, merchant);
  return embeddedWalletStatus(merchant.platformSubscription, applePayDomainView(merchant.applePayDomain, hostname, merchant.processorConnection.businessId));
}
