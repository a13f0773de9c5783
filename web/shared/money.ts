// Amounts are integer minor units of an ISO currency everywhere (domain/money.ts); this shows them in the
// shopper's locale with the currency's own number of decimals (EUR 2, JPY 0, KWD 3).
import { currencyExponent } from '../../domain/money.js';

const formats = new Map<string, Intl.NumberFormat>();

/** How many decimals the currency has (EUR 2, JPY 0, KWD 3); 2 for a code we do not know. */
export function currencyDigits(currency: string): number {
  try {
    return currencyExponent(currency);
  } catch {
    return 2;
  }
}

export function formatMoney(amountMinor: number, currency: string, locale?: string): string {
  const key = `${locale ?? ''}|${currency}`;
  let format = formats.get(key);
  const digits = currencyDigits(currency);
  if (!format) {
    format = new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits });
    formats.set(key, format);
  }
  return format.format(amountMinor / 10 ** digits);
}

/** The browser's preferred locale (the page's language for numbers and dates). */
export function browserLocale(): string | undefined {
  return typeof navigator === 'undefined' ? undefined : navigator.languages?.[0] ?? navigator.language;
}
