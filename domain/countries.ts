// The countries a shipping address can be in: ISO 3166-1 alpha-2 codes, plus XK (Kosovo, a user-assigned code that
// Shopify and the carriers use). One list for the API's address rule, the merchant's shipping zones and both web
// pages; names come from the browser (Intl.DisplayNames) in the reader's language, so only codes are kept here.

export const COUNTRY_CODES: readonly string[] = (
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
  'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
  'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO ' +
  'JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR ' +
  'MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO ' +
  'RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV ' +
  'TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW'
).split(' ');

const KNOWN: ReadonlySet<string> = new Set(COUNTRY_CODES);

/** A country code of the list above (upper-case, as the API stores them). */
export function isCountryCode(value: string): boolean {
  return KNOWN.has(value);
}

/**
 * A platform's list of codes as ours: upper-cased, deduplicated, in the list's order; codes that are no country of
 * ours (Shopify's ZZ "unknown region", AN, AC, TA) are left out, since no address of ours can be there.
 */
export function knownCountries(codes: Iterable<string>): string[] {
  const wanted = new Set<string>();
  for (const code of codes) wanted.add(code.toUpperCase());
  return COUNTRY_CODES.filter((c) => wanted.has(c));
}

/** The country's English name with its code ("North Korea (KP)"), for messages; the code alone where the runtime has no names. */
export function countryName(code: string): string {
  try {
    const name = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' }).of(code);
    return name && name !== code ? `${name} (${code})` : code;
  } catch {
    return code;
  }
}
