// The languages of the shopper's emails: the same six as the checkout page, chosen from the language recorded with
// the shopper's details at payment (the page's, else their browser's Accept-Language); English otherwise. Pure.
import { checkoutLanguageOf, type CheckoutLanguage } from '../checkout-messages/index.js';
import { DE } from './de.js';
import { EN, type ShopperEmailWords } from './en.js';
import { ES } from './es.js';
import { FR } from './fr.js';
import { IT } from './it.js';
import { NL } from './nl.js';

export { EN, type ShopperEmailKey, type ShopperEmailWords } from './en.js';

export const SHOPPER_EMAIL_LANGUAGES = { en: EN, de: DE, fr: FR, es: ES, it: IT, nl: NL } as const satisfies Record<CheckoutLanguage, ShopperEmailWords>;

/** The shopper's language for emails: the recorded tag's language when the emails speak it, else English. */
export function shopperEmailLanguage(locale: string | null | undefined): CheckoutLanguage {
  return checkoutLanguageOf(locale ? [locale] : []);
}

/** Where amounts are formatted for the shopper: their recorded tag ("de-AT") when the emails speak its language, else "en". */
export function shopperMoneyLocale(locale: string | null | undefined): string {
  return locale && shopperEmailLanguage(locale) !== 'en' ? locale : 'en';
}
