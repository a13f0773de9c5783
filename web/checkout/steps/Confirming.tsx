// The payment step seen from the checkout page. Back from the processor: "Confirming your payment…" while the page
// confirms it (web/checkout/follow.ts). A payment started and not finished (the shopper came back without paying, or
// no result yet): continue it on the processor's page, check again, or go back and change the details (a new
// attempt with the new total replaces the unpaid one).
import { Notice, Spinner } from '../parts.js';

export function Confirming() {
  return (
    <section class="card notice" aria-busy="true">
      <h1>
        <Spinner /> Confirming your payment…
      </h1>
      <p role="status">This takes a few seconds. Please keep this page open.</p>
    </section>
  );
}

export function PaymentPending(props: { paymentUrl: string | null; onCheckAgain: () => void; onChangeDetails: () => void }) {
  return (
    <Notice
      title="Your payment is not complete yet"
      body="We have not received a confirmation of your payment. If you left the payment page early, continue your payment there, or change your details first."
    >
      <div class="actions">
        {props.paymentUrl && (
          <a class="button" href={props.paymentUrl}>
            Continue to payment
          </a>
        )}
        <button type="button" class="secondary" onClick={props.onChangeDetails}>
          Change details
        </button>
        <button type="button" class="secondary" onClick={props.onCheckAgain}>
          Check again
        </button>
      </div>
    </Notice>
  );
}
