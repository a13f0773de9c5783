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
