// ISO 3166-1 alpha-2 codes; names come from the browser (Intl.DisplayNames) in the shopper's language,
// so the page ships codes only.
const CODES =
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
  'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
  'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO ' +
  'JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR ' +
  'MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO ' +
  'RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV ' +
  'TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW';

export interface Country {
  code: string;
  name: string;
}

/** Every country, named and sorted in `locale`. */
export function countries(locale: string | undefined): Country[] {
  let names: Intl.DisplayNames | undefined;
  try {
    names = new Intl.DisplayNames(locale ? [locale, 'en'] : ['en'], { type: 'region' });
  } catch {
    names = undefined;
  }
  const list = CODES.split(' ').map((code) => ({ code, name: names?.of(code) ?? code }));
  const collator = new Intl.Collator(locale);
  return list.sort((a, b) => collator.compare(a.name, b.name));
}

/** The region of the shopper's locale ("de-AT" → "AT"), when it is a country code. */
export function countryOfLocale(locale: string | undefined): string | undefined {
  const region = locale?.split('-').find((part, i) => i > 0 && /^[A-Z]{2}$/.test(part));
  return region && CODES.includes(region) ? region : undefined;
}
