// Checkout session tokens are bearer secrets in URLs: 'cs_' (or 'prev_' for previews) and 32 base62 or
// base64url characters (≥ 190 bits, well over the 128 needed to be unguessable). Only the shape is checked
// here, so a malformed token is refused before any database read; api/ generates them with node:crypto.

const BODY = '[A-Za-z0-9_-]{32}';
const CHECKOUT = new RegExp(`^cs_${BODY}$`);
const PREVIEW = new RegExp(`^prev_${BODY}$`);

/** Either kind, as one pattern (the OpenAPI document states it for every :token path parameter). */
export const SESSION_TOKEN_PATTERN = new RegExp(`^(?:cs|prev)_${BODY}$`);

export const CHECKOUT_TOKEN_PREFIX = 'cs_';
export const PREVIEW_TOKEN_PREFIX = 'prev_';

export function isCheckoutToken(value: unknown): value is string {
  return typeof value === 'string' && CHECKOUT.test(value);
}

export function isPreviewToken(value: unknown): value is string {
  return typeof value === 'string' && PREVIEW.test(value);
}

/** Either kind: what a /checkout/:token path accepts. */
export function isSessionToken(value: unknown): value is string {
  return isCheckoutToken(value) || isPreviewToken(value);
}
