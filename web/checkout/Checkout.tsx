// The shopper's checkout page: one session (token in the URL), its state from the embedded session bundle,
// and the steps the API offers: details → init-payment → the processor's page → back here → pay → success;
// or cash on delivery → complete-cod → success. Every view follows the session's status, never a guess.
import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from '../shared/api.js';
import { browserLocale, formatMoney } from '../shared/money.js';
import { countries, countryOfLocale, type Country } from './countries.js';
import { createPixels, type PixelEventName, type Pixels } from './pixels.js';
import { Field, FieldError, Frame, Spinner, Summary, type Totals } from './parts.js';
import { EMAIL_RE, reportProgress } from './progress.js';
import type { Bundle, OrderBump, Pixel, SessionStatus, Status, Upsell } from './types.js';

const locale = browserLocale();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const DEFAULT_TEXTS = {
  headline: 'Checkout',
  contactHeading: 'Contact',
  shippingHeading: 'Shipping address',
  paymentHeading: 'Payment',
  successMessage: 'Thank you for your order!',
};

function text(bundle: Bundle, key: keyof typeof DEFAULT_TEXTS): string {
  return bundle.checkoutTexts[key]?.trim() || DEFAULT_TEXTS[key];
}

/** Upsell offers as the API answers them (GET /api/checkout/:token/upsells); malformed ones are left out. */
export function parseUpsells(value: unknown): Upsell[] {
  const items = (value as { items?: unknown } | null)?.items;
  if (!Array.isArray(items)) return [];
  return items.filter((u): u is Upsell => {
    const x = u as Partial<Upsell> | null;
    return !!x && typeof x.id === 'string' && typeof x.headline === 'string' && typeof x.offerPrice?.amount === 'number' && typeof x.price?.amount === 'number';
  });
}

/** Order bumps as the API answers them; anything malformed is left out rather than shown wrong. */
export function parseOrderBumps(value: unknown, currency: string): OrderBump[] {
  const items = (value as { items?: unknown } | null)?.items;
  if (!Array.isArray(items)) return [];
  return items.filter((b): b is OrderBump => {
    const x = b as Partial<OrderBump> | null;
    return !!x && typeof x.id === 'string' && typeof x.title === 'string' && typeof x.price?.amount === 'number' && x.price.currency === currency;
  });
}

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
    pixels.fire(event, { token, currency: bundle.currency, ...(value === undefined ? {} : { value: value / 10 ** digitsOf(bundle.currency) }) });

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

function digitsOf(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

export function Notice({ title, body, children }: { title: string; body?: string; children?: ComponentChildren }) {
  const h = useRef<HTMLHeadingElement>(null);
  useEffect(() => h.current?.focus(), []);
  return (
    <section class="card notice" aria-labelledby="notice-h">
      <h1 id="notice-h" tabIndex={-1} ref={h}>
        {title}
      </h1>
      {body && <p>{body}</p>}
      {children}
    </section>
  );
}

// ---------------------------------------------------------------------------------------------------
// Back from the processor's page: ask the API to confirm (pay), then follow the status for a while.

function Confirming({ token, onStatus }: { token: string; onStatus: (s: Status) => void }) {
  const [stuck, setStuck] = useState<{ paymentUrl: string | null } | null>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let cancelled = false;
    void (async () => {
      setStuck(null);
      // Coming back from the payment page (?payment_id=…): the result is usually there within a second or two.
      const returned = new URLSearchParams(location.search).has('payment_id') || round > 0;
      const paid = await api<{ status: Status }>('POST', `/api/checkout/${token}/pay`);
      let current: Status | undefined = paid.ok ? paid.data.status : undefined;
      let paymentUrl: string | null = null;
      const deadline = Date.now() + (returned ? 20_000 : 0);
      for (;;) {
        const s = await api<SessionStatus>('GET', `/api/checkout/session/${token}`);
        if (s.ok) {
          current = s.data.status;
          paymentUrl = s.data.paymentUrl;
        }
        if (cancelled || current !== 'PAYMENT_PENDING' || Date.now() > deadline) break;
        await sleep(1_500);
      }
      if (cancelled) return;
      if (current && current !== 'PAYMENT_PENDING') {
        history.replaceState(null, '', location.pathname);
        onStatus(current);
      } else setStuck({ paymentUrl });
    })();
    return () => {
      cancelled = true;
    };
  }, [token, round]);

  if (!stuck) {
    return (
      <section class="card notice" aria-busy="true">
        <h1>
          <Spinner /> Confirming your payment…
        </h1>
        <p role="status">This takes a few seconds. Please keep this page open.</p>
      </section>
    );
  }
  return (
    <Notice title="Your payment is not complete yet" body="We have not received a confirmation of your payment. If you left the payment page early, continue your payment there.">
      <div class="actions">
        {stuck.paymentUrl && (
          <a class="button" href={stuck.paymentUrl}>
            Continue to payment
          </a>
        )}
        <button type="button" class="secondary" onClick={() => setRound((r) => r + 1)}>
          Check again
        </button>
      </div>
    </Notice>
  );
}

