// Step 4 of the form: card or wallet (the processor's page) and cash on delivery, as the merchant offers them.
import { t } from '../../i18n.js';

export type PaymentMethod = 'card' | 'cod';

export function PaymentMethods(props: { heading: string; cardEnabled: boolean; codEnabled: boolean; method: PaymentMethod; onChange: (m: PaymentMethod) => void }) {
  const { cardEnabled, codEnabled, method } = props;
  return (
    <fieldset>
      <legend>{props.heading}</legend>
      <div class="choices">
        {cardEnabled && (
          <label class={`choice${method === 'card' ? ' on' : ''}`}>
            <input type="radio" name="method" value="card" checked={method === 'card'} onChange={() => props.onChange('card')} />
            <span class="choice-name">{t('cardOrWallet')}</span>
            <span class="muted small">{t('cardNote')}</span>
          </label>
        )}
        {codEnabled && (
          <label class={`choice${method === 'cod' ? ' on' : ''}`}>
            <input type="radio" name="method" value="cod" checked={method === 'cod'} onChange={() => props.onChange('cod')} />
            <span class="choice-name">{t('cashOnDelivery')}</span>
            <span class="muted small">{t('codNote')}</span>
          </label>
        )}
      </div>
      {!cardEnabled && !codEnabled && <p class="muted">{t('noPayments')}</p>}
    </fieldset>
  );
}
