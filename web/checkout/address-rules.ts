// The country's address rules on the page, the API's own (domain/address-rule-logic.ts over Google's address metadata,
// domain/address-rules.ts): the postal code's format, the region list and whether it is required. The page fetches one
// country's metadata when the shopper picks the country (GET /api/checkout/address-rules/:country, cached a day), so its
// script carries the rules' logic and none of the countries' data. Until a country's data is there, or when it could
// not be fetched, the general fields show and the API's own check stands.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { addressRulesFrom, type AddressRules, type CountryMetadata } from '../../domain/address-rule-logic.js';
import { api } from '../shared/api.js';

export type { AddressRules };

/** Each country's metadata as fetched (null: the country has no specific rule). */
const fetched = new Map<string, CountryMetadata | null>();
const inFlight = new Map<string, Promise<void>>();

function fetchCountry(country: string): Promise<void> {
  const started = api<{ metadata: CountryMetadata | null }>('GET', `/api/checkout/address-rules/${encodeURIComponent(country)}`)
    .then((r) => {
      if (r.ok) fetched.set(country, r.data.metadata);
    })
    .finally(() => inFlight.delete(country));
  inFlight.set(country, started);
  return started;
}

/** The rules over what was fetched so far. */
const rulesNow = (): AddressRules => addressRulesFrom((country) => fetched.get(country) ?? undefined);

/** The rules once these countries' data is fetched (a failed fetch is tried again next time). */
export async function loadAddressRules(countries: readonly string[]): Promise<AddressRules> {
  const wanted = [...new Set(countries.filter(Boolean).map((c) => c.toUpperCase()))].filter((c) => !fetched.has(c));
  await Promise.all(wanted.map((c) => inFlight.get(c) ?? fetchCountry(c)));
  return rulesNow();
}

/** The rules for the countries the form shows, fetched as they are chosen. */
export function useAddressRules(countries: readonly string[]): AddressRules {
  const [version, setVersion] = useState(0);
  const key = countries.join(',');
  useEffect(() => {
    let gone = false;
    void loadAddressRules(countries).then(() => !gone && setVersion((v) => v + 1));
    return () => {
      gone = true;
    };
  }, [key]);
  return useMemo(rulesNow, [version]);
}
