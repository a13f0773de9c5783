// The merchant's checkout texts (PATCH /api/merchant/config checkoutTexts), with the page's own words, in the shopper's
// language, for keys the merchant left unset.
import { t } from './i18n.js';
import type { Bundle } from './types.js';

type MerchantTextKey = 'headline' | 'contactHeading' | 'shippingHeading' | 'paymentHeading' | 'successMessage';

export function text(bundle: Bundle, key: MerchantTextKey): string {
  return bundle.checkoutTexts[key]?.trim() || t(key);
}
