// The languages the checkout page speaks, and which one a shopper gets. The page route (api/routes/pages) picks it
// from the browser's Accept-Language — the shopper's own ranked languages — and embeds that one dictionary with the
// session, so the page's script carries English only (its fallback) and stays inside its size budget. Pure.
import { DE } from './de.js';
import { EN, type CheckoutMessages } from './en.js';
import { ES } from './es.js';
import { FR } from './fr.js';
import { IT } from './it.js';
import { NL } from './nl.js';

export { EN, type CheckoutMessageKey, type CheckoutMessages } from './en.js';
export { fillMessage } from './fill.js';

export const CHECKOUT_LANGUAGES = { en: EN, de: DE, fr: FR, es: ES, it: IT, nl: NL } as const satisfies Record<string, CheckoutMessages>;
export type CheckoutLanguage = keyof typeof CHECKOUT_LANGUAGES;

const isCheckoutLanguage = (value: string): value is CheckoutLanguage => Object.hasOwn(CHECKOUT_LANGUAGES, value);

/**
 * The first of `tags` (language tags in the shopper's order of preference: "de-AT", "fr") whose language the page
 * speaks; English when none is. A region or script does not matter ("de-CH" → de).
 */
export function checkoutLanguageOf(tags: readonly string[]): CheckoutLanguage {
  for (const tag of tags) {
    const language = tag.trim().toLowerCase().split(/[-_]/)[0] ?? '';
    if (isCheckoutLanguage(language)) return language;
  }
  return 'en';
}
