// Wallet payments (Apple Pay, Google Pay) as the merchant sees them. Where shoppers pay decides what is asked of the
// merchant (docs/processor.md, "Wallets" and "Apple Pay on the embedded checkout"):
// - Whop's hosted page offers wallets with no domain set-up ("Domain verification is only required for embedded
//   checkout", Whop's "Enable Apple Pay"): the plan alone decides.
// - Whop's embedded checkout on our page offers Apple Pay only on a domain whose `apple_pay.state` Whop reports `ready`
//   (Whop's Domains API): Apple Pay is `ready` only then, for the merchant's checkout host as it is now; otherwise the
//   view says what is missing (registering the host, or what Whop's apple_pay issues ask for).
// A plan without wallets has them switched off on Whop's page (activities/checkout/checkout-payment.ts, walletsOffered).
import type { Config } from '../../config/index.js';
import type { Db } from '../../prisma/client.js';
import { featureAvailability, planInForce, planRefusal } from '../../domain/merchant/plan-features.js';
import { normalizeHostname } from '../../domain/hostnames.js';

export interface ApplePayDnsRecord {
  type: string;
  name: string;
  value: string;
}

/** One of Whop's issues for the apple_pay capability: what needs doing, as Whop wrote it. */
export interface ApplePayIssue {
  /** Whop's stable code, e.g. apple_pay_unverified. */
  code: string;
  message: string;
  /** Code Whop says to add to the site, ready to copy; null when none. */
  codeBlock: string | null;
  /** The DNS records Whop asks for. */
  dnsRecords: ApplePayDnsRecord[];
}

export type ApplePayDomainStatus = 'not_registered' | 'pending' | 'ready' | 'action_required' | 'releasing';

/** The checkout host's registration with Whop for Apple Pay (the embedded checkout). */
export interface ApplePayDomainView {
  /** The merchant's checkout host now (its verified custom domain, else its subdomain): what gets registered. */
  hostname: string;
  /**
   * not_registered: never registered, registered for another host or Whop company, or Whop reports no Apple Pay on it
   * (register again); pending / ready / action_required / releasing: Whop's `apple_pay.state` as last answered.
   */
  status: ApplePayDomainStatus;
  /** Whop's issues for Apple Pay on the host (empty when none). */
  issues: ApplePayIssue[];
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
  applePayState: string | null;
  issues: unknown;
  checkedAt: Date;
}

const KNOWN: ReadonlySet<string> = new Set(['pending', 'ready', 'action_required', 'releasing']);

const str = (v: unknown): v is string => typeof v === 'string';

/** The stored issues (JSON as the activity wrote it), keeping only well-formed entries. */
function issuesOf(value: unknown): ApplePayIssue[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((raw: unknown) => {
    const o = raw as Partial<Record<string, unknown>> | null;
    if (!o || !str(o.code) || !str(o.message)) return [];
    const records = Array.isArray(o.dnsRecords) ? o.dnsRecords : [];
    return [{
      code: o.code, message: o.message, codeBlock: str(o.codeBlock) ? o.codeBlock : null,
      dnsRecords: records.flatMap((r: unknown) => {
        const x = r as Partial<Record<string, unknown>> | null;
        return x && str(x.type) && str(x.name) && str(x.value) ? [{ type: x.type, name: x.name, value: x.value }] : [];
      }),
    }];
  });
}

/** The registration as it counts for `hostname` on Whop company `businessId`: a row for another host or company counts for nothing. */
export function applePayDomainView(row: ApplePayRow | null, hostname: string, businessId: string | null): ApplePayDomainView {
  if (!row || row.hostname !== hostname || row.businessId !== businessId) return { hostname, status: 'not_registered', issues: [], checkedAt: null };
  // A state Whop may add later counts as not ready yet (pending): never ready by accident.
  const status: ApplePayDomainStatus = row.applePayState === null ? 'not_registered' : KNOWN.has(row.applePayState) ? (row.applePayState as ApplePayDomainStatus) : 'pending';
  return { hostname, status, issues: issuesOf(row.issues), checkedAt: row.checkedAt.toISOString() };
}

const TO_HOSTED = "Until then, Whop's own payment page offers Apple Pay and Google Pay with no set-up: choose \"On Whop's payment page\" under Payment page.";

/** The wallet view on the embedded payment page: Apple Pay ready only when Whop says so for this host (and the plan has it live). */
export function embeddedWalletStatus(subscription: { planId: string; status: string } | null, domain: ApplePayDomainView): WalletStatusView {
  const hosted = walletStatusFor(subscription);
  if (hosted.status === 'not_on_plan') return hosted;
  const live = hosted.ready;
  const base = `Shoppers pay inside your checkout page (Whop's embedded checkout), which offers Apple Pay only on a domain Whop has registered with Apple: ${domain.hostname}.`;
  const onDemo = live ? '' : ' On Demo only your previews show them.';
  const missing: Record<ApplePayDomainStatus, string> = {
    not_registered: `${base} Register it with Whop. ${TO_HOSTED}`,
    pending: `${base} Whop is registering it with Apple: check again in a moment. ${TO_HOSTED}`,
    action_required: `${base} Apple could not verify it: do what Whop asks below, then check again. ${TO_HOSTED}`,
    releasing: `${base} Whop is removing Apple Pay from it: register it again once that is done. ${TO_HOSTED}`,
    ready: `Apple Pay is registered by Whop for ${domain.hostname}: your checkout page offers it.${onDemo}`,
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
