// Wallet payments (Apple Pay, Google Pay) as the merchant sees them. On Whop's hosted checkout page, which
// offers wallets with no domain set-up ("Domain verification is only required for embedded checkout", Whop's "Enable
// Apple Pay"; docs/processor.md). So nothing is asked of the merchant: the plan alone decides, and a plan without
// wallets has them switched off on Whop's page (activities/checkout-payment.ts, walletsOffered).
import type { Db } from '../prisma/client.js';
import { featureAvailability, planInForce, planRefusal } from '../domain/plan-features.js';

export type WalletStatusView =
  /** Whop's page offers them (Whop's defaults); `ready` when shoppers' checkouts get them (Demo: previews only). */
  | { status: 'hosted'; ready: boolean; statusMessage: string }
  /**
   * Shoppers pay in Whop's embedded checkout on the merchant's page, which offers Apple Pay only on a domain verified
   * with Whop (its Domains API): not registered by this service yet, so not offered; the hosted page still offers them.
   */
  | { status: 'embedded'; ready: false; statusMessage: string }
  /** The plan lacks them: Whop's page is told not to offer them. */
  | { status: 'not_on_plan'; ready: false; statusMessage: string };

const HOSTED_MESSAGE = "Apple Pay and Google Pay are offered on Whop's checkout page, where shoppers pay: Whop needs no domain set-up for it.";

const EMBEDDED_MESSAGE =
  "Your shoppers pay on your checkout page, in Whop's embedded checkout: Whop offers Apple Pay there only on a checkout domain verified " +
  "with Whop, which this service cannot register yet, so your shoppers are not offered wallets. To offer Apple Pay and Google Pay now, " +
  "choose \"On Whop's payment page\" under Payment page: Whop's own page offers them with no set-up.";

/**
 * What GET /api/merchant/processor shows of wallets for a plan (the subscription row; none: Demo) and where shoppers
 * pay by card (`embedded`: the deployment and the merchant both chose the embedded checkout).
 */
export function walletStatusFor(subscription: { planId: string; status: string } | null, paysEmbedded = false): WalletStatusView {
  const planId = planInForce(subscription);
  const refusal = planRefusal(planId, 'wallets');
  if (refusal) return { status: 'not_on_plan', ready: false, statusMessage: `${refusal.message}. Whop's checkout page does not offer them to your shoppers.` };
  if (paysEmbedded) return { status: 'embedded', ready: false, statusMessage: EMBEDDED_MESSAGE };
  if (featureAvailability(planId, 'wallets') === 'live') return { status: 'hosted', ready: true, statusMessage: HOSTED_MESSAGE };
  return { status: 'hosted', ready: false, statusMessage: `${HOSTED_MESSAGE} On Demo only your previews show them.` };
}

/**
 * The merchant's wallet status; null without a connected processor (no card payments, so no wallets either).
 * `deploymentPaymentPage`: CHECKOUT_PAYMENT_PAGE (hosted sends every shopper to Whop's page, whatever the merchant chose).
 */
export async function walletStatusView(db: Db, merchantId: string, deploymentPaymentPage: 'embedded' | 'hosted'): Promise<WalletStatusView | null> {
  const merchant = await db.merchant.findUnique({
    where: { id: merchantId },
    select: { paymentPage: true, processorConnection: { select: { status: true } }, platformSubscription: { select: { planId: true, status: true } } },
  });
  if (merchant?.processorConnection?.status !== 'CONNECTED') return null;
  return walletStatusFor(merchant.platformSubscription, deploymentPaymentPage === 'embedded' && merchant.paymentPage === 'EMBEDDED');
}
