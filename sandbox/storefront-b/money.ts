// WooCommerce's money, for the simulator, restated from WooCommerce 10.0.2's PHP source (/work/shared/real-platforms,
// file and function named at each rule), never from our client or domain/money.ts:
// - A store sells in one currency (woocommerce_currency) from get_woocommerce_currencies(), and shows every amount with
//   its price decimals, woocommerce_price_num_decimals (wc_get_price_decimals(); the option's default is 2), whatever
//   the currency: these are the store's own setting, not ISO 4217's minor units. Onboarding sets them from
//   i18n/locale-info.php for the store's country (OnboardingProfile::update_store_currency_and_measurement_units), and
//   WooCommerce looks a currency's decimals up there too (MarketingCampaigns::get_formatted_price).
// - Amounts are decimal strings: wc_format_decimal($value) as they come in (no rounding), wc_format_decimal($value, $dp)
//   as the REST API writes them (PHP number_format: rounded half away from zero, exactly $dp decimals).
// The simulator keeps an amount as a whole number of the store's smallest shown unit (10^-decimals), so an amount sent
// with more decimals is rounded as WooCommerce writes it back; WooCommerce itself keeps the extra digits until it
// rounds (its taxes and totals round each line to the same decimals: WC_Abstract_Order::calculate_totals).
import { unitsToDecimal } from '../storefront-common/money.js';

/** get_woocommerce_currencies() (includes/wc-core-functions.php): the REST API's `currency` enum, the store's choices. */
const CURRENCIES: ReadonlySet<string> = new Set(
  ('AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTC BTN BWP BYR BYN BZD CAD CDF ' +
    'CHF CLP CNY COP CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GGP GHS GIP GMD GNF GTQ GYD HKD ' +
    'HNL HRK HTG HUF IDR ILS IMP INR IQD IRR IRT ISK JEP JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD ' +
    'LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN ' +
    'PRB PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLL SOS SRD SSP STN SYP SZL THB TJS TMT TND TOP TRY TTD TWD ' +
    'TZS UAH UGX USD UYU UZS VEF VES VND VUV WST XAF XCD XOF XPF YER ZAR ZMW').split(' '),
);

// i18n/locale-info.php `num_decimals`, by `currency_code` (every country of a currency agrees): 0 and 3; all others 2.
const NO_DECIMALS = new Set(
  ('AFN ALL AMD BIF CLP COP CRC DJF GNF GYD IDR IQD IRR ISK JPY KMF KPW KRW LAK LBP MGA MMK MNT MUR PKR PYG RSD RWF SLL ' +
    'SOS SYP TWD TZS UGX UZS VND VUV XAF XOF XPF YER').split(' '),
);
const THREE_DECIMALS = new Set('BHD JOD KWD LYD OMR TND'.split(' '));

export function isWooCurrency(code: string): boolean {
  return CURRENCIES.has(code);
}

/** The price decimals a store set up for `currency` has (locale-info.php's num_decimals; 2, the option's default, for a currency no country uses). */
export function priceDecimalsFor(currency: string): number {
  return NO_DECIMALS.has(currency) ? 0 : THREE_DECIMALS.has(currency) ? 3 : 2;
}

/**
 * A money field as WooCommerce reads it, in units of 10^-decimals: wc_format_decimal($value) keeps digits, '.' and '-'
 * (only the last '.'), PHP's float cast reads the leading number (none: 0), and the simulator rounds it half away from
 * zero to the store's decimals, as wc_format_decimal($value, $dp) writes it. Exact on the digits (PHP rounds the float,
 * whose pre-rounding gives the same result for amounts of up to 15 digits). null: beyond a safe integer of units.
 */
export function parseWooAmount(value: string, decimals: number): number | null {
  const cleaned = value.replace(/\.(?![^.]+$)|[^0-9.-]/g, '');
  const match = /^(-?)(\d*)(?:\.(\d*))?/.exec(cleaned);
  const [, sign = '', whole = '', fraction = ''] = match ?? [];
  const kept = BigInt(`${whole}${fraction.slice(0, decimals).padEnd(decimals, '0')}` || '0');
  // Half away from zero: the first dropped digit decides.
  const rounded = kept + (Number(fraction[decimals] ?? '0') >= 5 ? 1n : 0n);
  if (rounded > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  const units = Number(rounded);
  return sign && units ? -units : units;
}

/** wc_format_decimal($amount, $dp): a REST money field, with exactly the store's decimals ("24.90", "2490", "0.005"). */
export function formatWooAmount(units: number, decimals: number): string {
  return unitsToDecimal(units, decimals);
}

/** A product's price as the store saved it: its decimals without trailing zeros ("24.9", "18"), rtrim as wc_format_decimal's $trim_zeros does. */
export function wooPriceString(units: number, decimals: number): string {
  const text = formatWooAmount(units, decimals);
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/** A float of major units (WooCommerce's tax arithmetic, already rounded to the decimals) as whole units. */
export function majorToUnits(major: number, decimals: number): number {
  return Math.round(major * 10 ** decimals);
}

/** Whole units as the float of major units WooCommerce's tax arithmetic works on ((float) $item->get_total()). */
export function unitsToMajor(units: number, decimals: number): number {
  return Number(formatWooAmount(units, decimals));
}
