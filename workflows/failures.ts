// One way to turn an activity failure into the answer of whoever waits on a workflow (the API answers the failure's
// type as the error code, api/plugins/errors.ts): a failure that already carries one of our codes passes through; a
// remote failure classified by activities/failures.ts (`<system>.<kind>`) is worded by its system's table; a remote
// that never answered through the retries is the table's timeout; anything else from an activity is `otherwise`.
// Deterministic: workflow code.
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import { isErrorCode, type ErrorCode } from '../domain/errors.js';

export interface Answer {
  code: ErrorCode;
  message: string;
}

/** How one system's failures read to the person waiting. */
export interface FailureWording {
  /** By failure type (`processor.unauthorized`, ...). */
  byType?: Partial<Record<string, Answer>>;
  /** A time-out: a `<system>.timeout` type without its own wording, or the activity's own time-out. */
  timeout: Answer;
  /** Any other failure of an activity. */
  otherwise: Answer;
}

/**
 * The answer for `err`, or undefined when it did not come from an activity or carry our code (a cancellation, a
 * bug in workflow code): the caller rethrows those as they are.
 */
export function describeFailure(err: unknown, wording: FailureWording): Answer | undefined {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof ApplicationFailure && isErrorCode(e.type)) return { code: e.type, message: e.message };
  }
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    const type = cause.type ?? '';
    return wording.byType?.[type] ?? (type.endsWith('.timeout') ? wording.timeout : wording.otherwise);
  }
  if (cause instanceof TimeoutFailure) return wording.timeout;
  return err instanceof ActivityFailure ? wording.otherwise : undefined;
}

/** The same as the failure a workflow (or an update) ends with: non-retryable, typed with the code. */
export function asCallerAnswer(err: unknown, wording: FailureWording): unknown {
  const answer = describeFailure(err, wording);
  return answer ? ApplicationFailure.nonRetryable(answer.message, answer.code) : err;
}
