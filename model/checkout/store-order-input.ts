// The one order a checkout session becomes on its store, as the neutral StoreOrderInput both store clients take: what
// the shopper bought at the prices charged, the address, shipping, discount, the store's tax and how it was paid. Shared
// by the order activities (the order, an upsell's order) and the checkout's tax quote (model/checkout/store-taxes.ts), which asks
// the store about the very order it will later be sent.
import type { CheckoutSession, UpsellPurchase } from '../../generated/prisma/client.js';
import { AppError } from '../../domain/errors.js';
import type { ShippingAddress } from '../../domain/address.js';
import { isPaymentMethod, type PaymentMethod } from '../../domain/checkout/payment-method.js';
import { upsellOrderKey } from '../../domain/checkout/upsell-purchase.js';
import { IntegrationError, isIntegrationError } from '../../integrations/errors.js';
import { parseOrderInput, type StoreOrderInput } from '../../integrations/storefront-common/order.js';
import { MalformedSessionError, sessionAddress, sessionBumpLines, sessionLines, type SessionLine } from './checkout-session.js';

export const STORE_SYSTEM = { STOREFRONT_A: 'storefront-a', STOREFRONT_B: 'storefront-b' } as const;

/** What building an order needs of a session (a CheckoutSession row fits). */
export type OrderSession = Pick<CheckoutSession,
  'token' | 'platform' | 'status' | 'paymentMethod' | 'items' | 'orderBumps' | 'shippingAddress' | 'billingAddress' | 'email' | 'currency' | 'shippingName' | 'shippingMinor'
  | 'discountCode' | 'discountMinor' | 'taxMinor' | 'taxesIncluded' | 'totalMinor' | 'processorPaymentId'>;

/** The shopper's one name field as the stores' first and last name (both required by the order input). */
function splitName(name: string): { firstName: string; lastName: string } {
  const words = name.trim().split(/\s+/);
  const lastName = words.pop() ?? '';
  return { firstName: words.length ? words.join(' ') : lastName, lastName };
}

export function paymentMethodOf(s: Pick<OrderSession, 'token' | 'paymentMethod' | 'status'>): PaymentMethod {
  const method = s.paymentMethod ?? (s.status === 'COD_CONFIRMED' ? 'cod' : 'card');
  if (!isPaymentMethod(method)) throw new AppError('INVALID_INPUT', `session ${s.token}: unknown payment method ${method}`);
  return method;
}

/**
 * The session's stored cart and addresses, read strictly: a session that cannot become an order is a permanent failure.
 * billing: the billing address when the shopper gave one apart from the shipping address.
 */
export function contentsOf(s: OrderSession): { items: SessionLine[]; address: ShippingAddress; billing: ShippingAddress | null } {
  try {
    // The cart as read from the store, then the order bumps the shopper accepted (priced when the total was computed).
    const items = [...sessionLines(s.items), ...sessionBumpLines(s.orderBumps)];
    if (items.length === 0) throw new MalformedSessionError('The checkout has no items');
    const address = sessionAddress(s.shippingAddress);
    if (!address) throw new MalformedSessionError('The checkout has no shipping address');
    return { items, address, billing: sessionAddress(s.billingAddress, 'billing address') };
  } catch (err) {
    if (err instanceof MalformedSessionError) throw new IntegrationError(STORE_SYSTEM[s.platform], 'rejected', `${err.message}: it cannot be turned into an order`);
    throw err;
  }
}

/** The shopper's address as the stores' order address. */
export function orderAddressOf(address: ShippingAddress): StoreOrderInput['shippingAddress'] {
  return {
    ...splitName(address.name),
    line1: address.line1,
    line2: address.line2 || undefined,
    city: address.city,
    postalCode: address.postalCode,
    region: address.region || undefined,
    countryCode: address.country.toUpperCase(),
    phone: address.phone || undefined,
  };
}

/** A store's variant id of a line: a simple product of storefront B may carry its own id as variant (it has no variation). */
export const storeVariantId = (s: Pick<OrderSession, 'platform'>, productId: string, variantId: string | null | undefined) =>
  variantId == null || (s.platform === 'STOREFRONT_B' && variantId === productId) ? undefined : variantId;

