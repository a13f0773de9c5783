// Money is integer minor units with an ISO 4217 currency, always (house style 7). Conversion uses the
// ECB's EUR-based reference rates as decimal strings and BigInt arithmetic, so a price never passes
// through a float and the same inputs give the same cents in the API, the workflow and the browser.

/** A money rule was broken: unknown currency, currencies mixed, missing rate, out of range. */
export class MoneyError extends Error {
  override name = 'MoneyError';
}

/** Integer minor units (cents, yen, fils) of one ISO 4217 currency. */
export interface Money {
  readonly amount: number;
  readonly currency: string;
}

/** EUR-based reference rates, `1 EUR = rate units`, as decimal strings: { USD: '1.1562', JPY: '178.42' }. */
export type FxRates = Readonly<Record<string, string>>;

// ISO 4217 minor units (the ISO list, not CLDR's display digits: HUF and IDR are 2 here even though
// shops often show them without decimals). Funds, metals and test codes are left out: nobody pays in them.
const EXPONENT_0 = 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF';
const EXPONENT_3 = 'BHD IQD JOD KWD LYD OMR TND';
const EXPONENT_4 = 'CLF UYW';
const EXPONENT_2 =
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF ' +
  'CHE CHF CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD ' +
  'HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT ' +
  'MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR ' +
  'SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU ' +
  'UZS VED VES WST XCD XCG YER ZAR ZMW ZWG';

const EXPONENTS: ReadonlyMap<string, number> = new Map(
  ([[EXPONENT_0, 0], [EXPONENT_2, 2], [EXPONENT_3, 3], [EXPONENT_4, 4]] as const).flatMap(([codes, exponent]) =>
    codes.split(' ').map((code) => [code, exponent] as const),
  ),
);

export const BASE_CURRENCY = 'EUR';

export function isKnownCurrency(code: string): boolean {
  return EXPONENTS.has(code);
}

/** Minor-unit digits of a currency: EUR 2, JPY 0, KWD 3. Throws MoneyError on an unknown or malformed code. */
export function currencyExponent(currency: string): number {
  const exponent = EXPONENTS.get(currency);
  if (exponent === undefined) {
    throw new MoneyError(/^[A-Z]{3}$/.test(currency) ? `Unknown currency ${currency}` : `Not an ISO 4217 currency code: ${JSON.stringify(currency)}`);
  }
  return exponent;
}

function checked(amount: number, currency: string): Money {
  if (!Number.isSafeInteger(amount)) throw new MoneyError(`Amount must be a safe integer of minor units, got ${amount}`);
  // `+ 0` turns -0 into 0, so equal amounts compare equal everywhere (Object.is, toEqual, JSON).
  return { amount: amount + 0, currency };
}

/** Validated money: `amount` in minor units (safe integer, may be negative), `currency` a known ISO code. */
export function money(amount: number, currency: string): Money {
  currencyExponent(currency);
  return checked(amount, currency);
}

export function zero(currency: string): Money {
  return money(0, currency);
}

export function eur(cents: number): Money {
  return money(cents, BASE_CURRENCY);
}

// ---------------------------------------------------------------------------------------------------
// Exact arithmetic on rationals (BigInt numerator / positive denominator).

interface Ratio {
  readonly num: bigint;
  readonly den: bigint;
}

const TEN = 10n;
const pow10 = (n: number): bigint => TEN ** BigInt(n);
const RATE = /^(\d+)(?:\.(\d+))?$/;

function parseRate(rate: string): Ratio | undefined {
  const match = RATE.exec(rate);
  if (!match) return undefined;
  const fraction = match[2] ?? '';
  const num = BigInt((match[1] ?? '') + fraction);
  return num > 0n ? { num, den: pow10(fraction.length) } : undefined;
}

/** A rate the converter accepts: a plain positive decimal string such as '1.1562' (no sign, exponent or spaces). */
export function isValidRate(rate: unknown): rate is string {
  return typeof rate === 'string' && parseRate(rate) !== undefined;
}

function rateOf(currency: string, rates: FxRates): Ratio {
  if (currency === BASE_CURRENCY) return { num: 1n, den: 1n };
  const raw = Object.hasOwn(rates, currency) ? rates[currency] : undefined;
  if (raw === undefined) throw new MoneyError(`No exchange rate for ${currency}`);
  const rate = parseRate(raw);
  if (!rate) throw new MoneyError(`Invalid exchange rate for ${currency}: ${JSON.stringify(raw)}`);
  return rate;
}

/**
 * num/den rounded half-up to an integer. Half-up is taken away from zero for negatives (-2.5 → -3), so
 * rounding is symmetric: convert(-x) = -convert(x).
 */
function roundHalfUp(num: bigint, den: bigint): bigint {
  const negative = num < 0n !== den < 0n;
  const n = num < 0n ? -num : num;
  const d = den < 0n ? -den : den;
  const rounded = (2n * n + d) / (2n * d);
  return negative ? -rounded : rounded;
}

function toAmount(value: bigint, currency: string): Money {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new MoneyError(`Amount out of range for ${currency}`);
  }
  return checked(Number(value), currency);
}

/**
 * `money` in currency `to`, through the EUR reference rates (the cross rate is computed exactly and
 * rounded once, half-up, to the target's minor units). Same currency is the identity.
 */
