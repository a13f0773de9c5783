// Checkout statistics, pure: which timeline events mark which funnel milestone, and how a merchant's
// sessions (counted per currency and status by one indexed query) become the statistics and the funnel.
// The definitions a merchant sees are here, once:
//
// - A session counts when it was created in the range (a cohort: conversion never exceeds 100 %), from a
//   store cart: previews never count.
// - Paid orders: card checkouts whose money the merchant keeps — COMPLETED now. "Paid" means money kept,
//   everywhere: a refunded order is not paid (it is counted as refunded), a COD order is not paid through us.
// - Completed orders: card checkouts the processor confirmed (COMPLETED, and REFUNDED, which was completed
//   first): completedOrders = paidOrders + refundedOrders, always.
// - COD orders: confirmed cash-on-delivery orders (COD_CONFIRMED). They are orders on the store, so they
//   count as conversions, but not as revenue: the money is not paid through us (see domain/checkout-status.ts).
//   Their value is reported apart, with the part the store reports collected (marked paid).
// - Conversion rate: (completed orders + COD orders) / sessions.
// - Revenue: sessions that are COMPLETED now (paid and not refunded), per currency; average order value is
//   that revenue over those orders, rounded to the nearest minor unit.
// - Funnel: each step counts the sessions that reached it or a later one. Milestones are marked that way
//   (reaching a step marks the earlier ones still unset, with the same instant), so counting each milestone
//   column is enough, and a step is never larger than the one before; a session in an ordered status counts
//   at every step, whatever older rows lack.
import type { CheckoutStatus } from './checkout-status.js';

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

/** Statuses that mean the checkout ended in an order on the store (the funnel's last step). */
export const ORDERED_STATUSES: readonly CheckoutStatus[] = ['COMPLETED', 'REFUNDED', 'COD_CONFIRMED'];

/**
 * The orders list's two views (GET /api/checkout/merchant/orders?view=…), of the sessions that reached payment:
 * - orders: the shopper paid or confirmed cash on delivery, so the store has (or gets) an order — COMPLETED,
 *   COD_CONFIRMED, REFUNDED (paid, then returned) and ON_HOLD (paid, held for the merchant's review: the status
 *   comes with partial refunds; listed here already so a held payment is never shown as an unpaid checkout);
 * - checkouts: a payment started and never paid — PAYMENT_PENDING, FAILED, ABANDONED.
 * OPEN sessions are in neither: they are not orders (the funnel counts them).
 */
export const ORDER_VIEWS = {
  orders: ['COMPLETED', 'COD_CONFIRMED', 'REFUNDED', 'ON_HOLD'],
  checkouts: ['PAYMENT_PENDING', 'FAILED', 'ABANDONED'],
} as const satisfies Record<string, readonly string[]>;
export type OrderView = keyof typeof ORDER_VIEWS;
export const ORDER_VIEW_NAMES = Object.keys(ORDER_VIEWS) as OrderView[];
const isOrdered = (status: string) => (ORDERED_STATUSES as readonly string[]).includes(status);

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
}

export interface CurrencyRevenue {
  currency: string;
  orders: number;
  amountMinor: number;
  averageOrderValueMinor: number;
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
  /** COMPLETED: paid by card (or nothing to pay) and not refunded — the money the merchant keeps. */
  paidOrders: number;
  /** paidOrders + refundedOrders: every card checkout the processor confirmed. */
  completedOrders: number;
  refundedOrders: number;
  codOrders: number;
  conversionRate: number;
  revenue: CurrencyRevenue[];
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

export function summarizeStats(groups: readonly StatsGroup[]): CheckoutStats {
  let sessions = 0;
  let paidOrders = 0;
  let completedOrders = 0;
  let refundedOrders = 0;
  let codOrders = 0;
  const revenue = new Map<string, { orders: number; amountMinor: number }>();
  const cod = new Map<string, CurrencyCod>();
  for (const g of groups) {
    sessions += g.sessions;
    if (g.status === 'COMPLETED' || g.status === 'REFUNDED') completedOrders += g.sessions;
    if (g.status === 'REFUNDED') refundedOrders += g.sessions;
    if (g.status === 'COMPLETED') {
      paidOrders += g.sessions;
      const r = revenue.get(g.currency) ?? { orders: 0, amountMinor: 0 };
      r.orders += g.sessions;
      r.amountMinor += g.totalMinor;
      revenue.set(g.currency, r);
    }
    if (g.status === 'COD_CONFIRMED') {
      codOrders += g.sessions;
      const c = cod.get(g.currency) ?? { currency: g.currency, orders: 0, amountMinor: 0, collectedOrders: 0, collectedAmountMinor: 0 };
      c.orders += g.sessions;
      c.amountMinor += g.totalMinor;
      c.collectedOrders += g.codPaid;
      c.collectedAmountMinor += g.codPaidMinor;
      cod.set(g.currency, c);
    }
  }
  return {
    sessions,
    paidOrders,
    completedOrders,
    refundedOrders,
    codOrders,
    conversionRate: ratio(completedOrders + codOrders, sessions) ?? 0,
    revenue: byCurrency(
      [...revenue].map(([currency, r]) => ({ currency, orders: r.orders, amountMinor: r.amountMinor, averageOrderValueMinor: Math.round(r.amountMinor / r.orders) })),
    ),
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