/** Our check of an order input (the clients check again), so a bad one reads as ours, not as the store's refusal. */
export function checkedOrderInput(s: Pick<OrderSession, 'platform'>, input: StoreOrderInput): StoreOrderInput {
  try {
    parseOrderInput(STORE_SYSTEM[s.platform], input);
  } catch (err) {
    if (isIntegrationError(err)) throw new IntegrationError(err.system, 'rejected', `The checkout cannot be turned into an order: ${err.message}`);
    throw err;
  }
  return input;
}

/**
 * The order of an accepted upsell: its one line at the price charged, no extra shipping (it ships with the
 * checkout's order), paid by card with the upsell's own payment, found on the store by its own key.
 */
export function upsellOrderInputOf(s: OrderSession, purchase: UpsellPurchase): StoreOrderInput {
  const address = sessionAddress(s.shippingAddress);
  if (!address) throw new IntegrationError(STORE_SYSTEM[s.platform], 'rejected', 'The checkout has no shipping address: the offer cannot be turned into an order');
  let billing: ShippingAddress | null;
  try {
    billing = sessionAddress(s.billingAddress, 'billing address');
  } catch (err) {
    if (err instanceof MalformedSessionError) throw new IntegrationError(STORE_SYSTEM[s.platform], 'rejected', `${err.message}: the offer cannot be turned into an order`);
    throw err;
  }
  return checkedOrderInput(s, {
    sessionToken: upsellOrderKey(s.token, purchase.upsellId),
    currency: purchase.currency,
    email: s.email ?? '',
    shippingAddress: orderAddressOf(address),
    // Billed like the checkout's own order.
    ...(billing ? { billingAddress: orderAddressOf(billing) } : {}),
    lines: [{ title: purchase.title, quantity: 1, unitPriceMinor: purchase.amountMinor, productId: purchase.productId, variantId: storeVariantId(s, purchase.productId, purchase.variantId) }],
    shipping: { title: 'Ships with the first order', priceMinor: 0 },
    totals: { subtotalMinor: purchase.amountMinor, shippingMinor: 0, discountMinor: 0, totalMinor: purchase.amountMinor },
    payment: { method: 'card', reference: purchase.processorPaymentId ?? undefined },
  });
}

/** The neutral order of a paid session: what was charged, line by line, plus shipping; totals as the session computed them. */
export function orderInputOf(s: OrderSession, method: PaymentMethod = paymentMethodOf(s)): StoreOrderInput {
  const { items, address, billing } = contentsOf(s);
  const lines = items.map((i) => ({
    title: i.title,
    variantTitle: i.variantTitle ?? undefined,
    quantity: i.quantity,
    unitPriceMinor: i.unitPrice,
    productId: i.productId,
    variantId: storeVariantId(s, i.productId, i.variantId),
  }));
  const shippingMinor = s.shippingMinor ?? 0;
  const subtotalMinor = lines.reduce((n, l) => n + l.unitPriceMinor * l.quantity, 0);
  const discount = s.discountCode && s.discountMinor > 0 ? { code: s.discountCode, amountMinor: s.discountMinor } : undefined;
  const input: StoreOrderInput = {
    sessionToken: s.token,
    currency: s.currency,
    email: s.email ?? '',
    shippingAddress: orderAddressOf(address),
    // The shopper's billing address when it differs; the clients bill the shipping address otherwise.
    ...(billing ? { billingAddress: orderAddressOf(billing) } : {}),
    lines,
    shipping: { title: s.shippingName ?? 'Shipping', priceMinor: shippingMinor },
    ...(discount ? { discount } : {}),
    // What was charged; the order schema checks it equals lines + shipping − discount (+ the store's tax when added).
    totals: {
      subtotalMinor, shippingMinor, discountMinor: discount?.amountMinor ?? 0, taxMinor: s.taxMinor, taxesIncluded: s.taxesIncluded,
      totalMinor: s.totalMinor ?? subtotalMinor + shippingMinor - (discount?.amountMinor ?? 0),
    },
    payment: { method, reference: method === 'card' ? (s.processorPaymentId ?? undefined) : undefined },
  };
  return checkedOrderInput(s, input);
}

