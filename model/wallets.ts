// Wallet payments (Apple Pay, Google Pay) as the merchant sees them: shoppers pay on Whop's hosted checkout page, which
// offers wallets with no domain set-up ("Domain verification is only required for embedded checkout", Whop's "Enable
// Apple Pay"; docs/processor.md). So nothing is asked of the merchant: the plan alone decides, and a plan without
// wallets has them switched off on Whop's page (activities/checkout-payment.ts, walletsOffered).
import type { Db } from '../prisma/client.js';
import { featureAvailability, planInForce, planRefusal } from '../domain/plan-features.js';

export type WalletStatusView =
  /** Whop's page offers them (Whop's defaults); `ready` when shoppers' checkouts get them (Demo: previews only). */
  | { status: 'hosted'; ready: boolean; statusMessage: string }
  /** The plan lacks them: Whop's page is told not to offer them. */
  | { status: 'not_on_plan'; ready: false; statusMessage: string };

const HOSTED_MESSAGE = "Apple Pay and Google Pay are offered on Whop's checkout page, where shoppers pay: Whop needs no domain set-up for it.";

/** What GET /api/merchant/processor shows of wallets for a plan (the subscription row; none: Demo). */
export function walletStatusFor(subscription: { planId: string; status: string } | null): WalletStatusView {
  const planId = planInForce(subscription);
  const refusal = planRefusal(planId, 'wallets');
  if (refusal) return { status: 'not_on_plan', ready: false, statusMessage: `${refusal.message}. Whop's checkout page does not offer them to your shoppers.` };
  if (featureAvailability(planId, 'wallets') === 'live') return { status: 'hosted', ready: true, statusMessage: HOSTED_MESSAGE };
  return { status: 'hosted', ready: false, statusMessage: `${HOSTED_MESSAGE} On Demo only your previews show them.` };
}

/** The merchant's wallet status; null without a connected processor (no card payments, so no wallets either). */
export async function walletStatusView(db: Db, merchantId: string): Promise<WalletStatusView | null> {
  const merchant = await db.merchant.findUnique({
    where: { id: merchantId },
    select: { processorConnection: { select: { status: true } }, platformSubscription: { select: { planId: true, status: true } } },
  });
  if (merchant?.processorConnection?.status !== 'CONNECTED') return null;
  return walletStatusFor(merchant.platformSubscription);
}
