// Step 2 of the form: the shipping address, and the billing address when the shopper says it differs (the same block,
// its fields named billingAddress.<field> as the API keys their errors, autocomplete tokens "billing …"). The country
// list holds the countries the merchant's rates ship to for the shipping address, every country for the billing one (up
// to about 250 names, sorted in the shopper's language), built only once the shopper starts filling in the form: on a
// slow phone it is a long task. The country's rules (web/checkout/address-rules.ts) name the postal code field ("ZIP
// code" in the US), turn the region into a list of the country's states or provinces, required where its addresses
// need one, and check the postal code's format before the API does. The country comes first: the fields after it
// follow it.
import type { RefObject } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { AddressProblem, AddressRule } from '../../../../domain/address-rules.js';
import type { CheckoutMessageKey } from '../../../../domain/checkout/checkout-messages/en.js';
import type { AddressRules } from '../../address-rules.js';
import { countries, type Country } from '../../countries.js';
import { t } from '../../i18n.js';
import { Field, FieldError } from '../../parts.js';
import type { Address } from '../../types.js';

export interface AddressState {
  name: string;
  line1: string;
  line2: string;
  city: string;
  postalCode: string;
  country: string;
  region: string;
  phone: string;
}

/** Which address a block holds: its fields' names (the API's paths) and its autocomplete section. */
export type AddressKind = 'address' | 'billingAddress';

export const ADDRESS_FIELDS: Array<keyof AddressState> = ['name', 'line1', 'line2', 'postalCode', 'city', 'country', 'region', 'phone'];
const OPTIONAL: ReadonlySet<keyof AddressState> = new Set(['line2', 'region', 'phone']);
/** The fields the API requires whatever the country (the region too, where the country's rule says so). */
export const ADDRESS_REQUIRED = ['name', 'line1', 'city', 'postalCode', 'country'] as const;

/**
 * An address entered before, else empty with `fallbackCountry` (the locale's country for the shipping address); a
 * country that is not offered (any more) starts empty, so the shopper chooses one the shop ships to.
 */
export function initialAddress(a: Address | null | undefined, fallbackCountry: string | undefined, offered: readonly string[]): AddressState {
  return {
    name: a?.name ?? '',
    line1: a?.line1 ?? '',
    line2: a?.line2 ?? '',
    city: a?.city ?? '',
    postalCode: a?.postalCode ?? '',
    country: a?.country && offered.includes(a.country) ? a.country : fallbackCountry && offered.includes(fallbackCountry) ? fallbackCountry : '',
    region: a?.region ?? '',
    phone: a?.phone ?? '',
  };
}

/** The address as the API takes it: trimmed, optional fields left out when empty. */
export function addressBody(address: AddressState): Record<string, string> {
  const body: Record<string, string> = {};
  for (const key of ADDRESS_FIELDS) {
    const v = address[key].trim();
    if (v || !OPTIONAL.has(key)) body[key] = v;
  }
  return body;
}

/** Every required field has something in it (the quote is asked only then). */
export const addressComplete = (address: AddressState) => ADDRESS_REQUIRED.every((f) => address[f].trim() !== '');

/** The page's words for a problem the country's rule finds (the API words the same rule in English). */
export function problemMessage(problem: AddressProblem): string {
  return problem.kind === 'postal-format' ? t('postalCodeFormat', { example: problem.examples.join(', ') }) : t('chooseFromList');
}

/** The country's rule applied on the page: field path (`billingAddress.postalCode`) → message in the page's language. */
export function addressErrors(rules: AddressRules, kind: AddressKind, address: AddressState): Record<string, string> {
  if (!address.country || !address.postalCode.trim()) return {};
  const problems = rules.addressProblems({ country: address.country, postalCode: address.postalCode, region: address.region });
  return Object.fromEntries(Object.entries(problems).map(([field, problem]) => [`${kind}.${field}`, problemMessage(problem)]));
}

const REGION_LABEL: Record<NonNullable<AddressRule['region']>['kind'], CheckoutMessageKey> = { state: 'state', province: 'province', county: 'county', region: 'regionOnly', other: 'regionOnly' };

