// The merchant's orders and checkout statistics (read side): query parameters, list items, the order with
// its timeline, stats and funnel. One source for validation, serialization and the OpenAPI document; money
// is integer minor units with its currency.
import { PAYMENT_METHODS } from '../../domain/checkout/payment-method.js';
import { z } from 'zod';
import { CHECKOUT_STATUSES } from '../../domain/checkout/checkout-status.js';
import { HOLD_REASONS } from '../../domain/checkout/processor-events.js';
import { FUNNEL_STEPS, ORDER_VIEW_NAMES, ORDER_VIEWS } from '../../domain/stats.js';
import { checkoutStatus, shippingAddress, storeOrder } from './checkout.js';
import { caseless, text, TRIMMED_CLASS } from './text.js';
import { pageQuery } from './pagination.js';

/** Statistics cover at most this many days per request (a year and a day: a whole year in any time zone). */
export const STATS_MAX_DAYS = 366;
const DAY_MS = 24 * 60 * 60 * 1000;

// ---------------------------------------------------------------------------------------------------
// Shared parameters.

/** An instant: a date (00:00 UTC of that day) or a date-time with an offset. */
const instant = z
  .union([z.iso.date(), z.iso.datetime({ offset: true })])
  .transform((value) => new Date(value.length === 10 ? `${value}T00:00:00.000Z` : value));

const range = {
  from: instant.optional().describe('Start, inclusive: YYYY-MM-DD (00:00 UTC) or an ISO date-time with offset'),
  to: instant.optional().describe('End, exclusive: YYYY-MM-DD (00:00 UTC) or an ISO date-time with offset'),
};

function checkRange(value: { from?: Date; to?: Date }, ctx: z.RefinementCtx) {
  if (value.from && value.to && value.from >= value.to) ctx.addIssue({ code: 'custom', path: ['to'], message: 'must be after from' });
}

// ---------------------------------------------------------------------------------------------------
// GET /api/checkout/merchant/orders

/** A status in any letter case with whitespace around it, or a blank entry (ignored); entries separated by commas. */
const STATUS_ENTRY = `[${TRIMMED_CLASS}]*(?:${CHECKOUT_STATUSES.map(caseless).join('|')})?[${TRIMMED_CLASS}]*`;
const STATUS_VALUE = `^${STATUS_ENTRY}(?:,${STATUS_ENTRY})*$`;
/** …and at least one status in it. */
const NAMES_A_STATUS = `(?:${CHECKOUT_STATUSES.map(caseless).join('|')})`;

const statusList = z
  .union([z.string().meta({ allOf: [{ pattern: STATUS_VALUE }, { pattern: NAMES_A_STATUS }] }), z.array(z.string().meta({ pattern: STATUS_VALUE })).meta({ contains: { pattern: NAMES_A_STATUS } })])
  .transform((value, ctx) => {
    const wanted = [...new Set((Array.isArray(value) ? value : [value]).flatMap((v) => v.split(',')).map((v) => v.trim().toUpperCase()).filter(Boolean))];
    const unknown = wanted.filter((v) => !(CHECKOUT_STATUSES as readonly string[]).includes(v));
    if (unknown.length || wanted.length === 0) {
      ctx.addIssue({ code: 'custom', message: `unknown status ${unknown.join(', ') || '(empty)'}: use ${CHECKOUT_STATUSES.join(', ')}` });
      return z.NEVER;
    }
    return wanted as Array<(typeof CHECKOUT_STATUSES)[number]>;
  })
  .describe(`One or several of ${CHECKOUT_STATUSES.join(', ')} (any letter case): repeat the parameter or separate with commas`);

/** The list's filters: the same for the list and its CSV export (GET /api/checkout/merchant/orders/export.csv). */
const orderFilters = {
    view: z
      .enum(ORDER_VIEW_NAMES)
      .optional()
      .describe(
        `orders: paid orders (${ORDER_VIEWS.orders.join(', ')}); checkouts: payments started and never paid (${ORDER_VIEWS.checkouts.join(', ')}); ` +
          'absent: both. Combines with status (a status outside the view matches nothing)',
      ),
    status: statusList.optional(),
    ...range,
    paymentMethod: z.enum(PAYMENT_METHODS).optional().describe('card (through the processor), cod (cash on delivery) or free (a total of 0, nothing paid)'),
    q: text(254, { required: 'enter the start of an email, an order number or a token' })
      .optional()
      .describe('Search: the start of the shopper\'s email (case-insensitive), of the store\'s order number (with or without its "#") or of the session token'),
};

export const ordersQuery = z
  .object({ ...pageQuery, ...orderFilters })
  .strict()
  .superRefine(checkRange)
  .describe('from must be before to when both are given');

export type OrdersQuery = z.output<typeof ordersQuery>;

