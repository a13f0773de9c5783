// Checkout statistics, pure: which timeline events mark which funnel milestone, and how a merchant's
// sessions (counted per currency and status by one indexed query) become the statistics and the funnel.
// The definitions a merchant sees are here, once:
//
// - A session counts when it was created in the range (a cohort: conversion never exceeds 100 %), from a
//   store cart: previews never count.
// - Paid orders: card checkouts whose money the merchant keeps, in whole or in part — COMPLETED now, partial
//   refunds included (a partial refund keeps the session COMPLETED). "Paid" means money kept, everywhere: an order
//   refunded in full is not paid (it is counted as refunded), a COD order is not paid through us, a held payment
//   (ON_HOLD) is not an order yet.
// - Completed orders: card checkouts the processor confirmed (COMPLETED, and REFUNDED, which was completed
//   first): completedOrders = paidOrders + refundedOrders, always.
// - COD orders: confirmed cash-on-delivery orders (COD_CONFIRMED). They are orders on the store, so they
//   count as conversions, but not as revenue: the money is not paid through us (see domain/checkout/checkout-status.ts).
//   Their value is reported apart, with the part the store reports collected (marked paid).
// - Held payments (ON_HOLD): the shopper paid, but the processor showed the payment refunded, disputed or of
//   another amount before the order (domain/checkout/payment-check.ts), so there is no store order and no revenue; they are
//   counted apart (heldOrders, held[]) for the merchant to act on. The shopper did pay: a held payment is a
//   conversion, and the funnel's last step.
// - Conversion rate: (completed orders + COD orders + held payments) / sessions = the funnel's completed / created.
// - Revenue is money kept: per currency, Σ(total − refunded) of the sessions COMPLETED now; average order value is
//   that over those orders, rounded to the nearest minor unit. grossMinor and refundedMinor are its two parts.
// - Refunds: per currency, everything the processor confirmed given back on the range's sessions (the session's
//   refunded_minor): partial refunds of kept orders (revenue[].refundedMinor), full refunds (REFUNDED) and refunds
//   of held payments (held[].refundedMinor), so the merchant can reconcile with the processor's own report.
// - Funnel: each step counts the sessions that reached it or a later one. Milestones are marked that way
//   (reaching a step marks the earlier ones still unset, with the same instant), so counting each milestone
//   column is enough, and a step is never larger than the one before; a session in a converted status counts
//   at every step, whatever older rows lack.
import { isOrdered, isProcessorPaid, ORDERED_STATUSES, UNPAID_STARTED_STATUSES } from './checkout/checkout-status.js';

export const FUNNEL_STEPS = ['created', 'contact_entered', 'shipping_chosen', 'payment_started', 'completed'] as const;
export type FunnelStep = (typeof FUNNEL_STEPS)[number];

/** The session's milestone columns (checkout_sessions), in funnel order; each keeps the first time it was reached. */
export const MILESTONE_COLUMNS = {
  contactEnteredAt: 'contact_entered_at',
  shippingChosenAt: 'shipping_chosen_at',
  paymentStartedAt: 'payment_started_at',
} as const;
export type Milestone = keyof typeof MILESTONE_COLUMNS;
const MILESTONES = Object.keys(MILESTONE_COLUMNS) as Milestone[];

/** A milestone and every earlier one: reaching a step means having passed the steps before it. */
export const upTo = (m: Milestone): Milestone[] => MILESTONES.slice(0, MILESTONES.indexOf(m) + 1);

/** Checkout steps the page may report before init-payment (POST /api/checkout/:token/progress). */
export const PROGRESS_STEPS = { contact_entered: 'contactEnteredAt', shipping_chosen: 'shippingChosenAt' } as const satisfies Record<string, Milestone>;
export type ProgressStep = keyof typeof PROGRESS_STEPS;

/**
 * The orders list's two views (GET /api/checkout/merchant/orders?view=…), of the sessions that reached payment:
 * - orders: the shopper paid or confirmed cash on delivery, so the store has (or gets) an order — COMPLETED,
 *   COD_CONFIRMED, REFUNDED (paid, then returned) and ON_HOLD (paid, held for the merchant's review: the status
 *   comes with partial refunds; listed here already so a held payment is never shown as an unpaid checkout);
 * - checkouts: a payment started and never paid — PAYMENT_PENDING, FAILED, ABANDONED.
 * OPEN sessions are in neither: they are not orders (the funnel counts them).
 */
export const ORDER_VIEWS = {
  orders: ORDERED_STATUSES,
  checkouts: UNPAID_STARTED_STATUSES,
} as const satisfies Record<string, readonly string[]>;
export type OrderView = keyof typeof ORDER_VIEWS;
export const ORDER_VIEW_NAMES = Object.keys(ORDER_VIEWS) as OrderView[];

