// The storefront A (Shopify) checkout takeover, one source for both ways a shop page loads it:
//   - the app embed of our theme app extension (docs/storefront-a.md): the build of this file is
//     store-extensions/storefront-a-theme-extension/assets/checkout-embed.js (`npm run web:build -- checkout-takeover` writes it;
//     test/browser/app-embed-asset.test.ts fails when it differs from a fresh build). The block's Liquid writes the
//     API base (our app-data metafield), the shop and the shopper's language as JSON into #hosted-checkout-config;
//   - a legacy script tag, `{PUBLIC_API_URL}/script-tag.js` (Shopify runs existing ones until 2027-03-01): the API is
//     the origin this file was loaded from, the shop is `window.Shopify.shop`.
// It takes over the shop's checkout button: the shopper's cart becomes a checkout session (POST /api/checkout/create)
// and the browser goes to the hosted checkout page. The shop's own checkout always stays one step away: on
// passthrough (the merchant's plan has no hosted checkout), on any error answer, on a network failure, after 4 seconds
// without an answer, or if anything in here throws, the button does what it did before. A broken script must never
// block a sale.

declare global {
  interface Window {
    /** What a Shopify storefront page gives scripts (the theme's globals). */
    Shopify?: { shop?: string; routes?: { root?: string } };
    /** Set by the first copy that installs (a page may carry the app embed and a legacy script tag). */
    __checkoutScriptTag?: boolean;
  }
}

const TIMEOUT_MS = 4_000;
/** The element the app embed block writes its configuration into (store-extensions/storefront-a-theme-extension/blocks/). */
const EMBED_CONFIG_ID = 'hosted-checkout-config';

/** The origin this file was loaded from (captured while it runs, before any event): a script tag's API. */
const scriptOrigin = (() => {
  try {
    const src = (document.currentScript as HTMLScriptElement | null)?.src;
    return src ? new URL(src).origin : null;
  } catch {
    return null;
  }
})();

const nonEmpty = (value: unknown): string | null => (typeof value === 'string' && value ? value : null);

interface Target {
  /** The API's base URL, without a trailing slash. */
  api: string;
  shop: string;
  /** The language the shopper browses the store in (the embed's `request.locale.iso_code`): the checkout page speaks it first. */
  locale: string | null;
}

/** Where checkouts go: the app embed's configuration when the page has it, else the script tag's origin; null: nowhere. */
function checkoutTarget(): Target | null {
  const el = document.getElementById(EMBED_CONFIG_ID);
  if (el) {
    let config: { apiBase?: unknown; shop?: unknown; locale?: unknown } | null;
    try {
      config = JSON.parse(el.textContent ?? 'null') as typeof config;
    } catch {
      return null;
    }
    const api = nonEmpty(config?.apiBase);
    const shop = nonEmpty(config?.shop);
    return api && shop ? { api: api.replace(/\/+$/, ''), shop, locale: nonEmpty(config?.locale) } : null;
  }
  const shop = nonEmpty(window.Shopify?.shop);
  return scriptOrigin && shop ? { api: scriptOrigin, shop, locale: null } : null;
}

/** The storefront's checkout controls: the platform's `name="checkout"` button, its form, or links to /checkout. */
function isCheckoutForm(form: HTMLFormElement, submitter: HTMLElement | null): boolean {
  if (submitter?.matches('[data-storefront-checkout], [name="checkout"]')) return true;
  if (form.querySelector('[data-storefront-checkout]')) return true;
  try {
    return /\/checkout\/?$/.test(new URL(form.action, location.href).pathname);
  } catch {
    return false;
  }
}

function isCheckoutLink(a: HTMLAnchorElement): boolean {
  try {
    const url = new URL(a.href, location.href);
    return url.origin === location.origin && /\/checkout\/?$/.test(url.pathname);
  } catch {
    return false;
  }
}

/** The token of the shopper's cart (the platform's `<root>cart.js` reads it from the cart cookie); null when the cart is empty. */
async function cartToken(signal: AbortSignal): Promise<string | null> {
  const root = window.Shopify?.routes?.root ?? '/';
  const res = await fetch(`${root}cart.js`, { credentials: 'same-origin', headers: { accept: 'application/json' }, signal });
  if (!res.ok) return null;
  const cart = (await res.json()) as { token?: unknown; item_count?: unknown };
  return typeof cart.item_count === 'number' && cart.item_count > 0 ? nonEmpty(cart.token) : null;
}