/** The export takes the list's filters, without its paging: every matching order, newest first. */
export const ordersExportQuery = z
  .object(orderFilters)
  .strict()
  .superRefine(checkRange)
  .describe('from must be before to when both are given');

export type OrderFilters = z.output<typeof ordersExportQuery>;

export const orderTotals = z.object({
  currency: z.string().length(3),
  subtotalMinor: z.number().int().describe('Items and accepted order bumps'),
  shippingMinor: z.number().int().nullable(),
  discountMinor: z.number().int(),
  totalMinor: z.number().int().nullable().describe('What the shopper pays (charged by card, or owed on delivery)'),
});

export const orderSummary = z
  .object({
    token: z.string(),
    status: checkoutStatus,
    email: z.string().nullable(),
    customerName: z.string().nullable().describe('The name on the shipping address, once the shopper entered it'),
    totals: orderTotals,
    paymentMethod: z.enum(PAYMENT_METHODS).nullable().describe('card, cod, or free (a total of 0: completed without a payment); null before one was chosen'),
    storeOrderId: z.string().nullable().describe('The order on the store, once created'),
    storeOrderError: z.boolean().describe('The store permanently refused the order: the session is paid but has no store order (see the detail)'),
    storeOrder: storeOrder
      .nullable()
      .describe('The order on the store, apart from the status: pending (paid, being created), created or failed; null before payment. Its `number` ("#1001") is the order\'s number everywhere: the store, the emails, the shopper\'s confirmation page'),
    codPaid: z.boolean().describe('COD only: the store reports the order paid'),
    refundedMinor: z
      .number()
      .int()
      .describe('What came back to the shopper so far, in minor units of totals.currency (the processor confirmed it). Above 0 on a COMPLETED order: partially refunded'),
    hold: z
      .object({ reason: z.enum(HOLD_REASONS), message: z.string() })
      .nullable()
      .describe('ON_HOLD: why the paid checkout did not become a store order (refunded or disputed before the order, another amount or currency); null otherwise'),
    createdAt: z.string(),
    paymentStartedAt: z.string().nullable(),
    completedAt: z.string().nullable().describe('When the processor confirmed the payment'),
  })
  .meta({ id: 'OrderSummary' });

export const ordersPage = z
  .object({
    items: z.array(orderSummary).describe('Newest first'),
    nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last page'),
  })
  .meta({ id: 'OrdersPage' });

// ---------------------------------------------------------------------------------------------------
// GET /api/checkout/merchant/orders/:token



export const timelineEntry = z
  .object({
    at: z.string(),
    source: z.enum(['session', 'webhook', 'email']).describe('session: the session\'s own timeline; webhook: a processor delivery; email: an email of this order'),
    type: z
      .string()
      .describe(
        'session: created, contact_entered, shipping_chosen, details_entered, payment_started, status_changed, order_created, order_failed, ' +
          'cod_confirmed, cod_paid, payment_held, refund_requested, refund_succeeded, refund_failed, store_refund_created, store_refund_failed, ' +
          'store_refund_skipped, …; webhook: the processor event name; email: the email kind',
      ),
    summary: z.string().describe('One line for people'),
    data: z.record(z.string(), z.unknown()),
    count: z
      .number()
      .int()
      .min(1)
      .describe('How many identical entries this line stands for: processor deliveries of one event with one outcome (redeliveries) are one line; at is the first, lastAt the last'),
    lastAt: z.string().describe('The last of the entries this line stands for (equal to at when count is 1)'),
  })
  .meta({ id: 'OrderTimelineEntry' });

export const orderLine = z.object({
  title: z.string(),
  variantTitle: z.string().nullable(),
  quantity: z.number().int(),
  unitPrice: z.number().int().describe('Minor units of the session currency'),
  orderBump: z.boolean().describe('An order bump the shopper accepted on the checkout page'),
});

export const orderUpsell = z
  .object({
    upsellId: z.string(),
    title: z.string(),
    amount: z.number().int().describe('Minor units of `currency`: the offer price charged'),
    currency: z.string(),
    status: z.enum(['pending', 'paid', 'failed', 'refunded']).describe("The charge on the shopper's saved payment method"),
    failureReason: z.string().nullable(),
    processorPaymentId: z.string().nullable(),
    storeOrderId: z.string().nullable().describe('The offer\'s own order on the store, once created'),
    storeOrderError: z.string().nullable().describe('Why the store refused the offer\'s order (paid, but no store order)'),
    acceptedAt: z.string(),
    paidAt: z.string().nullable(),
  })
  .meta({ id: 'OrderUpsell' });

