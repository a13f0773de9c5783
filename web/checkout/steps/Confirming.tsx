// The payment step seen from the checkout page. Back from the processor: "Confirming your payment…" while the page
// confirms it (web/checkout/follow.ts). A payment started and not finished (the shopper came back without paying, or
// no result yet): continue it (in the processor's embed on this page, or on the processor's page), check again, or go back and change the details (a new
// attempt with the new total replaces the unpaid one).
import { t } from '../i18n.js';
import { Notice, Spinner } from '../parts.js';

export function Confirming() {
  return (
    <section class="card notice" aria-busy="true">
      <h1>
        <Spinner /> {t('confirming')}
      </h1>
      <p role="status">{t('keepOpen')}</p>
    </section>
  );
}

export function PaymentPending(props: { paymentUrl: string | null; onContinue?: () => void; onCheckAgain: () => void; onChangeDetails: () => void }) {
  return (
    <Notice
      title={t('pendingTitle')}
      body={t('pendingBody')}
    >
      <div class="actions">
        {props.onContinue ? (
          <button type="button" class="button" onClick={props.onContinue}>
            {t('continuePayment')}
          </button>
        ) : (
          props.paymentUrl && (
            <a class="button" href={props.paymentUrl}>
              {t('continuePayment')}
            </a>
          )
        )}
        <button type="button" class="secondary" onClick={props.onChangeDetails}>
          {t('changeDetails')}
        </button>
        <button type="button" class="secondary" onClick={props.onCheckAgain}>
          {t('checkAgain')}
        </button>
      </div>
    </Notice>
  );
}
