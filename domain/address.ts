// The shopper's shipping address (and billing address, when it differs): one shape, as the checkout page sends it
// (api/schemas/shopper.ts checks each field's rules, and the country's: domain/address-rules.ts), as the session stores
// it (checkout_sessions.shipping_address, billing_address) and as the API answers it.
// The store orders split the name in first and last (integrations/storefront-common/order.ts): that shape is the
// stores', not ours.
import { z } from 'zod';

/** The address as stored and answered: what the input rules let through, trimmed; absent optional fields are left out. */
export const shippingAddressSchema = z.object({
  name: z.string(),
  line1: z.string(),
  line2: z.string().optional(),
  city: z.string(),
  postalCode: z.string(),
  /** ISO 3166-1 alpha-2, upper-case. */
  country: z.string(),
  region: z.string().optional(),
  phone: z.string().optional(),
});

export type ShippingAddress = z.output<typeof shippingAddressSchema>;
