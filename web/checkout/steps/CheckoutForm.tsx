// The form, step by step: contact (1), shipping address (2, form/AddressFields; a billing address below it when the
// shopper unticks "Billing address same as shipping"), shipping rate (3,
// form/ShippingRates), extras (order bumps and a discount code), payment method (4, form/PaymentMethods), and
// confirm. This file holds what the steps share: the shopper's choices, the totals the summary shows (the
// API prices the order again: the browser is never trusted for money), and sending it all to init-payment or
// complete-cod, with the API's field messages shown next to their fields. With the processor's embed (props.embed) the
// payment step takes the form's place on this page (steps/EmbeddedPayment); without it the browser goes to the hosted page.
import { useRef, useState } from 'preact/hooks';
import { canonicalLanguage } from '../../../domain/language.js';
import { api } from '../../shared/api.js';
import { browserLocale, formatMoney } from '../../shared/money.js';
import type { PixelEventName } from '../pixels.js';
import { Field, Spinner, Summary, type Totals } from '../parts.js';
import { EMAIL_RE, reportProgress } from '../progress.js';
import { text } from '../texts.js';
import { detailsLanguage, pageLocale, t } from '../i18n.js';
import type { Bundle, OrderBump, Status } from '../types.js';
import { countryOfLocale, offeredCountries, rateCountries } from '../countries.js';
import { COUNTRY_CODES } from '../../../domain/countries.js';
import { loadAddressRules, useAddressRules } from '../address-rules.js';
import { AddressFields, addressBody, addressComplete, addressErrors, ADDRESS_FIELDS, initialAddress, type AddressKind, type AddressState } from './form/AddressFields.js';
import { DiscountCode, useDiscount } from './form/DiscountCode.js';
import { OrderBumpChoices } from './form/OrderBumpChoices.js';
import { PaymentMethods, type PaymentMethod } from './form/PaymentMethods.js';
import { ShippingRates } from './form/ShippingRates.js';
import { EmbeddedPayment } from './EmbeddedPayment.js';
import { useTaxQuote } from '../tax.js';

/** The browser's language as a tag the API takes (one it would refuse is left out). */
const browserLanguage = (() => {
  const tag = browserLocale();
  return tag ? canonicalLanguage(tag) : null;
})();

export interface CheckoutFormProps {
  token: string;
  bundle: Bundle;
  orderBumps: OrderBump[];
  /** Card/wallet payments are possible (the merchant's processor is connected); undefined: unknown, offered. */
  cardEnabled?: boolean;
  /** The last payment failed: the form says so above the fields. */
  failed: boolean;
  /** A payment is started and not finished: the shopper came back to change the details (a new attempt replaces it). */
  paymentPending?: boolean;
  onStatus: (s: Status) => void;
  fire: (e: PixelEventName, value?: number) => void;
  /** Card payments happen in the processor's embed on this page (from the page route), not on its hosted page. */
  embed?: { origin: string; script: string };
  /** A payment to show at once in the embed (the shopper chose to continue it). */
  resumeUrl?: string | null;
  /** The payment step in the embed began (true) or the shopper went back to the details (false). */
  onPaymentStep?: (on: boolean) => void;
  /** Paid in the embed (the processor's payment id). */
  onPaid?: (paymentId: string) => void;
}

type ApiFailure = { code: string; message: string; fields: Record<string, string>; retryAfterSeconds?: number };