export const orderRefund = z
  .object({
    id: z.string(),
    amount: z.number().int().describe('Minor units of `currency`'),
    currency: z.string(),
    reason: z.string().nullable(),
    restock: z.boolean(),
    lines: z.array(z.object({ line: z.number().int(), quantity: z.number().int() })).describe('The order lines given back (index in `items`)'),
    origin: z.enum(['merchant', 'processor', 'store']).describe("merchant: asked here (dashboard or API); processor: made in the processor's dashboard; store: made in the store's admin"),
    state: z.enum(['requested', 'succeeded', 'failed']).describe('At the processor: requested (on its way back), succeeded (the money is back), failed'),
    failureReason: z.string().nullable(),
    processorRefundId: z.string().nullable(),
    store: z.object({
      state: z.enum(['pending', 'created', 'failed', 'none']).describe("On the store order: pending (to be booked once the money is back), created, failed (the store refused: see error), none (no store order to refund)"),
      refundId: z.string().nullable(),
      error: z.string().nullable().describe('Why the store refused it, for the merchant: never hidden'),
    }),
    createdAt: z.string(),
    succeededAt: z.string().nullable(),
  })
  .meta({ id: 'OrderRefund' });

export const orderDetail = orderSummary
  .extend({
    refundableMinor: z.number().int().describe('What can still be refunded: the charge less what came back and what is on its way back'),
    refunds: z.array(orderRefund).describe('Every refund of the order, oldest first: asked here, made at the processor, or made in the store'),
    storeOrderStatus: z.string().nullable().describe("The store's own word on its order after our last change to it (e.g. paid, partially_refunded, refunded; WooCommerce: processing, refunded)"),
    platform: z.enum(['storefront-a', 'storefront-b']),
    items: z.array(orderLine),
    shippingAddress: shippingAddress.nullable(),
    billingAddress: shippingAddress.nullable().describe('The billing address the shopper gave apart from the shipping address (sent to the store as the order\'s billing address); null: billed to the shipping address'),
    shippingName: z.string().nullable(),
    discountCode: z.string().nullable(),
    processorPaymentId: z.string().nullable(),
    storeOrderErrorMessage: z.string().nullable().describe('Why the store refused the order, for the merchant'),
    refundRequestedAt: z.string().nullable(),
    refundedAt: z.string().nullable(),
    upsells: z.array(orderUpsell).describe('Post-purchase offers the shopper accepted, oldest first: each is charged and ordered on its own'),
    timeline: z.array(timelineEntry).describe(
      'Oldest first: session events, the processor webhook deliveries for the session that verified with your webhook secret (with their outcome; ' +
        'repeated ones of one event and outcome as one line with a count), and its emails. Deliveries that verified for no merchant are kept as evidence, never shown',
    ),
  })
  .meta({ id: 'OrderDetail' });

// ---------------------------------------------------------------------------------------------------
// GET /api/merchant/stats, /api/merchant/stats/funnel

export const statsQuery = z
  .object(range)
  .strict()
  .transform((value, ctx) => {
    const to = value.to ?? new Date();
    const from = value.from ?? new Date(to.getTime() - 30 * DAY_MS);
    if (from >= to) ctx.addIssue({ code: 'custom', path: ['from'], message: 'must be before to (default: now)' });
    if (to.getTime() - from.getTime() > STATS_MAX_DAYS * DAY_MS) ctx.addIssue({ code: 'custom', path: ['from'], message: `the range may span at most ${STATS_MAX_DAYS} days` });
    return { from, to };
  });

const period = { from: z.string(), to: z.string() };

