// Success: the order's number as the store names it (being confirmed until the store has created the order), the
// way back to the shop, the order summary as stored, the purchase pixel event (once per session), and the
// merchant's post-purchase offers — only where the API says the card can be charged again with one click (a card
// paid on the processor's hosted page cannot: no offer is shown rather than one that would be refused).
// Nothing internal (no token, no processor id) is shown.
import { useEffect, useRef, useState } from 'preact/hooks';
import { orderNumberLabel } from '../../../domain/checkout/store-order.js';
import { api } from '../../shared/api.js';
import { currencyDigits, formatMoney } from '../../shared/money.js';
import type { FollowedSession } from '../follow.js';
import { parseUpsellOneClick } from '../offers.js';
import type { Pixels } from '../pixels.js';
import { Spinner, Summary, type Totals } from '../parts.js';
import { pageLocale, t, tParts } from '../i18n.js';
import { text } from '../texts.js';
import type { Address, Bundle, OrderBump, Status, Upsell } from '../types.js';

/** The page's locale, read when used: the page's language is set after this module loads. */
const locale = () => pageLocale();

function countryName(code: string): string {
  try {
    const tag = locale();
    return new Intl.DisplayNames(tag ? [tag, 'en'] : ['en'], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
}

export interface SuccessProps {
  token: string;
  bundle: Bundle;
  status: Status;
  /** The session as followed (web/checkout/follow.ts): its stored total and the order on the store. */
  session: Pick<FollowedSession, 'storeOrder'> & { totalMinor: number };
  pixels: Pixels;
  orderBumps: OrderBump[];
  upsells?: Upsell[];
}

/** The store's number for the order, or what is true while it has none. */
function OrderNumber({ storeOrder }: { storeOrder: SuccessProps['session']['storeOrder'] }) {
  if (storeOrder?.number) {
    return (
      <p class="order-no" data-order-number>
        {t('orderNumber', { number: orderNumberLabel(storeOrder.number) })}
      </p>
    );
  }
  if (storeOrder?.state === 'failed' || storeOrder?.state === 'created') return <p class="muted">{t('orderNumberByEmail')}</p>;
  return (
    <p class="muted" role="status">
      <Spinner /> {t('orderNumberPending')}
    </p>
  );
}

/** The shop's storefront (the bundle's shopUrl), only as a web address. */
const webAddress = (url: string | null | undefined) => (url && /^https?:\/\//i.test(url) ? url : null);

export function Success({ token, bundle: initial, status, session, pixels, upsells, orderBumps }: SuccessProps) {
  // The session as stored now (the shopper's details, the accepted bumps and code).
  const [bundle, setBundle] = useState(initial);
  useEffect(() => {
    void api<Bundle>('GET', `/api/checkout/session-bundle/${token}`).then((r) => r.ok && setBundle(r.data));
  }, [token]);
  const paidTotal = session.totalMinor;
  useEffect(() => {
    if (!initial.preview) pixels.fire('purchase', { token, currency: initial.currency, value: paidTotal / 10 ** currencyDigits(initial.currency) });
  }, [paidTotal]);
  const h = useRef<HTMLHeadingElement>(null);
  useEffect(() => h.current?.focus(), []);
  // The merchant's post-purchase offers: one click adds one (the same card is charged), so they are shown only once the
  // API, asked now that the order is paid, says that card can be charged again.
  const [oneClick, setOneClick] = useState(false);
  useEffect(() => {
    void api<unknown>('GET', `/api/checkout/${token}/upsells`).then((r) => r.ok && setOneClick(parseUpsellOneClick(r.data)));
  }, [token]);
  const offers = oneClick ? (upsells ?? []).filter((u) => u.placement === 'post_purchase' && u.offerPrice.currency === bundle.currency) : [];

  const rate = bundle.shipping.find((r) => r.id === bundle.shopper.shippingRateId);
  const bumps = orderBumps.filter((b) => (bundle.shopper.orderBumpIds ?? []).includes(b.id));
  const subtotal = bundle.cart.subtotal.amount;
  const bumpTotal = bumps.reduce((n, b) => n + b.price.amount, 0);
  const shipping = rate ? rate.price.amount : 0;
  const total = session.totalMinor;
  const shopUrl = webAddress(bundle.shopUrl);
  // The stored total is the truth: the discount as stored, and what the total is above items + bumps + shipping − discount
  // is the store's tax (charged on top; a store whose prices include tax adds none).
  const discountMinor = bundle.shopper.discountMinor ?? Math.max(0, subtotal + bumpTotal + shipping - total);
  const taxOnTop = Math.max(0, total - (subtotal + bumpTotal + shipping - discountMinor));
  const totals: Totals = { subtotal, bumps: bumpTotal, discount: discountMinor, shipping, tax: taxOnTop > 0 ? { amount: taxOnTop, included: false } : null, total };
  const cod = status === 'COD_CONFIRMED';
  return (
    <div class="layout done">
      <section class="card" aria-labelledby="success-h">
        <p class="check" aria-hidden="true">✓</p>
        <h1 id="success-h" tabIndex={-1} ref={h}>
          {text(bundle, 'successMessage')}
        </h1>
        <OrderNumber storeOrder={session.storeOrder} />
        <p>
          {cod ? t('codPlaced') : t('paidPlaced')}
          {bundle.shopper.email && (
            <>
              {' '}
              {tParts('confirmationTo', { email: <strong>{bundle.shopper.email}</strong> })}
            </>
          )}
        </p>
        {bundle.shopper.address && (
          <div class="ship-to">
            <h2>{t('shippingTo')}</h2>
            <AddressLines address={bundle.shopper.address} />
            {rate && <p class="muted">{t('shippingMethodIs', { name: rate.name })}</p>}
          </div>
        )}
        {bundle.shopper.billingAddress && (
          <div class="ship-to">
            <h2>{t('billingHeading')}</h2>
            <AddressLines address={bundle.shopper.billingAddress} />
          </div>
        )}
        {shopUrl && (
          <p class="back">
            <a class="button" href={shopUrl}>
              {t('backTo', { shop: bundle.shopName })}
            </a>
          </p>
        )}
        {offers.map((u) => (
          <aside class="offer" key={u.id} aria-label={t('offer')}>
            {u.imageUrl && <img src={u.imageUrl} alt="" width={56} height={56} loading="lazy" />}
            <div>
              <p class="offer-h">{u.headline}</p>
              <p class="small">
                {u.title}: <s class="muted">{formatMoney(u.price.amount, u.price.currency, locale())}</s> <strong>{formatMoney(u.offerPrice.amount, u.offerPrice.currency, locale())}</strong> (−{u.discountPercent}%)
              </p>
              {u.description && <p class="muted small">{u.description}</p>}
              {status === 'COMPLETED' && !initial.preview && <AcceptOffer token={token} upsell={u} />}
            </div>
          </aside>
        ))}
      </section>
      <Summary items={bundle.cart.items} bumps={bumps} totals={totals} currency={bundle.currency} locale={locale()} discountCode={bundle.shopper.discountCode} shippingFree={rate?.free} />
    </div>
  );
}

interface UpsellCharge {
  state: 'pending' | 'paid' | 'failed' | 'refunded';
  amount: { amount: number; currency: string };
  failureReason: string | null;
}

/** One click: the card the order was paid with is charged the offer price; the answer says what happened. */
function AcceptOffer({ token, upsell }: { token: string; upsell: Upsell }) {
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<{ charge?: UpsellCharge; error?: string } | null>(null);
  const accept = async () => {
    setBusy(true);
    const r = await api<UpsellCharge>('POST', `/api/checkout/${token}/upsells/${upsell.id}/accept`);
    setBusy(false);
    setAnswer(r.ok ? { charge: r.data } : { error: r.message });
  };
  const charge = answer?.charge;
  if (charge?.state === 'paid') return <p class="small" role="status">{t('offerAdded', { amount: formatMoney(charge.amount.amount, charge.amount.currency, locale()) })}</p>;
  if (charge?.state === 'pending') return <p class="small" role="status">{t('offerPending')}</p>;
  return (
    <>
      {charge?.state === 'failed' && <p class="small error" role="alert">{charge.failureReason ? t('offerDeclinedReason', { reason: charge.failureReason }) : t('offerDeclined')}</p>}
      {answer?.error && <p class="small error" role="alert">{answer.error}</p>}
      {charge?.state !== 'failed' && (
        <button type="button" class="button small" disabled={busy} onClick={() => void accept()}>
          {busy ? t('adding') : t('addToMyOrder', { price: formatMoney(upsell.offerPrice.amount, upsell.offerPrice.currency, locale()) })}
        </button>
      )}
    </>
  );
}

/** An address as the shopper entered it, one line each (the region after the city, as its code: "New York, NY"). */
function AddressLines({ address }: { address: Address }) {
  return (
    <p>
      {address.name}
      <br />
      {address.line1}
      {address.line2 && (
        <>
          <br />
          {address.line2}
        </>
      )}
      <br />
      {address.postalCode} {address.city}
      {address.region ? `, ${address.region}` : ''}
      <br />
      {countryName(address.country)}
    </p>
  );
}
