// Discount codes and the checkout's totals, in minor units of the checkout currency (house style 7).
// A merchant sets a code in EUR (fixed amounts, minimum subtotals) or in percent; a checkout converts with
// its own FX snapshot, so the amount a shopper was told is the amount charged, in the API, the workflow's
// activities and the browser alike. Pure: the callers count uses and pass them in.
//
// Market practice, and ours: a discount comes off the merchandise (cart items + accepted order bumps),
// never off shipping, and never below zero; shipping is added after it.
import type { ErrorCode } from '../errors.js';
import { add, compare, convertFromEur, MoneyError, percentOf, subtract, zero, type FxRates, type Money } from '../money.js';

export type DiscountType = 'percentage' | 'fixed_amount';

/** A discount as the merchant defines it; a DiscountCode row fits once its type is lower-cased. */
export interface DiscountRule {
  code: string;
  type: DiscountType;
  /** percentage: 1-100; fixed_amount: EUR cents. */
  value: number;
  /** Merchandise subtotals below this (EUR cents, converted like the amount) cannot use the code. */
  minSubtotalCents: number | null;
  /** null: unlimited. */
  usageLimit: number | null;
  oncePerEmail: boolean;
  expiresAt: Date | null;
  active: boolean;
}

/** Why a code does not apply, in the order they are checked. */
export type DiscountRejection = 'unknown' | 'expired' | 'used_up' | 'minimum_not_met' | 'already_used';

/** The API's error code per reason (domain/errors.ts): the checkout page tells the shopper which it is. */
export const DISCOUNT_ERRORS: Readonly<Record<DiscountRejection, ErrorCode>> = {
  unknown: 'DISCOUNT_UNKNOWN',
  expired: 'DISCOUNT_EXPIRED',
  used_up: 'DISCOUNT_USED_UP',
  minimum_not_met: 'DISCOUNT_MINIMUM_NOT_MET',
  already_used: 'DISCOUNT_ALREADY_USED',
};

export const DISCOUNT_MESSAGES: Readonly<Record<DiscountRejection, string>> = {
  unknown: 'This discount code is not valid',
  expired: 'This discount code has expired',
  used_up: 'This discount code has been used up',
  minimum_not_met: 'Your order does not reach the minimum for this discount code',
  already_used: 'This discount code has already been used with this email address',
};

/** Letters, digits, '-' and '_', 3-40 characters: what shoppers can type and merchants print. */
export const DISCOUNT_CODE_PATTERN = /^[A-Z0-9][A-Z0-9_-]{2,39}$/;

/** Codes are case-insensitive: ' summer10 ' is SUMMER10. */
export function normalizeDiscountCode(raw: string): string {
  return raw.trim().toUpperCase();
}

export interface DiscountContext {
  /** The cart items plus accepted order bumps, in the checkout currency. */
  merchandise: Money;
  /** The session's stored EUR-based rates. */
  fxRates: FxRates;
  now: Date;
  /** Uses that count against the limit: completed checkouts plus other checkouts paying with it right now. */
  uses: number;
  /** The same, by the shopper's email (only asked for once-per-email codes); 0 when the email is not known yet. */
  usesByEmail: number;
}

export type DiscountCheck =
  | { ok: true; amount: Money }
  | { ok: false; reason: DiscountRejection; code: ErrorCode; message: string; minimum?: Money };

/** The EUR cents a merchant entered, checked before they meet a conversion. */
function eurCents(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new MoneyError(`Discount ${what} must be whole, non-negative EUR cents, got ${value}`);
  return value;
}

/**
 * What `rule` takes off `merchandise`: a percentage rounded half-up to minor units, or the fixed EUR amount
 * converted with the session's rates; either capped at the merchandise, so a total never goes negative.
 */
export function discountAmount(rule: Pick<DiscountRule, 'type' | 'value'>, merchandise: Money, fxRates: FxRates): Money {
  if (merchandise.amount < 0) throw new MoneyError('A merchandise subtotal cannot be negative');
  let amount: Money;
  if (rule.type === 'percentage') {
    if (!Number.isSafeInteger(rule.value) || rule.value < 1 || rule.value > 100) throw new MoneyError(`A percentage discount is 1-100, got ${rule.value}`);
    amount = percentOf(merchandise, rule.value * 100);
  } else {
    amount = convertFromEur(eurCents(rule.value, 'amount'), merchandise.currency, fxRates);
  }
  return compare(amount, merchandise) > 0 ? merchandise : amount;
}

/** The code's minimum subtotal in the checkout currency, converted exactly like the amount. */
export function minimumSubtotal(rule: Pick<DiscountRule, 'minSubtotalCents'>, currency: string, fxRates: FxRates): Money | undefined {
  return rule.minSubtotalCents === null ? undefined : convertFromEur(eurCents(rule.minSubtotalCents, 'minimum'), currency, fxRates);
}

const reject = (reason: DiscountRejection, minimum?: Money): DiscountCheck => ({
  ok: false,
  reason,
  code: DISCOUNT_ERRORS[reason],
  message: DISCOUNT_MESSAGES[reason],
  ...(minimum ? { minimum } : {}),
});

/**
 * Whether `rule` (undefined: no such code) applies to this checkout, and what it takes off. Inactive codes
 * read as unknown (a paused code tells the shopper nothing more); reaching the minimum exactly is enough.
 */
export function checkDiscount(rule: DiscountRule | undefined, context: DiscountContext): DiscountCheck {
  if (!rule?.active) return reject('unknown');
  if (rule.expiresAt && context.now.getTime() >= rule.expiresAt.getTime()) return reject('expired');
  if (rule.usageLimit !== null && context.uses >= rule.usageLimit) return reject('used_up');
  const minimum = minimumSubtotal(rule, context.merchandise.currency, context.fxRates);
  if (minimum && compare(context.merchandise, minimum) < 0) return reject('minimum_not_met', minimum);
  if (rule.oncePerEmail && context.usesByEmail > 0) return reject('already_used');
  return { ok: true, amount: discountAmount(rule, context.merchandise, context.fxRates) };
}

export interface CheckoutTotals {
  /** Cart items + accepted order bumps. */
  merchandise: Money;
  discount: Money;
  shipping: Money;
  /** merchandise − discount + shipping: what is charged, as one amount. */
  total: Money;
}

/** The one total of a checkout. The discount is capped at the merchandise (it never touches shipping). */
export function checkoutTotals(parts: { items: Money; bumps: Money; shipping?: Money; discount?: Money }): CheckoutTotals {
  const merchandise = add(parts.items, parts.bumps);
  const none = zero(merchandise.currency);
  const shipping = parts.shipping ?? none;
  const asked = parts.discount ?? none;
  if (asked.amount < 0 || shipping.amount < 0 || merchandise.amount < 0) throw new MoneyError('Checkout amounts cannot be negative');
  const discount = compare(asked, merchandise) > 0 ? merchandise : asked;
  return { merchandise, discount, shipping, total: add(subtract(merchandise, discount), shipping) };
}
