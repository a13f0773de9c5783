// Tracking pixels: which ad and analytics platforms a merchant measures the checkout with, the id each
// platform gives, and which checkout events fire. The ids are checked against each platform's published
// format so a typo is caught in the dashboard, not discovered as missing conversions weeks later.
// The checkout page fires `purchase` with the session token as event id: platforms de-duplicate on it, so a
// reloaded confirmation page never counts a sale twice.

export const PIXEL_PLATFORMS = ['meta', 'ga4', 'google_ads', 'tiktok', 'pinterest', 'snapchat'] as const;
export type PixelPlatform = (typeof PIXEL_PLATFORMS)[number];

/** The checkout's events, in the order a shopper meets them (names as GA4 spells them; the page maps them per platform). */
export const PIXEL_EVENTS = ['page_view', 'begin_checkout', 'add_shipping_info', 'add_payment_info', 'purchase'] as const;
export type PixelEvent = (typeof PIXEL_EVENTS)[number];

export const PIXEL_ID_FORMATS: Readonly<Record<PixelPlatform, { pattern: RegExp; example: string }>> = {
  // Meta (Facebook) pixel / dataset id: 15 or 16 digits.
  meta: { pattern: /^\d{15,16}$/, example: '123456789012345' },
  // GA4 measurement id.
  ga4: { pattern: /^G-[A-Z0-9]{6,12}$/, example: 'G-AB12CD34EF' },
  // Google Ads conversion id, optionally with its conversion label.
  google_ads: { pattern: /^AW-\d{9,11}(\/[A-Za-z0-9_-]{6,40})?$/, example: 'AW-123456789/AbC-D_efG12' },
  // TikTok pixel code: 20 upper-case letters and digits.
  tiktok: { pattern: /^[A-Z0-9]{20}$/, example: 'C4ABCDEF1234567890GH' },
  // Pinterest tag id: 13 digits.
  pinterest: { pattern: /^\d{13}$/, example: '2612345678901' },
  // Snap pixel id: a UUID.
  snapchat: { pattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, example: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d' },
};

export function isPixelPlatform(value: string): value is PixelPlatform {
  return (PIXEL_PLATFORMS as readonly string[]).includes(value);
}

/** Why `trackingId` is not an id of `platform`, or undefined when it is. */
export function pixelIdProblem(platform: PixelPlatform, trackingId: string): string | undefined {
  const { pattern, example } = PIXEL_ID_FORMATS[platform];
  return pattern.test(trackingId) ? undefined : `not a ${platform} id (expected the format of ${example})`;
}

/** The event id the checkout page sends with `purchase`: the session token, so each session counts once. */
export const purchaseEventId = (sessionToken: string) => sessionToken;
