// Step 3 of the form: the shipping rates that ship to the shopper's country, cheapest first (as the API lists them);
// a click on the preselected rate confirms it too, for the funnel.
import { t } from '../../i18n.js';
import { FieldError } from '../../parts.js';
import type { ShippingQuote } from '../../types.js';

/** The merchant's estimate in words: "3–5 business days", "1 business day", "Up to 2 business days". */
export function deliveryText(days: { min: number; max: number }): string {
  if (days.max === 0) return t('deliverySameDay');
  if (days.max === 1) return t('deliveryOneDay');
  if (days.min === 0) return t('deliveryUpTo', { max: days.max });
  if (days.min === days.max) return t('deliveryDays', { days: days.min });
  return t('deliveryRange', { min: days.min, max: days.max });
}

export function ShippingRates(props: {
  rates: ShippingQuote[];
  rateId: string;
  error: string | undefined;
  fmt: (minor: number) => string;
  onChoose: (id: string) => void;
  /** The shopper picked or confirmed a rate (funnel progress). */
  onChosen: () => void;
  /** Said instead of the list when there is no rate to show. */
  noRatesText?: string;
}) {
  const { rates, rateId } = props;
  return (
    <fieldset aria-describedby={props.error ? 'rates-err' : undefined}>
      <legend>{t('shippingMethod')}</legend>
      {rates.length === 0 && <p class="muted">{props.noRatesText ?? t('noRates')}</p>}
      <div class="choices">
        {rates.map((r) => (
          <label class={`choice${r.id === rateId ? ' on' : ''}`} key={r.id}>
            <input
              type="radio"
              name="shippingRateId"
              value={r.id}
              checked={r.id === rateId}
              onChange={() => {
                props.onChoose(r.id);
                props.onChosen();
              }}
              // No change event for a click on the preselected rate.
              onClick={props.onChosen}
            />
            <span class="choice-name">
              {r.name}
              {r.deliveryDays && <span class="choice-note">{deliveryText(r.deliveryDays)}</span>}
            </span>
            <span class="choice-price">{r.free ? <span class="free">{t('free')}</span> : props.fmt(r.price.amount)}</span>
          </label>
        ))}
      </div>
      <FieldError id="rates-err" message={props.error} />
    </fieldset>
  );
}
