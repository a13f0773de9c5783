// Where the decimal point goes, for the demo stores: an integer count of a store's smallest unit (10^-decimals of its
// currency) as a decimal string. Which decimals a store has, and how it parses and rounds, is each platform's own rule
// (storefront-a/money.ts: Shopify; storefront-b/money.ts: WooCommerce); nothing here comes from our service's money
// code (domain/money.ts), so the simulators stay witnesses of it.

/** 2490 at 2 decimals → "24.90"; 2490 at 0 → "2490"; 5 at 3 → "0.005"; -5 at 2 → "-0.05". Exact: digits, no float. */
export function unitsToDecimal(units: number, decimals: number): string {
  if (!Number.isSafeInteger(units)) throw new RangeError(`An amount must be a whole number of units, got ${units}`);
  const digits = String(Math.abs(units)).padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  return `${units < 0 ? '-' : ''}${whole}${decimals ? `.${digits.slice(digits.length - decimals)}` : ''}`;
}
