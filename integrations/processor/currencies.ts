// The currencies Whop can charge in: the `Currency` enum of its API v1 (@whop/sdk 0.0.42, src/resources/shared.ts,
// "The available currencies on the platform"; the same enum as docs.whop.com's plan and checkout-configuration
// `currency`). A plan or checkout configuration in another currency is refused by Whop, so the shopper would meet
// the error only at the payment step; the service refuses such a checkout when it is created instead (the script
// tag and the plugin then continue to the store's own checkout) and says so when a store is connected.
import type { Currency } from '@whop/sdk/resources/shared';

/** The enum's ISO 4217 members, upper case as the service writes currencies. */
const ISO_CURRENCIES = [
  'USD', 'SGD', 'INR', 'AUD', 'BRL', 'CAD', 'DKK', 'EUR', 'NOK', 'GBP', 'SEK', 'CHF', 'HKD', 'HUF', 'JPY', 'MXN', 'MYR',
  'PLN', 'CZK', 'NZD', 'AED', 'COP', 'RON', 'THB', 'BGN', 'IDR', 'DOP', 'PHP', 'TRY', 'KRW', 'TWD', 'VND', 'PKR', 'CLP',
  'UYU', 'ARS', 'ZAR', 'DZD', 'TND', 'MAD', 'KES', 'KWD', 'JOD', 'ALL', 'XCD', 'AMD', 'BSD', 'BHD', 'BOB', 'BAM', 'KHR',
  'CRC', 'XOF', 'EGP', 'ETB', 'GMD', 'GHS', 'GTQ', 'GYD', 'ILS', 'JMD', 'MOP', 'MGA', 'MUR', 'MDL', 'MNT', 'NAD', 'NGN',
  'MKD', 'OMR', 'PYG', 'PEN', 'QAR', 'RWF', 'SAR', 'RSD', 'LKR', 'TZS', 'TTD', 'UZS', 'RUB', 'CNY', 'KZT', 'AWG',
] as const;

/** The enum's other members: crypto, Whop's own balance and gold, never a store's checkout currency. */
type NotStoreCurrency = 'eth' | 'ape' | 'btc' | 'usdt' | 'whop_usd' | 'xau';

// Compile-time: every member of the SDK's enum is in one of the two lists and nothing else is, so an SDK update that
// adds or drops a currency fails `tsc` here instead of drifting.
type Listed = Lowercase<(typeof ISO_CURRENCIES)[number]> | NotStoreCurrency;
const everyEnumMemberListed: [Exclude<Currency, Listed>] extends [never] ? true : false = true;
const nothingElseListed: [Exclude<Listed, Currency>] extends [never] ? true : false = true;
void everyEnumMemberListed;
void nothingElseListed;

const SUPPORTED: ReadonlySet<string> = new Set(ISO_CURRENCIES);

/** Whether Whop can charge a checkout in this ISO 4217 code (any case). */
export function processorChargesIn(currency: string): boolean {
  return SUPPORTED.has(currency.toUpperCase());
}

/** The currencies Whop can charge a checkout in, sorted (for documentation and error details). */
export const PROCESSOR_CURRENCIES: readonly string[] = [...ISO_CURRENCIES].sort();

/** What a merchant connecting a store in such a currency is told (at connect, before any shopper meets it). */
export function unchargeableStoreCurrency(currency: string): string {
  return `This store sells in ${currency}, a currency the payment processor cannot charge in: its shoppers could not pay by card here. ` +
    'Switch the store to a currency the processor supports (EUR, USD, GBP, …) and connect again';
}