/**
 * The milestones a timeline event marks (with the earlier ones). details_entered is init-payment's (and
 * complete-cod's) record of contact and shipping together; the page may report each earlier through the
 * progress endpoint. A confirmed COD order, and a payment confirmed without a recorded start, also mark the
 * payment step.
 */
export function milestonesOfEvent(type: string, data: unknown): Milestone[] {
  switch (type) {
    case 'contact_entered':
      return upTo('contactEnteredAt');
    case 'shipping_chosen':
    case 'details_entered':
      return upTo('shippingChosenAt');
    case 'payment_started':
    case 'cod_confirmed':
      return upTo('paymentStartedAt');
    case 'status_changed': {
      const to = data && typeof data === 'object' ? (data as { to?: unknown }).to : undefined;
      return typeof to === 'string' && isOrdered(to) ? upTo('paymentStartedAt') : [];
    }
    default:
      return [];
  }
}

/** One row of the stats query: the sessions of one (currency, status), with how many have each milestone. */
export interface StatsGroup {
  currency: string;
  status: string;
  sessions: number;
  contactEntered: number;
  shippingChosen: number;
  paymentStarted: number;
  /** COD: how many the store reports paid. */
  codPaid: number;
  /** Sum of the sessions' totals (minor units of `currency`); 0 where no total was computed yet. */
  totalMinor: number;
  /** The part of totalMinor of the sessions with codPaid. */
  codPaidMinor: number;
  /** How many of the sessions have money given back (refunded_minor > 0). */
  withRefunds: number;
  /** Sum of what the processor confirmed given back (refunded_minor), minor units of `currency`. */
  refundedMinor: number;
}

export interface CurrencyRevenue {
  currency: string;
  /** Paid orders (COMPLETED), partially refunded ones included. */
  orders: number;
  /** Money kept: grossMinor − refundedMinor. */
  amountMinor: number;
  /** amountMinor / orders, rounded. */
  averageOrderValueMinor: number;
  /** The totals of those orders, as charged. */
  grossMinor: number;
  /** Given back of those orders (partial refunds). */
  refundedMinor: number;
  /** Of the orders, those with a partial refund. */
  partiallyRefundedOrders: number;
}

export interface CurrencyRefunds {
  currency: string;
  /** Sessions with money given back: partially refunded orders, orders refunded in full, held payments refunded in part. */
  orders: number;
  /** Everything given back: revenue[].refundedMinor + fullyRefundedMinor + held[].refundedMinor of the currency. */
  amountMinor: number;
  /** REFUNDED sessions (their sum over currencies is refundedOrders). */
  fullyRefundedOrders: number;
  fullyRefundedMinor: number;
}

export interface CurrencyHeld {
  currency: string;
  /** ON_HOLD sessions. */
  orders: number;
  /** Their checkouts' totals (what the shopper was to pay; the hold message says when the processor charged another amount). */
  amountMinor: number;
  /** Already given back of those payments (partial refunds; refunded in full, a held payment is REFUNDED). */
  refundedMinor: number;
}

export interface CurrencyCod {
  currency: string;
  orders: number;
  amountMinor: number;
  collectedOrders: number;
  collectedAmountMinor: number;
}

export interface CheckoutStats {
  sessions: number;
  /** COMPLETED: paid by card (or nothing to pay), kept in whole or in part — the orders behind revenue. */
  paidOrders: number;
  /** paidOrders + refundedOrders: every card checkout the processor confirmed and that became an order. */
  completedOrders: number;
  /** REFUNDED: refunded in full. */
  refundedOrders: number;
  /** Of the paid orders, those with a partial refund. */
  partiallyRefundedOrders: number;
  codOrders: number;
  /** ON_HOLD: paid, held before its order; never revenue, never paid. */
  heldOrders: number;
  conversionRate: number;
  revenue: CurrencyRevenue[];
  refunds: CurrencyRefunds[];
  held: CurrencyHeld[];
  cod: CurrencyCod[];
}

export interface FunnelEntry {
  step: FunnelStep;
  sessions: number;
  /** sessions / the previous step's sessions; null for the first step or when the previous step is empty. */
  stepConversion: number | null;
  /** sessions / created; null when nothing was created. */
  overallConversion: number | null;
}

const ratio = (part: number, whole: number): number | null => (whole > 0 ? part / whole : null);
const byCurrency = <T extends { currency: string }>(list: T[]) => list.sort((a, b) => a.currency.localeCompare(b.currency));

/** The entry of `currency` in `map`, made with `empty` the first time. */
function entry<T>(map: Map<string, T>, currency: string, empty: () => T): T {
  let found = map.get(currency);
  if (!found) map.set(currency, (found = empty()));
  return found;
}

