// How a checkout session's order is paid. `card`: through the processor (card or wallet on its hosted page);
// `cod`: cash on delivery, to the merchant; `free`: nothing to pay (a 100 % discount with free shipping), the
// order completes without the processor.
export const PAYMENT_METHODS = ['card', 'cod', 'free'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

export function isPaymentMethod(value: unknown): value is PaymentMethod {
  return typeof value === 'string' && (PAYMENT_METHODS as readonly string[]).includes(value);
}