export function AddressFields(props: {
  kind: AddressKind;
  heading: string;
  address: AddressState;
  errors: Record<string, string>;
  setField: (key: keyof AddressState) => (value: string) => void;
  /** The whole form: the first focus or touch anywhere in it loads the country list. */
  formRef: RefObject<HTMLFormElement | null>;
  locale: string | undefined;
  /** The country codes the shopper can choose (the shipping address: those some rate serves). */
  offered: readonly string[];
  /** A stored country is shown by name at once. */
  loadAtOnce: boolean;
  /** The country rules, once loaded (null until then: the general fields). */
  rules: AddressRules | null;
}) {
  const { address, errors, setField, kind } = props;
  const section = kind === 'address' ? 'shipping' : 'billing';
  const [countryList, setCountryList] = useState<Country[] | null>(null);
  const loadCountries = () => setCountryList((list) => list ?? countries(props.locale, props.offered));
  useEffect(() => {
    const form = props.formRef.current;
    if (!form) return;
    // When the page is idle, and within a second even on a page that never is (a busy phone, a loaded machine).
    const later = () => (window.requestIdleCallback ?? ((cb: () => void) => setTimeout(cb, 1)))(loadCountries, { timeout: 1000 });
    if (props.loadAtOnce) later();
    form.addEventListener('focusin', later, { once: true });
    form.addEventListener('pointerdown', later, { once: true });
    return () => {
      form.removeEventListener('focusin', later);
      form.removeEventListener('pointerdown', later);
    };
  }, []);
  // Until the list is built the select shows its one value, the locale's country code.
  const countryOptions = countryList ?? (address.country ? [{ code: address.country, name: address.country }] : []);
  const rule = address.country ? props.rules?.addressRule(address.country) : undefined;
  const regionRule = rule?.region;
  const id = (field: string) => `f-${kind}-${field}`;
  const err = (field: keyof AddressState) => errors[`${kind}.${field}`];

  const chooseCountry = (code: string) => {
    setField('country')(code);
    // A region of the country before means nothing in another one with a list of its own.
    const next = code ? props.rules?.addressRule(code)?.region : undefined;
    if (next && address.region && !next.options.some((o) => o.code === address.region)) setField('region')('');
  };

  return (
    <fieldset>
      <legend>{props.heading}</legend>
      <div class={`field${err('country') ? ' invalid' : ''}`}>
        <label for={id('country')}>{t('country')}</label>
        <select
          id={id('country')}
          name={`${kind}.country`}
          autoComplete={`${section} country`}
          value={address.country}
          aria-invalid={err('country') ? 'true' : undefined}
          aria-describedby={err('country') ? `${id('country')}-err` : undefined}
          onChange={(e) => chooseCountry((e.currentTarget as HTMLSelectElement).value)}
          onFocus={loadCountries}
          onPointerDown={loadCountries}
        >
          <option value="">{t('selectCountry')}</option>
          {countryOptions.map((c) => (
            <option key={c.code} value={c.code}>
              {c.name}
            </option>
          ))}
        </select>
        <FieldError id={`${id('country')}-err`} message={err('country')} />
      </div>
      <Field name={`${kind}.name`} label={t('fullName')} autoComplete={`${section} name`} value={address.name} error={err('name')} onInput={setField('name')} />
      <Field name={`${kind}.line1`} label={t('street')} autoComplete={`${section} address-line1`} value={address.line1} error={err('line1')} onInput={setField('line1')} />
      <Field name={`${kind}.line2`} label={t('line2')} optional autoComplete={`${section} address-line2`} value={address.line2} error={err('line2')} onInput={setField('line2')} />
      <div class="row">
        <Field
          name={`${kind}.postalCode`}
          label={rule?.postalCode?.kind === 'zip' ? t('zipCode') : t('postalCode')}
          autoComplete={`${section} postal-code`}
          value={address.postalCode}
          error={err('postalCode')}
          onInput={setField('postalCode')}
        />
        <Field name={`${kind}.city`} label={t('city')} autoComplete={`${section} address-level2`} value={address.city} error={err('city')} onInput={setField('city')} />
      </div>
      {regionRule ? (
        <div class={`field${err('region') ? ' invalid' : ''}`}>
          <label for={id('region')}>
            {t(REGION_LABEL[regionRule.kind])}
            {!regionRule.required && <span class="muted"> {t('optional')}</span>}
          </label>
          <select
            id={id('region')}
            name={`${kind}.region`}
            autoComplete={`${section} address-level1`}
            value={props.rules?.regionCode(address.country, address.region) ?? address.region}
            aria-invalid={err('region') ? 'true' : undefined}
            aria-describedby={err('region') ? `${id('region')}-err` : undefined}
            onChange={(e) => setField('region')((e.currentTarget as HTMLSelectElement).value)}
          >
            <option value="">{t('selectRegion')}</option>
            {regionRule.options.map((o) => (
              <option key={o.code} value={o.code}>
                {o.name}
              </option>
            ))}
          </select>
          <FieldError id={`${id('region')}-err`} message={err('region')} />
        </div>
      ) : (
        <Field name={`${kind}.region`} label={t('region')} optional autoComplete={`${section} address-level1`} value={address.region} error={err('region')} onInput={setField('region')} />
      )}
      <Field name={`${kind}.phone`} label={t('phone')} optional type="tel" inputMode="tel" autoComplete={`${section} tel`} value={address.phone} error={err('phone')} onInput={setField('phone')} />
    </fieldset>
  );
}