export function CheckoutForm(props: CheckoutFormProps) {
  const { bundle, token, orderBumps } = props;
  // Money, country names and the default country in the page's language (set before the first render).
  const locale = pageLocale();
  const preview = bundle.preview;
  const shopper = bundle.shopper;
  const rates = bundle.shipping;
  const cardEnabled = props.cardEnabled !== false;

  // Shipping zones: the country list is where some rate ships; the rates listed are those shipping to the chosen country.
  const offered = offeredCountries(rates, bundle.storeCountries);
  const ratesTo = (country: string) => (country ? rates.filter((r) => rateCountries(r, bundle.storeCountries).includes(country)) : rates);
  const [email, setEmail] = useState(shopper.email ?? '');
  // Reminders if the shopper leaves: asked only while the merchant has recovery on (null: off), never ticked for them.
  const [optIn, setOptIn] = useState(bundle.recoveryOptIn);
  const [address, setAddress] = useState<AddressState>(() => initialAddress(shopper.address, countryOfLocale(locale, offered), offered));
  // Billed to the shipping address unless the shopper gave another one (a returning shopper sees it again).
  const [billingSame, setBillingSame] = useState(!shopper.billingAddress);
  const [billing, setBilling] = useState<AddressState>(() => initialAddress(shopper.billingAddress, address.country, COUNTRY_CODES));
  const rules = useAddressRules(billingSame ? [address.country] : [address.country, billing.country]);
  const [rateId, setRateId] = useState<string>(() => {
    const here = ratesTo(address.country);
    return here.some((r) => r.id === shopper.shippingRateId) ? shopper.shippingRateId! : here[0]?.id ?? '';
  });
  const [method, setMethod] = useState<PaymentMethod>(cardEnabled || !bundle.codEnabled || props.paymentPending ? 'card' : 'cod');
  const [bumpIds, setBumpIds] = useState<string[]>(() => (shopper.orderBumpIds ?? []).filter((id) => orderBumps.some((b) => b.id === id)));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [banner, setBanner] = useState<string | null>(props.failed ? t('paymentFailed') : null);
  // Cash on delivery cannot replace a card payment in progress (the API refuses it): offered again after a failure.
  const codEnabled = bundle.codEnabled && !props.paymentPending;
  const [busy, setBusy] = useState<null | PaymentMethod>(null);
  // The processor's payment URL while its embed is shown instead of the form.
  const [paying, setPaying] = useState<string | null>(props.resumeUrl ?? null);
  const formRef = useRef<HTMLFormElement>(null);

  const setFieldError = (key: string) => (message: string | null) =>
    setErrors((e) => {
      if (message !== null) return { ...e, [key]: message };
      const { [key]: _gone, ...rest } = e;
      return rest;
    });
  const discount = useDiscount({ token, preview, storedCode: shopper.discountCode, storedAmount: shopper.discountMinor, email, bumpIds, setError: setFieldError('discountCode') });

  const fmt = (n: number) => formatMoney(n, bundle.currency, locale);
  const ratesHere = ratesTo(address.country);
  const rate = ratesHere.find((r) => r.id === rateId);
  const bumps = orderBumps.filter((b) => bumpIds.includes(b.id));
  const bumpTotal = bumps.reduce((sum, b) => sum + b.price.amount, 0);
  const subtotal = bundle.cart.subtotal.amount;
  const discountAmount = Math.min(discount.applied?.amount ?? 0, subtotal + bumpTotal);
  const shipping = rate ? rate.price.amount : null;
  // The store's tax for this address and these choices, quoted by the API as soon as the address is complete.
  // A billing address counts once complete (a store may tax by it); until then the shipping address stands for it.
  const billingBody = !billingSame && addressComplete(billing) ? { billingAddress: addressBody(billing) } : {};
  const quoteBody = rate && addressComplete(address)
    ? { address: addressBody(address), ...billingBody, shippingRateId: rateId, ...(discount.applied ? { discountCode: discount.applied.code } : {}), ...(bumpIds.length ? { orderBumpIds: bumpIds } : {}) }
    : null;
  const taxQuote = useTaxQuote({ token, preview, body: quoteBody });
  const untaxed = subtotal + bumpTotal - discountAmount + (shipping ?? 0);
  const totals: Totals = {
    subtotal, bumps: bumpTotal, discount: discountAmount, shipping,
    tax: taxQuote ? { amount: taxQuote.taxMinor, included: taxQuote.taxesIncluded } : null,
    total: taxQuote ? taxQuote.totalMinor : untaxed,
  };

  // Funnel steps, reported when the shopper does them (never on load): a valid email, a rate they picked.
  // The consent goes with the email it is for (ticked before the email was typed, or the email changed after).
  const consent = (value: string, on: boolean) => {
    if (!preview && EMAIL_RE.test(value.trim())) void api('PUT', `/api/checkout/${token}/recovery-consent`, { email: value.trim(), consent: on });
  };
  const contactEntered = (value: string) => {
    if (EMAIL_RE.test(value.trim())) reportProgress(token, 'contact_entered', preview);
    if (optIn) consent(value, true);
  };
  const shippingChosen = () => reportProgress(token, 'shipping_chosen', preview);

  const setBillingField = (key: keyof AddressState) => (value: string) => {
    setBilling((a) => ({ ...a, [key]: value }));
    if (errors[`billingAddress.${key}`]) setFieldError(`billingAddress.${key}`)(null);
  };

  const setField = (key: keyof AddressState) => (value: string) => {
    setAddress((a) => ({ ...a, [key]: value }));
    if (errors[`address.${key}`]) setFieldError(`address.${key}`)(null);
    if (key === 'country') {
      // Another country: keep the rate if it ships there, else the cheapest that does.
      const here = ratesTo(value);
      if (!here.some((r) => r.id === rateId)) setRateId(here[0]?.id ?? '');
      if (errors.shippingRateId) setFieldError('shippingRateId')(null);
    }
  };

  /** Shows the API's field messages next to their fields, the rest in the alert, and moves focus to the first. */
  function showErrors(raw: Record<string, string>, message: string) {
    const fields = Object.fromEntries(Object.entries(raw).map(([k, m]) => [k, m.charAt(0).toUpperCase() + m.slice(1)]));
    setErrors(fields);
    const known = new Set(['email', 'shippingRateId', 'discountCode', ...(['address', 'billingAddress'] as const).flatMap((kind) => ADDRESS_FIELDS.map((f) => `${kind}.${f}`))]);
    const other = Object.entries(fields).filter(([k]) => !known.has(k));
    const count = Object.keys(fields).length;
    setBanner(count ? `${count === 1 ? t('checkField') : t('checkFields', { count })}${other.length ? ` ${other.map(([, m]) => m).join('. ')}` : ''}` : message);
    requestAnimationFrame(() => formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
  }

  async function submit(e: Event) {
    e.preventDefault();
    if (preview || busy) return;
    setBanner(null);
    // The country's rules, as the API applies them: a postal code in another format, a missing state, shown at once.
    const checks: Array<[AddressKind, AddressState]> = billingSame ? [['address', address]] : [['address', address], ['billingAddress', billing]];
    const loaded = await loadAddressRules(checks.map(([, a]) => a.country)).catch(() => null);
    const problems = loaded ? Object.assign({}, ...checks.map(([kind, a]) => addressErrors(loaded, kind, a))) as Record<string, string> : {};
    if (Object.keys(problems).length) return showErrors(problems, '');
    const language = detailsLanguage(browserLanguage);
    const body = {
      email: email.trim(),
      address: addressBody(address),
      ...(billingSame ? {} : { billingAddress: addressBody(billing) }),
      shippingRateId: rateId,
      ...(discount.applied ? { discountCode: discount.applied.code } : {}),
      ...(bumpIds.length ? { orderBumpIds: bumpIds } : {}),
      ...(language ? { locale: language } : {}),
    };
    setBusy(method);
    props.fire('add_shipping_info', totals.total);
    if (method === 'cod') {
      const r = await api<{ status: Status }>('POST', `/api/checkout/${token}/complete-cod`, body);
      if (r.ok) return props.onStatus(r.data.status);
      setBusy(null);
      return failed(r);
    }
    const r = await api<{ paymentUrl: string; status: Status }>('POST', `/api/checkout/${token}/init-payment`, body);
    if (r.ok) {
      props.fire('add_payment_info', totals.total);
      if (props.embed && r.data.status === 'PAYMENT_PENDING') {
        setBusy(null);
        setPaying(r.data.paymentUrl);
        return props.onPaymentStep?.(true);
      }
      // The processor's hosted page; it sends the shopper back to this URL.
      location.assign(r.data.paymentUrl);
      return;
    }
    setBusy(null);
    return failed(r);
  }

  async function failed(r: ApiFailure) {
    if (r.code === 'INVALID_INPUT' && Object.keys(r.fields).length) return showErrors(r.fields, r.message);
    if (r.code === 'RATE_LIMITED') return setBanner(t('tooManyAttempts', { seconds: r.retryAfterSeconds ?? 60 }));
    if (r.code === 'CONFLICT') {
      // The session moved on (a payment already started, or it completed in another tab): follow it.
      const s = await api<{ status: Status }>('GET', `/api/checkout/session/${token}`);
      const moved = s.ok && s.data.status !== 'OPEN' && s.data.status !== 'FAILED' && !(props.paymentPending && s.data.status === 'PAYMENT_PENDING');
      if (moved) return props.onStatus(s.data.status);
    }
    if (r.code.startsWith('DISCOUNT_')) {
      discount.remove();
      return showErrors({ discountCode: r.message }, r.message);
    }
    setBanner(r.message);
  }

  const payLabel =
    method === 'cod'
      ? bundle.checkoutTexts.codButtonLabel?.trim() || t('placeOrder', { total: fmt(totals.total) })
      : bundle.checkoutTexts.payButtonLabel?.trim() || t('pay', { total: fmt(totals.total) });

  return (
    <div class="layout">
      <Summary items={bundle.cart.items} bumps={bumps} totals={totals} currency={bundle.currency} locale={locale} discountCode={discount.applied?.code} shippingFree={rate?.free} />
      {paying && props.embed ? (
        <section class="details" aria-labelledby="checkout-h">
          <h1 id="checkout-h">{text(bundle, 'paymentHeading')}</h1>
          <EmbeddedPayment origin={props.embed.origin} script={props.embed.script} paymentUrl={paying} email={email.trim()} address={addressBody(address)} onPaid={(id) => props.onPaid?.(id)} />
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setPaying(null);
              props.onPaymentStep?.(false);
            }}
          >
            {t('changeDetails')}
          </button>
        </section>
      ) : (
        <form ref={formRef} class="details" noValidate onSubmit={submit} aria-labelledby="checkout-h">
          <h1 id="checkout-h">{text(bundle, 'headline')}</h1>
          {props.paymentPending && (
            <p class="note" role="status">
              {t('paymentNotComplete')}
            </p>
          )}
          <div class={banner ? 'alert' : 'alert empty'} role="alert" aria-live="assertive">
            {banner}
          </div>

          <fieldset>
            <legend>{text(bundle, 'contactHeading')}</legend>
            <Field name="email" label={t('email')} type="email" inputMode="email" autoComplete="email" value={email} error={errors.email} onInput={(v) => setEmail(v)} onCommit={contactEntered} />
            {optIn !== null && (
              <label class="check-line">
                <input type="checkbox" name="recoveryConsent" checked={optIn} onChange={(e) => {
                    const on = (e.currentTarget as HTMLInputElement).checked;
                    setOptIn(on);
                    consent(email, on);
                  }}
                />
                {t('recoveryConsent')}
              </label>
            )}
          </fieldset>

          <AddressFields kind="address" heading={text(bundle, 'shippingHeading')} address={address} errors={errors} setField={setField} formRef={formRef} locale={locale} offered={offered} loadAtOnce={!!address.country} rules={rules} />
          <div class="same-billing">
            <label class="check-line">
              <input
                type="checkbox"
                name="billingSameAsShipping"
                checked={billingSame}
                onChange={(e) => setBillingSame((e.currentTarget as HTMLInputElement).checked)}
              />
              {t('billingSameAsShipping')}
            </label>
          </div>
          {!billingSame && (
            <div id="billing-address">
              <AddressFields kind="billingAddress" heading={t('billingHeading')} address={billing} errors={errors} setField={setBillingField} formRef={formRef} locale={locale} offered={COUNTRY_CODES} loadAtOnce rules={rules} />
            </div>
          )}
          <ShippingRates
            rates={ratesHere}
            rateId={rateId}
            error={errors.shippingRateId}
            fmt={fmt}
            onChoose={(id) => {
              setRateId(id);
              if (errors.shippingRateId) setFieldError('shippingRateId')(null);
            }}
            onChosen={shippingChosen}
            noRatesText={rates.length ? t('noRatesHere') : undefined}
          />
          <OrderBumpChoices bumps={orderBumps} chosen={bumpIds} error={errors.orderBumpIds} fmt={fmt} onChange={setBumpIds} />
          <DiscountCode state={discount} error={errors.discountCode} appliedAmount={discountAmount} fmt={fmt} />
          <PaymentMethods heading={text(bundle, 'paymentHeading')} cardEnabled={cardEnabled} codEnabled={codEnabled} method={method} onChange={setMethod} />

          <button type="submit" class="pay" disabled={preview || busy !== null || (!cardEnabled && !codEnabled)} aria-describedby={preview ? 'preview-note' : undefined}>
            {busy === 'card' ? (
              <>
                <Spinner /> {t('redirecting')}
              </>
            ) : busy === 'cod' ? (
              <>
                <Spinner /> {t('placing')}
              </>
            ) : (
              payLabel
            )}
          </button>
          {preview && (
            <p class="muted small" id="preview-note">
              {t('previewNoPayment')}
            </p>
          )}
        </form>
      )}
    </div>
  );
}