export function summarizeStats(groups: readonly StatsGroup[]): CheckoutStats {
  let sessions = 0;
  let paidOrders = 0;
  let refundedOrders = 0;
  let partiallyRefundedOrders = 0;
  let codOrders = 0;
  let heldOrders = 0;
  const revenue = new Map<string, Omit<CurrencyRevenue, 'amountMinor' | 'averageOrderValueMinor'>>();
  const refunds = new Map<string, CurrencyRefunds>();
  const held = new Map<string, CurrencyHeld>();
  const cod = new Map<string, CurrencyCod>();
  for (const g of groups) {
    sessions += g.sessions;
    // Every refund the processor confirmed, whatever became of the session: the figure to reconcile with it.
    if (isProcessorPaid(g.status) && (g.withRefunds > 0 || g.status === 'REFUNDED')) {
      const r = entry(refunds, g.currency, () => ({ currency: g.currency, orders: 0, amountMinor: 0, fullyRefundedOrders: 0, fullyRefundedMinor: 0 }));
      // A REFUNDED session counts as refunded even on an older row without its amount recorded.
      r.orders += g.status === 'REFUNDED' ? g.sessions : g.withRefunds;
      r.amountMinor += g.refundedMinor;
      if (g.status === 'REFUNDED') {
        r.fullyRefundedOrders += g.sessions;
        r.fullyRefundedMinor += g.refundedMinor;
      }
    }
    switch (g.status) {
      case 'COMPLETED': {
        paidOrders += g.sessions;
        partiallyRefundedOrders += g.withRefunds;
        const r = entry(revenue, g.currency, () => ({ currency: g.currency, orders: 0, grossMinor: 0, refundedMinor: 0, partiallyRefundedOrders: 0 }));
        r.orders += g.sessions;
        r.grossMinor += g.totalMinor;
        r.refundedMinor += g.refundedMinor;
        r.partiallyRefundedOrders += g.withRefunds;
        break;
      }
      case 'REFUNDED':
        refundedOrders += g.sessions;
        break;
      case 'ON_HOLD': {
        heldOrders += g.sessions;
        const h = entry(held, g.currency, () => ({ currency: g.currency, orders: 0, amountMinor: 0, refundedMinor: 0 }));
        h.orders += g.sessions;
        h.amountMinor += g.totalMinor;
        h.refundedMinor += g.refundedMinor;
        break;
      }
      case 'COD_CONFIRMED': {
        codOrders += g.sessions;
        const c = entry(cod, g.currency, () => ({ currency: g.currency, orders: 0, amountMinor: 0, collectedOrders: 0, collectedAmountMinor: 0 }));
        c.orders += g.sessions;
        c.amountMinor += g.totalMinor;
        c.collectedOrders += g.codPaid;
        c.collectedAmountMinor += g.codPaidMinor;
        break;
      }
    }
  }
  const completedOrders = paidOrders + refundedOrders;
  return {
    sessions,
    paidOrders,
    completedOrders,
    refundedOrders,
    partiallyRefundedOrders,
    codOrders,
    heldOrders,
    conversionRate: ratio(completedOrders + codOrders + heldOrders, sessions) ?? 0,
    revenue: byCurrency(
      [...revenue.values()].map((r) => {
        const amountMinor = r.grossMinor - r.refundedMinor;
        return { currency: r.currency, orders: r.orders, amountMinor, averageOrderValueMinor: Math.round(amountMinor / r.orders), grossMinor: r.grossMinor, refundedMinor: r.refundedMinor, partiallyRefundedOrders: r.partiallyRefundedOrders };
      }),
    ),
    refunds: byCurrency([...refunds.values()]),
    held: byCurrency([...held.values()]),
    cod: byCurrency([...cod.values()]),
  };
}

export function summarizeFunnel(groups: readonly StatsGroup[]): FunnelEntry[] {
  const total = (count: (g: StatsGroup) => number) => groups.reduce((n, g) => n + count(g), 0);
  // An ordered session passed every step, also an older row whose milestones were never recorded.
  const reached = [
    total((g) => g.sessions),
    total((g) => (isOrdered(g.status) ? g.sessions : g.contactEntered)),
    total((g) => (isOrdered(g.status) ? g.sessions : g.shippingChosen)),
    total((g) => (isOrdered(g.status) ? g.sessions : g.paymentStarted)),
    total((g) => (isOrdered(g.status) ? g.sessions : 0)),
  ];
  return FUNNEL_STEPS.map((step, i) => ({
    step,
    sessions: reached[i]!,
    stepConversion: i === 0 ? null : ratio(reached[i]!, reached[i - 1]!),
    overallConversion: ratio(reached[i]!, reached[0]!),
  }));
}
