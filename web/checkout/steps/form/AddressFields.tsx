// Step 2 of the form: the shipping address. The country list holds the countries the merchant's rates ship to (up to
// about 250 names, sorted in the shopper's language), built only once the shopper starts filling in the form: on a slow
// phone it is a long task.
import type { RefObject } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { countries, countryOfLocale, type Country } from '../../countries.js';
import { t } from '../../i18n.js';
import { Field, FieldError } from '../../parts.js';
import type { Bundle } from '../../types.js';

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

export const ADDRESS_FIELDS: Array<keyof AddressState> = ['name', 'line1', 'line2', 'postalCode', 'city', 'country', 'region', 'phone'];
const OPTIONAL: ReadonlySet<keyof AddressState> = new Set(['line2', 'region', 'phone']);

/**
 * The address a returning shopper entered before, else empty with the locale's country; a country that is not offered
 * (any more) starts empty, so the shopper chooses one the shop ships to.
 */
export function initialAddress(shopper: Bundle['shopper'], locale: string | undefined, offered: readonly string[]): AddressState {
  const a = shopper.address;
  return {
    name: a?.name ?? '',
    line1: a?.line1 ?? '',
    line2: a?.line2 ?? '',
    city: a?.city ?? '',
    postalCode: a?.postalCode ?? '',
    country: a?.country && offered.includes(a.country) ? a.country : (countryOfLocale(locale, offered) ?? ''),
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

export function AddressFields(props: {
  heading: string;
  address: AddressState;
  errors: Record<string, string>;
  setField: (key: keyof AddressState) => (value: string) => void;
  /** The whole form: the first focus or touch anywhere in it loads the country list. */
  formRef: RefObject<HTMLFormElement | null>;
  locale: string | undefined;
  /** The country codes the shop ships to (some rate serves each). */
  offered: readonly string[];
  /** A returning shopper's stored country is shown by name at once. */
  loadAtOnce: boolean;
}) {
  const { address, errors, setField } = props;
  const [countryList, setCountryList] = useState<Country[] | null>(null);
  const loadCountries = () => setCountryList((list) => list ?? countries(props.locale, props.offered));
  useEffect(() => {
    const form = props.formRef.current;
    if (!form) return;
    const later = () => (window.requestIdleCallback ?? ((cb: () => void) => setTimeout(cb, 1)))(loadCountries);
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

  return (
    <fieldset>
      <legend>{props.heading}</legend>
      <Field name="address.name" label={t('fullName')} autoComplete="shipping name" value={address.name} error={errors['address.name']} onInput={setField('name')} />
      <Field name="address.line1" label={t('street')} autoComplete="shipping address-line1" value={address.line1} error={errors['address.line1']} onInput={setField('line1')} />
      <Field name="address.line2" label={t('line2')} optional autoComplete="shipping address-line2" value={address.line2} error={errors['address.line2']} onInput={setField('line2')} />
      <div class="row">
        <Field name="address.postalCode" label={t('postalCode')} autoComplete="shipping postal-code" value={address.postalCode} error={errors['address.postalCode']} onInput={setField('postalCode')} />
        <Field name="address.city" label={t('city')} autoComplete="shipping address-level2" value={address.city} error={errors['address.city']} onInput={setField('city')} />
      </div>
      <div class={`field${errors['address.country'] ? ' invalid' : ''}`}>
        <label for="f-address-country">{t('country')}</label>
        <select
          id="f-address-country"
          name="address.country"
          autoComplete="shipping country"
          value={address.country}
          aria-invalid={errors['address.country'] ? 'true' : undefined}
          aria-describedby={errors['address.country'] ? 'f-address-country-err' : undefined}
          onChange={(e) => setField('country')((e.currentTarget as HTMLSelectElement).value)}
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
        <FieldError id="f-address-country-err" message={errors['address.country']} />
      </div>
      <Field name="address.region" label={t('region')} optional autoComplete="shipping address-level1" value={address.region} error={errors['address.region']} onInput={setField('region')} />
      <Field name="address.phone" label={t('phone')} optional type="tel" inputMode="tel" autoComplete="shipping tel" value={address.phone} error={errors['address.phone']} onInput={setField('phone')} />
    </fieldset>
  );
}
