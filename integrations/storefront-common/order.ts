// The one order shape the service hands to either store client: what the shopper bought at the prices
// and currency the checkout charged, how it ships, who pays how, and the checkout session it came from.
// Each client translates it to its platform's order API and answers the neutral StoreOrder.
import { z } from 'zod';
import { IntegrationError } from '../errors.js';
import { isCurrencyCode } from './money.js';

const minor = z.number().int().nonnegative();
const numericId = z.string().regex(/^\d+$/, 'must be a numeric id');

export const orderAddressSchema = z.object({
  firstName: z.string().min(1),
  lastName: z.string().min(1),
  line1: z.string().min(1),
  line2: z.string().optional(),
  city: z.string().min(1),
  postalCode: z.string().min(1),
  region: z.string().optional(),
  /** ISO 3166-1 alpha-2. */
  countryCode: z.string().regex(/^[A-Z]{2}$/),
  phone: z.string().optional(),
});

export const orderLineSchema = z.object({
  title: z.string().min(1),
  variantTitle: z.string().optional(),
  quantity: z.number().int().min(1),
  unitPriceMinor: minor,
  /** The store's own ids, when the line is a store product (storefront B requires productId). */
  productId: numericId.optional(),
  variantId: numericId.optional(),
  sku: z.string().optional(),
});

export const storeOrderInputSchema = z
  .object({
    /** The checkout session the order comes from; stored on the order so it can be found again. */
    sessionToken: z.string().min(1),
    currency: z.string().refine(isCurrencyCode, 'must be an ISO 4217 currency code'),
    email: z.email(),
    shippingAddress: orderAddressSchema,
    /** Defaults to the shipping address. */
    billingAddress: orderAddressSchema.optional(),
    lines: z.array(orderLineSchema).min(1),
    shipping: z.object({ title: z.string().min(1), priceMinor: minor, code: z.string().optional() }),
    discount: z.object({ code: z.string().min(1), amountMinor: minor }).optional(),
    /**
     * What the shopper was charged. taxMinor: the store's tax as it quoted it before payment (Shopify's
     * draftOrderCalculate, WooCommerce's rates), inside the prices when taxesIncluded, else added to the total.
     */
    totals: z.object({ subtotalMinor: minor, shippingMinor: minor, discountMinor: minor, taxMinor: minor.default(0), taxesIncluded: z.boolean().default(false), totalMinor: minor }),
    /** card: already paid through the processor (reference = its payment id); cod: paid on delivery; free: nothing to pay (total 0). */
    payment: z.object({ method: z.enum(['card', 'cod', 'free']), reference: z.string().optional() }),
  })
  .superRefine((o, ctx) => {
    // The totals travel with the order so a store never books a different amount than was charged.
    const subtotal = o.lines.reduce((sum, l) => sum + l.unitPriceMinor * l.quantity, 0);
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: ['totals', path], message });
    if (o.totals.subtotalMinor !== subtotal) issue('subtotalMinor', `is ${o.totals.subtotalMinor}, lines add up to ${subtotal}`);
    if (o.totals.shippingMinor !== o.shipping.priceMinor) issue('shippingMinor', 'differs from the shipping line');
    if (o.totals.discountMinor !== (o.discount?.amountMinor ?? 0)) issue('discountMinor', 'differs from the discount');
    const total = subtotal + o.totals.shippingMinor - o.totals.discountMinor + (o.totals.taxesIncluded ? 0 : o.totals.taxMinor);
    // Prices that include tax: the store takes the tax out of each line and adds it back, to its rounding (a unit per
    // line and one for shipping at most, as WooCommerce's own checkout does).
    const slack = o.totals.taxesIncluded && o.totals.taxMinor > 0 ? o.lines.length + 1 : 0;
    if (Math.abs(o.totals.totalMinor - total) > slack) issue('totalMinor', `is ${o.totals.totalMinor}, expected ${total}`);
    // An order marked as needing no payment must have nothing to pay: never a paid order for money not taken.
    if (o.payment.method === 'free' && o.totals.totalMinor !== 0) issue('totalMinor', `is ${o.totals.totalMinor}: a free order's total is 0`);
  });

export type StoreOrderInput = z.input<typeof storeOrderInputSchema>;
export type OrderAddress = z.infer<typeof orderAddressSchema>;

/** An order as either store reports it. */
export interface StoreOrder {
  id: string;
  /** The number the merchant and shopper see ("#1001", "57"). */
  number: string;
  /** The platform's own status words (e.g. financial status "pending", order status "on-hold"). */
  status: string;
  paid: boolean;
  currency: string;
  totalMinor: number;
  sessionToken: string | null;
  createdAt: string;
}

/** Validates an order input before anything is sent: a malformed order is a permanent 'rejected'. */
export function parseOrderInput(system: string, input: StoreOrderInput): z.output<typeof storeOrderInputSchema> {
  const parsed = storeOrderInputSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  throw new IntegrationError(system, 'rejected', `${system}: invalid order input (${detail})`);
}

/** Where the session token is stored on a store order (a meta entry / note attribute of this name). */
export const SESSION_TOKEN_KEY = 'checkout_session_token';

/** A refund to make on a store order: its money, and which lines come back (and whether into stock). */
export interface StoreRefundInput {
  /** Our refund's id: the store call's idempotency key, and the mark that finds the refund again on the store. */
  refundId: string;
  amountMinor: number;
  currency: string;
  reason: string | null;
  /** Lines given back, by their index in the order we created (its lines keep our order), and how many. */
  lines: Array<{ line: number; quantity: number }>;
  /** Put the given-back lines back in stock. */
  restock: boolean;
}

/** A refund as the store made it, and what the store now says of the order. */
export interface StoreRefund {
  id: string;
  amountMinor: number;
  /** The order's state on the store after the refund, in the platform's words ("partially_refunded", "refunded"). */
  orderStatus: string;
  /** False when the refund was found already made (a retry after a lost answer). */
  created: boolean;
}

/** The note/reason mark of a refund the service made, so a store webhook about it is known for ours. */
export const refundMark = (refundId: string) => `[hosted-checkout refund ${refundId}]`;
export const REFUND_MARK = /\[hosted-checkout refund ([0-9a-f-]{36})\]/;
