// The checkout page's building blocks: the branded frame, a notice, the order summary, and form fields that show the
// API's field messages next to the field they concern (linked with aria-describedby, marked aria-invalid).
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { formatMoney } from '../shared/money.js';
import { t } from './i18n.js';
import type { Bundle, CartItem, OrderBump } from './types.js';

export function Frame({ bundle, children }: { bundle: Pick<Bundle, 'shopName' | 'branding' | 'preview' | 'checkoutTexts' | 'storePolicies'> | null; children: ComponentChildren }) {
  const logo = bundle?.branding.logoUrl;
  const note = bundle?.checkoutTexts.footerNote;
  const policies = bundle?.storePolicies ?? [];
  return (
    <>
      <header class="top">
        <div class="top-in">
          {logo ? <img class="logo" src={logo} alt={bundle?.shopName ?? ''} height={40} /> : <span class="shop">{bundle?.shopName ?? t('headline')}</span>}
          <span class="secure">
            <svg aria-hidden="true" width="14" height="14" viewBox="0 0 24 24"><path fill="currentColor" d="M12 1a5 5 0 0 0-5 5v4H5v13h14V10h-2V6a5 5 0 0 0-5-5Zm-3 9V6a3 3 0 1 1 6 0v4H9Z" /></svg>
            {t('secureCheckout')}
          </span>
        </div>
      </header>
      {bundle?.preview && (
        <p class="preview-banner" role="note">
          <strong>{t('previewLabel')}</strong> · {t('previewBanner')}
        </p>
      )}
      <main class="page">{children}</main>
      {(note || policies.length > 0) && (
        <footer class="foot">
          {note && <p class="foot-note">{note}</p>}
          {/* The store's own policy pages, in its titles (read from the store); a new tab keeps the checkout open. */}
          {policies.length > 0 && (
            <nav aria-label={t('storePolicies')}>
              <ul class="policies">
                {policies.map((p) => (
                  <li key={p.kind}>
                    <a href={p.url} target="_blank" rel="noopener">{p.title}</a>
                  </li>
                ))}
              </ul>
            </nav>
          )}
        </footer>
      )}
    </>
  );
}

export interface Totals {
  subtotal: number;
  bumps: number;
  discount: number;
  /** null: no rate chosen yet. */
  shipping: number | null;
  /** The store's tax for the address (quoted): added to the total, or inside it (included); absent until quoted. */
  tax?: { amount: number; included: boolean } | null;
  total: number;
}

