// Shipping rates (wizard step 3 and the Shipping page): the whole list is saved at once, in EUR; the
// checkout converts rates and thresholds into the shopper's currency and lists them cheapest first.
import { api } from '../api.js';
import { centsToInput, formatAmount, inputToCents } from '../format.js';
import { invalid, useForm } from '../form.js';
import { useSession } from '../session.js';
import type { Merchant } from '../types.js';
import { Button, Card, Checkbox, Empty, Field, Form, PageHeader } from '../ui.js';

interface RateRow {
  name: string;
  free: boolean;
  price: string;
  threshold: string;
}

const blank = (): RateRow => ({ name: '', free: false, price: '', threshold: '' });

export function ShippingRatesForm(props: { onSaved?: (m: Merchant) => void; submitLabel?: string }) {
  const { me, setMe } = useSession();
  const initial = (me?.shippingRates ?? []).map((r): RateRow => ({ name: r.name, free: r.free, price: centsToInput(r.basePriceCents), threshold: centsToInput(r.freeThresholdCents) }));
  const form = useForm<{ rows: RateRow[] }>({ rows: initial.length ? initial : [blank()] }, ['shippingRates']);
  const rows = form.values.rows;
  const update = (i: number, patch: Partial<RateRow>) => {
    form.set('rows', rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
    const cleared = { ...form.errors };
    for (const key of Object.keys(patch)) delete cleared[`shippingRates.${i}.${key === 'price' ? 'basePriceCents' : key === 'threshold' ? 'freeThresholdCents' : key}`];
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
        return { name: r.name.trim(), free: r.free, basePriceCents, freeThresholdCents };
      });
      if (Object.keys(problems).length) throw invalid(problems);
      const updated = await api.patch<Merchant>('/api/merchant/config', { shippingRates });
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
          <Checkbox label="Always free" name={`shippingRates.${i}.free`} checked={r.free} onChange={(c) => update(i, { free: c })} />
          <Button variant="ghost" small onClick={() => form.set('rows', rows.filter((_, j) => j !== i))}>Remove</Button>
        </fieldset>
      ))}
      <div class="button-row">
        <Button variant="secondary" onClick={() => form.set('rows', [...rows, blank()])} disabled={rows.length >= 20}>Add a rate</Button>
        <Button type="submit" busy={form.busy}>{props.submitLabel ?? 'Save rates'}</Button>
      </div>
      <p class="hint">Prices are in EUR; a checkout in another currency converts them with the day's ECB rate.</p>
    </Form>
  );
}

export function ShippingPage() {
  const { me } = useSession();
  return (
    <>
      <PageHeader title="Shipping rates" description="Shoppers pick one; it is added to the cart total and charged as one amount." />
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
                </li>
              ))}
          </ul>
        </Card>
      )}
    </>
  );
}
