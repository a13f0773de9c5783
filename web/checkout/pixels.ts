// The merchant's tracking pixels (domain/checkout/pixels.ts): each platform's own tag, loaded only when the merchant
// configured it and only after the page is up (it never delays the checkout), with the checkout's events
// mapped onto the platform's names. `purchase` carries the session token as event id (platforms de-duplicate
// on it) and fires once per session: a reload or a second visit of the confirmation page sends nothing.
import type { Pixel } from './types.js';

export type PixelEventName = 'page_view' | 'begin_checkout' | 'add_shipping_info' | 'add_payment_info' | 'purchase';

export interface PixelEventData {
  token: string;
  currency: string;
  /** Major units (what every platform expects), from the session's minor units. */
  value?: number;
}

type Fn = (...args: unknown[]) => void;
type Win = Window & Record<string, unknown>;

interface Platform {
  script: (id: string) => string;
  init: (w: Win, id: string) => void;
  send: (w: Win, id: string, event: PixelEventName, data: PixelEventData) => void;
}

/**
 * A platform's command function as its official snippet defines it: calls wait in `queue` until the platform's
 * tag has loaded and installed its handler (`hook`), then go straight to it.
 */
function stub(w: Win, name: string, hook?: string, extra: Record<string, unknown> = {}): void {
  if (typeof w[name] === 'function') return;
  const f = Object.assign(
    (...args: unknown[]) => {
      const handler = hook ? (f as unknown as Record<string, unknown>)[hook] : undefined;
      if (typeof handler === 'function') (handler as Fn)(...args);
      else f.queue.push(args);
    },
    { queue: [] as unknown[][] },
    extra,
  );
  w[name] = f;
}

/** Calls the platform's global as it is now (its tag may have replaced our stub). */
const call = (w: Win, name: string, ...args: unknown[]) => (w[name] as Fn)(...args);

const value = (d: PixelEventData) => (d.value === undefined ? {} : { value: d.value, currency: d.currency });

const META: Record<PixelEventName, string> = {
  page_view: 'PageView', begin_checkout: 'InitiateCheckout', add_shipping_info: 'AddShippingInfo', add_payment_info: 'AddPaymentInfo', purchase: 'Purchase',
};
const TIKTOK: Partial<Record<PixelEventName, string>> = { begin_checkout: 'InitiateCheckout', add_payment_info: 'AddPaymentInfo', purchase: 'CompletePayment' };
const SNAP: Record<PixelEventName, string> = {
  page_view: 'PAGE_VIEW', begin_checkout: 'START_CHECKOUT', add_shipping_info: 'ADD_SHIPPING_INFO', add_payment_info: 'ADD_BILLING', purchase: 'PURCHASE',
};

function gtag(w: Win): Fn {
  const layer = ((w.dataLayer as unknown[] | undefined) ??= []);
  // gtag.js reads the `arguments` objects pushed here, not arrays.
  w.gtag ??= function gtag() {
    // eslint-disable-next-line prefer-rest-params
    layer.push(arguments);
  };
  return w.gtag as Fn;
}

/** TikTok's `ttq` is an array with methods that push commands; events.js reads `_i`, `_t`, `_o` per pixel. */
function tiktok(w: Win, id: string): void {
  w.TiktokAnalyticsObject = 'ttq';
  const ttq = (w.ttq ??= []) as unknown[] & Record<string, unknown>;
  for (const method of ['page', 'track', 'identify']) ttq[method] ??= (...args: unknown[]) => ttq.push([method, ...args]);
  const i = ((ttq._i as Record<string, unknown> | undefined) ??= {});
  i[id] = Object.assign([], { _u: 'https://analytics.tiktok.com/i18n/pixel/events.js' });
  ((ttq._t as Record<string, number> | undefined) ??= {})[id] = Date.now();
  ((ttq._o as Record<string, unknown> | undefined) ??= {})[id] = {};
}

