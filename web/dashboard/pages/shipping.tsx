// Shipping rates (wizard step 3 and the Shipping page): the whole list is saved at once, in EUR, each with where it
// ships (every country the store ships to, or the merchant's own countries); the checkout converts rates and
// thresholds into the shopper's currency, offers only the countries some rate ships to and lists the rates that ship
// to the shopper's country, cheapest first.
import { api } from '../api.js';
import { CountryPicker, countriesPhrase, type RateCountries } from '../country-picker.js';
import { centsToInput, formatAmount, formatDate, inputToCents } from '../format.js';
import { invalid, useForm } from '../form.js';
import { useSession } from '../session.js';
import type { Merchant } from '../types.js';
import { Alert, Button, Card, Checkbox, Empty, Field, Form, Outcome, PageHeader } from '../ui.js';

interface RateRow {
  name: string;
  free: boolean;
  price: string;
  threshold: string;
  countries: RateCountries;
  /** The delivery estimate in business days, as typed; both empty: none. */
  daysMin: string;
  daysMax: string;
}

const blank = (): RateRow => ({ name: '', free: false, price: '', threshold: '', countries: 'store', daysMin: '', daysMax: '' });

const DAYS_FIELD = { daysMin: 'deliveryDays.min', daysMax: 'deliveryDays.max' } as const;

/** "3" → 3; empty → null; anything else (or outside 0-90) → the message to show. */
function parseDays(value: string): number | null | { error: string } {
  const v = value.trim();
  if (!v) return null;
  return /^\d{1,2}$/.test(v) && Number(v) <= 90 ? Number(v) : { error: 'enter whole business days, 0 to 90' };
}

/** What the store ships to as the rules read it: null while never read. */
const storeCountriesOf = (me: Merchant | null | undefined) => (me?.storeCountries.readAt ? me.storeCountries.countries : null);

