// The one catalogue of error codes: every failure the API answers is `{ error, code }` with the HTTP
// status listed here. Pure module: shared by api/, workflows/ (as ApplicationFailure types) and web/.

export const ERROR_CODES = {
  INVALID_INPUT: 400,
  INVALID_SLUG: 400,
  INVALID_TOKEN: 400,
  UNAUTHORIZED: 401,
  INVALID_CREDENTIALS: 401,
  INVALID_SIGNATURE: 401,
  INVALID_TWO_FACTOR_CODE: 401, // a wrong, expired or already used authenticator or recovery code (model/merchant/two-factor.ts)
  FORBIDDEN: 403,
  PLAN_FEATURE_REQUIRED: 403, // a setting the merchant's plan does not include (domain/merchant/plan-features.ts): details.requiredPlan names the plan that does
  SIGNUP_CLOSED: 403,
  EMAIL_NOT_VERIFIED: 403,
  ORIGIN_NOT_ALLOWED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408, // the request did not arrive in time (Node's HTTP server gave up on it)
  EMAIL_EXISTS: 409,
  DOMAIN_EXISTS: 409,
  SLUG_COLLISION: 409,
  CONFLICT: 409,
  HANDOFF_REPLAYED: 409, // a signed storefront B handoff already made a checkout: details name it (token, checkoutUrl) so the plugin sends the shopper there
  STEP_INCOMPLETE: 409, // the wizard's Continue on a step without what it needs (PATCH /api/merchant/onboarding with continueFrom): the reason says what
  SETUP_NOT_VERIFIED: 409, // onboardingCompletedAt is set by setup verification only (POST /api/merchant/setup-verification)
  DISCOUNT_CODE_EXISTS: 409, // the merchant already has this code (codes are case-insensitive)
  PREVIEW_SESSION: 409, // a preview checkout: nothing can be paid or confirmed on it
  COD_NOT_ENABLED: 409, // complete-cod while the merchant has cash on delivery switched off
  NOT_REFUNDABLE: 409, // only a COMPLETED card payment can be refunded (COD, open, failed... cannot)
  REFUND_ALREADY_REQUESTED: 409, // a refund was already asked for (or done): never a second one
  UPSELL_NOT_AVAILABLE: 409, // a post-purchase offer that cannot be added: the checkout is not paid by card, the offer is gone, or its payment method cannot be charged again
  // Outgoing webhooks (docs/webhooks.md).
  WEBHOOK_ENDPOINT_DISABLED: 409, // a test event or a replay to a disabled endpoint: enable it first
  WEBHOOK_DELIVERY_IN_PROGRESS: 409, // a replay of a delivery that is still being attempted (its schedule runs)
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414, // a path parameter longer than the router accepts
  UNSUPPORTED_MEDIA_TYPE: 415,
  INVALID_PROCESSOR_KEY: 422,
  INVALID_STORE_CREDENTIALS: 422,
  REFUND_EXCEEDS_BALANCE: 422, // a refund larger than what is left of the charge (details.refundableMinor)
  UNSUPPORTED_CURRENCY: 422,
  IDEMPOTENCY_KEY_REUSED: 422, // an Idempotency-Key already used in the last 24 hours for a different request (method, URL or body) // a store's checkout currency we cannot price in (unknown ISO code or no FX rate)
  // A discount code that does not apply to this checkout, one code per reason (domain/checkout/discounts.ts).
  DISCOUNT_UNKNOWN: 422, // no such code for this shop, or the merchant paused it
  DISCOUNT_EXPIRED: 422,
  DISCOUNT_USED_UP: 422, // its usage limit is reached
  DISCOUNT_MINIMUM_NOT_MET: 422, // details.minimumSubtotal: the subtotal it needs, in the checkout currency
  DISCOUNT_ALREADY_USED: 422, // a once-per-email code this email already used
  RATE_LIMITED: 429,
  TWO_FACTOR_LOCKED: 429, // 5 wrong codes in a row: code checks of this person pause (details.retryAfterSeconds)
  HEADERS_TOO_LARGE: 431, // request headers over Node's limit (16 KB by default)
  INTERNAL_ERROR: 500,
  UPSTREAM_ERROR: 502,
  NOT_READY: 503,
  PROCESSOR_TIMEOUT: 504,
  STORE_TIMEOUT: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export function statusOf(code: ErrorCode): number {
  return ERROR_CODES[code];
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

/** A failure the API reports to its caller as `{ error, code }` (plus optional `details`). */
export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.code = code;
    this.status = ERROR_CODES[code];
    this.details = details;
  }
}
