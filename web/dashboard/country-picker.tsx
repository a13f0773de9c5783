// Where a shipping rate ships: every country the store ships to (following the store), or a list the merchant picks
// from all countries, found by typing part of a name or a code. Names come from the browser in the merchant's
// language (domain/countries.ts keeps codes only).
import { useId, useMemo, useState } from 'preact/hooks';
import { COUNTRY_CODES } from '../../domain/countries.js';
import { locale } from './format.js';

export type RateCountries = 'store' | string[];

let names: Intl.DisplayNames | null | undefined;
/** "Germany" for DE, in the merchant's language (the code where the browser has no name). */
export function countryName(code: string): string {
  if (names === undefined) {
    try {
      names = new Intl.DisplayNames([locale, 'en'], { type: 'region' });
    } catch {
      names = null;
    }
  }
  return names?.of(code) ?? code;
}

const ALL = () => COUNTRY_CODES.map((code) => ({ code, name: countryName(code) })).sort((a, b) => a.name.localeCompare(b.name, locale));

/** A short phrase for a list of countries: "Austria, Germany" or "Austria, Germany and 3 more". */
export function countriesPhrase(codes: readonly string[], shown = 3): string {
  const named = codes.map(countryName).sort((a, b) => a.localeCompare(b, locale));
  return named.length <= shown ? named.join(', ') : `${named.slice(0, shown).join(', ')} and ${named.length - shown} more`;
}

export function CountryPicker(props: {
  /** Field path of the countries (`shippingRates.0.countries`), for its error and the tests. */
  name: string;
  value: RateCountries;
  onChange: (value: RateCountries) => void;
  /** What the store ships to, as last read (null: never read). */
  storeCountries: string[] | null;
  error?: string | undefined;
}) {
  const id = useId();
  const [query, setQuery] = useState('');
  const all = useMemo(ALL, []);
  const chosen = props.value === 'store' ? [] : props.value;
  const q = query.trim().toLowerCase();
  const matches = q ? all.filter((c) => c.name.toLowerCase().includes(q) || c.code.toLowerCase() === q) : all;
  const toggle = (code: string, on: boolean) => props.onChange(on ? [...chosen, code] : chosen.filter((c) => c !== code));
  const store = props.storeCountries;
  const storeLabel = store === null
    ? 'Every country your store ships to (not read from the store yet: every country until it is)'
    : store.length === 0 ? 'Every country your store ships to (the store ships to none)' : `Every country your store ships to (${store.length === COUNTRY_CODES.length ? 'all' : store.length})`;
  const errorId = `${id}-error`;
  const outsideStore = store === null ? [] : chosen.filter((c) => !store.includes(c));

  return (
    <fieldset class={`field country-picker${props.error ? ' has-error' : ''}`} data-field={props.name} aria-describedby={props.error ? errorId : undefined}>
      <legend>Ships to</legend>
      <label class="radio">
        <input type="radio" name={`${id}-mode`} checked={props.value === 'store'} onChange={() => props.onChange('store')} />
        <span>{storeLabel}</span>
      </label>
      <label class="radio">
        <input type="radio" name={`${id}-mode`} checked={props.value !== 'store'} onChange={() => props.onChange(chosen)} />
        <span>Only these countries{props.value !== 'store' && chosen.length > 0 ? ` (${chosen.length})` : ''}</span>
      </label>
      {props.value !== 'store' && (
        <div class="country-choose">
          {chosen.length > 0 && (
            <ul class="chips" aria-label="Chosen countries">
              {[...chosen].sort((a, b) => countryName(a).localeCompare(countryName(b), locale)).map((code) => (
                <li key={code}>
                  {countryName(code)}
                  <button type="button" class="chip-x" aria-label={`Remove ${countryName(code)}`} onClick={() => toggle(code, false)}>×</button>
                </li>
              ))}
            </ul>
          )}
          {outsideStore.length > 0 && (
            <p class="hint" data-outside-store>
              Not in your store’s own shipping settings: {countriesPhrase(outsideStore)}. Orders there still go to your store as usual.
            </p>
          )}
          <input type="search" aria-label="Search countries" placeholder="Search countries" value={query} onInput={(e) => setQuery((e.currentTarget as HTMLInputElement).value)} />
          <ul class="country-list" role="group" aria-label="Countries">
            {matches.map((c) => (
              <li key={c.code}>
                <label>
                  <input type="checkbox" value={c.code} checked={chosen.includes(c.code)} onChange={(e) => toggle(c.code, (e.currentTarget as HTMLInputElement).checked)} />
                  {c.name}
                </label>
              </li>
            ))}
            {matches.length === 0 && <li class="muted">No country matches “{query}”.</li>}
          </ul>
        </div>
      )}
      {props.error && <p class="field-error" id={errorId} role="alert">{props.error}</p>}
    </fieldset>
  );
}
