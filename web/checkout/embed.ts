// Whop's embedded checkout on the payment step: an entry of its own that the page imports only then (web/vite.config.ts),
// with @whop/checkout's util module in a chunk apart (it does not count against the page's own budget:
// scripts/lib/web-size.ts). The package builds the iframe's URL, its sandbox and permissions, and hears only this
// iframe's window; this module mounts it, shows it once it reports its height (`resize`: it is there), and hands the
// page the payment's id when it reports `complete`, once.
import {
  EMBEDDED_CHECKOUT_IFRAME_ALLOW_STRING,
  EMBEDDED_CHECKOUT_IFRAME_SANDBOX_LIST,
  getEmbeddedCheckoutIframeUrl,
  onWhopCheckoutMessage,
} from '@whop/checkout/util';

export interface EmbedOptions {
  /** Where the processor serves the embed (from the page route: the deployment's configuration, nothing a shopper sends). */
  origin: string;
  /** The processor's payment URL init-payment answered (…/checkout/<plan>/?session=<ch>): the plan and configuration to embed. */
  paymentUrl: string;
  email: string;
  address: Record<string, string>;
  title: string;
  /** The iframe is there (its first message): the page stops waiting for it. */
  ready: () => void;
  /** This payment cannot be embedded: the hosted page instead. */
  fail: () => void;
  onPaid: (paymentId: string) => void;
}

/** The plan and checkout configuration of the processor's payment URL (…/checkout/<plan>/?session=<ch>), or null. */
export function embedTarget(paymentUrl: string): { planId: string; sessionId: string } | null {
  // Always a URL (init-payment's answer); were it not, the page's wait for the embed ends on the hosted page anyway.
  const url = new URL(paymentUrl);
  const planId = /^\/checkout\/(plan_\w+)\/?$/.exec(url.pathname)?.[1];
  const sessionId = url.searchParams.get('session');
  return planId && sessionId?.startsWith('ch_') ? { planId, sessionId } : null;
}

/** Mounts the embed in `container`; answers how to take it away. */
export function mountEmbed(container: HTMLElement, o: EmbedOptions): () => void {
  const target = embedTarget(o.paymentUrl);
  if (!target) {
    o.fail();
    return () => undefined;
  }
  const a = o.address;
  // The brand's primary as the page shows it (contrast-checked by the page route).
  const accentColor = getComputedStyle(document.documentElement).getPropertyValue('--primary').trim();
  const iframe = document.createElement('iframe');
  iframe.src = getEmbeddedCheckoutIframeUrl(
    target.planId,
    undefined,
    target.sessionId,
    `${o.origin}/`,
    false,
    // The page handles completion (it confirms with the API, as after the hosted page): the processor does not redirect.
    true,
    undefined,
    undefined,
    {
      email: o.email,
      // The shipping address the shopper just entered, as the billing address to start from (they can change it there).
      address: { name: a.name, line1: a.line1, line2: a.line2, city: a.city, postalCode: a.postalCode, state: a.region, country: a.country },
    },
    accentColor ? { accentColor } : undefined,
    false,
    false,
    false,
    false,
    false,
    undefined,
    undefined,
    // Back to this checkout: where the processor sends the tab when a payment method has to leave the page.
    location.origin + location.pathname,
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
    // The page's language.
    document.documentElement.lang,
  );
  iframe.title = o.title;
  iframe.sandbox.add(...EMBEDDED_CHECKOUT_IFRAME_SANDBOX_LIST);
  iframe.allow = EMBEDDED_CHECKOUT_IFRAME_ALLOW_STRING;
  iframe.className = 'embed-frame';
  container.append(iframe);
  let paid = false;
  const stop = onWhopCheckoutMessage(iframe, (m) => {
    if (m.event === 'resize') {
      iframe.style.height = `${m.height}px`;
      container.dataset.ready = '';
      o.ready();
    } else if (m.event === 'complete' && m.receipt_id && !paid) {
      paid = true;
      o.onPaid(m.receipt_id);
    }
  });
  return () => {
    stop();
    iframe.remove();
  };
}
