// The stores speak decimal price strings ("24.90"); we keep integer minor units (2490). Both directions go
// through domain/money, the one currency table (ISO 4217 exponents) and exact parser of the service.
import { currencyExponent, isKnownCurrency, minorToDecimalString, parseDecimalToMinor } from '../../domain/money.js';

export { currencyExponent };

export function isCurrencyCode(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && isKnownCurrency(code);
}

/** "24.9" EUR → 2490. Throws MoneyError when the string is not a plain decimal or is finer than the currency. */
export function decimalToMinor(value: string, currency: string): number {
  return parseDecimalToMinor(value.trim(), currency).amount;
}

/** 2490 EUR → "24.90"; 2490 JPY → "2490". */
export function minorToDecimal(minor: number, currency: string): string {
  return minorToDecimalString({ amount: minor, currency });
}
