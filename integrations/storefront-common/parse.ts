// Every storefront response is zod-parsed before use: a body that is not in the protocol's shape becomes
// IntegrationError 'invalid_response' (permanent) instead of an undefined deep inside the service.
import type { z } from 'zod';
import { IntegrationError } from '../errors.js';

export function parseResponse<S extends z.ZodType>(system: string, schema: S, body: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
  throw new IntegrationError(system, 'invalid_response', `${system}: unexpected ${what} (${detail})`, { remote: body });
}

/** Converts a store's decimal price, turning a price we cannot represent exactly into 'invalid_response'. */
export function toMinorOrThrow(system: string, convert: () => number, what: string): number {
  try {
    return convert();
  } catch (err) {
    throw new IntegrationError(system, 'invalid_response', `${system}: ${what}: ${(err as Error).message}`, { cause: err });
  }
}
