// The address rules' logic, apart from their data (domain/address-rules.ts loads Google's metadata for the API; the
// checkout page fetches one country's metadata at a time from GET /api/checkout/address-rules/:country), so the page's
// script carries the rules without the 37 countries' data. Pure.
/** What is read of one country's metadata file (the rest, formats and languages, is left alone). */
export interface CountryMetadata {
  key: string;
  zip?: string;
  zipex?: string;
  require?: string;
  zip_name_type?: string;
  state_name_type?: string;
  sub_regions?: ReadonlyArray<{ key: string; name: Readonly<Record<string, string | undefined>> }>;
}

/** What a country calls its postal code (Google's zip_name_type). */
export type PostalCodeKind = 'postal' | 'zip' | 'eircode' | 'pin';
/** What a country calls its regions (Google's state_name_type; province when it says nothing). */
export type RegionKind = 'state' | 'province' | 'county' | 'region' | 'other';

export interface RegionOption {
  /** ISO 3166-2 subdivision code without the country ("CA", "ON", "NSW", "MI"): what is stored and sent to the store. */
  code: string;
  /** Its name in the country's own language (Google's default name). */
  name: string;
}

export interface AddressRule {
  country: string;
  postalCode?: {
    /** The whole value, any letter case (codes are stored upper-case). */
    pattern: RegExp;
    /** Real postal codes of the country (Google's zipex), for the message and the field's placeholder. */
    examples: string[];
    kind: PostalCodeKind;
  };
  region?: {
    /** A deliverable address in this country names its region (Google's require has S). */
    required: boolean;
    kind: RegionKind;
    options: RegionOption[];
  };
}

function ruleOf(m: CountryMetadata): AddressRule {
  const rule: AddressRule = { country: m.key };
  if (m.zip) {
    const kind = m.zip_name_type === 'zip' || m.zip_name_type === 'eircode' || m.zip_name_type === 'pin' ? m.zip_name_type : 'postal';
    rule.postalCode = { pattern: new RegExp(`^(?:${m.zip})$`, 'i'), examples: (m.zipex ?? '').split(',').filter(Boolean).slice(0, 2), kind };
  }
  if (m.sub_regions?.length) {
    const t = m.state_name_type;
    const kind: RegionKind = t === undefined || t === 'province' ? 'province' : t === 'state' || t === 'county' || t === 'region' ? t : 'other';
    rule.region = {
      required: (m.require ?? 'AC').includes('S'),
      kind,
      options: m.sub_regions.map((r) => ({ code: r.key, name: r.name.default ?? r.key })),
    };
  }
  return rule;
}


/** What is wrong with an address's postal code and region for its country; both absent when nothing is. */
export type AddressProblems = Partial<Record<'postalCode' | 'region', AddressProblem>>;

export type AddressProblem =
  | { kind: 'postal-format'; examples: string[]; postalKind: PostalCodeKind }
  | { kind: 'region-missing'; regionKind: RegionKind }
  | { kind: 'region-unknown'; regionKind: RegionKind; examples: string[] };


/** The rules over whatever metadata `lookup` gives (undefined: no rule for that country, the general rule applies). */
export function addressRulesFrom(lookup: (country: string) => CountryMetadata | undefined) {
  const rules = new Map<string, AddressRule | undefined>();

  /** The rule of a country (ISO 3166-1 alpha-2, any case); undefined for a country without one (the general rule applies). */
  function addressRule(country: string): AddressRule | undefined {
    const key = country.toUpperCase();
    if (!rules.has(key)) {
      const data = lookup(key);
      rules.set(key, data ? ruleOf(data) : undefined);
    }
    return rules.get(key);
  }

  /** A postal code as stored: trimmed, inner runs of spaces as one, upper-case where the country has a format. */
  function normalizePostalCode(country: string, value: string): string {
    const v = value.trim().replace(/\s+/g, ' ');
    return addressRule(country)?.postalCode ? v.toUpperCase() : v;
  }

  /** The region's code when `value` names one of the country's regions (by code or by any of its names, any case). */
  function regionCode(country: string, value: string): string | undefined {
    const region = addressRule(country)?.region;
    const v = value.trim().toLowerCase();
    if (!region || !v) return undefined;
    const data = lookup(country.toUpperCase());
    const byName = data?.sub_regions?.find((r) => r.key.toLowerCase() === v || Object.values(r.name).some((n) => n?.toLowerCase() === v));
    return byName?.key;
  }

  /**
   * The country's rule applied to a postal code and region as typed (the country already checked as a code).
   * Language-free: the API words the problems in English (addressProblemMessage), the page in the shopper's language.
   */
  function addressProblems(address: { country: string; postalCode: string; region?: string | undefined }): AddressProblems {
    const rule = addressRule(address.country);
    const problems: AddressProblems = {};
    if (!rule) return problems;
    const postal = normalizePostalCode(address.country, address.postalCode);
    if (rule.postalCode && postal !== '' && !rule.postalCode.pattern.test(postal)) {
      problems.postalCode = { kind: 'postal-format', examples: rule.postalCode.examples, postalKind: rule.postalCode.kind };
    }
    const region = address.region?.trim() ?? '';
    if (rule.region) {
      if (region === '' && rule.region.required) problems.region = { kind: 'region-missing', regionKind: rule.region.kind };
      else if (region !== '' && regionCode(address.country, region) === undefined) {
        problems.region = { kind: 'region-unknown', regionKind: rule.region.kind, examples: rule.region.options.slice(0, 3).map((o) => o.code) };
      }
    }
    return problems;
  }

  return { addressRule, normalizePostalCode, regionCode, addressProblems };
}

export type AddressRules = ReturnType<typeof addressRulesFrom>;

const POSTAL_WORD: Record<PostalCodeKind, string> = { postal: 'postal code', zip: 'ZIP code', eircode: 'Eircode', pin: 'PIN code' };
const REGION_WORD: Record<RegionKind, string> = { state: 'state', province: 'province', county: 'county', region: 'region', other: 'region' };

/** The API's English message for a problem: what to enter, naming the expected format by the country's real codes. */
export function addressProblemMessage(country: string, problem: AddressProblem): string {
  switch (problem.kind) {
    case 'postal-format':
      return `enter the ${POSTAL_WORD[problem.postalKind]} in the format used in ${country}, e.g. ${problem.examples.join(' or ')}`;
    case 'region-missing':
      return `choose the ${REGION_WORD[problem.regionKind]}: addresses in ${country} need one`;
    case 'region-unknown':
      return `choose a ${REGION_WORD[problem.regionKind]} of ${country}: its code (e.g. ${problem.examples.join(', ')}) or its name`;
  }
}
