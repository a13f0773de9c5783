// Exact conversion between the stores' decimal price strings ("24.90") and integer minor units (2490),
// by the currency's ISO 4217 exponent. String arithmetic only: a float never touches a price.

const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));
const DECIMAL = /^(-)?(\d+)(?:\.(\d*))?$/;

export function isCurrencyCode(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && CURRENCIES.has(code);
}

/** Minor-unit digits of a currency: EUR 2, JPY 0, KWD 3. Throws RangeError on an unknown code. */
export function currencyExponent(currency: string): number {
  if (!isCurrencyCode(currency)) throw new RangeError(`unknown currency ${JSON.stringify(currency)}`);
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/**
 * "24.9" EUR → 2490. Throws RangeError when the string is not a plain decimal, or carries more precision
 * than the currency has ("24.905" EUR), or does not fit a safe integer: such a price cannot be charged as is.
 */
export function decimalToMinor(value: string, currency: string): number {
  const exponent = currencyExponent(currency);
  const match = DECIMAL.exec(value.trim());
  if (!match) throw new RangeError(`not a decimal amount: ${JSON.stringify(value)}`);
  const [, sign, whole = '', fraction = ''] = match;
  if (/[1-9]/.test(fraction.slice(exponent))) {
    throw new RangeError(`${value} has more than ${exponent} decimals for ${currency}`);
  }
  const minor = Number(whole + fraction.slice(0, exponent).padEnd(exponent, '0'));
  if (!Number.isSafeInteger(minor)) throw new RangeError(`amount out of range: ${value}`);
  return sign && minor !== 0 ? -minor : minor;
}

/** 2490 EUR → "24.90"; 2490 JPY → "2490". */
export function minorToDecimal(minor: number, currency: string): string {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`minor units must be a safe integer, got ${minor}`);
  const exponent = currencyExponent(currency);
  const digits = String(Math.abs(minor)).padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent);
  const fraction = digits.slice(digits.length - exponent);
  return `${minor < 0 ? '-' : ''}${whole}${exponent ? `.${fraction}` : ''}`;
}
