// Turns an integration failure into the Temporal failure the workflow's retry policy acts on:
// permanent kinds (rejected, unauthorized, not_found, invalid_response, ...) become non-retryable,
// transient ones keep retrying, honouring a Retry-After the remote sent.
import { ApplicationFailure } from '@temporalio/common';
import { IntegrationError } from '../integrations/errors.js';

export function toActivityFailure(err: unknown): unknown {
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
