// Shopify's money on the wire: decimal strings ("24.9") in a currency; the sandbox keeps integer minor units.
// Written here from ISO 4217 (Intl), independent of our client's money helpers.
export function fractionDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

export function isCurrency(code: string): boolean {
  if (!/^[A-Z]{3}$/.test(code)) return false;
  try {
    new Intl.NumberFormat('en', { style: 'currency', currency: code });
    return Intl.supportedValuesOf('currency').includes(code);
  } catch {
    return false;
  }
}

/** "24.90" → 2490 in a two-decimal currency; null when the amount has more decimals than the currency. */
export function toMinor(amount: string | number, currency: string): number | null {
  const text = String(amount).trim();
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) return null;
  const digits = fractionDigits(currency);
  const frac = (m[3] ?? '').replace(/0+$/, '');
  if (frac.length > digits) return null;
  const minor = Number(m[2]) * 10 ** digits + Number(frac.padEnd(digits, '0') || '0');
  return m[1] ? -minor : minor;
}

/** 2490 → "24.9" (Shopify's Decimal drops trailing zeros). */
export function toDecimal(minor: number, currency: string): string {
  const digits = fractionDigits(currency);
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  const whole = Math.floor(abs / 10 ** digits);
  const frac = digits ? String(abs % 10 ** digits).padStart(digits, '0').replace(/0+$/, '') : '';
  return `${sign}${whole}${frac ? `.${frac}` : '.0'}`;
}

/** 2490 → "24.90": the REST resources (and their webhooks) write money with the currency's full decimals. */
export function toRestDecimal(minor: number, currency: string): string {
  const digits = fractionDigits(currency);
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  const whole = Math.floor(abs / 10 ** digits);
  return digits ? `${sign}${whole}.${String(abs % 10 ** digits).padStart(digits, '0')}` : `${sign}${whole}`;
}