// ---------------------------------------------------------------------------------------------------
// Success: the order summary, and the purchase event (once per session).

function countryName(code: string): string {
  try {
    return new Intl.DisplayNames(locale ? [locale, 'en'] : ['en'], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
}

function Success({ token, bundle: initial, status, pixels, upsells, orderBumps }: CheckoutProps & { status: Status; pixels: Pixels }) {
  // The session as stored now (the shopper's details, the accepted bumps and code), and its total.
  const [bundle, setBundle] = useState(initial);
  const [session, setSession] = useState<SessionStatus | null>(null);
  useEffect(() => {
    void api<Bundle>('GET', `/api/checkout/session-bundle/${token}`).then((r) => r.ok && setBundle(r.data));
    void api<SessionStatus>('GET', `/api/checkout/session/${token}`).then((r) => {
      if (!r.ok) return;
      setSession(r.data);
      if (!initial.preview && r.data.totalMinor !== null) {
        pixels.fire('purchase', { token, currency: initial.currency, value: r.data.totalMinor / 10 ** digitsOf(initial.currency) });
      }
    });
  }, [token]);
  const h = useRef<HTMLHeadingElement>(null);
  useEffect(() => h.current?.focus(), []);
  // The merchant's post-purchase offers, shown for the next visit (accepting one would need a second charge).
  const offers = (upsells ?? []).filter((u) => u.placement === 'post_purchase' && u.offerPrice.currency === bundle.currency);

  const rate = bundle.shipping.find((r) => r.id === bundle.shopper.shippingRateId);
  const bumps = orderBumps.filter((b) => (bundle.shopper.orderBumpIds ?? []).includes(b.id));
  const subtotal = bundle.cart.subtotal.amount;
  const bumpTotal = bumps.reduce((n, b) => n + b.price.amount, 0);
  const shipping = rate ? rate.price.amount : 0;
  const total = session?.totalMinor ?? subtotal + bumpTotal + shipping;
  // The stored total is the truth; what it is short of items + bumps + shipping is the discount.
  const totals: Totals = { subtotal, bumps: bumpTotal, discount: Math.max(0, subtotal + bumpTotal + shipping - total), shipping, total };
  const cod = status === 'COD_CONFIRMED';
  return (
    <div class="layout done">
      <section class="card" aria-labelledby="success-h">
        <p class="check" aria-hidden="true">✓</p>
        <h1 id="success-h" tabIndex={-1} ref={h}>
          {text(bundle, 'successMessage')}
        </h1>
        <p>
          {cod ? 'Your order is placed. You pay in cash when it is delivered.' : 'Your payment was received and your order is placed.'}
          {bundle.shopper.email && (
            <>
              {' '}
              A confirmation is on its way to <strong>{bundle.shopper.email}</strong>.
            </>
          )}
        </p>
        {bundle.shopper.address && (
          <div class="ship-to">
            <h2>Shipping to</h2>
            <p>
              {bundle.shopper.address.name}
              <br />
              {bundle.shopper.address.line1}
              {bundle.shopper.address.line2 && (
                <>
                  <br />
                  {bundle.shopper.address.line2}
                </>
              )}
              <br />
              {bundle.shopper.address.postalCode} {bundle.shopper.address.city}
              <br />
              {countryName(bundle.shopper.address.country)}
            </p>
            {rate && <p class="muted">Shipping method: {rate.name}</p>}
          </div>
        )}
        <p class="muted small">Checkout reference: {token.replace(/[^A-Za-z0-9]/g, '').slice(-8).toUpperCase()}</p>
        {offers.map((u) => (
          <aside class="offer" key={u.id} aria-label="Offer">
            {u.imageUrl && <img src={u.imageUrl} alt="" width={56} height={56} loading="lazy" />}
            <div>
              <p class="offer-h">{u.headline}</p>
              <p class="small">
                {u.title}: <s class="muted">{formatMoney(u.price.amount, u.price.currency, locale)}</s> <strong>{formatMoney(u.offerPrice.amount, u.offerPrice.currency, locale)}</strong> (−{u.discountPercent}%)
              </p>
              {u.description && <p class="muted small">{u.description}</p>}
            </div>
          </aside>
        ))}
      </section>
      <Summary items={bundle.cart.items} bumps={bumps} totals={totals} currency={bundle.currency} locale={locale} discountCode={bundle.shopper.discountCode} shippingFree={rate?.free} />
    </div>
  );
}

// ---------------------------------------------------------------------------------------------------
// The form: contact, address, shipping rate, discount, order bumps, payment method, confirm.

interface AddressState {
  name: string;
  line1: string;
  line2: string;
  city: string;
  postalCode: string;
  country: string;
  region: string;
  phone: string;
}

const ADDRESS_FIELDS: Array<keyof AddressState> = ['name', 'line1', 'line2', 'postalCode', 'city', 'country', 'region', 'phone'];

interface AppliedDiscount {
  code: string;
  amount: number;
}

/** The discount a validate-discount answer grants, in minor units, or null when it names none. */
export function discountAmountOf(data: unknown): number | null {
  const d = data as Record<string, unknown> | null;
  if (!d) return null;
  const candidates = [d.discountMinor, d.amountMinor, (d.discount as { amount?: unknown } | undefined)?.amount, (d.amount as { amount?: unknown } | undefined)?.amount, d.amount];
  const found = candidates.find((c) => typeof c === 'number' && Number.isSafeInteger(c) && c >= 0);
  return typeof found === 'number' ? found : null;
}

function CheckoutForm(props: CheckoutProps & { failed: boolean; onStatus: (s: Status) => void; fire: (e: PixelEventName, value?: number) => void }) {
  const { bundle, token, orderBumps } = props;
  const preview = bundle.preview;
  const shopper = bundle.shopper;
  const [email, setEmail] = useState(shopper.email ?? '');
  const [address, setAddress] = useState<AddressState>(() => ({
    name: shopper.address?.name ?? '',
    line1: shopper.address?.line1 ?? '',
    line2: shopper.address?.line2 ?? '',
    city: shopper.address?.city ?? '',
    postalCode: shopper.address?.postalCode ?? '',
    country: shopper.address?.country ?? countryOfLocale(locale) ?? '',
    region: shopper.address?.region ?? '',
    phone: shopper.address?.phone ?? '',
  }));
  const rates = bundle.shipping;
  const [rateId, setRateId] = useState<string>(() => (rates.some((r) => r.id === shopper.shippingRateId) ? shopper.shippingRateId! : rates[0]?.id ?? ''));
  const cardEnabled = props.cardEnabled !== false;
  const [method, setMethod] = useState<'card' | 'cod'>(cardEnabled || !bundle.codEnabled ? 'card' : 'cod');
  const [bumpIds, setBumpIds] = useState<string[]>(() => (shopper.orderBumpIds ?? []).filter((id) => orderBumps.some((b) => b.id === id)));
  const [discountInput, setDiscountInput] = useState(shopper.discountCode ?? '');
  const [discount, setDiscount] = useState<AppliedDiscount | null>(null);
  const [discountBusy, setDiscountBusy] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [banner, setBanner] = useState<string | null>(props.failed ? 'Your payment did not go through. Please check your details and try again, or use another card.' : null);
  const [busy, setBusy] = useState<null | 'card' | 'cod'>(null);
  const formRef = useRef<HTMLFormElement>(null);
  // Naming and sorting ~250 countries in the shopper's language loads the browser's locale data: a long task on a
  // slow phone. On a first visit it waits until the shopper starts filling in the form (the select shows its one
  // value, the locale's country code, until then).
  const [countryList, setCountryList] = useState<Country[] | null>(null);
  const loadCountries = () => setCountryList((list) => list ?? countries(locale));
  useEffect(() => {
    const form = formRef.current;
    if (!form) return;
    const later = () => (window.requestIdleCallback ?? ((cb: () => void) => setTimeout(cb, 1)))(loadCountries);
    // A returning shopper's stored country is shown by name at once.
    if (shopper.address?.country) later();
    form.addEventListener('focusin', later, { once: true });
    form.addEventListener('pointerdown', later, { once: true });
    return () => {
      form.removeEventListener('focusin', later);
      form.removeEventListener('pointerdown', later);
    };
  }, []);
  const countryOptions = countryList ?? (address.country ? [{ code: address.country, name: address.country }] : []);

  const fmt = (n: number) => formatMoney(n, bundle.currency, locale);
  const rate = rates.find((r) => r.id === rateId);
  const bumps = orderBumps.filter((b) => bumpIds.includes(b.id));
  const bumpTotal = bumps.reduce((sum, b) => sum + b.price.amount, 0);
  const subtotal = bundle.cart.subtotal.amount;
  const discountAmount = Math.min(discount?.amount ?? 0, subtotal + bumpTotal);
  const shipping = rate ? rate.price.amount : null;
  const totals: Totals = { subtotal, bumps: bumpTotal, discount: discountAmount, shipping, total: subtotal + bumpTotal - discountAmount + (shipping ?? 0) };

  // Funnel steps, reported when the shopper does them (never on load): a valid email, a rate they picked.
  const contactEntered = (value: string) => {
    if (EMAIL_RE.test(value.trim())) reportProgress(token, 'contact_entered', preview);
  };
  const shippingChosen = () => reportProgress(token, 'shipping_chosen', preview);

  const setField = (key: keyof AddressState) => (value: string) => {
    setAddress((a) => ({ ...a, [key]: value }));
    if (errors[`address.${key}`]) setErrors(({ [`address.${key}`]: _gone, ...rest }) => rest);
  };

  /** Shows the API's field messages next to their fields, the rest in the alert, and moves focus to the first. */
  function showErrors(raw: Record<string, string>, message: string) {
    const fields = Object.fromEntries(Object.entries(raw).map(([k, m]) => [k, m.charAt(0).toUpperCase() + m.slice(1)]));
    setErrors(fields);
    const known = new Set(['email', 'shippingRateId', 'discountCode', ...ADDRESS_FIELDS.map((f) => `address.${f}`)]);
    const other = Object.entries(fields).filter(([k]) => !known.has(k));
    const count = Object.keys(fields).length;
    setBanner(count ? `Please check ${count === 1 ? 'the highlighted field' : `the ${count} highlighted fields`}.${other.length ? ` ${other.map(([, m]) => m).join('. ')}` : ''}` : message);
    requestAnimationFrame(() => {
      const first = formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]');
      first?.focus();
    });
  }

  /** Asks the API what the code takes off (it alone prices the checkout); the page shows that amount. */
  async function applyDiscount(raw = discountInput, ids = bumpIds) {
    const code = raw.trim();
    if (!code) {
      setErrors((e) => ({ ...e, discountCode: 'Enter a discount code' }));
      return;
    }
    setDiscountBusy(true);
    const validEmail = EMAIL_RE.test(email.trim());
    const r = await api<unknown>('POST', `/api/checkout/${token}/validate-discount`, {
      code,
      ...(validEmail ? { email: email.trim() } : {}),
      ...(ids.length ? { orderBumpIds: ids } : {}),
    });
    setDiscountBusy(false);
    if (r.ok) {
      const applied = (r.data as { code?: unknown }).code;
      setDiscount({ code: typeof applied === 'string' ? applied : code.toUpperCase(), amount: discountAmountOf(r.data) ?? 0 });
      setErrors(({ discountCode: _gone, ...rest }) => rest);
    } else {
      setDiscount(null);
      setErrors((e) => ({ ...e, discountCode: r.fields.code ?? r.fields.discountCode ?? r.message }));
    }
  }

  // A code applied at an earlier visit is checked again; a percentage follows the ticked bumps.
  const firstRun = useRef(true);
  useEffect(() => {
    const code = firstRun.current ? shopper.discountCode : discount?.code;
    firstRun.current = false;
    if (code && !preview) void applyDiscount(code, bumpIds);
  }, [bumpIds]);

  async function submit(e: Event) {
    e.preventDefault();
    if (preview || busy) return;
    setBanner(null);
    const addr: Record<string, string> = {};
    for (const key of ADDRESS_FIELDS) {
      const v = address[key].trim();
      if (v || !['line2', 'region', 'phone'].includes(key)) addr[key] = v;
    }
    const body = {
      email: email.trim(),
      address: addr,
      shippingRateId: rateId,
      ...(discount ? { discountCode: discount.code } : {}),
      ...(bumpIds.length ? { orderBumpIds: bumpIds } : {}),
    };
    setBusy(method);
    props.fire('add_shipping_info', totals.total);
    if (method === 'cod') {
      const r = await api<{ status: Status }>('POST', `/api/checkout/${token}/complete-cod`, body);
      if (r.ok) {
        props.onStatus(r.data.status);
        return;
      }
      setBusy(null);
      return failed(r);
    }
    const r = await api<{ paymentUrl: string }>('POST', `/api/checkout/${token}/init-payment`, body);
    if (r.ok) {
      props.fire('add_payment_info', totals.total);
      // The processor's hosted page; it sends the shopper back to this URL.
      location.assign(r.data.paymentUrl);
      return;
    }
    setBusy(null);
    return failed(r);
  }

  async function failed(r: { code: string; message: string; fields: Record<string, string>; retryAfterSeconds?: number }) {
    if (r.code === 'INVALID_INPUT' && Object.keys(r.fields).length) return showErrors(r.fields, r.message);
    if (r.code === 'RATE_LIMITED') return setBanner(`Too many attempts. Please wait ${r.retryAfterSeconds ?? 60} seconds and try again.`);
    if (r.code === 'CONFLICT') {
      // The session moved on (a payment already started, or it completed in another tab): follow it.
      const s = await api<SessionStatus>('GET', `/api/checkout/session/${token}`);
      if (s.ok && s.data.status !== 'OPEN' && s.data.status !== 'FAILED') return props.onStatus(s.data.status);
    }
    if (r.code.startsWith('DISCOUNT_')) {
      setDiscount(null);
      return showErrors({ discountCode: r.message }, r.message);
    }
    setBanner(r.message);
  }

  const payLabel =
    method === 'cod'
      ? bundle.checkoutTexts.codButtonLabel?.trim() || `Place order · ${fmt(totals.total)}`
      : bundle.checkoutTexts.payButtonLabel?.trim() || `Pay ${fmt(totals.total)}`;
  const codOnly = bundle.codEnabled && !cardEnabled;

  return (
    <div class="layout">
      <Summary items={bundle.cart.items} bumps={bumps} totals={totals} currency={bundle.currency} locale={locale} discountCode={discount?.code} shippingFree={rate?.free} />
      <form ref={formRef} class="details" noValidate onSubmit={submit} aria-labelledby="checkout-h">
        <h1 id="checkout-h">{text(bundle, 'headline')}</h1>
        <div class={banner ? 'alert' : 'alert empty'} role="alert" aria-live="assertive">
          {banner}
        </div>

        <fieldset>
          <legend>{text(bundle, 'contactHeading')}</legend>
          <Field name="email" label="Email" type="email" inputMode="email" autoComplete="email" value={email} error={errors.email} onInput={(v) => setEmail(v)} onCommit={contactEntered} />
        </fieldset>

        <fieldset>
          <legend>{text(bundle, 'shippingHeading')}</legend>
          <Field name="address.name" label="Full name" autoComplete="shipping name" value={address.name} error={errors['address.name']} onInput={setField('name')} />
          <Field name="address.line1" label="Street and number" autoComplete="shipping address-line1" value={address.line1} error={errors['address.line1']} onInput={setField('line1')} />
          <Field name="address.line2" label="Apartment, suite, etc." optional autoComplete="shipping address-line2" value={address.line2} error={errors['address.line2']} onInput={setField('line2')} />
          <div class="row">
            <Field name="address.postalCode" label="Postal code" autoComplete="shipping postal-code" value={address.postalCode} error={errors['address.postalCode']} onInput={setField('postalCode')} />
            <Field name="address.city" label="City" autoComplete="shipping address-level2" value={address.city} error={errors['address.city']} onInput={setField('city')} />
          </div>
          <div class={`field${errors['address.country'] ? ' invalid' : ''}`}>
            <label for="f-address-country">Country</label>
            <select
              id="f-address-country"
              name="address.country"
              autoComplete="shipping country"
              value={address.country}
              aria-invalid={errors['address.country'] ? 'true' : undefined}
              aria-describedby={errors['address.country'] ? 'f-address-country-err' : undefined}
              onChange={(e) => setField('country')((e.currentTarget as HTMLSelectElement).value)}
              onFocus={loadCountries}
              onPointerDown={loadCountries}
            >
              <option value="">Select a country</option>
              {countryOptions.map((c) => (
                <option key={c.code} value={c.code}>
                  {c.name}
                </option>
              ))}
            </select>
            <FieldError id="f-address-country-err" message={errors['address.country']} />
          </div>
          <Field name="address.region" label="State / region" optional autoComplete="shipping address-level1" value={address.region} error={errors['address.region']} onInput={setField('region')} />
          <Field name="address.phone" label="Phone" optional type="tel" inputMode="tel" autoComplete="shipping tel" value={address.phone} error={errors['address.phone']} onInput={setField('phone')} />
        </fieldset>

        <fieldset aria-describedby={errors.shippingRateId ? 'rates-err' : undefined}>
          <legend>Shipping method</legend>
          {rates.length === 0 && <p class="muted">This shop has no shipping method yet.</p>}
          <div class="choices">
            {rates.map((r) => (
              <label class={`choice${r.id === rateId ? ' on' : ''}`} key={r.id}>
                <input
                  type="radio"
                  name="shippingRateId"
                  value={r.id}
                  checked={r.id === rateId}
                  onChange={() => {
                    setRateId(r.id);
                    shippingChosen();
                  }}
                  // A click on the preselected rate confirms it too (no change event for that).
                  onClick={shippingChosen}
                />
                <span class="choice-name">{r.name}</span>
                <span class="choice-price">{r.free ? <span class="free">Free</span> : fmt(r.price.amount)}</span>
              </label>
            ))}
          </div>
          <FieldError id="rates-err" message={errors.shippingRateId} />
        </fieldset>

        {orderBumps.length > 0 && (
          <fieldset class="bumps">
            <legend>Add to your order</legend>
            {orderBumps.map((b) => (
              <label class={`bump${bumpIds.includes(b.id) ? ' on' : ''}`} key={b.id}>
                <input
                  type="checkbox"
                  name="orderBumpIds"
                  value={b.id}
                  checked={bumpIds.includes(b.id)}
                  onChange={(e) => {
                    const on = (e.currentTarget as HTMLInputElement).checked;
                    setBumpIds((ids) => (on ? [...ids, b.id] : ids.filter((id) => id !== b.id)));
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
            <FieldError id="bumps-err" message={errors.orderBumpIds} />
          </fieldset>
        )}

        <div class={`field discount-field${errors.discountCode ? ' invalid' : ''}`}>
          <label for="f-discountCode">Discount code</label>
          <div class="inline">
            <input
              id="f-discountCode"
              name="discountCode"
              value={discountInput}
              autoComplete="off"
              autoCapitalize="characters"
              aria-invalid={errors.discountCode ? 'true' : undefined}
              aria-describedby={errors.discountCode ? 'f-discountCode-err' : discount ? 'f-discountCode-ok' : undefined}
              onInput={(e) => setDiscountInput((e.currentTarget as HTMLInputElement).value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter') {
                  e.preventDefault();
                  void applyDiscount();
                }
              }}
            />
            <button type="button" class="secondary" onClick={() => void applyDiscount()} disabled={discountBusy}>
              {discountBusy ? 'Checking…' : 'Apply'}
            </button>
          </div>
          <FieldError id="f-discountCode-err" message={errors.discountCode} />
          {discount && !errors.discountCode && (
            <p class="field-ok" id="f-discountCode-ok" role="status">
              {discount.code} applied{discount.amount ? `: −${fmt(discountAmount)}` : ''}.{' '}
              <button type="button" class="link" onClick={() => setDiscount(null)}>
                Remove
              </button>
            </p>
          )}
        </div>

        <fieldset>
          <legend>{text(bundle, 'paymentHeading')}</legend>
          <div class="choices">
            {cardEnabled && (
              <label class={`choice${method === 'card' ? ' on' : ''}`}>
                <input type="radio" name="method" value="card" checked={method === 'card'} onChange={() => setMethod('card')} />
                <span class="choice-name">Card or wallet</span>
                <span class="muted small">You pay on the secure payment page</span>
              </label>
            )}
            {bundle.codEnabled && (
              <label class={`choice${method === 'cod' ? ' on' : ''}`}>
                <input type="radio" name="method" value="cod" checked={method === 'cod'} onChange={() => setMethod('cod')} />
                <span class="choice-name">Cash on delivery</span>
                <span class="muted small">Pay when your order arrives</span>
              </label>
            )}
          </div>
          {!cardEnabled && !codOnly && <p class="muted">This shop cannot take payments right now.</p>}
        </fieldset>

        <button type="submit" class="pay" disabled={preview || busy !== null || (!cardEnabled && !bundle.codEnabled)} aria-describedby={preview ? 'preview-note' : undefined}>
          {busy === 'card' ? (
            <>
              <Spinner /> Redirecting to payment…
            </>
          ) : busy === 'cod' ? (
            <>
              <Spinner /> Placing your order…
            </>
          ) : (
            payLabel
          )}
        </button>
        {preview && (
          <p class="muted small" id="preview-note">
            Payment is disabled in a preview.
          </p>
        )}
      </form>
    </div>
  );
}
