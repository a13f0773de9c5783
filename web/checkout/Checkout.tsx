// The shopper's checkout page: one session (token in the URL), its state from the embedded session bundle,
// and the steps the API offers: details → init-payment → the processor's page → back here → pay → success;
// or cash on delivery → complete-cod → success. Every view follows the session's real status (follow.ts), never
// a guess from how the page was reached: the form (steps/CheckoutForm), confirming or a pending payment
// (steps/Confirming), success (steps/Success) or a notice.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { currencyDigits } from '../shared/money.js';
import { useFollowedSession } from './follow.js';
import type { PixelEventName } from './pixels.js';
import { lazyPixels } from './pixels-lazy.js';
import { t } from './i18n.js';
import { Frame, Notice } from './parts.js';
import { CheckoutForm } from './steps/CheckoutForm.js';
import { Confirming, PaymentPending } from './steps/Confirming.js';
import { Success } from './steps/Success.js';
import type { Bundle, OrderBump, Pixel, Upsell } from './types.js';

export interface CheckoutProps {
  token: string;
  bundle: Bundle;
  orderBumps: OrderBump[];
  /** Card/wallet payments are possible (the merchant's processor is connected); undefined: unknown, offered. */
  cardEnabled?: boolean;
  upsells?: Upsell[];
  /** Card payments inside this page (the processor's embedded checkout); absent: on the processor's hosted page. */
  embed?: { origin: string; script: string };
  /** Our module with the tracking pixels' code, given only when the merchant has a pixel. */
  pixelsScript?: string;
}

export function Checkout(props: CheckoutProps) {
  const { bundle, token } = props;
  const session = useFollowedSession(token, bundle.status, bundle.preview);
  const { status } = session;
  // From the payment step the shopper may go back to the form (a new attempt replaces the unpaid one).
  const [changing, setChanging] = useState(false);
  // The payment step in the processor's embed (the session is PAYMENT_PENDING meanwhile), and the payment to resume in it.
  const [embedding, setEmbedding] = useState(false);
  const [resume, setResume] = useState<string | null>(null);
  const pixels = useMemo(() => lazyPixels((bundle.pixels ?? []) as Pixel[], props.pixelsScript), [bundle]);
  const fire = (event: PixelEventName, value?: number) =>
    pixels.fire(event, { token, currency: bundle.currency, ...(value === undefined ? {} : { value: value / 10 ** currencyDigits(bundle.currency) }) });

  useEffect(() => {
    if (bundle.preview) return;
    fire('page_view');
    if (status === 'OPEN') fire('begin_checkout', bundle.cart.subtotal.amount);
  }, []);

  let view;
  // The confirmation shows what was paid, so it waits for the stored total (one read of the session): a total
  // put together on the page would leave out the discount and the store's tax.
  if (status === 'COMPLETED' || status === 'COD_CONFIRMED') view = session.totalMinor === null ? <Confirming /> : <Success {...props} status={status} session={{ ...session, totalMinor: session.totalMinor }} pixels={pixels} />;
  else if (status === 'REFUNDED') view = <Notice title={t('refundedTitle')} body={t('refundedBody')} />;
  else if (status === 'ABANDONED') view = <Notice title={t('expiredTitle')} body={t('expiredBody')} />;
  else if (session.confirming) view = <Confirming />;
  else if (status === 'PAYMENT_PENDING' && !changing && !embedding) {
    const resumeHere = props.embed && session.paymentUrl ? () => (setResume(session.paymentUrl), setEmbedding(true)) : undefined;
    view = <PaymentPending paymentUrl={session.paymentUrl} onContinue={resumeHere} onCheckAgain={session.checkAgain} onChangeDetails={() => setChanging(true)} />;
  } else {
    view = (
      <CheckoutForm
        {...props}
        failed={status === 'FAILED'}
        paymentPending={status === 'PAYMENT_PENDING'}
        onStatus={session.setStatus}
        fire={fire}
        resumeUrl={resume}
        onPaymentStep={(on) => {
          setEmbedding(on);
          setResume(null);
          // Followed quietly while the shopper pays (a webhook may settle it first); back to the form otherwise.
          if (on) session.setStatus('PAYMENT_PENDING');
          else setChanging(true);
        }}
        onPaid={(paymentId) => {
          // As back from the hosted page: the address says so (a reload confirms again), then POST pay once and follow.
          history.replaceState(null, '', `?payment_id=${encodeURIComponent(paymentId)}&checkout_status=success`);
          setEmbedding(false);
          session.checkAgain();
        }}
      />
    );
  }
  return <Frame bundle={bundle}>{view}</Frame>;
}
