// Whop's money as its API v1 carries it, for the simulator (never from our client or domain/money.ts): a JSON number of
// major units in the plan's currency ("Initial amount charged in the plan's currency, e.g. 10.43 for $10.43": @whop/sdk
// 0.0.42 plans.ts, PlanCreateParams.initial_price), a currency of Whop's enum (shared.ts `Currency`), which Whop counts
// in "the currency's smallest unit, for example cents" of its "Three-letter ISO 4217 currency code"
// (PlanCalculateTaxResponse). The simulator keeps every amount to that smallest unit, exactly: an amount is read from
// the shortest decimal form of its number (what the client wrote), counted in whole units, and written back as a
// number, so 0.1 + 0.2 is 0.3 and 24.995 KWD stays 24.995.
//
/**
 * Whop's `currency` enum ("The available currencies on the platform", the API reference's plans and checkout
 * configurations; docs/processor.md cites it): Whop refuses anything else, ISO codes included (ISK, UAH, GEL, …).
 */
export const CURRENCIES: ReadonlySet<string> = new Set(
  ('usd sgd inr aud brl cad dkk eur nok gbp sek chf hkd huf jpy mxn myr pln czk nzd aed eth ape cop ron thb bgn idr dop php try ' +
    'krw twd vnd pkr clp uyu ars zar dzd tnd mad kes kwd jod all xcd amd bsd bhd bob bam khr crc xof egp etb gmd ghs gtq gyd ils ' +
    'jmd mop mga mur mdl mnt nad ngn mkd omr pyg pen qar rwf sar rsd lkr tzs ttd uzs rub btc cny usdt kzt awg whop_usd xau').split(' '),
);

// The smallest units, by ISO 4217, of the enum's ISO members: 0 and 3 decimals below, 2 for the rest. The enum's
// non-ISO members (btc, eth, ape, usdt, whop_usd, xau) are counted in hundredths: Whop documents nothing finer.
const NO_DECIMALS = new Set('clp jpy krw pyg rwf vnd xof'.split(' '));
const THREE_DECIMALS = new Set('bhd jod kwd omr tnd'.split(' '));

/** Decimals of the smallest unit of a Whop currency (lowercase, as Whop writes it): usd 2, jpy 0, kwd 3. */
export function smallestUnitDecimals(currency: string): number {
  const code = currency.toLowerCase();
  return NO_DECIMALS.has(code) ? 0 : THREE_DECIMALS.has(code) ? 3 : 2;
}

/**
 * A Whop amount in whole smallest units: 12.5 usd → 1250, 2490 jpy → 2490, 24.995 kwd → 24995. Finer digits are
 * rounded half away from zero (1.005 usd → 101, not the 100 that 1.005 × 100 in floating point gives).
 */
export function toUnits(amount: number, currency: string): number {
  if (!Number.isFinite(amount)) throw new RangeError(`Not an amount: ${amount}`);
  const decimals = smallestUnitDecimals(currency);
  // The shortest decimal form, with any exponent applied by moving the point: "1e-7", "1.5e+21".
  const [mantissa = '0', exponent = '0'] = String(Math.abs(amount)).split('e');
  const [whole = '0', fraction = ''] = mantissa.split('.');
  const shift = Number(exponent) + decimals;
  const digits = whole + fraction;
  const point = whole.length + shift; // where the point falls in `digits`, counted from the left
  const kept = point <= 0 ? 0n : BigInt(digits.slice(0, point).padEnd(point, '0') || '0');
  const next = point < 0 ? 0 : Number(digits[point] ?? '0');
  const units = kept + (next >= 5 ? 1n : 0n);
  if (units > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`Amount out of range: ${amount}`);
  return amount < 0 && units ? -Number(units) : Number(units);
}

/** Whole smallest units as the number Whop writes: 1250 usd → 12.5, 24995 kwd → 24.995. */
export function fromUnits(units: number, currency: string): number {
  const decimals = smallestUnitDecimals(currency);
  const digits = String(Math.abs(units)).padStart(decimals + 1, '0');
  const text = decimals ? `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}` : digits;
  return (units < 0 ? -1 : 1) * Number(text);
}

/** An amount kept to the currency's smallest unit (what Whop stores for a price or a refund it is given). */
export function whopAmount(amount: number, currency: string): number {
  return fromUnits(toUnits(amount, currency), currency);
}

/** The sum of amounts (a negative one subtracts) in one currency, counted in smallest units. */
export function sumAmounts(currency: string, ...amounts: number[]): number {
  return fromUnits(amounts.reduce((n, a) => n + toUnits(a, currency), 0), currency);
}

/** `percent` % of an amount, rounded half away from zero to the smallest unit (a fee, for instance). */
export function percentOfAmount(amount: number, percent: number, currency: string): number {
  const scaled = toUnits(amount, currency) * percent;
  return fromUnits(Math.sign(scaled) * Math.round(Math.abs(scaled) / 100), currency);
}