export const statsResponse = z
  .object({
    ...period,
    sessions: z.number().int().describe('Checkout sessions created from a store cart in the range (previews never count)'),
    paidOrders: z
      .number()
      .int()
      .describe('Paid means money kept: card checkouts COMPLETED now, partially refunded ones included (an order refunded in full is REFUNDED). paidOrders = the revenue orders, summed over currencies'),
    completedOrders: z.number().int().describe('Card checkouts the processor confirmed that became orders: COMPLETED, or REFUNDED since. Always paidOrders + refundedOrders'),
    refundedOrders: z.number().int().describe('Of the completed orders, those refunded in full since (not paid any more)'),
    partiallyRefundedOrders: z.number().int().describe('Of the paid orders, those with part of the money given back (still paid: the rest is kept)'),
    codOrders: z.number().int().describe('Confirmed cash-on-delivery orders (COD_CONFIRMED): orders, not paid revenue'),
    heldOrders: z
      .number()
      .int()
      .describe('Payments ON_HOLD: the shopper paid, but the processor showed the payment refunded, disputed or of another amount before the order, so there is no store order. Never paid, never revenue; see held'),
    conversionRate: z.number().describe('(completedOrders + codOrders + heldOrders) / sessions, from 0 to 1 (the funnel\'s completed over created); 0 without sessions'),
    revenue: z
      .array(
        z.object({
          currency: z.string().length(3),
          orders: z.number().int().describe('Paid orders in this currency (COMPLETED, partially refunded ones included; refunded in full is not revenue)'),
          amountMinor: z.number().int().describe('Money kept, in minor units: grossMinor − refundedMinor'),
          averageOrderValueMinor: z.number().int().describe('amountMinor / orders, rounded to the nearest minor unit'),
          grossMinor: z.number().int().describe('The totals of these orders, as charged'),
          refundedMinor: z.number().int().describe('Given back of these orders so far (partial refunds the processor confirmed)'),
          partiallyRefundedOrders: z.number().int().describe('Of these orders, those with a partial refund'),
        }),
      )
      .describe('Paid revenue per currency (never summed across currencies): money kept, refunds taken off. COD and held payments are not in it'),
    refunds: z
      .array(
        z.object({
          currency: z.string().length(3),
          orders: z.number().int().describe('Sessions with money given back: paid orders refunded in part, orders refunded in full, held payments refunded in part'),
          amountMinor: z
            .number()
            .int()
            .describe('Everything the processor confirmed given back on them, in minor units: revenue[].refundedMinor + fullyRefundedMinor + held[].refundedMinor of this currency'),
          fullyRefundedOrders: z.number().int().describe('Orders refunded in full (REFUNDED); summed over currencies: refundedOrders'),
          fullyRefundedMinor: z.number().int().describe('What they gave back'),
        }),
      )
      .describe('Refunds per currency, of the range\'s sessions, to reconcile with the processor\'s report; the currencies with any'),
    held: z
      .array(
        z.object({
          currency: z.string().length(3),
          orders: z.number().int().describe('Payments ON_HOLD in this currency'),
          amountMinor: z.number().int().describe('Their checkouts\' totals (the hold message of each says when the processor charged another amount)'),
          refundedMinor: z.number().int().describe('Already given back of them (partial refunds; a held payment refunded in full is REFUNDED)'),
        }),
      )
      .describe('Held payments per currency, apart from revenue: the merchant refunds them or makes the order by hand'),
    cod: z
      .array(
        z.object({
          currency: z.string().length(3),
          orders: z.number().int(),
          amountMinor: z.number().int().describe('Owed on delivery'),
          collectedOrders: z.number().int().describe('Of those, orders the store reports paid'),
          collectedAmountMinor: z.number().int(),
        }),
      )
      .describe('Cash-on-delivery order value per currency, apart from revenue'),
    upsells: z
      .array(
        z.object({
          currency: z.string().length(3),
          accepted: z.number().int().describe('Post-purchase offers accepted and paid (one-click, on the checkout\'s card) on the range\'s sessions'),
          amountMinor: z.number().int().describe('What they were charged, in minor units (apart from revenue, which is the checkouts\' own totals)'),
        }),
      )
      .describe('Paid one-click upsells per currency, by the checkout session\'s creation; refunded ones are not counted'),
    recovery: z
      .object({
        remindedSessions: z.number().int().describe('Left checkouts of the range that got at least one recovery reminder (docs/recovery.md)'),
        remindersSent: z.number().int().describe('Recovery reminders sent to them in all'),
        recoveredOrders: z.number().int().describe('Checkouts paid after a reminder was sent (COMPLETED now, partially refunded ones included), a checkout restored from an abandoned one included'),
        recovered: z
          .array(z.object({ currency: z.string().length(3), orders: z.number().int(), amountMinor: z.number().int().describe('Money kept: totals less refunds, in minor units') }))
          .describe('Recovered orders and amount per currency, never summed across currencies'),
      })
      .describe('Abandoned-checkout recovery: what the reminders brought back. Cash on delivery is not counted (not paid)'),
  })
  .meta({ id: 'CheckoutStats' });

export const funnelResponse = z
  .object({
    ...period,
    steps: z
      .array(
        z.object({
          step: z.enum(FUNNEL_STEPS),
          sessions: z.number().int().describe('Sessions that reached this step or a later one'),
          stepConversion: z.number().nullable().describe('sessions / the previous step\'s sessions; null for the first step or after an empty one'),
          overallConversion: z.number().nullable().describe('sessions / created; null without sessions'),
        }),
      )
      .describe(`In order: ${FUNNEL_STEPS.join(' → ')}`),
  })
  .meta({ id: 'CheckoutFunnel' });

// ---------------------------------------------------------------------------------------------------
// POST /api/checkout/:token/progress

export const progressBody = z
  .object({ step: z.enum(['contact_entered', 'shipping_chosen']).describe('The checkout step the shopper just completed') })
  .strict();

export const progressResponse = z
  .object({ recorded: z.boolean().describe('false: this step was already recorded for the session (nothing changed)') })
  .meta({ id: 'CheckoutProgress' });
