// The countries the checkout offers: those some shipping rate of the merchant ships to (the bundle's rates carry their
// countries), named by the browser (Intl.DisplayNames) in the shopper's language and sorted there, so the page ships
// codes only (domain/countries.ts).
import { COUNTRY_CODES } from '../../domain/countries.js';
import type { ShippingQuote } from './types.js';

export interface Country {
  code: string;
  name: string;
}

/** The countries a rate ships to: its own, or (null) the store's, which null again makes every country. */
export function rateCountries(rate: Pick<ShippingQuote, 'countries'>, storeCountries: readonly string[] | null): readonly string[] {
  return rate.countries ?? storeCountries ?? COUNTRY_CODES;
}

/** The codes some rate ships to, in the list's order: what the shopper can choose. */
export function offeredCountries(rates: readonly Pick<ShippingQuote, 'countries'>[], storeCountries: readonly string[] | null): string[] {
  const served = new Set(rates.flatMap((r) => rateCountries(r, storeCountries)));
  return COUNTRY_CODES.filter((c) => served.has(c));
}

/** These countries, named and sorted in `locale`. */
export function countries(locale: string | undefined, codes: readonly string[]): Country[] {
  let names: Intl.DisplayNames | undefined;
  try {
    names = new Intl.DisplayNames(locale ? [locale, 'en'] : ['en'], { type: 'region' });
  } catch {
    names = undefined;
  }
  const list = codes.map((code) => ({ code, name: names?.of(code) ?? code }));
  const collator = new Intl.Collator(locale);
  return list.sort((a, b) => collator.compare(a.name, b.name));
}

/** The region of the shopper's locale ("de-AT" → "AT"), when it is among `codes`. */
export function countryOfLocale(locale: string | undefined, codes: readonly string[]): string | undefined {
  const region = locale?.split('-').find((part, i) => i > 0 && /^[A-Z]{2}$/.test(part));
  return region && codes.includes(region) ? region : undefined;
}
