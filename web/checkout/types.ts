// What the checkout page reads, typed from the API's own zod schemas (types only: nothing of zod reaches
// the browser), plus the embedded first answer the page route puts into the HTML.
import type { z } from 'zod';
import type { sessionBundleResponse, sessionStatusResponse } from '../../api/schemas/checkout.js';

export type Bundle = z.output<typeof sessionBundleResponse>;
export type SessionStatus = z.output<typeof sessionStatusResponse>;
export type Status = Bundle['status'];
export type CartItem = Bundle['cart']['items'][number];
export type ShippingQuote = Bundle['shipping'][number];
export type Address = NonNullable<Bundle['shopper']['address']>;

/** An order bump as the page shows it (GET /api/checkout/:token/order-bumps, in the session currency). */
export interface OrderBump {
  id: string;
  title: string;
  description?: string | null;
  imageUrl?: string | null;
  price: { amount: number; currency: string };
  compareAtPrice?: { amount: number; currency: string } | null;
}

/** An upsell offer (GET /api/checkout/:token/upsells, in the session currency). */
export interface Upsell {
  id: string;
  placement: 'pre_confirm' | 'post_purchase';
  headline: string;
  description: string | null;
  title: string;
  imageUrl: string | null;
  price: { amount: number; currency: string };
  discountPercent: number;
  offerPrice: { amount: number; currency: string };
}

/** A tracking pixel (in the bundle and at GET /api/checkout/:token/pixels). */
export interface Pixel {
  platform: string;
  trackingId: string;
  events: string[];
}

/** Everything the page route embedded (`<script id="checkout-data" type="application/json">`). */
export interface Embedded {
  token: string;
  /** null: no such session for this host (the page shows "not found"). */
  bundle: Bundle | null;
  orderBumps?: unknown;
  upsells?: unknown;
  /** The merchant's processor is ready for card payments. */
  cardEnabled?: boolean;
  /** Card payments happen inside this page, in the processor's embedded checkout served from this origin; script: our module that mounts it. */
  embed?: { origin: string; script: string };
  /** Our module with the tracking pixels' code (web/checkout/pixels.ts), given only when the merchant has a pixel. */
  pixelsScript?: string;
  /** The language the page speaks (chosen by the server: the store's, else Accept-Language), and its words (English too). */
  language?: string;
  messages?: unknown;
}
