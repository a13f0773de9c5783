// The checkout API's refusals in the shopper's language. A refusal is English text (en.ts lists every one a shopper
// route gives, as templates); `translateShopperError` finds the template a text was made from, takes its varying
// parts (a country, a checkout's status, a rate's name, a number), and writes the same template in the language, the
// country named in it and its words (a status, "ZIP code") in the language. A text no template makes stays English: the `code` beside it is
// what a program reads, the text is for people. Pure.
import type { CheckoutLanguage } from '../checkout-messages/index.js';
import { DE } from './de.js';
import { EN, type ShopperErrorKey, type ShopperErrors } from './en.js';
import { ES } from './es.js';
import { FR } from './fr.js';
import { IT } from './it.js';
import { NL } from './nl.js';

export { EN, type ShopperErrorKey, type ShopperErrors } from './en.js';

export const SHOPPER_ERRORS: Record<CheckoutLanguage, ShopperErrors> = { en: EN, de: DE, fr: FR, es: ES, it: IT, nl: NL };

/** Entries that are words inside the templates ({status}, {postalWord}, {regionWord}, the "or" of {examples}), not templates. */
const WORD_KEYS: ReadonlySet<ShopperErrorKey> = new Set<ShopperErrorKey>([
  'statusOpen', 'statusPaymentPending', 'statusCompleted', 'statusFailed', 'statusCodConfirmed', 'statusRefunded', 'statusAbandoned',
  'postalWordPostal', 'postalWordZip', 'postalWordEircode', 'postalWordPin', 'regionWordState', 'regionWordProvince', 'regionWordCounty', 'regionWordRegion', 'or',
]);

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Each template as a whole-text pattern with a named group per value; the most literal text first, so the most specific wins. */
const TEMPLATES = (Object.keys(EN) as ShopperErrorKey[])
  .filter((key) => !WORD_KEYS.has(key))
  .map((key) => {
    const parts = EN[key].split(/\{([a-zA-Z]+)\}/);
    const source = parts.map((p, i) => (i % 2 ? `(?<${p}>.+?)` : escape(p))).join('');
    return { key, pattern: new RegExp(`^${source}$`, 's'), literal: parts.filter((_, i) => i % 2 === 0).join('').length };
  })
  .sort((a, b) => b.literal - a.literal);

/** "Germany (DE)" (domain/countries.ts countryName) or "DE", named in the language. */
function countryIn(value: string, language: CheckoutLanguage): string {
  const code = /\(([A-Z]{2})\)$/.exec(value)?.[1] ?? (/^[A-Z]{2}$/.test(value) ? value : undefined);
  if (!code) return value;
  try {
    return new Intl.DisplayNames([language], { type: 'region', fallback: 'none' }).of(code) ?? value;
  } catch {
    return value;
  }
}

/** A word as the English texts say it ("payment pending", "ZIP code"), in the language. */
function wordIn(value: string, language: CheckoutLanguage): string {
  const key = [...WORD_KEYS].find((k) => EN[k] === value);
  return key ? SHOPPER_ERRORS[language][key] : value;
}

/** A value of a template in the language: a country named there, a word of the dictionary, examples joined by its "or". */
function valueIn(name: string, value: string, language: CheckoutLanguage): string {
  if (name === 'country') return countryIn(value, language);
  if (name === 'examples') return value.split(` ${EN.or} `).join(` ${SHOPPER_ERRORS[language].or} `);
  // Only the dictionary's words; a rate's name or an id stays as the merchant or the shopper wrote it.
  return name === 'status' || name === 'postalWord' || name === 'regionWord' ? wordIn(value, language) : value;
}

/** One refusal text in `language`; the text itself when no template makes it. */
export function translateShopperError(text: string, language: CheckoutLanguage): string {
  if (language === 'en') return text;
  for (const { key, pattern } of TEMPLATES) {
    const found = pattern.exec(text);
    if (!found) continue;
    const values = found.groups ?? {};
    return SHOPPER_ERRORS[language][key].replace(/\{([a-zA-Z]+)\}/g, (_all, name: string) => valueIn(name, values[name] ?? '', language));
  }
  return text;
}

/**
 * The `error` of an answer, in `language`: an INVALID_INPUT's "field: message; field: message" has each message
 * translated and the field paths kept (they are names, not words).
 */
export function translateShopperMessage(message: string, language: CheckoutLanguage): string {
  if (language === 'en') return message;
  const whole = translateShopperError(message, language);
  if (whole !== message) return whole;
  return message
    .split('; ')
    .map((part) => {
      const field = /^([A-Za-z0-9_.]+): (.+)$/s.exec(part);
      return field ? `${field[1]}: ${translateShopperError(field[2]!, language)}` : translateShopperError(part, language);
    })
    .join('; ');
}