export function ShippingRatesForm(props: { onSaved?: (m: Merchant) => void; submitLabel?: string }) {
  const { me, setMe } = useSession();
  const initial = (me?.shippingRates ?? []).map((r): RateRow => ({
    name: r.name, free: r.free, price: centsToInput(r.basePriceCents), threshold: centsToInput(r.freeThresholdCents), countries: r.countries === 'store' ? 'store' : [...r.countries],
    daysMin: r.deliveryDays ? String(r.deliveryDays.min) : '', daysMax: r.deliveryDays ? String(r.deliveryDays.max) : '',
  }));
  const form = useForm<{ rows: RateRow[] }>({ rows: initial.length ? initial : [blank()] }, ['shippingRates']);
  const rows = form.values.rows;
  const update = (i: number, patch: Partial<RateRow>) => {
    form.set('rows', rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
    const cleared = { ...form.errors };
    for (const key of Object.keys(patch)) {
      const field = `shippingRates.${i}.${key === 'price' ? 'basePriceCents' : key === 'threshold' ? 'freeThresholdCents' : key === 'daysMin' || key === 'daysMax' ? DAYS_FIELD[key] : key}`;
      for (const k of Object.keys(cleared)) if (k === field || k.startsWith(`${field}.`)) delete cleared[k];
    }
    form.setErrors(cleared);
  };
  const submit = () =>
    form.run(async () => {
      const problems: Record<string, string> = {};
      const shippingRates = rows.map((r, i) => {
        if (!r.name.trim()) problems[`shippingRates.${i}.name`] = 'give the rate a name shoppers will see';
        let basePriceCents = 0;
        if (!r.free || r.price.trim()) {
          const price = inputToCents(r.price);
          if (typeof price === 'number') basePriceCents = price;
          else if (!r.free) problems[`shippingRates.${i}.basePriceCents`] = price.error;
        }
        let freeThresholdCents: number | null = null;
        if (r.threshold.trim()) {
          const t = inputToCents(r.threshold);
          if (typeof t === 'number') freeThresholdCents = t;
          else problems[`shippingRates.${i}.freeThresholdCents`] = t.error;
        }
        // One number alone is an exact estimate ("2 business days").
        const min = parseDays(r.daysMin);
        const max = parseDays(r.daysMax);
        if (min !== null && typeof min === 'object') problems[`shippingRates.${i}.deliveryDays.min`] = min.error;
        if (max !== null && typeof max === 'object') problems[`shippingRates.${i}.deliveryDays.max`] = max.error;
        const low = typeof min === 'number' ? min : typeof max === 'number' ? max : null;
        const high = typeof max === 'number' ? max : low;
        if (low !== null && high !== null && high < low) problems[`shippingRates.${i}.deliveryDays.max`] = 'must be at least the fewest days';
        const deliveryDays = low !== null && high !== null ? { min: low, max: high } : null;
        return { name: r.name.trim(), free: r.free, basePriceCents, freeThresholdCents, countries: r.countries, deliveryDays };
      });
      if (Object.keys(problems).length) throw invalid(problems);
      const updated = await api.patch('/api/merchant/config', { body: { shippingRates } });
      setMe(updated);
      props.onSaved?.(updated);
      return shippingRates.length ? `${shippingRates.length} shipping rate${shippingRates.length === 1 ? '' : 's'} saved.` : 'Shipping rates removed.';
    });
  return (
    <Form onSubmit={submit} error={form.error} notice={form.notice} label="Shipping rates">
      {rows.length === 0 && <Empty>No rates: shoppers cannot check out until you add one.</Empty>}
      {rows.map((r, i) => (
        <fieldset class="rate-row" key={i} aria-label={`Shipping rate ${i + 1}`}>
          <legend class="visually-hidden">Shipping rate {i + 1}</legend>
          <Field label="Rate name" name={`shippingRates.${i}.name`} value={r.name} onInput={(x) => update(i, { name: x })} error={form.errors[`shippingRates.${i}.name`]} placeholder="Standard" inputProps={{ maxLength: 60 }} />
          <Field
            label="Price (EUR)"
            name={`shippingRates.${i}.basePriceCents`}
            value={r.price}
            onInput={(x) => update(i, { price: x })}
            error={form.errors[`shippingRates.${i}.basePriceCents`]}
            placeholder="4.90"
            disabled={r.free}
            inputProps={{ inputMode: 'decimal' }}
          />
          <Field
            label="Free from (EUR)"
            name={`shippingRates.${i}.freeThresholdCents`}
            value={r.threshold}
            onInput={(x) => update(i, { threshold: x })}
            error={form.errors[`shippingRates.${i}.freeThresholdCents`]}
            placeholder="optional"
            hint="Carts at or above this ship free"
            inputProps={{ inputMode: 'decimal' }}
          />
          <Field
            label="Delivery from (business days)"
            name={`shippingRates.${i}.deliveryDays.min`}
            value={r.daysMin}
            onInput={(x) => update(i, { daysMin: x })}
            error={form.errors[`shippingRates.${i}.deliveryDays.min`]}
            placeholder="optional"
            hint="Shoppers see the estimate with the rate"
            inputProps={{ inputMode: 'numeric', maxLength: 2 }}
          />
          <Field
            label="Delivery to (business days)"
            name={`shippingRates.${i}.deliveryDays.max`}
            value={r.daysMax}
            onInput={(x) => update(i, { daysMax: x })}
            error={form.errors[`shippingRates.${i}.deliveryDays.max`]}
            placeholder="optional"
            inputProps={{ inputMode: 'numeric', maxLength: 2 }}
          />
          <Checkbox label="Always free" name={`shippingRates.${i}.free`} checked={r.free} onChange={(c) => update(i, { free: c })} />
          <Button variant="ghost" small onClick={() => form.set('rows', rows.filter((_, j) => j !== i))}>Remove</Button>
          <CountryPicker
            name={`shippingRates.${i}.countries`}
            value={r.countries}
            onChange={(countries) => update(i, { countries })}
            storeCountries={storeCountriesOf(me)}
            error={countriesError(form.errors, i)}
          />
        </fieldset>
      ))}
      <div class="button-row">
        <Button variant="secondary" onClick={() => form.set('rows', [...rows, blank()])} disabled={rows.length >= 20}>Add a rate</Button>
        <Button type="submit" busy={form.busy}>{props.submitLabel ?? 'Save rates'}</Button>
      </div>
      <p class="hint">Prices are in EUR; a checkout in another currency converts them with the day's ECB rate. Shoppers can choose only countries a rate ships to.</p>
    </Form>
  );
}

/** The API's message on a rate's countries, or on one of them (`shippingRates.0.countries.3`). */
function countriesError(errors: Record<string, string>, i: number): string | undefined {
  const field = `shippingRates.${i}.countries`;
  const key = Object.keys(errors).find((k) => k === field || k.startsWith(`${field}.`));
  return key ? errors[key] : undefined;
}

/** The countries read from the store, when, and a button to read them again (after changing the store's shipping). */
export function StoreCountries() {
  const { me, setMe } = useSession();
  const form = useForm({});
  if (!me) return null;
  const { countries, readAt, error } = me.storeCountries;
  const refresh = () =>
    void form.run(async () => {
      // The policy pages are read again at the same time (the checkout footer's links, StorePolicies below).
      const { policies, ...read } = await api.post('/api/merchant/store-countries/refresh');
      setMe({ ...me, storeCountries: read, storePolicies: policies });
      return read.error ? undefined : `Read from the store: ${read.countries.length} ${read.countries.length === 1 ? 'country' : 'countries'}.`;
    });
  return (
    <div class="store-countries" data-store-countries={readAt ? 'read' : 'unread'}>
      <div>
        {readAt ? (
          <p>
            Your store ships to <strong>{countries.length} {countries.length === 1 ? 'country' : 'countries'}</strong>
            {countries.length > 0 && countries.length <= 12 && <span>: {countriesPhrase(countries, 12)}</span>}
            <span class="muted"> · read {formatDate(readAt)}</span>
          </p>
        ) : (
          <p>
            {me.storePlatform
              ? 'The countries your store ships to have not been read yet: until they are, rates set to “every country your store ships to” ship everywhere.'
              : 'Connect your store to read the countries it ships to.'}
          </p>
        )}
        <p class="hint">Rates set to “every country your store ships to” follow your store’s shipping settings. Read them again after changing those.</p>
      </div>
      {me.storePlatform && <Button variant="secondary" name="refresh-store-countries" busy={form.busy} onClick={refresh}>Read again from the store</Button>}
      {error && <Alert kind="warning" title="The store did not answer">{error}</Alert>}
      <Outcome of={form} />
    </div>
  );
}

/** The store's policy pages the checkout links to at its foot, as last read (with the countries, by the same button). */
export function StorePolicies() {
  const { me } = useSession();
  if (!me) return null;
  const { policies, readAt, error } = me.storePolicies;
  return (
    <div class="store-policies" data-store-policies={readAt ? 'read' : 'unread'}>
      {policies.length > 0 ? (
        <ul class="plain-list">
          {policies.map((p) => (
            <li key={p.kind}>
              <a href={p.url} target="_blank" rel="noopener">{p.title}</a>
            </li>
          ))}
        </ul>
      ) : (
        <p>{readAt ? 'Your store has no published policy pages: the checkout shows no policy links.' : me.storePlatform ? 'Your store’s policy pages have not been read yet.' : 'Connect your store to read its policy pages.'}</p>
      )}
      <p class="hint">
        {readAt && <span class="muted">Read {formatDate(readAt)}. </span>}
        Your refund, privacy, terms and shipping policies as your store publishes them (Shopify: Settings → Policies; WooCommerce: the terms, privacy and refund pages, published). “Read again from the store” above reads them too.
      </p>
      {error && <Alert kind="warning" title="About your policy pages">{error}</Alert>}
    </div>
  );
}

export function ShippingPage() {
  const { me } = useSession();
  return (
    <>
      <PageHeader title="Shipping rates" description="Shoppers pick one that ships to their country; it is added to the cart total and charged as one amount." />
      <Card title="Where your store ships">
        <StoreCountries />
      </Card>
      <Card title="Policy links at the foot of your checkout">
        <StorePolicies />
      </Card>
      <Card>
        <ShippingRatesForm />
      </Card>
      {me && me.shippingRates.length > 0 && (
        <Card title="What shoppers see (EUR)">
          <ul class="plain-list">
            {[...me.shippingRates]
              .sort((a, b) => (a.free ? 0 : a.basePriceCents) - (b.free ? 0 : b.basePriceCents))
              .map((r) => (
                <li key={r.id}>
                  <strong>{r.name}</strong> — {r.free ? 'Free' : formatAmount(r.basePriceCents, 'EUR')}
                  {r.freeThresholdCents !== null && !r.free && <span class="muted"> · free from {formatAmount(r.freeThresholdCents, 'EUR')}</span>}
                  <span class="muted"> · to {r.countries === 'store' ? 'every country your store ships to' : countriesPhrase(r.countries)}</span>
                  {r.deliveryDays && <span class="muted"> · {r.deliveryDays.min === r.deliveryDays.max ? r.deliveryDays.max : `${r.deliveryDays.min}–${r.deliveryDays.max}`} business {r.deliveryDays.max === 1 ? 'day' : 'days'}</span>}
                </li>
              ))}
          </ul>
        </Card>
      )}
    </>
  );
}