/** The hosted checkout URL for this cart, or null: the shop's own checkout should continue. */
async function hostedCheckoutUrl(target: Target): Promise<string | null> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), TIMEOUT_MS);
  try {
    const token = await cartToken(controller.signal);
    if (!token) return null;
    const res = await fetch(`${target.api}/api/checkout/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(
        target.locale
          ? { platform: 'storefront-a', shop: target.shop, cartToken: token, locale: target.locale }
          : { platform: 'storefront-a', shop: target.shop, cartToken: token },
      ),
      signal: controller.signal,
    });
    // 201: a session; 200 `{ passthrough: true }` and anything else: the shop's own checkout.
    if (res.status !== 201) return null;
    const body = (await res.json()) as { checkoutUrl?: unknown };
    return typeof body.checkoutUrl === 'string' && /^https?:\/\//.test(body.checkoutUrl) ? body.checkoutUrl : null;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

let busy = false;
/** Set while the native checkout continues, so our own re-submit is not intercepted again. */
let bypass = false;

function setWaiting(control: HTMLElement | null, waiting: boolean): void {
  if (!control) return;
  control.setAttribute('aria-busy', waiting ? 'true' : 'false');
  control.style.opacity = waiting ? '0.6' : '';
}

/** Intercepts one checkout action: `native` continues the shop's own checkout. */
function takeOver(target: Target, event: Event, control: HTMLElement | null, native: () => void): void {
  if (bypass) return;
  event.preventDefault();
  // The theme's own handlers (a cart drawer's, say) must not act on this click or submit: they get the re-submit.
  event.stopImmediatePropagation();
  if (busy) return;
  busy = true;
  setWaiting(control, true);
  void hostedCheckoutUrl(target)
    .then((url) => {
      if (url) {
        window.location.assign(url);
        return;
      }
      throw new Error('passthrough');
    })
    .catch(() => {
      busy = false;
      setWaiting(control, false);
      bypass = true;
      try {
        native();
      } finally {
        bypass = false;
      }
    });
}

/** The form's own submit, with the button's name=value the platform reads (`checkout`). */
function submitNatively(form: HTMLFormElement, submitter: HTMLElement | null): void {
  const button = submitter?.matches('button, input') ? (submitter as HTMLButtonElement | HTMLInputElement) : null;
  try {
    form.requestSubmit(button ?? undefined);
  } catch {
    // No requestSubmit, or the button is not the form's: a plain submit carrying the button's value.
    if (button?.name) {
      const field = document.createElement('input');
      field.type = 'hidden';
      field.name = button.name;
      field.value = button.value;
      form.appendChild(field);
    }
    // The prototype's: a theme's field named "submit" shadows form.submit.
    HTMLFormElement.prototype.submit.call(form);
  }
}

function install(): void {
  if (window.__checkoutScriptTag) return;
  const target = checkoutTarget();
  // Nowhere to send checkouts (an embed without its metafield, a copy loaded from elsewhere): the page stays as it is.
  if (!target) return;
  window.__checkoutScriptTag = true;

  // Capture phase and delegation: cart drawers re-render, and the theme's own handlers must not run first.
  document.addEventListener(
    'submit',
    (event) => {
      try {
        const form = event.target as HTMLFormElement;
        const submitter = ((event as SubmitEvent).submitter as HTMLElement | null) ?? null;
        if (!(form instanceof HTMLFormElement) || !isCheckoutForm(form, submitter)) return;
        takeOver(target, event, submitter ?? form, () => submitNatively(form, submitter));
      } catch {
        // Never in the shop's way: the event goes on untouched.
      }
    },
    true,
  );

  document.addEventListener(
    'click',
    (event) => {
      try {
        const a = (event.target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null;
        if (!a || event.defaultPrevented || (event as MouseEvent).button !== 0 || (event as MouseEvent).metaKey || (event as MouseEvent).ctrlKey || !isCheckoutLink(a)) return;
        takeOver(target, event, a, () => window.location.assign(a.href));
      } catch {
        // As above.
      }
    },
    true,
  );
}

try {
  install();
} catch {
  // A script that cannot install changes nothing on the page.
}

export {};