export function Summary(props: {
  items: CartItem[];
  bumps: OrderBump[];
  totals: Totals;
  currency: string;
  locale: string | undefined;
  discountCode?: string | null;
  shippingFree?: boolean;
  children?: ComponentChildren;
}) {
  const { items, bumps, totals, currency, locale } = props;
  const fmt = (n: number) => formatMoney(n, currency, locale);
  // On a phone the summary starts folded under a bar that always shows the total (checkout.css shows the bar below
  // 48rem only); on a wide screen it is always open beside the form.
  const [open, setOpen] = useState(false);
  return (
    <section class={open ? 'summary open' : 'summary'} aria-labelledby="summary-h">
      <button type="button" class="summary-bar" aria-expanded={open ? 'true' : 'false'} aria-controls="summary-body" onClick={() => setOpen(!open)}>
        <span class="summary-bar-label">{open ? t('hideSummary') : t('showSummary')}</span>
        <strong class="summary-bar-total">{fmt(totals.total)}</strong>
      </button>
      <div class="summary-body" id="summary-body">
        <h2 id="summary-h">{t('orderSummary')}</h2>
        <ul class="items">
          {items.map((item) => (
            <li class="item" key={`${item.productId}-${item.variantId ?? ''}`}>
              <span class="thumb">
                {item.imageUrl ? <img src={item.imageUrl} alt="" width={56} height={56} loading="lazy" decoding="async" /> : <span class="ph" aria-hidden="true">{item.title.charAt(0)}</span>}
                <span class="qty" aria-hidden="true">{item.quantity}</span>
              </span>
              <span class="item-name">
                {item.title}
                {item.variantTitle && <span class="muted"> · {item.variantTitle}</span>}
                <span class="sr-only">{t('quantityOf', { count: item.quantity })}</span>
              </span>
              <span class="price">{fmt(item.unitPrice * item.quantity)}</span>
            </li>
          ))}
          {bumps.map((bump) => (
            <li class="item" key={`bump-${bump.id}`}>
              <span class="thumb">{bump.imageUrl ? <img src={bump.imageUrl} alt="" width={56} height={56} loading="lazy" decoding="async" /> : <span class="ph" aria-hidden="true">+</span>}</span>
              <span class="item-name">{bump.title}</span>
              <span class="price">{fmt(bump.price.amount)}</span>
            </li>
          ))}
        </ul>
        {props.children}
        <dl class="totals">
          <div>
            <dt>{t('subtotal')}</dt>
            <dd>{fmt(totals.subtotal + totals.bumps)}</dd>
          </div>
          {totals.discount > 0 && (
            <div class="discount">
              <dt>{t('discount')}{props.discountCode ? ` (${props.discountCode})` : ''}</dt>
              <dd>−{fmt(totals.discount)}</dd>
            </div>
          )}
          <div>
            <dt>{t('shipping')}</dt>
            <dd>{totals.shipping === null ? <span class="muted">{t('chooseMethod')}</span> : props.shippingFree ? t('free') : fmt(totals.shipping)}</dd>
          </div>
          {totals.tax && !totals.tax.included && (
            <div class="tax">
              <dt>{t('tax')}</dt>
              <dd>{fmt(totals.tax.amount)}</dd>
            </div>
          )}
          <div class="grand">
            <dt>{t('total')}</dt>
            <dd>
              <span class="cur">{currency}</span> {fmt(totals.total)}
            </dd>
          </div>
          {totals.tax?.included && totals.tax.amount > 0 && (
            <div class="tax muted small">
              <dt>{t('includingTax')}</dt>
              <dd>{fmt(totals.tax.amount)}</dd>
            </div>
          )}
        </dl>
      </div>
    </section>
  );
}

export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  return message ? (
    <p class="field-error" id={id}>
      {message}
    </p>
  ) : null;
}

type InputProps = {
  name: string;
  label: string;
  value: string;
  error: string | undefined;
  onInput: (value: string) => void;
  /** The shopper is done with the field: its value changed and was committed, or focus left it. */
  onCommit?: (value: string) => void;
  autoComplete: string;
  type?: 'text' | 'email' | 'tel';
  optional?: boolean;
  inputMode?: 'text' | 'email' | 'tel' | 'numeric';
  disabled?: boolean;
};

/** A labelled input; `name` is the API's field path (`address.postalCode`), which also keys its error. */
export function Field(p: InputProps) {
  const id = `f-${p.name.replace(/\./g, '-')}`;
  return (
    <div class={`field${p.error ? ' invalid' : ''}`}>
      <label for={id}>
        {p.label}
        {p.optional && <span class="muted"> {t('optional')}</span>}
      </label>
      <input
        id={id}
        name={p.name}
        // Preact's input props are a union by `type`; these three share every attribute used here.
        type={(p.type ?? 'text') as 'text'}
        value={p.value}
        autoComplete={p.autoComplete}
        inputMode={p.inputMode}
        disabled={p.disabled}
        aria-invalid={p.error ? 'true' : undefined}
        aria-describedby={p.error ? `${id}-err` : undefined}
        onInput={(e) => p.onInput((e.currentTarget as HTMLInputElement).value)}
        onChange={p.onCommit && ((e) => p.onCommit!((e.currentTarget as HTMLInputElement).value))}
        onBlur={p.onCommit && ((e) => p.onCommit!((e.currentTarget as HTMLInputElement).value))}
      />
      <FieldError id={`${id}-err`} message={p.error} />
    </div>
  );
}

export function Spinner() {
  return <span class="spinner" aria-hidden="true" />;
}

/** A full-card message (expired, refunded, not found …); its heading takes focus so screen readers announce it. */
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
