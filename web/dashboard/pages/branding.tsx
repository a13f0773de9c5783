// Branding: logo, primary and accent colors, checkout texts, with a live preview drawn with the very
// contrast corrections the checkout page applies (domain/merchant/brand-colors.ts), so what the merchant sees here
// is what shoppers get.
import { useState } from 'preact/hooks';
import { checkoutTheme, isHexColor } from '../../../domain/merchant/brand-colors.js';
import { api, type Body } from '../api.js';
import { formatAmount } from '../format.js';
import { invalid, useForm } from '../form.js';
import { useSession } from '../session.js';
import type { Merchant } from '../types.js';
import { Button, Card, Field, Form, PageHeader, SelectField } from '../ui.js';

/** Editable checkout texts with the page's default wording as placeholder. */
/** The languages the checkout page speaks (domain/checkout-messages), by their own names. */
export const PAGE_LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'de', name: 'Deutsch' },
  { code: 'fr', name: 'Français' },
  { code: 'es', name: 'Español' },
  { code: 'it', name: 'Italiano' },
  { code: 'nl', name: 'Nederlands' },
] as const;

export const CHECKOUT_TEXTS: Array<{ key: string; label: string; placeholder: string }> = [
  { key: 'headline', label: 'Headline', placeholder: 'Checkout' },
  { key: 'contactHeading', label: 'Contact heading', placeholder: 'Contact' },
  { key: 'shippingHeading', label: 'Shipping heading', placeholder: 'Shipping' },
  { key: 'paymentHeading', label: 'Payment heading', placeholder: 'Payment' },
  { key: 'payButtonLabel', label: 'Pay button', placeholder: 'Pay now' },
  { key: 'codButtonLabel', label: 'Cash on delivery button', placeholder: 'Confirm order (pay on delivery)' },
  { key: 'footerNote', label: 'Footer note', placeholder: 'Secure checkout' },
  { key: 'successMessage', label: 'Success message', placeholder: 'Thank you for your order!' },
];

function ColorField(props: { label: string; name: string; value: string; onInput: (v: string) => void; error?: string | undefined; hint?: string }) {
  return (
    <Field
      label={props.label}
      name={props.name}
      value={props.value}
      onInput={props.onInput}
      error={props.error}
      hint={props.hint}
      placeholder="#1f5fd1"
      inputProps={{ spellcheck: false, maxLength: 7, class: 'mono' }}
      suffix={
        <input
          type="color"
          class="color-swatch"
          aria-label={`${props.label}: color picker`}
          value={isHexColor(props.value) ? props.value : '#1f5fd1'}
          onInput={(e) => props.onInput((e.currentTarget as HTMLInputElement).value)}
        />
      }
    />
  );
}

/** A miniature of the checkout page in the merchant's colors and texts. */
export function BrandPreview(props: { shopName: string; logoUrl: string; primaryColor: string; accentColor: string; texts?: Record<string, string> }) {
  const theme = checkoutTheme(props.primaryColor || null, props.accentColor || null);
  const [hover, setHover] = useState(false);
  const [logoBroken, setLogoBroken] = useState(false);
  const text = (key: string) => props.texts?.[key] || CHECKOUT_TEXTS.find((t) => t.key === key)!.placeholder;
  return (
    <figure class="brand-preview" aria-label="Live preview of your checkout">
      <div class="bp-page">
        <div class="bp-header">
          {props.logoUrl && !logoBroken ? (
            <img src={props.logoUrl} alt={`${props.shopName} logo`} class="bp-logo" onError={() => setLogoBroken(true)} onLoad={() => setLogoBroken(false)} />
          ) : (
            <span class="bp-shop">{props.shopName}</span>
          )}
        </div>
        <h3 class="bp-headline">{text('headline')}</h3>
        <div class="bp-line">
          <span class="bp-thumb" aria-hidden="true" />
          <span class="bp-item">Linen tote × 2</span>
          <span>{formatAmount(4980, 'EUR')}</span>
        </div>
        <p class="bp-section">{text('contactHeading')}</p>
        <div class="bp-input">jane@example.com</div>
        <p class="bp-section">{text('shippingHeading')}</p>
        <div class="bp-rate"><span class="bp-radio" style={{ borderColor: theme.primary, background: theme.primary }} /> Standard <span class="bp-free" style={{ color: theme.link }}>Free</span></div>
        <button
          type="button"
          class="bp-pay"
          tabIndex={-1}
          style={{ background: hover ? theme.accent : theme.primary, color: hover ? theme.onAccent : theme.onPrimary }}
          onMouseEnter={() => setHover(true)}
          onMouseLeave={() => setHover(false)}
        >
          {text('payButtonLabel')} · {formatAmount(4980, 'EUR')}
        </button>
        <p class="bp-foot"><a style={{ color: theme.link }} href="#preview" onClick={(e) => e.preventDefault()}>{text('footerNote')}</a></p>
      </div>
      <figcaption>
        Hover the button to see the accent color.
        {theme.corrections.length > 0 && (
          <ul class="corrections" aria-label="Readability corrections">
            {theme.corrections.map((c) => <li key={c}>{c}</li>)}
          </ul>
        )}
      </figcaption>
    </figure>
  );
}