const PLATFORMS: Record<string, Platform> = {
  meta: {
    script: () => 'https://connect.facebook.net/en_US/fbevents.js',
    init: (w, id) => {
      stub(w, 'fbq', 'callMethod', { loaded: true, version: '2.0' });
      w._fbq ??= w.fbq;
      call(w, 'fbq', 'init', id);
    },
    send: (w, id, event, d) => {
      const method = event === 'add_shipping_info' ? 'trackSingleCustom' : 'trackSingle';
      call(w, 'fbq', method, id, META[event], value(d), event === 'purchase' ? { eventID: d.token } : {});
    },
  },
  ga4: {
    script: (id) => `https://www.googletagmanager.com/gtag/js?id=${encodeURIComponent(id)}`,
    init: (w, id) => {
      const g = gtag(w);
      g('js', new Date());
      g('config', id, { send_page_view: false });
    },
    send: (w, id, event, d) => gtag(w)('event', event, { send_to: id, ...value(d), ...(event === 'purchase' ? { transaction_id: d.token } : {}) }),
  },
  google_ads: {
    script: (id) => `https://www.googletagmanager.com/gtag/js?id=${encodeURIComponent(id.split('/')[0]!)}`,
    init: (w, id) => {
      const g = gtag(w);
      g('js', new Date());
      g('config', id.split('/')[0]);
    },
    // Ads measures conversions: only the purchase, sent to the conversion id/label.
    send: (w, id, event, d) => {
      if (event === 'purchase') gtag(w)('event', 'conversion', { send_to: id, ...value(d), transaction_id: d.token });
    },
  },
  tiktok: {
    script: (id) => `https://analytics.tiktok.com/i18n/pixel/events.js?sdkid=${encodeURIComponent(id)}&lib=ttq`,
    init: tiktok,
    send: (w, _id, event, d) => {
      const ttq = w.ttq as Record<string, Fn>;
      if (event === 'page_view') ttq.page!();
      else if (TIKTOK[event]) ttq.track!(TIKTOK[event], value(d), event === 'purchase' ? { event_id: d.token } : {});
    },
  },
  pinterest: {
    script: () => 'https://s.pinimg.com/ct/core.js',
    init: (w, id) => {
      stub(w, 'pintrk', undefined, { version: '3.0' });
      call(w, 'pintrk', 'load', id);
    },
    send: (w, _id, event, d) => {
      if (event === 'page_view') call(w, 'pintrk', 'page');
      else if (event === 'purchase') call(w, 'pintrk', 'track', 'checkout', { ...value(d), order_id: d.token, event_id: d.token });
    },
  },
  snapchat: {
    script: () => 'https://sc-static.net/scevent.min.js',
    init: (w, id) => {
      stub(w, 'snaptr', 'handleRequest');
      call(w, 'snaptr', 'init', id);
    },
    send: (w, _id, event, d) =>
      call(w, 'snaptr', 'track', SNAP[event], {
        ...(d.value === undefined ? {} : { price: d.value, currency: d.currency }),
        ...(event === 'purchase' ? { transaction_id: d.token, client_dedup_id: d.token } : {}),
      }),
  },
};

const PURCHASE_KEY = (token: string) => `checkout:purchase-sent:${token}`;

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

export interface Pixels {
  fire(event: PixelEventName, data: PixelEventData): void;
}

/** Loads the configured tags (after `load`, off the critical path) and answers a fire() that respects each pixel's events. */
export function createPixels(configs: readonly Pixel[]): Pixels {
  const w = window as unknown as Win;
  const active = configs.filter((p) => PLATFORMS[p.platform] && typeof p.trackingId === 'string' && Array.isArray(p.events));
  const sentPurchase = new Set<string>();
  const loaded = new Set<string>();
  for (const pixel of active) {
    const platform = PLATFORMS[pixel.platform]!;
    platform.init(w, pixel.trackingId);
    const src = platform.script(pixel.trackingId);
    if (loaded.has(src)) continue;
    loaded.add(src);
    const add = () => {
      const el = document.createElement('script');
      el.async = true;
      el.src = src;
      document.head.appendChild(el);
    };
    if (document.readyState === 'complete') setTimeout(add, 0);
    else window.addEventListener('load', () => setTimeout(add, 0), { once: true });
  }
  return {
    fire(event, data) {
      if (!active.length) return;
      if (event === 'purchase') {
        const store = storage();
        if (sentPurchase.has(data.token) || store?.getItem(PURCHASE_KEY(data.token))) return;
        sentPurchase.add(data.token);
        try {
          store?.setItem(PURCHASE_KEY(data.token), new Date().toISOString());
        } catch {
          // Storage full or blocked: the in-memory guard and the platforms' de-duplication by event id remain.
        }
      }
      for (const pixel of active) {
        if (pixel.events.includes(event)) PLATFORMS[pixel.platform]!.send(w, pixel.trackingId, event, data);
      }
    },
  };
}
