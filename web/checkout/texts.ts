// The merchant's checkout texts (PATCH /api/merchant/config checkoutTexts), with the page's defaults for keys
// the merchant left unset.
import type { Bundle } from './types.js';

const DEFAULT_TEXTS = {
  headline: 'Checkout',
  contactHeading: 'Contact',
  shippingHeading: 'Shipping address',
  paymentHeading: 'Payment',
  successMessage: 'Thank you for your order!',
};

export function text(bundle: Bundle, key: keyof typeof DEFAULT_TEXTS): string {
  return bundle.checkoutTexts[key]?.trim() || DEFAULT_TEXTS[key];
}
