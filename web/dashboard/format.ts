// Display and input helpers. Money goes through domain/money (exact minor units, the currency's ISO
// digits), never amount / 100 in floating point.
import { formatMoney, minorToDecimalString, MoneyError, parseDecimalToMinor } from '../../domain/money.js';

export const locale = typeof navigator !== 'undefined' ? navigator.language || 'en-US' : 'en-US';

export function formatAmount(amount: number | null | undefined, currency: string): string {
  if (amount === null || amount === undefined) return '—';
  try {
    return formatMoney({ amount, currency }, locale);
  } catch {
    return `${amount} ${currency} (minor units)`;
  }
}

/** EUR cents → "12.90" for an input field. */
export function centsToInput(cents: number | null | undefined, currency = 'EUR'): string {
  if (cents === null || cents === undefined) return '';
  return minorToDecimalString({ amount: cents, currency });
}

/** "12.9" / "12,90" → 1290; answers an error message instead when the text is not an amount. */
export function inputToCents(text: string, currency = 'EUR'): number | { error: string } {
  const value = text.trim().replace(',', '.');
  if (value === '') return { error: 'enter an amount' };
  try {
    const m = parseDecimalToMinor(value, currency);
    if (m.amount < 0) return { error: 'must not be negative' };
    return m.amount;
  } catch (err) {
    return { error: err instanceof MoneyError ? err.message.replace(/^Not a decimal amount: .*/, 'must be an amount like 4.90') : 'must be an amount like 4.90' };
  }
}

export function formatDate(iso: string | null | undefined, withTime = true): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return new Intl.DateTimeFormat(locale, withTime ? { dateStyle: 'medium', timeStyle: 'short' } : { dateStyle: 'medium' }).format(d);
}

export function formatPercent(ratio: number | null | undefined, digits = 1): string {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return '—';
  return new Intl.NumberFormat(locale, { style: 'percent', minimumFractionDigits: digits, maximumFractionDigits: digits }).format(ratio);
}

export function formatNumber(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  return new Intl.NumberFormat(locale).format(n);
}

/** "2026-11-22" for <input type="date"> from a Date. */
export function isoDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** A country's name in the dashboard's language ("DE" → "Germany"); the code when the browser has none. */
export function countryName(code: string): string {
  try {
    return new Intl.DisplayNames([locale, 'en'], { type: 'region' }).of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

/**
 * Amounts the API writes into its sentences as "5841 EUR (minor units)" (a hold's message, the timeline), as people
 * read them: "€58.41". Anything else in the text stays as it is.
 */
export function readableAmounts(text: string): string {
  return text.replace(/\b(\d+) ([A-Z]{3}) \(minor units\)/g, (whole, amount: string, currency: string) => {
    const formatted = formatAmount(Number(amount), currency);
    return formatted.includes('minor units') ? whole : formatted;
  });
}
