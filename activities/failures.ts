// Turns an integration failure into the Temporal failure the workflow's retry policy acts on:
// permanent kinds (rejected, unauthorized, not_found, invalid_response, ...) become non-retryable,
// transient ones keep retrying, honouring a Retry-After the remote sent. Our own AppErrors are final, typed
// with their error code.
import { ApplicationFailure } from '@temporalio/common';
import { AppError } from '../domain/errors.js';
import { IntegrationError } from '../integrations/errors.js';

export function toActivityFailure(err: unknown): unknown {
  // Our own refusal (model/: a connection that is missing, a session that cannot be priced): final, with its code.
  if (err instanceof AppError) return ApplicationFailure.create({ type: err.code, message: err.message, nonRetryable: true, details: err.details ? [err.details] : [] });
  if (!(err instanceof IntegrationError)) return err;
  return ApplicationFailure.create({
    type: `${err.system}.${err.kind}`,
    message: err.message,
    nonRetryable: !err.retryable,
    nextRetryDelay: err.retryAfterMs,
    details: [{ system: err.system, kind: err.kind, status: err.status ?? null }],
  });
}

/** Wraps every function of an activity group so integration errors reach Temporal classified. */
export function classifyFailures<T extends Record<string, (...args: never[]) => Promise<unknown>>>(activities: T): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(activities)) {
    wrapped[name] = async (...args: never[]) => {
      try {
        return await fn(...args);
      } catch (err) {
        throw toActivityFailure(err);
      }
    };
  }
  return wrapped as T;
}
