// Typed errors: every refusal of the API is `{ error, code }` (plus `details` for some codes), raised here as a
// CheckoutApiError carrying the HTTP status and the request id the server answered with; a request that got no
// answer at all (connection refused, timed out) is a CheckoutConnectionError.
import type { components } from './schema.js';

/** Every code the API answers with (from the OpenAPI document's Error schema). */
export type ErrorCode = components['schemas']['Error']['code'];

export class CheckoutApiError extends Error {
  override readonly name = 'CheckoutApiError';
  constructor(
    /** HTTP status of the answer. */
    readonly status: number,
    /** The API's error code, e.g. NOT_FOUND, INVALID_INPUT, RATE_LIMITED. */
    readonly code: ErrorCode | (string & {}),
    message: string,
    /** Extra facts some codes carry (e.g. `fields` for INVALID_INPUT). */
    readonly details: Record<string, unknown> | undefined,
    /** The server's request id for this answer: quote it to support. */
    readonly requestId: string | null,
  ) {
    super(message);
  }

  /** The field messages of an INVALID_INPUT answer (`body.code` → message), empty otherwise. */
  get fields(): Record<string, string> {
    const fields = this.details?.fields;
    return fields && typeof fields === 'object' ? (fields as Record<string, string>) : {};
  }
}

export class CheckoutConnectionError extends Error {
  override readonly name = 'CheckoutConnectionError';
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}

/** The request id header the server sets on every answer. */
export const requestIdOf = (response: Response): string | null => response.headers.get('request-id') ?? response.headers.get('x-request-id');

/** An answer that is not 2xx, as the error it stands for (the body read as `{ error, code, details }` when it is). */
export function apiErrorOf(response: Response, body: unknown): CheckoutApiError {
  const answer = body && typeof body === 'object' ? (body as { error?: unknown; code?: unknown; details?: unknown }) : {};
  const code = typeof answer.code === 'string' ? answer.code : `HTTP_${response.status}`;
  const message = typeof answer.error === 'string' ? answer.error : `${response.status} ${response.statusText}`.trim();
  const details = answer.details && typeof answer.details === 'object' ? (answer.details as Record<string, unknown>) : undefined;
  return new CheckoutApiError(response.status, code, message, details, requestIdOf(response));
}
