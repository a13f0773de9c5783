// A checkout's price, computed one way for the page's discount check (validate-discount, a read) and for
// the amount charged (init-payment and complete-cod, through recordShopperDetails): cart items as read from
// the store, the order bumps the shopper ticked (priced from the merchant's records, never the browser),
// the chosen shipping rate and a discount code, all in the session's currency with its FX snapshot.
//
// Discount uses count once: a checkout that starts paying with a code reserves one use (a row per
// (discount, session) with redeemedAt null, written under a lock on the code, so two shoppers racing for the
// last use cannot both get it); the use is counted when the session becomes COMPLETED or COD_CONFIRMED
// (redeemDiscount, from recordSessionStatus). A reservation stops counting when its session is abandoned.
import type { Db, Prisma } from '../../prisma/client.js';
import { AppError } from '../../domain/errors.js';
import { OPEN_STATUSES } from '../../domain/checkout/checkout-status.js';
import { checkDiscount, checkoutTotals, normalizeDiscountCode, type CheckoutTotals, type DiscountRule } from '../../domain/checkout/discounts.js';
import { convertFromEur, money, multiply, percentOf, subtract, sum, type FxRates, type Money } from '../../domain/money.js';
import { destinationProblem, quoteShippingRates, selectRate, type ShippingQuote } from '../../domain/shipping.js';
import { sessionFxRates, sessionLines, type BumpLine } from './checkout-session.js';
import { rateInputOf, storeCountriesOf, type ShippingRateRow } from '../merchant/shipping-rates.js';

type Tx = Db | Prisma.TransactionClient;


/** What pricing needs of a session (a CheckoutSession row fits). */
export interface PricedSession {
  token: string;
  merchantId: string;
  currency: string;
  fxRates: Prisma.JsonValue;
  items: Prisma.JsonValue;
}

export interface PricingInput {
  shippingRateId?: string;
  discountCode?: string;
  orderBumpIds?: readonly string[];
  /** Lower-cased; needed for once-per-email codes (without it, validate-discount cannot tell yet). */
  email?: string;
  /** The shipping address's country: the chosen rate must ship there (shipping zones); absent, not checked (validate-discount). */
  country?: string;
}

export interface PricedCheckout {
  currency: string;
  items: Money;
  bumps: BumpLine[];
  shipping?: ShippingQuote;
  discount?: { id: string; code: string; type: DiscountRule['type']; amount: Money };
  totals: CheckoutTotals;
}

const invalid = (field: string, why: string) => new AppError('INVALID_INPUT', `${field}: ${why}`, { fields: { [`body.${field}`]: why } });

/** The merchant's active bumps among `ids`, as lines; an id that is not one of them is refused. */
async function bumpLines(tx: Tx, session: PricedSession, ids: readonly string[], fxRates: FxRates): Promise<BumpLine[]> {
  if (ids.length === 0) return [];
  const unique = [...new Set(ids)];
  const rows = await tx.orderBump.findMany({ where: { merchantId: session.merchantId, id: { in: unique }, active: true }, orderBy: [{ position: 'asc' }, { id: 'asc' }] });
  const missing = unique.find((id) => !rows.some((r) => r.id === id));
  if (missing) throw invalid('orderBumpIds', `no order bump "${missing}" is offered at this checkout`);
  return rows.map((r) => ({
    bumpId: r.id,
    productId: r.productId,
    variantId: r.variantId,
    title: r.title,
    variantTitle: null,
    quantity: 1,
    unitPrice: convertFromEur(r.priceCents, session.currency, fxRates).amount,
    imageUrl: r.imageUrl,
  }));
}

/** Uses that count against a code's limits, leaving out `token`'s own reservation (a retried payment keeps its code). */
async function countUses(tx: Tx, discountId: string, token: string, email: string | undefined): Promise<{ uses: number; byEmail: number }> {
  const [row] = await tx.$queryRaw<Array<{ uses: number; byEmail: number }>>`
    SELECT count(*)::int AS uses, count(*) FILTER (WHERE r.email = ${email ?? ''})::int AS "byEmail"
    FROM discount_redemptions r LEFT JOIN checkout_sessions s ON s.token = r.session_token
    WHERE r.discount_id = ${discountId}::uuid AND r.session_token <> ${token}
      AND (r.redeemed_at IS NOT NULL OR s.status = ANY(${[...OPEN_STATUSES]}::text[]))`;
  return row ?? { uses: 0, byEmail: 0 };
}

/**
 * The price of `session` with `input`. Refusals are AppErrors with the API's codes: INVALID_INPUT for an
 * unknown rate or bump, or a destination the rates do not ship to (on address.country or shippingRateId),
 * DISCOUNT_* per reason. With `lock`, the code's row is locked (FOR UPDATE) before its uses are counted: call it
 * inside a transaction that then reserves the use (reserveDiscount).
 */
