// The merchant's customers: shoppers with a paid order, one per email (case-insensitive), derived from the orders.
import { z } from 'zod';
import { chars, text } from './text.js';
import { pageQuery } from './pagination.js';
import { orderSummary } from './orders.js';

export const customersQuery = z
  .object({
    ...pageQuery,
    q: text(254, { required: 'enter the start of an email or part of a name' })
      .optional()
      .describe('Search: the start of the email, or a part of the name on the latest order\'s shipping address (both case-insensitive)'),
  })
  .strict();

export const customerParams = z.object({ email: chars(254).describe('The customer\'s email (any letter case; URL-encoded)') });

export const MARKETING_CONSENT_STATES = ['not_collected'] as const;

export const customerSummary = z
  .object({
    email: z.string().describe('Lower-case: one customer per address whatever the letter case it was typed in'),
    name: z.string().nullable().describe('The name on the shipping address of the latest order that has one'),
    ordersCount: z.number().int().describe('Paid orders (COMPLETED, COD_CONFIRMED, REFUNDED, ON_HOLD)'),
    totals: z
      .array(z.object({ currency: z.string().length(3), spentMinor: z.number().int().describe('Sum of the paid orders\' totals'), refundedMinor: z.number().int().describe('Given back of those') }))
      .describe('One entry per currency the customer paid in, by currency code'),
    firstOrderAt: z.string(),
    lastOrderAt: z.string(),
    marketingConsent: z
      .enum(MARKETING_CONSENT_STATES)
      .describe('not_collected: the checkout does not ask shoppers for marketing consent yet, so none is stored; do not email them marketing from this list'),
  })
  .meta({ id: 'CustomerSummary' });

export const customersPage = z.object({ items: z.array(customerSummary), nextCursor: z.string().nullable() }).meta({ id: 'CustomersPage' });

export const customerDetail = customerSummary
  .extend({
    orders: z.array(orderSummary).describe('Every order of this email, paid or not (unpaid checkouts too), newest first; at most 100'),
    moreOrders: z.boolean().describe('True when there are more than the 100 listed (the orders list, searched by the email, has them all)'),
  })
  .meta({ id: 'CustomerDetail' });
