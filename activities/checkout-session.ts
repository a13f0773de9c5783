// The session's own record: what the shopper entered, the totals computed from it, and every status
// change. The workflow is the only caller, so a session's status is never written around it.
import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '../prisma/client.js';
import { type Prisma } from '../prisma/client.js';
import { money, sum, multiply, add, type FxRates } from '../domain/money.js';
import { quoteShippingRates, selectRate } from '../domain/shipping.js';
import type { CheckoutStatus } from '../domain/checkout-status.js';
import type { ShopperDetails } from '../workflows/checkout.messages.js';
import { classifyFailures } from './failures.js';

export interface SessionLine {
  productId: string;
  variantId: string | null;
  title: string;
  variantTitle: string | null;
  quantity: number;
  unitPrice: number;
  imageUrl: string | null;
}

export interface PaymentQuote {
  currency: string;
  subtotalMinor: number;
  shippingMinor: number;
  totalMinor: number;
}

export function sessionLines(items: Prisma.JsonValue): SessionLine[] {
  return Array.isArray(items) ? (items as unknown as SessionLine[]) : [];
}

export function sessionFxRates(fx: Prisma.JsonValue): FxRates {
  const rates = fx && typeof fx === 'object' && !Array.isArray(fx) ? (fx as { rates?: unknown }).rates : undefined;
  return rates && typeof rates === 'object' ? (rates as FxRates) : {};
}

export function createCheckoutSessionActivities(deps: { db: Db }) {
  const { db } = deps;

  async function event(token: string, type: string, data: Prisma.InputJsonValue = {}) {
    await db.sessionEvent.create({ data: { token, type, data } });
  }

  return classifyFailures({
    /** The session's persisted status: a workflow (re)started by a late signal resumes from it. */
    async loadSessionStatus(token: string): Promise<{ status: CheckoutStatus; hasOrder: boolean; paymentAttempt: number }> {
      const session = await db.checkoutSession.findUnique({ where: { token }, select: { status: true, storeOrderId: true, storeOrderError: true, paymentAttempt: true } });
      if (!session) throw ApplicationFailure.nonRetryable(`No checkout session ${token}`, 'NOT_FOUND');
      return { status: session.status as CheckoutStatus, hasOrder: session.storeOrderId !== null || session.storeOrderError !== null, paymentAttempt: session.paymentAttempt };
    },

    /**
     * Validates the chosen shipping rate against the merchant's rates, converted with the session's own FX
     * snapshot, and stores the shopper's details with the totals (items + shipping: one amount).
     */
    async recordShopperDetails(token: string, details: ShopperDetails): Promise<PaymentQuote> {
      const session = await db.checkoutSession.findUniqueOrThrow({ where: { token }, include: { merchant: { include: { shippingRates: true } } } });
      const currency = session.currency;
      const subtotal = sum(sessionLines(session.items).map((l) => multiply(money(l.unitPrice, currency), l.quantity)), currency);
      const quotes = quoteShippingRates(
        [...session.merchant.shippingRates].sort((a, b) => a.position - b.position),
        { currency, subtotal, fxRates: sessionFxRates(session.fxRates) },
      );
      const rate = selectRate(quotes, details.shippingRateId);
      if (!rate) throw ApplicationFailure.nonRetryable(`shippingRateId: no shipping rate "${details.shippingRateId}" for this checkout`, 'INVALID_INPUT');
      const total = add(subtotal, rate.price);
      await db.checkoutSession.update({
        where: { token },
        data: {
          email: details.email,
          shippingAddress: details.address as unknown as Prisma.InputJsonValue,
          shippingRateId: rate.id,
          shippingName: rate.name,
          shippingMinor: rate.price.amount,
          subtotalMinor: subtotal.amount,
          totalMinor: total.amount,
          lastActivityAt: new Date(),
        },
      });
      await event(token, 'details_entered', { shippingRateId: rate.id, shippingMinor: rate.price.amount, totalMinor: total.amount });
      return { currency, subtotalMinor: subtotal.amount, shippingMinor: rate.price.amount, totalMinor: total.amount };
    },

    /** Persists a status the workflow decided, with the cause on the timeline. */
    async recordSessionStatus(token: string, status: CheckoutStatus, cause: string): Promise<void> {
      const before = await db.checkoutSession.findUniqueOrThrow({ where: { token }, select: { status: true, completedAt: true } });
      if (before.status === status) return;
      await db.checkoutSession.update({
        where: { token },
        data: { status, lastActivityAt: new Date(), ...(status === 'COMPLETED' && !before.completedAt ? { completedAt: new Date() } : {}) },
      });
      await event(token, 'status_changed', { from: before.status, to: status, cause });
    },
  });
}

export type CheckoutSessionActivities = ReturnType<typeof createCheckoutSessionActivities>;
