// The storefront A script tag: every storefront page of a merchant's shop loads it (the platform's script
// tag, installed with the app). It takes over the shop's checkout button: the shopper's cart becomes a
// checkout session (POST /api/checkout/create on the API this file was served from) and the browser goes to
// the hosted checkout page. The shop's own checkout always stays one step away: on passthrough (the
// merchant's plan has no hosted checkout), on any error answer, on a network failure, after 4 seconds
// without an answer, or if anything in here throws, the button does what it did before. A broken script
// must never block a sale.

declare global {
  interface Window {
    /** What the shop page gives scripts (the sandbox and the platform's own globals). */
    Storefront?: { shop?: string; cartToken?: string | null; cartUrl?: string; root?: string };
    Shopify?: { shop?: string; routes?: { root?: string } };
    __checkoutScriptTag?: boolean;
  }
}

const TIMEOUT_MS = 4_000;

/** The API origin: where this script was loaded from (captured while it runs, before any event). */
const apiOrigin = (() => {
  try {
    const src = (document.currentScript as HTMLScriptElement | null)?.src;
    return src ? new URL(src).origin : null;
  } catch {
    return null;
  }
})();

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

async function cartToken(signal: AbortSignal): Promise<string | null> {
  const sf = window.Storefront;
  if (sf?.cartToken) return sf.cartToken;
  // The platform's cart endpoint (`<root>cart.js`) knows the token of the shopper's cart cookie.
  const root = sf?.root ?? window.Shopify?.routes?.root ?? '/';
  const res = await fetch(sf?.cartUrl ?? `${root}cart.js`, { credentials: 'same-origin', headers: { accept: 'application/json' }, signal });
  if (!res.ok) return null;
  const cart = (await res.json()) as { token?: unknown };
  return typeof cart.token === 'string' && cart.token ? cart.token : null;
}

/** The hosted checkout URL for this cart, or null: the shop's own checkout should continue. */
async function hostedCheckoutUrl(): Promise<string | null> {
  const shop = window.Storefront?.shop ?? window.Shopify?.shop;
  if (!apiOrigin || !shop) return null;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), TIMEOUT_MS);
  try {
    const token = await cartToken(controller.signal);
    if (!token) return null;
    const res = await fetch(`${apiOrigin}/api/checkout/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ platform: 'storefront-a', shop, cartToken: token }),
      signal: controller.signal,
    });
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
function takeOver(event: Event, control: HTMLElement | null, native: () => void): void {
  if (bypass) return;
  event.preventDefault();
  if (busy) return;
  busy = true;
  setWaiting(control, true);
  void hostedCheckoutUrl()
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

function install(): void {
  if (window.__checkoutScriptTag) return;
  window.__checkoutScriptTag = true;

  document.addEventListener(
    'submit',
    (event) => {
      try {
        const form = event.target as HTMLFormElement;
        const submitter = ((event as SubmitEvent).submitter as HTMLElement | null) ?? null;
        if (!(form instanceof HTMLFormElement) || !isCheckoutForm(form, submitter)) return;
        takeOver(event, submitter ?? form, () => {
          // requestSubmit keeps the submitter's name=value (the platform reads `checkout` from it).
          try {
            form.requestSubmit(submitter && submitter.matches('button, input') ? submitter : undefined);
          } catch {
            form.submit();
          }
        });
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
        takeOver(event, a, () => window.location.assign(a.href));
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
