// Extras: the merchant's order bumps, ticked on the page and priced by the API from the merchant's records.
import { t } from '../../i18n.js';
import { FieldError } from '../../parts.js';
import type { OrderBump } from '../../types.js';

export function OrderBumpChoices(props: { bumps: OrderBump[]; chosen: string[]; error: string | undefined; fmt: (minor: number) => string; onChange: (ids: string[]) => void }) {
  const { bumps, chosen, fmt } = props;
  if (bumps.length === 0) return null;
  return (
    <fieldset class="bumps">
      <legend>{t('addToOrder')}</legend>
      {bumps.map((b) => (
        <label class={`bump${chosen.includes(b.id) ? ' on' : ''}`} key={b.id}>
          <input
            type="checkbox"
            name="orderBumpIds"
            value={b.id}
            checked={chosen.includes(b.id)}
            onChange={(e) => {
              const on = (e.currentTarget as HTMLInputElement).checked;
              props.onChange(on ? [...chosen, b.id] : chosen.filter((id) => id !== b.id));
            }}
          />
          {b.imageUrl && <img src={b.imageUrl} alt="" width={48} height={48} loading="lazy" />}
          <span class="bump-text">
            <strong>{b.title}</strong>
            {b.description && <span class="muted">{b.description}</span>}
          </span>
          <span class="choice-price">
            {b.compareAtPrice && b.compareAtPrice.amount > b.price.amount && <s class="muted">{fmt(b.compareAtPrice.amount)}</s>} {fmt(b.price.amount)}
          </span>
        </label>
      ))}
      <FieldError id="bumps-err" message={props.error} />
    </fieldset>
  );
}