/** The wizard's step 2 and the Branding page: three fields (plus texts on the page). */
export function BrandingForm(props: { onSaved?: (m: Merchant) => void; withTexts?: boolean; submitLabel?: string }) {
  const { me, setMe } = useSession();
  const initialTexts = Object.fromEntries(CHECKOUT_TEXTS.map((t) => [`texts.${t.key}`, me?.checkoutTexts[t.key] ?? '']));
  // The texts per page language: `tr.<language>.<key>`, empty where the texts as written (or the page's words) serve.
  const initialTranslations = Object.fromEntries(
    PAGE_LANGUAGES.flatMap(({ code }) => CHECKOUT_TEXTS.map((t) => [`tr.${code}.${t.key}`, me?.checkoutTextTranslations?.[code]?.[t.key] ?? ''])),
  );
  const form = useForm<Record<string, string>>(
    { logoUrl: me?.branding.logoUrl ?? '', primaryColor: me?.branding.primaryColor ?? '', accentColor: me?.branding.accentColor ?? '', ...initialTexts, ...initialTranslations },
    ['branding.logoUrl', 'branding.primaryColor', 'branding.accentColor', 'checkoutTexts', 'checkoutTextTranslations'],
  );
  const [textLanguage, setTextLanguage] = useState('');
  const v = form.values;
  const texts = Object.fromEntries(CHECKOUT_TEXTS.map((t) => [t.key, v[`texts.${t.key}`] ?? '']));
  const translations = Object.fromEntries(PAGE_LANGUAGES.map(({ code }) => [code, Object.fromEntries(CHECKOUT_TEXTS.map((t) => [t.key, v[`tr.${code}.${t.key}`] ?? '']))]));
  // The preview shows the texts of the language being edited over the texts as written.
  const previewTexts = textLanguage ? { ...texts, ...Object.fromEntries(Object.entries(translations[textLanguage] ?? {}).filter(([, x]) => x.trim())) } : texts;
  const fieldError = (name: string) => form.errors[`branding.${name}`];
  const submit = () =>
    form.run(async () => {
      const problems: Record<string, string> = {};
      for (const name of ['primaryColor', 'accentColor'] as const) {
        const value = (v[name] ?? '').trim();
        if (value && !isHexColor(value)) problems[`branding.${name}`] = 'must be a hex color like #1a2b3c';
      }
      if (Object.keys(problems).length) throw invalid(problems);
      const body: Body<'/api/merchant/config', 'patch'> = {
        branding: {
          logoUrl: v.logoUrl!.trim() || null,
          primaryColor: v.primaryColor!.trim() || null,
          accentColor: v.accentColor!.trim() || null,
        },
      };
      if (props.withTexts) {
        body.checkoutTexts = texts;
        body.checkoutTextTranslations = translations;
      }
      const updated = await api.patch('/api/merchant/config', { body });
      setMe(updated);
      props.onSaved?.(updated);
      return 'Branding saved.';
    });
  return (
    <div class="split">
      <Form onSubmit={submit} error={form.error} notice={form.notice} label="Branding">
        <Field
          label="Logo URL"
          name="logoUrl"
          type="url"
          value={v.logoUrl!}
          onInput={(x) => form.set('logoUrl', x)}
          error={fieldError('logoUrl')}
          placeholder="https://cdn.example.com/logo.svg"
          hint="A public https link to a transparent PNG or SVG; 60 px high works best."
        />
        <ColorField label="Primary color" name="primaryColor" value={v.primaryColor!} onInput={(x) => form.set('primaryColor', x)} error={fieldError('primaryColor')} hint="Buttons, links and accents" />
        <ColorField label="Accent color (hover)" name="accentColor" value={v.accentColor!} onInput={(x) => form.set('accentColor', x)} error={fieldError('accentColor')} hint="Usually a darker shade of the primary" />
        {props.withTexts && (
          <fieldset class="fieldset">
            <legend>Checkout texts</legend>
            <p class="hint">
              The checkout speaks the shopper's language (English, German, French, Spanish, Italian or Dutch). Texts for every language show as you
              write them on every page; a text for one language replaces them on a page in that language. Leave a text empty to use the default shown
              in grey.
            </p>
            <SelectField
              label="Texts for"
              name="textLanguage"
              value={textLanguage}
              onChange={setTextLanguage}
              options={[{ value: '', label: 'Every language (as written)' }, ...PAGE_LANGUAGES.map((l) => ({ value: l.code, label: `${l.name} pages` }))]}
              error={textLanguage ? undefined : Object.keys(form.errors).some((k) => k.startsWith('checkoutTextTranslations.')) ? 'A text for one language needs correcting: choose its language' : undefined}
            />
            <div class="texts-grid">
              {CHECKOUT_TEXTS.map((t) => {
                const field = textLanguage ? `tr.${textLanguage}.${t.key}` : `texts.${t.key}`;
                const name = textLanguage ? `checkoutTextTranslations.${textLanguage}.${t.key}` : `checkoutTexts.${t.key}`;
                const placeholder = textLanguage ? v[`texts.${t.key}`] || t.placeholder : t.placeholder;
                return <Field key={field} label={t.label} name={name} value={v[field] ?? ''} onInput={(x) => form.set(field, x)} error={form.errors[name]} placeholder={placeholder} inputProps={{ maxLength: 300 }} />;
              })}
            </div>
          </fieldset>
        )}
        <Button type="submit" busy={form.busy}>{props.submitLabel ?? 'Save branding'}</Button>
      </Form>
      <BrandPreview shopName={me?.shopName ?? 'Your shop'} logoUrl={v.logoUrl!.trim()} primaryColor={v.primaryColor!.trim()} accentColor={v.accentColor!.trim()} texts={previewTexts} />
    </div>
  );
}

export function BrandingPage() {
  return (
    <>
      <PageHeader title="Branding" description="Your logo, colors and the words on your checkout. The preview updates as you type." />
      <Card>
        <BrandingForm withTexts />
      </Card>
    </>
  );
}
