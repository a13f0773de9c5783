// The shopper's checkout page: one session (token in the URL), its state from the embedded session bundle,
// and the steps the API offers: details → init-payment → the processor's page → back here → pay → success;
// or cash on delivery → complete-cod → success. Every view follows the session's status, never a guess:
// the form (steps/CheckoutForm), confirming a payment (steps/Confirming), success (steps/Success) or a notice.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { currencyDigits } from '../shared/money.js';
import { createPixels, type PixelEventName } from './pixels.js';
import { Frame, Notice } from './parts.js';
import { CheckoutForm } from './steps/CheckoutForm.js';
import { Confirming } from './steps/Confirming.js';
import { Success } from './steps/Success.js';
import type { Bundle, OrderBump, Pixel, Status, Upsell } from './types.js';

export interface CheckoutProps {
  token: string;
  bundle: Bundle;
  orderBumps: OrderBump[];
  /** Card/wallet payments are possible (the merchant's processor is connected); undefined: unknown, offered. */
  cardEnabled?: boolean;
  upsells?: Upsell[];
}

export function Checkout(props: CheckoutProps) {
  const { bundle, token } = props;
  const [status, setStatus] = useState<Status>(bundle.status);
  const pixels = useMemo(() => createPixels((bundle.pixels ?? []) as Pixel[]), [bundle]);
  const fire = (event: PixelEventName, value?: number) =>
    pixels.fire(event, { token, currency: bundle.currency, ...(value === undefined ? {} : { value: value / 10 ** currencyDigits(bundle.currency) }) });

  useEffect(() => {
    if (bundle.preview) return;
    fire('page_view');
    if (status === 'OPEN') fire('begin_checkout', bundle.cart.subtotal.amount);
  }, []);

  let view;
  if (status === 'COMPLETED' || status === 'COD_CONFIRMED') view = <Success {...props} status={status} pixels={pixels} />;
  else if (status === 'REFUNDED') view = <Notice title="This order was refunded" body="The payment for this order was refunded. Contact the shop if you have any questions." />;
  else if (status === 'ABANDONED') view = <Notice title="This checkout has expired" body="This checkout link is no longer active. Return to the shop and check out again; your cart may still be there." />;
  else if (status === 'PAYMENT_PENDING') view = <Confirming token={token} onStatus={setStatus} />;
  else view = <CheckoutForm {...props} failed={status === 'FAILED'} onStatus={setStatus} fire={fire} />;
  return <Frame bundle={bundle}>{view}</Frame>;
}