export async function priceCheckout(
  tx: Tx,
  session: PricedSession,
  shippingRates: readonly ShippingRateRow[],
  input: PricingInput,
  opts: { now?: Date; lock?: boolean } = {},
): Promise<PricedCheckout> {
  const { currency } = session;
  const fxRates = sessionFxRates(session.fxRates);
  const items = sum(sessionLines(session.items).map((l) => multiply(money(l.unitPrice, currency), l.quantity)), currency);
  const bumps = await bumpLines(tx, session, input.orderBumpIds ?? [], fxRates);
  const bumpsTotal = sum(bumps.map((b) => money(b.unitPrice, currency)), currency);
  const merchandise = checkoutTotals({ items, bumps: bumpsTotal }).merchandise;

  let shipping: ShippingQuote | undefined;
  if (input.shippingRateId !== undefined) {
    // Where rates follow the store, they ship where the store does: read only when a destination is to be checked.
    const storeCountries = input.country === undefined
      ? null
      : storeCountriesOf(await tx.merchant.findUniqueOrThrow({ where: { id: session.merchantId }, select: { storeCountries: true, storeCountriesReadAt: true } }));
    // Free-shipping thresholds look at the merchandise before the discount: ticking a bump can earn free shipping.
    const quotes = quoteShippingRates(shippingRates.map(rateInputOf), { currency, subtotal: merchandise, fxRates });
    shipping = selectRate(quotes, input.shippingRateId);
    if (!shipping) throw invalid('shippingRateId', `no shipping rate "${input.shippingRateId}" for this checkout`);
    const problem = input.country === undefined ? undefined : destinationProblem(quotes, storeCountries, input.country, input.shippingRateId);
    if (problem) throw invalid(problem.field, problem.message);
  }

  let discount: PricedCheckout['discount'];
  if (input.discountCode !== undefined) {
    const code = normalizeDiscountCode(input.discountCode);
    const row = await tx.discountCode.findUnique({ where: { merchantId_code: { merchantId: session.merchantId, code } } });
    if (row && opts.lock) await tx.$queryRaw`SELECT id FROM discount_codes WHERE id = ${row.id}::uuid FOR UPDATE`;
    const rule: DiscountRule | undefined = row ? { ...row, type: row.type === 'PERCENTAGE' ? 'percentage' : 'fixed_amount' } : undefined;
    const needsCount = !!row && (row.usageLimit !== null || row.oncePerEmail);
    const { uses, byEmail } = needsCount ? await countUses(tx, row.id, session.token, input.email) : { uses: 0, byEmail: 0 };
    const check = checkDiscount(rule, { merchandise, fxRates, now: opts.now ?? new Date(), uses, usesByEmail: byEmail });
    if (!check.ok) throw new AppError(check.code, check.message, { reason: check.reason, ...(check.minimum ? { minimumSubtotal: check.minimum } : {}) });
    discount = { id: row!.id, code, type: rule!.type, amount: check.amount };
  }

  return { currency, items, bumps, shipping, discount, totals: checkoutTotals({ items, bumps: bumpsTotal, shipping: shipping?.price, discount: discount?.amount }) };
}

/**
 * Holds one use of the priced discount for `token` (replacing a reservation of another code the shopper
 * entered before), or releases the session's reservation when no code applies any more.
 */
export async function reserveDiscount(tx: Prisma.TransactionClient, token: string, priced: PricedCheckout, email: string): Promise<void> {
  const keep = priced.discount?.id;
  await tx.discountRedemption.deleteMany({ where: { sessionToken: token, redeemedAt: null, ...(keep ? { discountId: { not: keep } } : {}) } });
  if (!priced.discount) return;
  const values = { email, amountMinor: priced.discount.amount.amount, currency: priced.currency };
  await tx.discountRedemption.upsert({
    where: { discountId_sessionToken: { discountId: priced.discount.id, sessionToken: token } },
    create: { discountId: priced.discount.id, sessionToken: token, ...values },
    update: values,
  });
}

/**
 * Counts the session's discount once: its reservation becomes a redemption (or one is written, for a session
 * that reserved none). Idempotent: the row is unique per (discount, session), so a retry or a duplicate
 * completion changes nothing. A code the merchant deleted meanwhile is not counted (there is nothing to count against).
 */
export async function redeemDiscount(db: Db, token: string): Promise<void> {
  await db.$executeRaw`
    INSERT INTO discount_redemptions (id, discount_id, session_token, email, amount_minor, currency, redeemed_at)
    SELECT gen_random_uuid(), d.id, s.token, lower(coalesce(s.email, '')), s.discount_minor, s.currency, now()
    FROM checkout_sessions s JOIN discount_codes d ON d.id = s.discount_id
    WHERE s.token = ${token}
    ON CONFLICT (discount_id, session_token) DO UPDATE SET redeemed_at = now()
      WHERE discount_redemptions.redeemed_at IS NULL`;
}

/**
 * An upsell offer in the session's currency (with its FX snapshot): the regular price and the offer price after
 * its discount. The one rule for what the page shows and what a one-click acceptance charges.
 */
export function upsellPrices(upsell: { priceCents: number; discountPercent: number }, currency: string, fx: FxRates): { price: Money; offerPrice: Money } {
  const price = convertFromEur(upsell.priceCents, currency, fx);
  return { price, offerPrice: subtract(price, percentOf(price, upsell.discountPercent * 100)) };
}
