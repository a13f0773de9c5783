// One error type for every external system. Activities turn `retryable: false` into a non-retryable
// Temporal failure; the API maps kinds to error codes (e.g. the processor's `unauthorized` becomes
// INVALID_PROCESSOR_KEY, its `timeout` PROCESSOR_TIMEOUT).
export type IntegrationErrorKind =
  | 'unauthorized' // credentials rejected (401/403)
  | 'rejected' // the request itself was refused (400/422): permanent
  | 'not_found' // 404
  | 'conflict' // 409
  | 'rate_limited' // 429
  | 'timeout' // no answer in time
  | 'unavailable' // 5xx, connection refused or reset
  | 'invalid_response'; // answered, but not in the protocol's shape

const RETRYABLE: ReadonlySet<IntegrationErrorKind> = new Set(['rate_limited', 'timeout', 'unavailable']);

export class IntegrationError extends Error {
  override name = 'IntegrationError';
  readonly system: string;
  readonly kind: IntegrationErrorKind;
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  /** The remote side's own error body, when it sent one (never contains our credentials). */
  readonly remote: unknown;

  constructor(
    system: string,
    kind: IntegrationErrorKind,
    message: string,
    opts: { status?: number; retryAfterMs?: number; remote?: unknown; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.system = system;
    this.kind = kind;
    this.status = opts.status;
    this.retryable = RETRYABLE.has(kind);
    this.retryAfterMs = opts.retryAfterMs;
    this.remote = opts.remote;
  }
}

export function isIntegrationError(err: unknown, kind?: IntegrationErrorKind): err is IntegrationError {
  return err instanceof IntegrationError && (kind === undefined || err.kind === kind);
}
