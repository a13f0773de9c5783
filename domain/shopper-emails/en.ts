// The words of the emails the shopper gets (order confirmation, refund, accepted offer) in English: the source each
// other language translates key for key, with the same `{values}` (messages.test.ts). The merchant's emails stay
// English. Rendered by activities/order-email-templates.ts.
export const EN = {
  subtotal: 'Subtotal',
  discount: 'Discount ({code})',
  shipping: 'Shipping ({name})',
  total: 'Total',
  shippingTo: 'Shipping to',
  billingTo: 'Billing address',
  orderSubject: 'Order {reference} confirmed – {shop}',
  orderTitle: 'Order {reference} confirmed',
  orderIntro: 'Thank you for your order, {name}! Order {reference} is confirmed and {shop} is getting it ready.',
  paidCard: 'We have received your payment of {total}.',
  paidCod: 'You pay {total} in cash on delivery.',
  paidNothing: 'There is nothing to pay for this order.',
  orderOutro: 'Questions about your order? Reply to this email to reach {shop}.',
  refundSubject: 'Refund of {amount} for order {reference} – {shop}',
  partialRefundSubject: 'Partial refund of {amount} for order {reference} – {shop}',
  refundTitle: 'Your order {reference} was refunded',
  partialRefundTitle: '{amount} of your order {reference} was refunded',
  refundIntro: 'Hello {name}, {shop} has refunded your order {reference}.',
  partialRefundIntro: 'Hello {name}, {shop} has refunded part of your order {reference}.',
  refundAmount: '{amount} goes back to the card you paid with. Depending on your bank it can take a few business days to show on your statement.',
  refundReason: 'Reason: {reason}',
  refundRest: 'The rest of your order ({remaining}) stays paid.',
  refundOutro: 'Questions about this refund? Reply to this email to reach {shop}.',
  upsellSubject: 'Added to your order: {titles} – {shop}',
  upsellTitle: 'Added to your order',
  upsellIntro: 'Thank you, {name}! {titles} is added to your order with {shop} (order {reference}).',
  upsellCharged: 'We charged {total} to the card you paid with.',
  upsellOutro: 'It ships to the same address. Questions? Reply to this email to reach {shop}.',
  upsellShipping: 'ships with your order',
} as const;

export type ShopperEmailKey = keyof typeof EN;
export type ShopperEmailWords = Record<ShopperEmailKey, string>;
