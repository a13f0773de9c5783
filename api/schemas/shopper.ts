// What the shopper sends to pay (init-payment) or to order with cash on delivery (complete-cod): one schema for both
// routes, and for the document.
import { z } from 'zod';
import { shippingRateId, shopperEmail } from './checkout.js';
import { discountCodeInput, orderBumpIds } from './commerce.js';
import { text, trimmed } from './text.js';
import { countryCode } from './countries.js';
import type { ShippingAddress } from '../../domain/address.js';

/** The address as typed: each field's rule, values trimmed (stored and answered as domain/address.ts's shape). */
const address = z
  .object({
    name: text(120, { required: 'enter the recipient name' }),
    line1: text(200, { required: 'enter the street and number' }),
    line2: text(200).optional(),
    city: text(120, { required: 'enter the city' }),
    postalCode: trimmed(/^[A-Za-z0-9 -]{2,20}$/, 'enter the postal code: 2-20 letters, digits, spaces and hyphens'),
    country: countryCode,
    region: text(120).optional(),
    phone: trimmed(/^\+?[0-9 ()-]{6,20}$/, 'a phone number').optional(),
  })
  .strict();

// The address as typed leaves the route in the one shape the session stores and the API answers.
const _addressIsStoredShape: z.output<typeof address> extends ShippingAddress ? true : never = true;
void _addressIsStoredShape;

export const shopperDetails = z
  .object({
    email: shopperEmail,
    address,
    shippingRateId,
    discountCode: discountCodeInput.optional().describe('A discount code: validated again here and taken off the merchandise (never shipping)'),
    orderBumpIds: orderBumpIds.optional().describe('Order bumps the shopper ticked (ids from GET /api/checkout/:token/order-bumps): added to the total and to the store order'),
  })
  .strict();

/** What the checkout page sends for a live quote (POST /api/checkout/:token/quote): the details so far, email optional. */
export const quoteDetails = shopperDetails.extend({ email: shopperEmail.optional() }).strict();

export const quoteResponse = z
  .object({
    currency: z.string(),
    subtotalMinor: z.number().int().describe('Items + ticked order bumps'),
    shippingMinor: z.number().int(),
    discountMinor: z.number().int(),
    taxMinor: z.number().int().describe("The store's tax on this order (by its own settings and the address)"),
    taxesIncluded: z.boolean().describe('true: the tax is inside the prices (the total does not grow); false: it is added to the total'),
    totalMinor: z.number().int().describe('What the shopper pays, and the store books'),
  })
  .meta({ id: 'CheckoutQuote' });
