// A country as typed: an ISO 3166-1 alpha-2 code of domain/countries.ts (or XK) in any letter case, with the spaces a
// form may leave around it; answered upper-case. The pattern states the whole list, so the document says exactly
// what the API takes (as for reserved slugs); one component (CountryCode) carries it.
import { COUNTRY_CODES } from '../../domain/countries.js';
import { caseless, trimmed } from './text.js';

const COUNTRY_PATTERN = new RegExp(`^(?:${COUNTRY_CODES.map(caseless).join('|')})$`);

export const countryCode = trimmed(COUNTRY_PATTERN, 'choose a country: a two-letter code such as DE')
  .toUpperCase()
  .meta({ id: 'CountryCode', description: 'ISO 3166-1 alpha-2 country code (or XK), any letter case' });
