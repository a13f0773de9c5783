// What the shopper sends to pay (init-payment) or to order with cash on delivery (complete-cod): one schema for both
// routes, and for the document.
import { z } from 'zod';
import { shippingRateId, shopperEmail } from './checkout.js';
import { discountCodeInput, orderBumpIds } from './commerce.js';
import { text, trimmed } from './text.js';
import { countryCode } from './countries.js';
import type { ShippingAddress } from '../../domain/address.js';
import { addressProblemMessage, addressProblems, normalizePostalCode, regionCode, RULED_COUNTRIES } from '../../domain/address-rules.js';

const COUNTRY_RULES =
  `postalCode in the country's format and region (a subdivision code such as CA, ON, NSW or MI, or its name; answered as the code) where the ` +
  `country's addresses need one, by Google's address metadata (domain/address-rules.ts) for ${RULED_COUNTRIES.join(', ')}; ` +
  'a postal code that breaks it, or a missing or unknown region, is INVALID_INPUT on that field (e.g. address.postalCode) naming the expected format';

/** Only once the country and postal code are strings: a broken field says its own problem first. */
const hasCountryAndPostalCode = (payload: { value: unknown }) => {
  const v = payload.value as { country?: unknown; postalCode?: unknown } | undefined;
  return typeof v?.country === 'string' && typeof v.postalCode === 'string';
};

/**
 * The address as typed: each field's rule, values trimmed, then the country's own rules (domain/address-rules.ts): its
 * postal code format, its region when its addresses need one. Stored and answered as domain/address.ts's shape, the
 * postal code upper-case where the country has a format and a known region as its code.
 */
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
  .strict()
  .check(
    z.superRefine((a, ctx) => {
      for (const [field, problem] of Object.entries(addressProblems(a))) ctx.addIssue({ code: 'custom', path: [field], message: addressProblemMessage(a.country, problem) });
    }, { when: hasCountryAndPostalCode }),
  )
  .transform((a) => {
    const region = a.region ? (regionCode(a.country, a.region) ?? a.region) : a.region;
    return { ...a, postalCode: normalizePostalCode(a.country, a.postalCode), ...(region === undefined ? {} : { region }) };
  });

// The address as typed leaves the route in the one shape the session stores and the API answers.
const _addressIsStoredShape: z.output<typeof address> extends ShippingAddress ? true : never = true;
void _addressIsStoredShape;

export const shopperDetails = z
  .object({
    email: shopperEmail,
    address: address.describe(`The shipping address: a country one of the merchant's rates ships to. Country rules: ${COUNTRY_RULES}.`),
    billingAddress: address
      .optional()
      .describe(
        'The billing address, only when it differs from the shipping address (the page\'s "Billing address same as shipping" unticked): the same ' +
          'fields and rules, errors keyed billingAddress.<field>, in any country (no rate needs to ship there). Absent: the shipping address is the ' +
          "billing address. Stored with the details (a later call without it clears it), answered in the session bundle's shopper.billingAddress, sent to " +
          "the store as the order's billing address (storefront A: the draft order's billingAddress; storefront B: the order's billing) and used for " +
          'the tax where the store bases it on the billing address (WooCommerce "Calculate tax based on: Customer billing address")',
      ),
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