export function convert(from: Money, to: string, rates: FxRates): Money {
  const source = money(from.amount, from.currency);
  const toExponent = currencyExponent(to);
  if (source.currency === to) return source;
  const fromRate = rateOf(source.currency, rates);
  const toRate = rateOf(to, rates);
  // amount / 10^fromExp units ÷ fromRate = EUR; × toRate = target units; × 10^toExp = target minor units.
  const num = BigInt(source.amount) * toRate.num * fromRate.den * pow10(toExponent);
  const den = toRate.den * fromRate.num * pow10(currencyExponent(source.currency));
  return toAmount(roundHalfUp(num, den), to);
}

/** EUR cents (a merchant's base prices) in currency `to`: 1999 at USD '1.1562' → 2311 (23.112438 rounded). */
export function convertFromEur(amountEurCents: number, to: string, rates: FxRates): Money {
  return convert(eur(amountEurCents), to, rates);
}

// ---------------------------------------------------------------------------------------------------
// Arithmetic: never across currencies (a silent mix is how a total goes wrong by a factor of 178).

function sameCurrency(a: Money, b: Money): string {
  if (a.currency !== b.currency) throw new MoneyError(`Cannot combine ${a.currency} with ${b.currency}`);
  return a.currency;
}

export function add(a: Money, b: Money): Money {
  return checked(a.amount + b.amount, sameCurrency(a, b));
}

export function subtract(a: Money, b: Money): Money {
  return checked(a.amount - b.amount, sameCurrency(a, b));
}

export function multiply(value: Money, quantity: number): Money {
  if (!Number.isSafeInteger(quantity)) throw new MoneyError(`Quantity must be an integer, got ${quantity}`);
  // BigInt so an overflowing product is refused instead of losing precision first.
  return toAmount(BigInt(value.amount) * BigInt(quantity), value.currency);
}

/** The total of `list`, all in `currency` (which names the currency of an empty list). */
export function sum(list: readonly Money[], currency: string): Money {
  return list.reduce((total, item) => add(total, item), zero(currency));
}

/** `basisPoints` / 10,000 of `value` (1 bp = 0.01 %), rounded half-up to minor units. */
export function percentOf(value: Money, basisPoints: number): Money {
  if (!Number.isSafeInteger(basisPoints)) throw new MoneyError(`Basis points must be an integer, got ${basisPoints}`);
  return toAmount(roundHalfUp(BigInt(value.amount) * BigInt(basisPoints), 10_000n), value.currency);
}

export function isZero(value: Money): boolean {
  return value.amount === 0;
}

/** -1, 0 or 1, for sorting; refuses different currencies (they have no order without a rate). */
export function compare(a: Money, b: Money): -1 | 0 | 1 {
  sameCurrency(a, b);
  return a.amount < b.amount ? -1 : a.amount > b.amount ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------------
// Decimal strings, for stores' prices and for display.

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/**
 * "19.99" EUR → 1999, exactly. Refuses a value that would need rounding ("19.995" EUR, "1.5" JPY);
 * trailing zeros beyond the exponent ("1500.00" JPY) are accepted since they change nothing.
 */
export function parseDecimalToMinor(value: string, currency: string): Money {
  const exponent = currencyExponent(currency);
  const match = DECIMAL.exec(value);
  if (!match) throw new MoneyError(`Not a decimal amount: ${JSON.stringify(value)}`);
  const [, sign, whole = '', fraction = ''] = match;
  if (/[1-9]/.test(fraction.slice(exponent))) {
    throw new MoneyError(`${value} has more than ${exponent} decimal${exponent === 1 ? '' : 's'} for ${currency}`);
  }
  const minor = BigInt(whole + fraction.slice(0, exponent).padEnd(exponent, '0'));
  return toAmount(sign ? -minor : minor, currency);
}

/** 1999 EUR → "19.99"; 1500 JPY → "1500"; 5 KWD → "0.005". */
export function minorToDecimalString(value: Money): string {
  const { amount, currency } = money(value.amount, value.currency);
  const exponent = currencyExponent(currency);
  const digits = String(Math.abs(amount)).padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent);
  const fraction = digits.slice(digits.length - exponent);
  return `${amount < 0 ? '-' : ''}${whole}${exponent ? `.${fraction}` : ''}`;
}

/**
 * For display: "23,11 €" (de-DE), "$23.11" (en-US), always with the currency's ISO digits so what the
 * shopper sees is what is charged. Formats the exact decimal string, never amount / 100.
 */
export function formatMoney(value: Money, locale: string): string {
  const exponent = currencyExponent(value.currency);
  const decimal = minorToDecimalString(value);
  let format: Intl.NumberFormat;
  try {
    format = new Intl.NumberFormat(locale, {
      style: 'currency',
      currency: value.currency,
      minimumFractionDigits: exponent,
      maximumFractionDigits: exponent,
    });
  } catch (error) {
    throw new MoneyError(`Cannot format money for locale ${JSON.stringify(locale)}: ${(error as Error).message}`);
  }
  // A numeric string is formatted exactly (Intl.NumberFormat v3), so large amounts keep every digit.
  return format.format(decimal as `${number}`);
}
